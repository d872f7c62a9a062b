"""XTuner's train script started by torchrun, torch.distributed.launch or deepspeed without `--launcher pytorch`.

## What it does
Flags `torchrun ... xtuner/tools/train.py`, `python -m torch.distributed.launch ...` and
`deepspeed ... xtuner/tools/train.py` whose arguments lack `--launcher pytorch`.

## Why is this bad
train.py's `--launcher` defaults to `none`, and with `none` mmengine never initialises
torch.distributed: every rank trains alone on the whole dataset, rank-0 preprocessing runs on
every rank, and with `--deepspeed` the process group is only created late inside
`deepspeed.initialize` (InternLM/xtuner#238, #251; InternLM/xtuner@v0.2.0:xtuner/tools/train.py). The `xtuner train` CLI appends
`--launcher pytorch` itself; a direct launch must say it.

## Example
```sh
torchrun --nproc_per_node 8 xtuner/tools/train.py cfg.py --deepspeed deepspeed_zero2
```

## Fix
Appends `--launcher pytorch` to the command.

## Fix safety
Safe: it is what the `xtuner train` CLI itself passes in this situation.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Applicability, Diagnostic, Edit, Fix, Severity
from recipelint.toolkits.xtuner.rules._x import launcher_arg, xtuner_launch

CODE = "RL801"
NAME = "xtuner-launcher-missing"
SEVERITY = Severity.ERROR
VISITS = ("xtuner-launch",)
FIXABLE = True
SOURCE = "InternLM/xtuner@v0.2.0:xtuner/tools/train.py (--launcher default 'none'); InternLM/xtuner@v0.2.0:xtuner/entry_point.py (appends --launcher pytorch)"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    launch = xtuner_launch(ctx)
    if launch is None or launch.launcher in ("xtuner", "srun"):
        return
    current = launcher_arg(ctx)
    if current is not None and current.value == "pytorch":
        return
    point = launch.flag_point()
    if current is not None and current.edit_span is not None:
        edit = Edit(current.edit_span, "pytorch")
    else:
        edit = Edit(point, " --launcher pytorch")
    said = f"--launcher {current.value}" if current is not None else "no --launcher (default none)"
    yield ctx.diagnostic(
        CODE,
        SEVERITY,
        f"{launch.launcher} starts xtuner/tools/train.py with {said}: mmengine never initialises torch.distributed and every rank trains alone; add --launcher pytorch",
        launch.script.span,
        setting="launcher",
        current=current.value if current is not None else "none",
        suggested="pytorch",
        fix=Fix((edit,), Applicability.SAFE, "use --launcher pytorch"),
    )
