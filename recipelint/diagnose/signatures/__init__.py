"""Failure signatures: one module per signature, codes LOG001-LOG099.

A signature module defines CODE, NAME, SEVERITY, SOURCE, PATTERNS (name -> (needle, regular
expression): the needle is a literal every matching line holds, so the reader only decodes
lines that can match), CAUSES (key -> Cause: the rule codes that check that cause in a
recipe; a code that does not exist yet is kept and reported as unchecked, so rules landing
later only need adding here), optionally SUPERSEDES (codes whose finding this one replaces
when both match the same log), and `explain(found)`, which turns the matches and the recipe
into what happened, the evidence and the causes in order. Its docstring is its documentation,
in the sections of a rule's (What it does, Why is this bad, Example, Fix, Fix safety).
Adding a signature means adding a file: the registry finds it.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from recipelint.diagnose.reader import FileScan, Hit, Pattern, Scanner, Stats
from recipelint.diagnostics import Severity
from recipelint.packages import submodules
from recipelint.records import dataclass, field

if TYPE_CHECKING:
    from recipelint.diagnose.scene import Scene


@dataclass(frozen=True)
class Cause:
    """A likely cause of a failure, and the rules that check it in a recipe."""

    text: str
    codes: tuple[str, ...] = ()
    toolkit: str | None = None  # a cause of one toolkit's code or settings: offered only where the log or recipe shows it


@dataclass
class Explanation:
    """What a signature found: the line to point at, what happened, the evidence, the causes."""

    anchor: Hit
    message: str
    evidence: list[str] = field(default_factory=list)
    causes: list[tuple[str, str]] = field(default_factory=list)  # (cause key, why it fits here), likeliest first
    severity: Severity | None = None  # the signature's own when None
    # cause key -> the recipe's lines behind it that no rule reports (`run.sh:12:5: --standalone`)
    recipe_lines: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class Found:
    """What `explain` sees: this signature's matches, the whole scan, and the recipe."""

    code: str
    scanner: Scanner
    scene: Scene

    def stats(self, name: str, code: str | None = None) -> Stats:
        return self.scanner.stat(f"{code or self.code}.{name}")

    def hits(self, name: str, code: str | None = None) -> list[Hit]:
        return self.stats(name, code).all

    def first(self, *names: str) -> Hit | None:
        """The earliest hit of the first named pattern that matched (by file order, then line)."""
        order = {scan.path: i for i, scan in enumerate(self.scanner.files)}
        for name in names:
            hits = self.hits(name)
            if hits:
                return min(hits, key=lambda h: (order.get(h.line.path, 0), h.line.number))
        return None

    def file(self, path: Path) -> FileScan:
        return next(scan for scan in self.scanner.files if scan.path == path)


@dataclass(frozen=True)
class Signature:
    code: str
    name: str
    severity: Severity
    source: str  # the documents and threads the patterns and causes come from
    doc: str
    patterns: tuple[Pattern, ...]
    causes: dict[str, Cause]
    explain: Callable[[Found], Explanation | None]
    supersedes: tuple[str, ...] = ()

    @property
    def summary(self) -> str:
        return self.doc.strip().splitlines()[0] if self.doc.strip() else self.name

    @property
    def fixable(self) -> bool:
        return any(cause.codes for cause in self.causes.values())

    @property
    def codes(self) -> list[str]:
        """The rule codes this signature's causes map to, in first-mention order."""
        return list(dict.fromkeys(code for cause in self.causes.values() for code in cause.codes))


def _from_module(module: ModuleType) -> Signature:
    code = module.CODE
    patterns = tuple(Pattern(f"{code}.{name}", needle, re.compile(regex)) for name, (needle, regex) in module.PATTERNS.items())
    return Signature(
        code=code,
        name=module.NAME,
        severity=module.SEVERITY,
        source=module.SOURCE,
        doc=module.__doc__ or "",
        patterns=patterns,
        causes=dict(module.CAUSES),
        explain=module.explain,
        supersedes=tuple(getattr(module, "SUPERSEDES", ())),
    )


_SIGNATURES: dict[str, Signature] | None = None


def all_signatures() -> dict[str, Signature]:
    global _SIGNATURES
    if _SIGNATURES is None:
        found: dict[str, Signature] = {}
        for name, _ in submodules(__path__):
            if name.startswith("_"):
                continue
            signature = _from_module(importlib.import_module(f"{__name__}.{name}"))
            if signature.code in found:
                raise RuntimeError(f"signature code {signature.code} is defined twice")
            found[signature.code] = signature
        _SIGNATURES = dict(sorted(found.items()))
    return _SIGNATURES
