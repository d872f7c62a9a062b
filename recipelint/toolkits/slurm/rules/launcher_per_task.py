"""srun starts a launcher that starts its own processes in more than one task per node.

## What it does
Flags `srun torchrun ...` (or `python -m torch.distributed.run`, `deepspeed`, `accelerate
launch`) when the job gives srun more than one task per node: every task runs the whole
launcher, so each node starts tasks x nproc_per_node processes.

## Why is this bad
srun runs its program once per task (srun(1)). torchrun then starts `--nproc_per_node`
workers in each of those tasks: `--ntasks-per-node=8` with `--nproc_per_node 8` is 64
processes on a node of 8 GPUs, and 8 torchrun agents per node join a rendezvous sized for
`--nnodes` agents. The extra agents wait for a rendezvous that never admits them or start ranks
that share GPUs; the job fails or hangs. The launcher's own examples run one task per node
(torchtitan `multinode_trainer.slurm`: `--ntasks=4 --nodes=4`, accelerate
`examples/slurm/submit_multinode.sh`: `--ntasks-per-node=1`).

## Example
`#SBATCH --ntasks-per-node=8 --gres=gpu:8` and `srun torchrun --nproc_per_node 8 train.py`.

## Fix
One task per node (`--ntasks-per-node=1`) with the launcher, or let srun start the ranks
(`srun python train.py` with one task per GPU).

## Fix safety
No fix: which of the two the job meant is the author's choice.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.model import setting_source

CODE = "RL951"
NAME = "srun-launcher-per-task"
SEVERITY = Severity.ERROR
VISITS = ("allocation", "launch")
FIXABLE = False
SOURCE = (
    "srun(1): one copy of the program per task (https://slurm.schedmd.com/srun.html); torchrun "
    "starts --nproc_per_node workers per agent "
    "(https://github.com/pytorch/pytorch/blob/v2.5.0/torch/distributed/run.py)"
)
SPAWNERS = ("torchrun", "torch.distributed.launch", "deepspeed", "accelerate")


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    recipe = ctx.recipe
    allocation, launch = recipe.allocation, recipe.launch
    if allocation is None or launch is None or allocation.starter != "srun" or launch.launcher not in SPAWNERS:
        return
    tasks = allocation.get("tasks_per_node")
    per_task = launch.nproc_per_node.as_int()
    if tasks is None or tasks.value <= 1:
        return
    each = f"{per_task} processes" if per_task else "its own processes"
    gpus = allocation.get("gpus")
    total = f": {tasks.value * per_task} processes per node" if per_task else ""
    total += f" for {gpus.value} GPUs" if total and gpus is not None else ""
    message = (
        f"srun starts {tasks.value} tasks per node ({tasks.said}) and each runs {launch.launcher}, which starts {each}{total}; "
        f"{tasks.value} {launch.launcher} agents per node join one rendezvous: run one task per node"
    )
    evidence = [f"tasks per node: {tasks.source()}", f"processes per task: {setting_source(launch.nproc_per_node)}"]
    yield ctx.diagnostic(
        CODE,
        SEVERITY,
        message,
        tasks.span,  # at the directive: what to change (the launch is right for one task per node)
        setting="ntasks-per-node",
        current=tasks.value,
        suggested=1,
        evidence=evidence,
    )
