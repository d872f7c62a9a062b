"""`workers = 0` in a .toy file.

## What it does
Flags a toy recipe that loads its data in the training process.

## Why is this bad
The toy trainer waits for every batch.

## Example
```
workers = 0
```

## Fix
`workers = 2`.

## Fix safety
Safe: the toy trainer takes any positive count.
"""

# A toolkit in one file, as CONTRIBUTING.md shows it: it claims `*.toy` files (`workers = N`
# lines) and this module is also its one rule, TOY001. Registered only by the tests that use it
# (recipelint.toolkits.registered). The docstring above is the rule's documentation.

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from recipelint.context import Context
from recipelint.diagnostics import Applicability, Diagnostic, Edit, Fix, Severity
from recipelint.model import Recipe
from recipelint.parse.files import FileCache
from recipelint.parse.shell import ShellScript
from recipelint.parse.span import SourceText, Span
from recipelint.toolkits import Target, Toolkit

CODE = "TOY001"
NAME = "toy-no-workers"
SEVERITY = Severity.WARNING
FIXABLE = True
SOURCE = "the toy format's own documentation"
VISITS = ("recipe",)  # its payload, a ToyFile: any recipe of its kind
TOOLKITS = ("toytool",)


@dataclass
class ToyFile:
    """What the toy front end reads: the file and its `workers = N` value with its span."""

    source: SourceText
    workers: int | None
    span: Span | None


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    toy = ctx.recipe.payload
    if isinstance(toy, ToyFile) and toy.workers == 0 and toy.span is not None:
        fix = Fix((Edit(toy.span, "2"),), Applicability.SAFE, "set workers = 2")
        yield ctx.diagnostic(CODE, SEVERITY, "workers = 0 loads data in the trainer; use workers = 2", toy.span, fix=fix)


class Toytool(Toolkit):
    name = "toytool"
    suffixes: tuple[str, ...] = (".toy",)
    rules: tuple[str, ...] = (__name__,)
    preload: tuple[str, ...] = ()  # it imports nothing to read a file

    def claims(self, target: Target, script: ShellScript | None) -> float:
        return 1.0 if target.path.suffix == ".toy" else 0.0

    def load(self, target: Target, files: FileCache, script: ShellScript | None) -> list[Recipe]:
        source = files.read(target.path)
        match = re.search(r"^workers\s*=\s*(\d+)\s*$", source.text, re.M)
        toy = ToyFile(source, None, None)
        if match is not None:
            toy = ToyFile(source, int(match.group(1)), source.span(match.start(1), match.end(1)))
        return [Recipe(root=target.root, toolkit=self.name, explicit=target.explicit, payload=toy)]
