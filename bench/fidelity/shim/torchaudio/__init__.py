"""A stand-in for the few torchaudio calls WeNet's dataset pipeline makes, for machines with no
torchaudio build (torchaudio has no CPU wheel for this torch). Only used by the fidelity bench
and by tests; on a training node the real torchaudio is imported instead.

Covered: load/info of 16-bit PCM WAV (path or file object), transforms.Resample,
sox_effects.apply_effects_tensor with the ['speed', s], ['rate', sr] chain WeNet uses, and
compliance.kaldi.fbank. Written for this bench (same output shapes and the same kind of work as
torchaudio's; values are not bit-identical).
"""

from __future__ import annotations

import io
import wave
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from torchaudio import compliance, sox_effects, transforms  # noqa: F401

__version__ = "0.0-shim"


@dataclass
class AudioMetaData:
    sample_rate: int
    num_frames: int
    num_channels: int
    bits_per_sample: int = 16


def _open(source: Any) -> wave.Wave_read:
    if isinstance(source, (bytes, bytearray)):
        source = io.BytesIO(source)
    if hasattr(source, "seek"):
        source.seek(0)
    return wave.open(source, "rb")


def info(source: Any) -> AudioMetaData:
    with _open(source) as handle:
        return AudioMetaData(handle.getframerate(), handle.getnframes(), handle.getnchannels(), 8 * handle.getsampwidth())


def load(source: Any, frame_offset: int = 0, num_frames: int = -1, normalize: bool = True) -> tuple[torch.Tensor, int]:
    with _open(source) as handle:
        if handle.getsampwidth() != 2:
            raise RuntimeError("shim torchaudio.load reads 16-bit PCM only")
        rate, channels = handle.getframerate(), handle.getnchannels()
        if frame_offset:
            handle.setpos(frame_offset)
        count = handle.getnframes() - frame_offset if num_frames < 0 else num_frames
        raw = handle.readframes(count)
    data = np.frombuffer(raw, dtype="<i2").reshape(-1, channels).T
    tensor = torch.from_numpy(data.astype(np.float32) / 32768.0)
    return tensor.contiguous(), rate
