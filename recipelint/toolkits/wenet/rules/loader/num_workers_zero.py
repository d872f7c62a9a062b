"""`num_workers` is 0, or not passed (train.py's default is 0).

## What it does
Flags a WeNet launch whose DataLoaders would get `num_workers=0`.

## Why is this bad
WeNet 3.x always passes `prefetch_factor` and `persistent_workers=True` to its DataLoaders,
and PyTorch rejects both without workers: `ValueError: prefetch_factor option could only be
specified in multiprocessing.let num_workers > 0 ...` and `persistent_workers option needs
num_workers > 0`. The job dies before the first batch (pytorch/pytorch@v2.1.2:torch/utils/data/dataloader.py).

A checkout whose training DataLoader (in the launched script and the package modules it
imports, read with `ast`) passes neither keyword starts with 0 workers, loading in the training
process: an info then (Xianchao-Wu/wenet-deep-sparse-conformer comments out
`prefetch_factor=args.prefetch` in its wenet/bin/train.py).

## Example
```sh
torchrun ... wenet/bin/train.py --config conf/train.yaml --num_workers 0
```

## Fix
Sets `num_workers` to the tuner's plan: the largest value within the CPU budget
(`ranks_per_node x num_workers <= usable CPUs`, the formula RL102 checks) and the shard count
(`shards // world_size`), starting from upstream's recipe default of 8; never below 1.
When the flag is missing it is added after the training script.

## Fix safety
Safe: it changes only `num_workers`, to a value derived from the stated formulas.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.toolkits.wenet.code import loader_lacks
from recipelint.toolkits.wenet.loader import loader

CODE = "RL101"
NAME = "num-workers-zero"
SEVERITY = Severity.ERROR
VISITS = ("launch",)
FIXABLE = True
SOURCE = "pytorch/pytorch@v2.1.2:torch/utils/data/dataloader.py: the DataLoader rejects prefetch_factor and persistent_workers with 0 workers; wenet-e2e/wenet@01546996:wenet/utils/train_utils.py passes both"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    recipe = ctx.recipe
    if recipe.launch is None:
        return
    setting = recipe.arg("num_workers")
    if setting.as_int() != 0:
        return
    plan = loader(ctx).plan
    where = "" if setting.given else " (not passed; train.py defaults to 0)"
    lacks = loader_lacks(ctx, ("prefetch_factor", "persistent_workers"))
    if lacks is not None:  # a fork that dropped them: the loader starts, in the training process
        yield ctx.diagnostic(
            CODE,
            Severity.INFO,
            f"num_workers is 0{where}: the code this recipe runs passes no prefetch_factor, so its DataLoader starts and loads in the training process",
            setting.span,
            setting="num_workers",
            current=0,
            evidence=[lacks],
        )
        return
    yield ctx.diagnostic(
        CODE,
        SEVERITY,
        f"num_workers is 0{where}: WeNet's DataLoader then raises 'prefetch_factor option could only be specified in multiprocessing'; use at least 1",
        setting.span,
        setting="num_workers",
        current=0,
        suggested=plan.num_workers,
        evidence=_limits(plan.limits),
        fix=loader(ctx).fix(),
    )


def _limits(limits: dict[str, int]) -> list[str]:
    return [f"{name} allows at most {value}" for name, value in limits.items() if name != "memory"]
