"""An inline suppression that suppresses nothing.

## What it does
Reports `# recipelint: ignore[CODE]` (and `ignore-file[CODE]`) comments that matched no
finding in this run, like ruff's RUF100.

## Why is this bad
A stale suppression hides the next real finding of that code on that line, and tells the
reader a problem exists where none does. An `ignore-file` below the first line of content
is also reported here: it only counts at the top of the file.

## Example
```sh
num_workers=2  # recipelint: ignore[RL102] node has 96 cores
```
after the node was fixed: nothing to suppress.

## Fix
None: delete the comment.

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from recipelint.diagnostics import Diagnostic, Severity

if TYPE_CHECKING:
    from recipelint.context import Context
    from recipelint.parse.suppressions import Suppression

CODE = "RL002"
NAME = "suppression-unused"
SEVERITY = Severity.WARNING
FIXABLE = False
SOURCE = (
    "ruff RUF100 (astral-sh/ruff@cff8b559:crates/ruff_linter/src/rules/ruff/rules/unused_noqa.rs); the suppression syntax in docs/usage.md"
)


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    # A suppression is unused only once every recipe of the run has been checked: the runner
    # calls `finding` for each suppression it read (recipelint.suppression.suppression_findings).
    return iter(())


def finding(item: Suppression, severity: Severity) -> Diagnostic | None:
    """RL002 for a suppression naming codes that matched no finding of the run."""
    unused = [c for c in item.codes if not any(u.startswith(c) or c == "ALL" for u in item.used)]
    if not unused:
        return None
    kind = "ignore-file" if item.whole_file else "ignore"
    message = f"unused suppression: {kind}[{', '.join(unused)}] matches no finding"
    return Diagnostic(CODE, severity, message, item.span, setting=", ".join(unused))
