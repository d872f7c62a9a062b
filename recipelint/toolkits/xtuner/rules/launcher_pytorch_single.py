"""`--launcher pytorch` on a single-process `xtuner train`.

## What it does
Flags `xtuner train ... --launcher pytorch` when neither `NPROC_PER_NODE` nor `NNODES` asks
for more than one process.

## Why is this bad
The CLI then runs plain `python train.py` (no torchrun), so no `RANK` is set, and mmengine's
`_init_dist_pytorch` dies with `KeyError: 'RANK'` (open-mmlab/mmengine@25434293:mmengine/dist/utils.py). With several processes the
CLI appends `--launcher pytorch` by itself, so the flag is never needed on `xtuner train`.

## Example
```sh
xtuner train cfg.py --launcher pytorch
```

## Fix
Removes `--launcher pytorch`.

## Fix safety
Safe: without it the single process runs; with several the CLI adds it anyway.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Applicability, Diagnostic, Edit, Fix, Severity
from recipelint.toolkits.xtuner.rules._x import launcher_arg, multi_process, xtuner_launch

CODE = "RL802"
NAME = "xtuner-launcher-pytorch-single"
SEVERITY = Severity.ERROR
VISITS = ("xtuner-launch",)
FIXABLE = True
SOURCE = "InternLM/xtuner@v0.2.0:xtuner/entry_point.py (the single-process path runs python train.py); open-mmlab/mmengine@25434293:mmengine/dist/utils.py (reads os.environ['RANK'])"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    launch = xtuner_launch(ctx)
    current = launcher_arg(ctx)
    if launch is None or launch.launcher != "xtuner" or current is None or current.value != "pytorch" or multi_process(launch):
        return
    fix = None
    if current.flag is not None and current.span is not None:
        removal = current.flag.to(current.span).with_blank_before()
        fix = Fix((Edit(removal, ""),), Applicability.SAFE, "remove --launcher pytorch")
    yield ctx.diagnostic(
        CODE,
        SEVERITY,
        "--launcher pytorch on a single-process xtuner train (no NPROC_PER_NODE/NNODES): the CLI runs plain python, no RANK is set, and mmengine dies with KeyError: 'RANK'",
        current.flag or current.span,
        setting="launcher",
        current="pytorch",
        fix=fix,
    )
