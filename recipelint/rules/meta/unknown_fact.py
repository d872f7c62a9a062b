"""A hardware fact a rule needs is unknown, so that rule was skipped.

## What it does
Reported once per fact and run, as info, by any rule that needs a fact the probe or the
profile could not give (no GPU, no NVML, no permission, a profile without the key).

## Why is this bad
It is not: it says which checks did not run, and why, instead of guessing or staying silent.

## Example
`gpus is unknown (NVML init failed: NVML Shared Library Not Found)` when linting on a laptop.

## Fix
None. Lint against the training node's profile: `recipelint probe --output node.yaml` on
that node, then `recipelint check --hardware node.yaml`.

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity

CODE = "RL001"
NAME = "hardware-fact-unknown"
SEVERITY = Severity.INFO
FIXABLE = False
SOURCE = "the probe's or profile's own record of what it could not establish"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    # Emitted by the rules that need a fact (recipelint.rules._util.hardware_unknown), so it
    # sits on the setting whose check was skipped; this module carries its code and docs.
    return iter(())
