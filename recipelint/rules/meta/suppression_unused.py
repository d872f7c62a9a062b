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

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity

CODE = "RL002"
NAME = "suppression-unused"
SEVERITY = Severity.WARNING
FIXABLE = False
SOURCE = "ruff RUF100 (anchors.md A.1)"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    # Emitted by the engine after every rule has run (recipelint.engine._suppression_findings).
    return iter(())
