"""Small helpers the rules share."""

from __future__ import annotations

from collections.abc import Iterable


def gib(value: float) -> str:
    return f"{value / 1024**3:.1f}"


def closest(name: str, known: Iterable[str]) -> str | None:
    import difflib

    matches = difflib.get_close_matches(name, list(known), n=1, cutoff=0.75)
    return matches[0] if matches else None
