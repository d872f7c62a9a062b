"""Kaldi-style log mel filterbank (compute-fbank-feats defaults: snip_edges, DC removal,
pre-emphasis 0.97, povey window, FFT size the next power of two, power spectrum, mel banks
from 20 Hz to Nyquist, log floored at float32 epsilon). Same frame count and layout as
torchaudio.compliance.kaldi.fbank."""

from __future__ import annotations

import math

import torch

_EPS = torch.finfo(torch.float32).eps
_BANKS: dict[tuple[int, int, float, float, float], torch.Tensor] = {}
_WINDOWS: dict[tuple[str, int], torch.Tensor] = {}


def _mel(freq: torch.Tensor | float) -> torch.Tensor | float:
    if isinstance(freq, torch.Tensor):
        return 1127.0 * torch.log1p(freq / 700.0)
    return 1127.0 * math.log1p(freq / 700.0)


def _banks(bins: int, fft: int, rate: float, low: float, high: float) -> torch.Tensor:
    key = (bins, fft, rate, low, high)
    if key not in _BANKS:
        high = high if high > 0 else rate / 2 + high
        mel_low, mel_high = float(_mel(low)), float(_mel(high))
        delta = (mel_high - mel_low) / (bins + 1)
        freqs = torch.arange(fft // 2) * rate / fft
        mels = _mel(freqs)
        assert isinstance(mels, torch.Tensor)
        left = mel_low + torch.arange(bins)[:, None] * delta
        center, right = left + delta, left + 2 * delta
        up = (mels - left) / (center - left)
        down = (right - mels) / (right - center)
        weights = torch.clamp(torch.minimum(up, down), min=0.0)
        _BANKS[key] = torch.nn.functional.pad(weights, (0, 1)).to(torch.float32)  # the Nyquist bin has no weight
    return _BANKS[key]


def _window(kind: str, size: int) -> torch.Tensor:
    key = (kind, size)
    if key not in _WINDOWS:
        hann = torch.hann_window(size, periodic=False, dtype=torch.float32)
        if kind == "povey":
            hann = hann.pow(0.85)
        elif kind == "hamming":
            hann = torch.hamming_window(size, periodic=False, dtype=torch.float32)
        elif kind not in ("hanning",):
            raise NotImplementedError(f"shim window {kind}")
        _WINDOWS[key] = hann
    return _WINDOWS[key]


def fbank(
    waveform: torch.Tensor,
    num_mel_bins: int = 23,
    frame_length: float = 25.0,
    frame_shift: float = 10.0,
    dither: float = 0.0,
    energy_floor: float = 1.0,
    sample_frequency: float = 16000.0,
    window_type: str = "povey",
    low_freq: float = 20.0,
    high_freq: float = 0.0,
    preemphasis_coefficient: float = 0.97,
    **_: object,
) -> torch.Tensor:
    signal = waveform[0] if waveform.dim() == 2 else waveform
    shift = int(sample_frequency * frame_shift / 1000)
    size = int(sample_frequency * frame_length / 1000)
    if signal.numel() < size:
        return torch.empty((0, num_mel_bins))
    fft = 1 << (size - 1).bit_length()
    frames = signal.unfold(0, size, shift)
    if dither != 0.0:
        frames = frames + torch.randn_like(frames) * dither
    frames = frames - frames.mean(dim=1, keepdim=True)
    previous = torch.cat([frames[:, :1], frames[:, :-1]], dim=1)
    frames = (frames - preemphasis_coefficient * previous) * _window(window_type, size)
    frames = torch.nn.functional.pad(frames, (0, fft - size))
    power = torch.fft.rfft(frames).abs().pow(2.0)
    energies = power @ _banks(num_mel_bins, fft, sample_frequency, low_freq, high_freq).T
    return torch.clamp(energies, min=_EPS).log()


def mfcc(*args: object, **kwargs: object) -> torch.Tensor:
    raise NotImplementedError("the shim has fbank only")
