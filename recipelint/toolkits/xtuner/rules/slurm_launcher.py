"""`srun ... xtuner train` without `--launcher slurm`, or with `--launcher=slurm`.

## What it does
Flags an `srun` launch of `xtuner train` whose arguments lack the token pair
`--launcher slurm`, including the `--launcher=slurm` spelling.

## Why is this bad
The CLI looks for the literal pair `--launcher` `slurm`. Without it (or written with `=`,
which it does not see), each srun task with `NPROC_PER_NODE` in its environment starts its own
torchrun, and the `--launcher pytorch` the CLI appends overrides slurm; without
`NPROC_PER_NODE`, each task trains alone with `--launcher none` (InternLM/xtuner@v0.1.19:xtuner/entry_point.py, InternLM/xtuner#728).

## Example
```sh
srun -p $PARTITION --nodes=2 --ntasks-per-node=8 xtuner train cfg.py --launcher=slurm
```

## Fix
Appends `--launcher slurm`, or rewrites `--launcher=slurm` as `--launcher slurm`.

## Fix safety
Safe: the result is the form XTuner's docs use.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Applicability, Diagnostic, Edit, Fix, Severity
from recipelint.toolkits.xtuner.rules._x import launcher_arg, xtuner_launch

CODE = "RL803"
NAME = "xtuner-slurm-launcher"
SEVERITY = Severity.ERROR
VISITS = ("xtuner-launch",)
FIXABLE = True
SOURCE = (
    "InternLM/xtuner@v0.1.19:xtuner/entry_point.py detects only the token pair '--launcher slurm' (fixed in v0.1.20, InternLM/xtuner#728)"
)


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    launch = xtuner_launch(ctx)
    if launch is None or launch.launcher != "srun":
        return
    current = launcher_arg(ctx)
    script = ctx.recipe.script
    with_equals = (
        current.flag
        if current is not None and current.flag is not None and script is not None and "=" in script.source.slice(current.flag)
        else None
    )
    if with_equals is not None:
        yield ctx.diagnostic(
            CODE,
            SEVERITY,
            "--launcher=slurm is not seen by the xtuner CLI (it looks for the pair '--launcher slurm'): each srun task starts torchrun or trains alone",
            with_equals,
            setting="launcher",
            current=f"--launcher={current.value if current else ''}",
            suggested="--launcher slurm",
            fix=Fix((Edit(with_equals, "--launcher slurm"),), Applicability.SAFE, "write --launcher slurm"),
        )
        return
    if current is not None and current.value == "slurm":
        return
    point = launch.flag_point()
    edit = Edit(current.edit_span, "slurm") if current is not None and current.edit_span is not None else Edit(point, " --launcher slurm")
    yield ctx.diagnostic(
        CODE,
        SEVERITY,
        f"srun runs xtuner train with {'--launcher ' + str(current.value) if current else 'no --launcher'}: add --launcher slurm, or each task starts its own torchrun or trains alone",
        launch.script.span,
        setting="launcher",
        current=current.value if current else None,
        suggested="slurm",
        fix=Fix((edit,), Applicability.SAFE, "use --launcher slurm"),
    )
