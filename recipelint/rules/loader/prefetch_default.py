"""`prefetch` left at train.py's default of 100, or defined in run.sh but never passed.

## What it does
Flags a WeNet launch without `--prefetch`, and a script that assigns a `prefetch` variable
that the training command never uses.

## Why is this bad
Without the flag every worker queues up to 100 batches: a value nobody chose, ten times the
upstream recipes' 10 (cut from 500 in #2486 because "Large prefetch may cause OOM issue").
A `prefetch=10` line the command does not pass reads as if it applied, and it does not:
`aishell/rnnt/run_npu.sh` at HEAD has exactly this (wenet.md 8.5).

## Example
```sh
prefetch=10
torchrun ... wenet/bin/train.py --num_workers 8   # --prefetch missing: 100 applies
```

## Fix
Adds `--prefetch ${prefetch}` when the variable exists; otherwise adds `--prefetch N` with
the tuner's memory-bounded value when the hardware is known.

## Fix safety
Safe: it writes down the value that is meant, or the formula's bound.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Applicability, Diagnostic, Edit, Fix, Severity

CODE = "RL104"
NAME = "prefetch-default"
SEVERITY = Severity.WARNING
FIXABLE = True
SOURCE = "wenet.md 1 (--prefetch default 100), 3.5 (#2486), 8.5"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    recipe = ctx.recipe
    launch, script = recipe.launch, recipe.script
    setting = recipe.arg("prefetch")
    if launch is None or script is None or setting.given:
        return
    variable = script.assignment("prefetch", before=launch.command.span.start)
    if variable is not None:
        point = launch.script.span.after()
        yield ctx.diagnostic(
            CODE,
            SEVERITY,
            f"prefetch={variable.value.text} is assigned but never passed to train.py, so the default 100 applies",
            variable.span,
            setting="prefetch",
            current=100,
            suggested=variable.value.value,
            evidence=[f"{launch.command.span}: the training command has no --prefetch"],
            fix=Fix((Edit(point, " --prefetch ${prefetch}"),), Applicability.SAFE, "pass --prefetch ${prefetch}"),
        )
        return
    plan = ctx.loader_plan
    fix = None
    if ctx.budget is not None and ctx.batch is not None and plan.prefetch is not None:
        edit = ctx.set_value(setting, str(plan.prefetch))
        fix = Fix((edit,), Applicability.SAFE, f"pass --prefetch {plan.prefetch}") if edit else None
    yield ctx.diagnostic(
        CODE,
        SEVERITY,
        "--prefetch is not passed, so every worker queues up to train.py's default of 100 batches (upstream recipes use 10)",
        launch.script.span,
        setting="prefetch",
        current=100,
        suggested=plan.prefetch if fix else None,
        evidence=["train.py: --prefetch default 100; WeNet #2486 cut the recipe value 500 -> 10"],
        fix=fix,
    )
