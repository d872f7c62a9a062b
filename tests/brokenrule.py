"""A rule that raises on every recipe.

## What it does
Nothing: it stands for a bug in one rule.

## Why is this bad
It is not.

## Example
```
any recipe
```

## Fix
None.

## Fix safety
No fix.
"""

# Registered only by tests/test_toolkit_registry.py (through a toolkit that claims nothing), to
# show that one rule's exception is named and costs no other rule's findings.

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity

CODE = "TOY900"
NAME = "toy-broken"
SEVERITY = Severity.WARNING
FIXABLE = False
SOURCE = "a test"
VISITS = ("recipe",)


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    raise RuntimeError(f"broken on {ctx.recipe.root.name}")
    yield None  # a generator, as every rule is
