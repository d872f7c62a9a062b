"""What rule modules share, below the toolkits and the shared rule families: the wording helpers
here, and RL001 (`unknown_fact`), which every rule that needs a hardware fact produces."""

from __future__ import annotations

from collections.abc import Iterable


def gib(value: float) -> str:
    return f"{value / 1024**3:.1f}"


def closest(name: str, known: Iterable[str]) -> str | None:
    import difflib

    matches = difflib.get_close_matches(name, list(known), n=1, cutoff=0.75)
    return matches[0] if matches else None


def oversubscribed(ranks: int, workers: int, cpus: object) -> str:
    """The message of RL102 (WeNet) and RL807 (XTuner): a node's DataLoader workers against its
    usable CPUs (recipelint.tuner.CPU_FORMULA)."""
    return f"{ranks} ranks x {workers} workers = {ranks * workers} worker processes per node, but only {cpus} CPUs are usable"
