"""An inline suppression without a reason.

## What it does
Reports `# recipelint: ignore[CODE]` with nothing written after the bracket.

## Why is this bad
A suppression is a decision about a specific machine or dataset ("node has 96 cores",
"shards are on local NVMe"). Without the reason, nobody can tell later whether it still
holds. Users of yamllint and hadolint ask for exactly this (adrienverge/yamllint#679).

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
from typing import TYPE_CHECKING

from recipelint.diagnostics import Diagnostic, Severity

if TYPE_CHECKING:
    from recipelint.context import Context
    from recipelint.parse.suppressions import Suppression

CODE = "RL003"
NAME = "suppression-without-reason"
SEVERITY = Severity.WARNING
VISITS = ()  # none per recipe: the runner produces its findings
FIXABLE = False
SOURCE = "the suppression syntax in docs/usage.md; users ask for a reason on every suppression (adrienverge/yamllint#679)"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    # Suppressions are read per file, not per recipe: the runner calls `finding` for each one it
    # read (recipelint.suppression.suppression_findings).
    return iter(())


def finding(item: Suppression, severity: Severity) -> Diagnostic | None:
    """RL003 for a suppression that gives no reason."""
    if item.reason:
        return None
    message = f"suppression of {', '.join(item.codes)} gives no reason; write why after the bracket"
    return Diagnostic(CODE, severity, message, item.span)
