from __future__ import annotations

import torch

from torchaudio.functional import resample


class Resample(torch.nn.Module):
    def __init__(self, orig_freq: int = 16000, new_freq: int = 16000) -> None:
        super().__init__()
        self.orig_freq, self.new_freq = orig_freq, new_freq

    def forward(self, waveform: torch.Tensor) -> torch.Tensor:
        return resample(waveform, self.orig_freq, self.new_freq)
