"""`--statistics`: how many findings each rule produced, as a table (text, concise) or an object (json)."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from recipelint.diagnostics import Diagnostic
from recipelint.rules import all_rules

if TYPE_CHECKING:
    from recipelint.engine import Result


def counts(diagnostics: list[Diagnostic]) -> dict[str, dict[str, Any]]:
    """Per rule, most findings first: its name, how many findings, how many of them have a fix."""
    found = Counter(d.code for d in diagnostics)
    fixable = Counter(d.code for d in diagnostics if d.fix is not None)
    rules = all_rules()
    return {
        code: {"name": rules[code].name if code in rules else "", "count": count, "fixable": fixable[code]}
        for code, count in sorted(found.items(), key=lambda item: (-item[1], item[0]))
    }


def table(diagnostics: list[Diagnostic]) -> str:
    lines = []
    for code, row in counts(diagnostics).items():
        marker = "[*]" if row["fixable"] else "   "
        lines.append(f"{row['count']:>5}  {code}  {marker} {row['name']}")
    return "\n".join(lines)


def render(result: Result) -> str:
    """The table of a run (text and concise with `--statistics`)."""
    return table(result.diagnostics)
