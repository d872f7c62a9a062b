"""A rule whose TOOLKITS misspells a toolkit's name (tests/test_claims.py: it must fail to load).

## What it does
Nothing: it only has to be loaded.

## Why is this bad
A misspelt TOOLKITS would switch the rule off unnoticed.

## Example
`TOOLKITS = ("deepsped",)`

## Fix
Spell the toolkit's name.

## Fix safety
Not fixed.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity

CODE = "TOY901"
NAME = "toy-typo"
SEVERITY = Severity.INFO
FIXABLE = False
SOURCE = "none: a test of the registry"
VISITS = ("recipe",)
TOOLKITS = ("deepsped",)


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    yield None
