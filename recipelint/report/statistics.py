"""`--statistics`: how many findings each rule produced."""

from __future__ import annotations

from collections import Counter

from recipelint.diagnostics import Diagnostic
from recipelint.rules import all_rules


def render(diagnostics: list[Diagnostic]) -> str:
    counts = Counter(d.code for d in diagnostics)
    rules = all_rules()
    fixable = Counter(d.code for d in diagnostics if d.fix is not None)
    lines = []
    for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        marker = "[*]" if fixable[code] else "   "
        lines.append(f"{count:>5}  {code}  {marker} {rules[code].name if code in rules else ''}")
    return "\n".join(lines)
