"""A run.sh variable named after a train.py flag that the script never uses.

## What it does
For each flag of the train.py the recipe runs (the checkout's, else WeNet HEAD's), looks for a
variable of the same name (`num_workers=2`; `dist_backend` for `--ddp.dist_backend`) assigned
before the training command and used nowhere in the script. `prefetch` is RL104's.

## Why is this bad
The script reads as if the value applied, and Kaldi's `tools/parse_options.sh` even lets
`run.sh --num_workers 4` set it, but train.py never sees it: it gets the literal the command
passes, or its own default. WeNet HEAD's `hkust/s0/run.sh` assigns `num_workers=2` and passes
`--num_workers 1`.

## Example
```sh
num_workers=2
. tools/parse_options.sh
torchrun ... wenet/bin/train.py --num_workers 1 ...   # 2 (or --num_workers 8 on the command line) never arrives
```

## Fix
None: which value is meant (the variable's, or the literal or default train.py gets) is not
knowable; pass `--flag ${variable}` or delete the assignment.

## Fix safety
No fix.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.toolkits.wenet.frontend import train_flags

CODE = "RL603"
NAME = "flag-variable-not-passed"
SEVERITY = Severity.WARNING
VISITS = ("launch", "script")
FIXABLE = False
SOURCE = "the checkout's train.py (ast), else wenet-e2e/wenet@01546996:wenet/bin/train.py; wenet-e2e/wenet@01546996:examples/hkust/s0/run.sh (num_workers=2 unused)"
OWNED_ELSEWHERE = {"prefetch"}  # RL104 judges it with the node's memory


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    recipe = ctx.recipe
    launch, script = recipe.launch, recipe.script
    if launch is None or script is None:
        return
    flags, source = train_flags(recipe)
    text = script.source.text
    for flag in flags or {}:
        name = flag.rsplit(".", 1)[-1]
        if name in OWNED_ELSEWHERE:
            continue
        variable = script.assignment(name, before=launch.command.span.start)
        if variable is None or variable.value.value == "" or re.search(rf"\$\{{?{re.escape(name)}\b", text):
            continue  # an empty assignment clears a value: no intent to lose
        setting = recipe.args.get(flag)
        if setting is not None and setting.given:
            passed = setting.word.text if setting.word is not None else str(setting.value)
            what = f"train.py gets --{flag} {passed}" + (f" (line {setting.span.line})" if setting.span is not None else "")
        else:
            default = setting.value if setting is not None else None
            what = "it is never passed to train.py, so " + (
                f"the default {default} applies" if default is not None else f"--{flag} is not set"
            )
        yield ctx.diagnostic(
            CODE,
            SEVERITY,
            f"{name}={variable.value.text} is assigned but never used: {what}; the value written here never reaches train.py",
            variable.span,
            setting=flag,
            current=variable.value.value,
            evidence=[f"{launch.command.span}: the training command", f"flags from {source}"],
        )
