"""What the XTuner rules share."""

from __future__ import annotations

from recipelint.context import Context
from recipelint.model import Launch, Setting


def xtuner_launch(ctx: Context) -> Launch | None:
    launch = ctx.recipe.launch
    return launch if ctx.recipe.toolkit == "xtuner" and launch is not None else None


def multi_process(launch: Launch) -> bool:
    """More than one training process: NPROC_PER_NODE or NNODES set to anything but 1."""
    for name in ("NPROC_PER_NODE", "NNODES"):
        setting = launch.env.get(name)
        if setting is not None and str(setting.value) != "1":
            return True  # an unknown value (${GPU_NUM}) means the author expects several
    return launch.launcher != "xtuner"


def launcher_arg(ctx: Context) -> Setting | None:
    return ctx.recipe.args.get("launcher")
