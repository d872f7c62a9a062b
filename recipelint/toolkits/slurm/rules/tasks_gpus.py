"""The ranks a Slurm job starts on each node against the GPUs it asks for.

## What it does
Compares the ranks per node (srun's tasks per node when srun starts the training script
itself, else the launcher's `--nproc_per_node` in its one task per node) with the GPUs per
node the job asks for (`--gres=gpu:N`, `--gpus-per-node`, `--gpus-per-task` x tasks, `--gpus`
over the nodes). Fewer ranks than GPUs is judged for a launcher or a DeepSpeed, XTuner or
WeNet run (one process per GPU), not for a plain script srun starts once (it may drive every
GPU itself).

## Why is this bad
More ranks than GPUs: the extra ranks have no GPU of their own; a script that selects
`cuda:LOCAL_RANK` fails with "invalid device ordinal", and NCCL refuses two ranks on one GPU
("Duplicate GPU detected"). Fewer: the job holds GPUs it never uses.

## Example
`#SBATCH --ntasks-per-node=1 --gres=gpu:8` and `srun python train.py`: one rank per node,
7 GPUs idle.

## Fix
Make the tasks per node (or `--nproc_per_node`) equal to the GPUs per node.

## Fix safety
No fix: whether the job should ask for fewer GPUs or start more ranks is the author's choice.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.rulekit.allocated import ranks_and_gpus

CODE = "RL952"
NAME = "slurm-ranks-gpus"
SEVERITY = Severity.ERROR
VISITS = ("allocation", "launch")
FIXABLE = False
SOURCE = (
    "sbatch(1)/srun(1) --ntasks-per-node, --gres, --gpus-per-node, --gpus-per-task "
    "(https://slurm.schedmd.com/sbatch.html); one rank per GPU (torch.distributed)"
)


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    recipe = ctx.recipe
    allocation, launch = recipe.allocation, recipe.launch
    if allocation is None or allocation.scheduler != "Slurm" or launch is None:
        return
    tasks = allocation.get("tasks_per_node")
    if launch.launcher != "srun" and (tasks is None or tasks.value != 1):
        return  # several tasks each running a launcher: RL951
    how = "srun" if launch.launcher == "srun" else launch.launcher
    # A plain script srun starts once may drive every GPU itself (DataParallel): fewer ranks than
    # GPUs is judged only for a launcher or a toolkit that runs one process per GPU.
    idle = launch.launcher != "srun" or recipe.toolkit != "torch"
    yield from ranks_and_gpus(ctx, CODE, launch.nproc_per_node, how, idle)
