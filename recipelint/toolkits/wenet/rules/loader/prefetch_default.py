"""`prefetch` left at train.py's default of 100 where the node cannot carry it, or defined in
run.sh but never passed.

## What it does
Flags a WeNet launch without `--prefetch` when the default matters: the queued batches of 100
per worker exceed the node's memory budget (RL103's formula, `loader(ctx).plan`,
`tuner.plan_loader`), so the plan for this node lowers it. A plan that only cuts `num_workers`
(CPU or shard cap) leaves the default alone here: fewer workers queue fewer batches, and RL102
or RL201 carry that fix. Also flags a script that assigns a `prefetch` variable the training
command never uses (a warning: the value written in the script never reaches train.py).

## Why is this bad
Without the flag every worker queues up to 100 batches: a value nobody chose, ten times the
upstream recipes' 10 (cut from 500 in #2486 because "Large prefetch may cause OOM issue").
Where the node has the memory for it, 100 only queues further ahead and the rule says nothing;
where it does not, the default is what runs the node out of /dev/shm or RAM. A `prefetch=10`
line the command does not pass reads as if it applied, and it does not:
`aishell/rnnt/run_npu.sh` at HEAD has exactly this (wenet-e2e/wenet@01546996:examples/aishell/rnnt/run_npu.sh).

## Example
```sh
num_workers=8
torchrun ... wenet/bin/train.py --num_workers 8   # --prefetch missing: 100 applies
```
On a node with 64 GiB of /dev/shm and batches of 23 MB, 8 ranks x 8 workers x 100 batches
need 147 GB (137 GiB); the plan's prefetch is 46.

## Fix
Adds `--prefetch ${prefetch}` when the variable exists; otherwise adds `--prefetch N` with the
plan's value (never the default 100, which would change nothing).

## Fix safety
Safe: it writes down the value that is meant, or the formula's bound.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Applicability, Diagnostic, Edit, Fix, Severity
from recipelint.toolkits.wenet.loader import loader

CODE = "RL104"
NAME = "prefetch-default"
SEVERITY = Severity.WARNING
VISITS = ("launch", "script")
FIXABLE = True
SOURCE = "wenet-e2e/wenet@01546996:wenet/bin/train.py (--prefetch default 100); wenet-e2e/wenet#2486 (recipes cut 500 to 10); wenet-e2e/wenet@01546996:examples/aishell/rnnt/run_npu.sh (prefetch=10 never passed)"
FACTS = ("cpus", "memory_gib", "shm_gib")
DEFAULT = 100  # train.py --prefetch (wenet.md 1)


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    recipe = ctx.recipe
    launch, script = recipe.launch, recipe.script
    setting = recipe.arg("prefetch")
    if launch is None or script is None or setting.given:
        return
    default = setting.as_int() or DEFAULT
    plan = loader(ctx).plan
    lowered = plan.prefetch is not None and plan.prefetch < default
    variable = script.assignment("prefetch", before=launch.command.span.start)
    if variable is not None:
        point = launch.flag_point(after_script=True)
        plan_text = f"; the loader plan for this node is {plan.prefetch}" if lowered else ""
        yield ctx.diagnostic(
            CODE,
            SEVERITY,  # the script says prefetch, the run uses another value: not as written
            f"prefetch={variable.value.text} is assigned but never passed to train.py, so the default {default} applies{plan_text}",
            variable.span,
            setting="prefetch",
            current=default,
            suggested=variable.value.value,
            evidence=[f"{launch.command.span}: the training command has no --prefetch", *_why(ctx, default)],
            fix=Fix((Edit(point, " --prefetch ${prefetch}"),), Applicability.SAFE, "pass --prefetch ${prefetch}"),
        )
        return
    memory = plan.limits.get("memory")
    if not lowered or memory is None or memory >= default:
        return  # the node's memory carries the default: writing another value down is not justified
    edit = ctx.set_value(setting, str(plan.prefetch))
    yield ctx.diagnostic(
        CODE,
        SEVERITY,
        f"--prefetch is not passed, so every worker queues up to train.py's default of {default} batches; the loader plan for this node is {plan.prefetch}",
        launch.script.span,
        setting="prefetch",
        current=default,
        suggested=plan.prefetch,
        evidence=["train.py: --prefetch default 100; WeNet #2486 cut the recipe value 500 -> 10", *_why(ctx, default)],
        fix=Fix((edit,), Applicability.SAFE, f"pass --prefetch {plan.prefetch}") if edit else None,
    )


def _why(ctx: Context, default: int) -> list[str]:
    """What lowers the default in the plan: the memory cap, or workers cut by the CPU or shard cap."""
    facts = loader(ctx)
    plan, budget, batch = facts.plan, facts.budget, facts.batch
    reasons = []
    memory = plan.limits.get("memory")
    if memory is not None and memory < default and budget is not None and batch is not None:
        reasons.append(f"memory allows prefetch {memory}: {budget[1]}, one batch about {batch.bytes / 1e6:.1f} MB ({batch.how})")
    workers = ctx.recipe.arg("num_workers").as_int()
    if workers and plan.num_workers is not None and plan.num_workers < workers:
        caps = ", ".join(f"{name} cap {value}" for name, value in plan.limits.items() if name in ("cpu", "shards"))
        reasons.append(f"num_workers {workers} -> {plan.num_workers} ({caps}) scales prefetch with it")
    return reasons
