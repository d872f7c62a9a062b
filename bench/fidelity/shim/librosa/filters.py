def mel(*args: object, **kwargs: object) -> object:
    raise NotImplementedError("the fidelity shim has no librosa; use feats_type fbank")
