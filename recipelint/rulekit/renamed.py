"""A TrainingArguments field a launch or a script still names after transformers dropped it: the
field it became, the releases that had it, and whether renaming is safe over the run's range (RL530,
RL531 share it)."""

from __future__ import annotations

from recipelint import trainingargs, versions
from recipelint.diagnostics import Applicability
from recipelint.records import dataclass
from recipelint.rulekit import closest


@dataclass(frozen=True)
class Renamed:
    had: str  # "4.30 up to 4.51 (excluded)"; "" when no release read had the field
    successor: str | None  # the newest release's field close to it ("eval_strategy"), None: none
    safety: Applicability  # SAFE when every release of the range has the successor


def renamed(name: str, rng: versions.Range) -> Renamed:
    ranges = trainingargs.ever(name)
    had = ", ".join(f"{a} up to {b} (excluded)" if b else f"{a} on" for a, b in ranges)
    newest = versions.parse(trainingargs.releases()[-1])
    successor = closest(name, trainingargs.fields(newest)) if ranges else None
    if successor is None:
        return Renamed(had, None, Applicability.UNSAFE)
    held = versions.evaluate(rng, lambda v: successor in trainingargs.fields(v), trainingargs.boundaries())
    return Renamed(had, successor, Applicability.SAFE if held.holds == "all" else Applicability.UNSAFE)
