"""DataLoader workers of every rank on a node against the CPUs the Slurm job asks for.

## What it does
For a training script whose toolkit has no loader rule of its own (a plain torchrun or
DeepSpeed launch), checks `ranks_per_node x workers <= the job's CPUs per node`, the job's
CPUs being `--cpus-per-task` x tasks per node. The workers are the script's own flag:
`--dataloader_num_workers` (Hugging Face), `--num-workers` (Megatron), `--num_workers`,
`--workers`.

## Why is this bad
Slurm confines a job to the CPUs it asked for (the task/cgroup and task/affinity plugins):
the node's other cores are not the job's. Workers past the job's CPUs share cores with the
training processes; steps slow down unevenly across ranks (see RL102, the same formula for
WeNet).

## Example
`#SBATCH --ntasks-per-node=8 --cpus-per-task=4` and `--dataloader_num_workers 8`: 8 x 8 = 64
workers on 32 CPUs.

## Fix
Sets the workers to `cpus_per_node // ranks_per_node` (tuner.loader_worker_cap).

## Fix safety
Safe: only the worker count changes.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.rulekit.workers import workers_and_cpus

CODE = "RL953"
NAME = "slurm-workers-cpus"
SEVERITY = Severity.WARNING
VISITS = ("allocation",)
FIXABLE = True
SOURCE = (
    "formula ranks_per_node x num_workers <= the job's CPUs (recipelint/tuner.py loader_worker_cap); "
    "sbatch(1) --cpus-per-task (https://slurm.schedmd.com/sbatch.html)"
)
# WeNet and XTuner judge their workers against the same CPUs themselves (RL102, RL807).
TOOLKITS = ("torch", "deepspeed")


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    allocation = ctx.recipe.allocation
    if allocation is None or allocation.scheduler != "Slurm":
        return
    yield from workers_and_cpus(ctx, CODE, SEVERITY)
