"""`NPROC_PER_NODE` or `NNODES` in the environment of `srun ... xtuner train --launcher slurm`.

## What it does
Flags `NPROC_PER_NODE` and `NNODES` exported to (or set before) an `srun` launch of
`xtuner train` whose arguments hold the pair `--launcher slurm`. The XTuner release is the
checkout's the launch runs, else the one the environment or the repository's pins give, else
`target-versions`, else the newest known (0.2.0): an error when every release in that range is
older than 0.1.20, a warning otherwise (naming the older releases when the range holds some).

## Why is this bad
The xtuner CLI (`xtuner/entry_point.py`) reads those variables to decide whether to start
torchrun. Before 0.1.20 it did not look at `--launcher`, and any value set (read as a string,
so even `1`) took the torchrun path: every srun task started its own torchrun with
`NPROC_PER_NODE` processes and appended `--launcher pytorch`, which overrode slurm, so
`tasks x NPROC_PER_NODE` processes fought over the node's GPUs and ports. XTuner fixed it in
bc834b418 "[Fix] Avoid incorrect `torchrun` invocation with `--launcher slurm`" (#728,
2024-06-11, first tag v0.1.20); since then the CLI ignores both variables under
`--launcher slurm`, so they do nothing, and the script breaks on an older install or misleads
whoever reads it (srun's `--nodes`/`--ntasks-per-node` decide the world size).

## Example
```sh
NPROC_PER_NODE=8 NNODES=2 srun -p $PARTITION --nodes=2 --ntasks-per-node=8 xtuner train cfg.py --launcher slurm
```

## Fix
Deletes `NAME=value` when it is a prefix of the srun command; an `export` line is left (other
commands may read it) and named in the message.

## Fix safety
Safe: XTuner >= 0.1.20 ignores the variables here, and older releases run correctly without them.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint import versions
from recipelint.context import Context
from recipelint.diagnostics import Applicability, Diagnostic, Edit, Fix, Severity
from recipelint.model import Setting
from recipelint.parse.span import Span
from recipelint.toolkits.xtuner.rules._x import launcher_arg, xtuner_launch

CODE = "RL810"
NAME = "xtuner-slurm-env-conflict"
SEVERITY = Severity.WARNING
VISITS = ("xtuner-launch",)
FIXABLE = True
SOURCE = "InternLM/xtuner@v0.1.19:xtuner/entry_point.py and InternLM/xtuner@v0.1.20:xtuner/entry_point.py; the change bc834b418 (InternLM/xtuner#728), first tag v0.1.20"
FIXED_IN = (0, 1, 20)


def _prefix_span(ctx: Context, name: str, setting: Setting) -> Span | None:
    """`NAME=value ` written before the command (not an export): the bytes a fix deletes."""
    script = ctx.recipe.script
    launch = ctx.recipe.launch
    if script is None or launch is None or setting.word is None or name not in launch.command.env:
        return None
    return script.source.prefix_assignment(setting.word.span, name)


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    launch = xtuner_launch(ctx)
    current = launcher_arg(ctx)
    if launch is None or launch.launcher != "srun" or current is None or current.value != "slurm":
        return
    rng = ctx.version_range("xtuner")
    old = versions.evaluate(rng, lambda version: version < FIXED_IN, ("0.1.20",))
    for name in ("NPROC_PER_NODE", "NNODES"):
        setting = launch.env.get(name)
        if setting is None:
            continue
        span = _prefix_span(ctx, name, setting)
        effect = {
            "all": f"XTuner {rng.label()} ({rng.source}) starts torchrun inside every srun task and --launcher pytorch overrides slurm",
            "some": f"{old.says()}: XTuner starts torchrun inside every srun task and --launcher pytorch overrides slurm; 0.1.20 and later ignore it",
            "none": f"XTuner >= 0.1.20 ignores it under --launcher slurm ({rng.allows()}); before 0.1.20 every srun task started its own torchrun",
        }[old.holds]
        how = "" if span is not None else " (remove the export, or unset it for this command)"
        yield ctx.diagnostic(
            CODE,
            Severity.ERROR if old.holds == "all" else SEVERITY,
            f"{name}={setting.value if setting.value is not None else '?'} with srun and --launcher slurm: {effect}; srun's --nodes/--ntasks-per-node set the world size{how}",
            setting.span,
            setting=name,
            current=setting.value,
            evidence=["xtuner/entry_point.py: bc834b418 (#728, first tag v0.1.20) skips torchrun when it sees '--launcher slurm'"],
            fix=Fix((Edit(span, ""),), Applicability.SAFE, f"remove {name} from the srun command") if span is not None else None,
        )
