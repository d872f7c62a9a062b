"""Band-limited resampling by windowed-sinc polyphase filtering (Hann window, width 6)."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

_KERNELS: dict[tuple[int, int], tuple[torch.Tensor, int]] = {}


def _kernel(orig: int, new: int, width: int = 6, rolloff: float = 0.99) -> tuple[torch.Tensor, int]:
    key = (orig, new)
    if key not in _KERNELS:
        cutoff = min(orig, new) * rolloff
        half = math.ceil(width * orig / cutoff)
        taps = torch.arange(-half, half + orig, dtype=torch.float64) / orig
        phase = -torch.arange(new, dtype=torch.float64)[:, None] / new
        t = ((phase + taps[None, :]) * cutoff).clamp(-width, width)
        window = torch.cos(t * math.pi / width / 2) ** 2
        t = t * math.pi
        sinc = torch.where(t == 0, torch.ones_like(t), torch.sin(t) / torch.where(t == 0, torch.ones_like(t), t))
        _KERNELS[key] = ((sinc * window * cutoff / orig).to(torch.float32)[:, None, :], half)
    return _KERNELS[key]


def resample(waveform: torch.Tensor, orig_freq: int, new_freq: int) -> torch.Tensor:
    g = math.gcd(int(orig_freq), int(new_freq))
    orig, new = int(orig_freq) // g, int(new_freq) // g
    if orig == new:
        return waveform
    shape = waveform.shape
    x = waveform.reshape(-1, 1, shape[-1])
    kernel, half = _kernel(orig, new)
    y = F.conv1d(F.pad(x, (half, half + orig)), kernel, stride=orig)
    y = y.transpose(1, 2).reshape(x.shape[0], -1)
    target = math.ceil(new * shape[-1] / orig)
    return y[..., :target].reshape(*shape[:-1], -1)
