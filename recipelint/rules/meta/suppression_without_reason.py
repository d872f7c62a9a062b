"""An inline suppression without a reason.

## What it does
Reports `# recipelint: ignore[CODE]` with nothing written after the bracket.

## Why is this bad
A suppression is a decision about a specific machine or dataset ("node has 96 cores",
"shards are on local NVMe"). Without the reason, nobody can tell later whether it still
holds. Users of yamllint and hadolint ask for exactly this (anchors.md B.2).

## Example
```yaml
max_length: 40960  # recipelint: ignore[RL704]
```

## Fix
None: write the reason after the bracket.

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity

CODE = "RL003"
NAME = "suppression-without-reason"
SEVERITY = Severity.WARNING
FIXABLE = False
SOURCE = "anchors.md B.2: a reason attached to every suppression"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    # Emitted by the engine with the suppressions it reads (recipelint.engine._suppression_findings).
    return iter(())
