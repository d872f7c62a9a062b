"""sox's `speed S` followed by `rate SR`: play the samples S times faster, then resample back
to SR, so the output has len / S samples (the chain WeNet's speed_perturb passes)."""

from __future__ import annotations

import torch

from torchaudio.functional import resample


def apply_effects_tensor(
    tensor: torch.Tensor, sample_rate: int, effects: list[list[str]], channels_first: bool = True
) -> tuple[torch.Tensor, int]:
    rate = float(sample_rate)
    out = tensor
    for effect in effects:
        name, value = effect[0], float(effect[1])
        if name == "speed":
            rate = rate * value
        elif name == "rate":
            out = resample(out, int(round(rate)), int(value))
            rate = value
        else:
            raise NotImplementedError(f"shim sox effect {name}")
    return out, int(rate)
