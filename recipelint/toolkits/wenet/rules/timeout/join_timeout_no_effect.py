"""`--timeout` given with `--train_engine torch_ddp`, where it has no effect.

## What it does
Flags `--timeout` on a torch_ddp launch (the default engine).

## Why is this bad
`wenet_join` returns at once for torch_ddp: DDP handles uneven data with `model.join()`,
so the value changes nothing (wenet-e2e/wenet@01546996:wenet/utils/train_utils.py). A reader who raised it to cure a
"monitoredBarrier" or NCCL timeout is looking in the wrong place.

## Example
```sh
torchrun ... wenet/bin/train.py --train_engine torch_ddp --timeout 1200
```

## Fix
None: remove it, or switch the engine if the join was meant.

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity

CODE = "RL302"
NAME = "join-timeout-no-effect"
SEVERITY = Severity.INFO
VISITS = ("launch",)
FIXABLE = False
SOURCE = "wenet-e2e/wenet@01546996:wenet/utils/train_utils.py: wenet_join skips torch_ddp"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    recipe = ctx.recipe
    setting = recipe.arg("timeout")
    if recipe.launch is None or not setting.given or recipe.arg("train_engine").value != "torch_ddp":
        return
    yield ctx.diagnostic(
        CODE,
        SEVERITY,
        f"--timeout {setting.value} has no effect with torch_ddp: WeNet's join check only runs under deepspeed and torch_fsdp (DDP uses model.join())",
        setting.span,
        setting="timeout",
        current=setting.value,
    )
