from torchaudio.compliance import kaldi  # noqa: F401
