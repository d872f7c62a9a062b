"""What a rule reports: a diagnostic at a span, with the evidence and an optional fix."""

from __future__ import annotations

import enum
from typing import Any

from recipelint.parse.span import Span
from recipelint.parse.where import shown
from recipelint.records import dataclass, field


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
