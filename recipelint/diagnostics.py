"""What a rule reports: a diagnostic at a span, with the evidence and an optional fix."""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Any

from recipelint.parse.shellvariants import described
from recipelint.parse.span import Span
from recipelint.parse.where import shown
from recipelint.records import dataclass, field, replace

Ways = tuple[tuple[str, ...], ...]  # combinations of branches, each its conditions (parse.shellvariants)


class Severity(enum.IntEnum):
    INFO = 0
    WARNING = 1
    ERROR = 2

    def __str__(self) -> str:
        return self.name.lower()


class Applicability(enum.Enum):
    SAFE = "safe"  # changes only the setting the finding names
    UNSAFE = "unsafe"  # changes numerics or behaviour beyond the setting, drops a comment, or guesses


@dataclass(frozen=True)
class Edit:
    """Replace bytes [span.start, span.end) of span.path with `content`."""

    span: Span
    content: str


@dataclass(frozen=True)
class Fix:
    edits: tuple[Edit, ...]
    applicability: Applicability = Applicability.SAFE
    title: str = ""


@dataclass
class Diagnostic:
    code: str
    severity: Severity
    message: str
    span: Span
    setting: str | None = None
    current: Any = None
    suggested: Any = None
    evidence: list[str] = field(default_factory=list)  # the facts and formula behind the finding
    fix: Fix | None = None
    # Said once per run for each (code, once): a fact of something several recipes share (the
    # toolkit checkout RL902 judges), which every recipe would otherwise repeat.
    once: str | None = None

    @property
    def sort_key(self) -> tuple[str, int, int, str]:
        # the path as every report shows it: the order must not depend on how the file was
        # reached (`/abs/x`, `./x`, through a config's launch), or two runs list it differently
        return (str(shown(self.span.path)), self.span.line, self.span.column, self.code)


@dataclass
class JudgedWay:
    """One way a launch runs, as the engine judged it: the combinations of branches it stands for,
    every combination the launch has, its findings, and the config it alone reads when the way is
    a config the script's arguments choose (`own`, with `chosen` saying so)."""

    ways: Ways
    every: Ways
    found: list[Diagnostic]
    own: Path | None = None
    chosen: str = ""


def over_alternatives(count: int, judged: list[JudgedWay]) -> list[Diagnostic]:
    """The findings of one launch read once per way bash can run it (`count` ways). A verdict on
    every way keeps its severity (the mildest one said); on some of them it is at most a warning
    naming them, with no fix (a fix would rewrite what only some branches run); on none, nothing.
    Findings are the same verdict when they have the code and the place. A finding in the config
    only one way reads (an argument-chosen config) is that file's own: it keeps its severity and
    says which launch it was judged with."""
    holders: dict[tuple[str, str, int, int], list[tuple[int, Diagnostic]]] = {}
    for index, way in enumerate(judged):
        for diagnostic in way.found:
            key = (diagnostic.code, str(diagnostic.span.path), diagnostic.span.line, diagnostic.span.column)
            held = holders.setdefault(key, [])
            if all(seen != index for seen, _ in held):
                held.append((index, diagnostic))
    every = list(judged[0].every) if judged else []
    out: list[Diagnostic] = []
    for held in holders.values():
        mildest = min((d for _, d in held), key=lambda d: d.severity)
        own = next((judged[i] for i, d in held if _reads(judged[i].own, d.span.path)), None)
        if own is not None:
            out.append(replace(mildest, evidence=[*mildest.evidence, own.chosen]))
            continue
        if len(held) >= count:
            fixes = {d.fix for _, d in held}
            out.append(mildest if len(fixes) == 1 else replace(mildest, fix=None))
            continue
        ways = [way for index, _ in held for way in judged[index].ways]
        absent = [way for way in every if way not in ways]
        said = described(ways, every)
        evidence = [*mildest.evidence, f"holds on {len(held)} of the {count} ways the launch runs; not {described(absent, every)}"]
        severity = min(mildest.severity, Severity.WARNING)
        out.append(replace(mildest, severity=severity, message=f"{mildest.message} ({said})", evidence=evidence, fix=None))
    return out


def _reads(one: Path | None, other: Path) -> bool:
    """Whether `other` is the config `one` names (None: the way reads no config of its own)."""
    if one is None:
        return False
    try:
        return one.resolve() == other.resolve()
    except (OSError, RuntimeError):
        return one == other
