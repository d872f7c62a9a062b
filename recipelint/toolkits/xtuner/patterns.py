"""The code patterns of XTuner's known bugs (recipelint/knownissues/xtuner.py names them), read
with `ast` from a checkout's package folder: each returns the spans where the pattern is, []
when the file is there without it, None when the file is not there (the version decides then)."""

from __future__ import annotations

from pathlib import Path

from recipelint.parse.checkout import Pattern
from recipelint.parse.span import Span


def launcher_slurm_ignored(package: Path) -> list[Span] | None:
    """xtuner/entry_point.py that reads NNODES/NPROC_PER_NODE but never looks for `--launcher slurm`."""
    from recipelint.parse import pycode  # the Python reader only when a checkout's code is read

    file = pycode.parse_python(package / "entry_point.py")
    if file is None:
        return None
    if any(pycode.literal(n) == "slurm" for n in file.nodes):
        return []
    return [
        file.span(c)
        for c in file.calls
        if pycode.dotted(c.func).endswith("environ.get") and pycode.literal(c.args[0] if c.args else None) in ("NNODES", "NPROC_PER_NODE")
    ]


def dataset_timeout_30_minutes(package: Path) -> list[Span] | None:
    """XTuner's rank-0 dataset barrier with a 30-minute default (v0.1.14 to v0.1.18)."""
    from recipelint.parse import pycode  # the Python reader only when a checkout's code is read

    read = pycode.env_default(package, "dataset/huggingface.py", "XTUNER_DATASET_TIMEOUT")
    if read is None:
        return None
    found, minutes, where = read
    return [where] if found and minutes == 30 and where is not None else []


PATTERNS: dict[str, Pattern] = {
    "launcher_slurm_ignored": launcher_slurm_ignored,
    "dataset_timeout_30_minutes": dataset_timeout_30_minutes,
}
