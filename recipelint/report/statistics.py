"""`--format statistics` (or `--statistics` with the text formats): how many findings each rule produced."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from recipelint.diagnostics import Diagnostic
from recipelint.rules import all_rules

if TYPE_CHECKING:
    from recipelint.engine import Result


def table(diagnostics: list[Diagnostic]) -> str:
    counts = Counter(d.code for d in diagnostics)
    rules = all_rules()
    fixable = Counter(d.code for d in diagnostics if d.fix is not None)
    lines = []
    for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        marker = "[*]" if fixable[code] else "   "
        lines.append(f"{count:>5}  {code}  {marker} {rules[code].name if code in rules else ''}")
    return "\n".join(lines)


def render(result: Result) -> str:
    """The report of a run (the reporters' one signature, recipelint.report.REPORTERS)."""
    return table(result.diagnostics)
