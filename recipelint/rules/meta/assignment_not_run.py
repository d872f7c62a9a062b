"""A line that looks like an assignment but is a command to bash, and a launch that uses the variable.

## What it does
Finds `NAME = value` (blanks around `=`) and `$NAME=value` (a `$` before the name) when a launch
then uses `$NAME`. Bash reads both as a command: `NAME` with the arguments `=` and `value`, or a
command named after NAME's value; it prints "command not found" and goes on, and NAME is not set.

## Why is this bad
The launch runs, but not as written: it gets NAME as it was before the line (empty when nothing
set it), so the value the line meant to give (a GPU count, a config path, a port) never reaches
it. Where the empty value leaves a flag without its value, RL015 says the launch stops.

## Example
```sh
NGPU = 8
torchrun --nproc_per_node $NGPU train.py
```

## Fix
Write the assignment as bash reads one: `NGPU=8` (no blanks around `=`, no `$` before the name).

## Fix safety
No fix: the line may be meant otherwise.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity

CODE = "RL016"
NAME = "assignment-not-run"
SEVERITY = Severity.WARNING
VISITS = ("launch", "script")
FIXABLE = False
SOURCE = (
    "bash's simple commands: a word with `=` is an assignment only before the command name, written NAME=value "
    "(https://www.gnu.org/software/bash/manual/html_node/Shell-Parameters.html)"
)


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    script, launch = ctx.recipe.script, ctx.recipe.launch
    if script is None or launch is None:
        return
    command = launch.command
    for broken in script.broken:
        uses = [w for w in command.words if w.ref == broken.name]
        if not uses or broken.span.start >= command.span.start:
            continue
        binding = command.scope.get(broken.name)
        before = (
            f"keeps its value from line {binding.origin.span.line}"
            if binding is not None and binding.origin is not None
            else (f"is empty (unless the environment sets {broken.name})" if binding is None else "keeps the value it had before")
        )
        written = script.source.data[broken.span.start : broken.span.end].decode("utf-8", "replace").splitlines()[0]
        yield ctx.diagnostic(
            CODE,
            SEVERITY,
            f"`{written}` is a command to bash, not an assignment ({broken.said}), so {broken.name} is not set at line"
            f" {broken.line} and `{uses[0].text}` in the launch at line {command.span.line} {before}; write {broken.name}=...",
            broken.span,
            setting=broken.name,
            evidence=[f"bash: {broken.said}", f"{uses[0].text} at line {uses[0].span.line}"],
        )
