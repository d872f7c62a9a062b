"""Imported by WeNet's processor.py for log_mel_spectrogram only; the fbank pipeline never calls it."""

from librosa import filters  # noqa: F401
