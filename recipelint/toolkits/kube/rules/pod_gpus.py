"""The ranks a pod starts against the GPUs its container is given (`nvidia.com/gpu`).

## What it does
Compares the launch's ranks per pod (`--nproc_per_node` of torchrun, `deepspeed --num_gpus`,
`accelerate launch --num_processes`) with the container's `nvidia.com/gpu` limit.

## Why is this bad
The device plugin shows the container only the GPUs it was given. More ranks than GPUs: the
extra ranks have none ("invalid device ordinal" for `cuda:LOCAL_RANK`; NCCL's "Duplicate GPU
detected"). Fewer: the pod holds GPUs no rank uses.

## Example
`nvidia.com/gpu: 4` and `torchrun --nproc_per_node 8`.

## Fix
Make `--nproc_per_node` the pod's GPU count.

## Fix safety
No fix: whether the pod or the launch is wrong is the author's choice.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.rulekit.allocated import ranks_and_gpus

CODE = "RL962"
NAME = "pod-ranks-gpus"
SEVERITY = Severity.ERROR
VISITS = ("allocation", "launch")
FIXABLE = False
SOURCE = (
    "Kubernetes device plugins, nvidia.com/gpu: the GPUs a container sees "
    "(https://kubernetes.io/docs/tasks/manage-gpus/scheduling-gpus/); one rank per GPU "
    "(torch.distributed)"
)
SPAWNERS = ("torchrun", "torch.distributed.launch", "deepspeed", "accelerate")


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    allocation, launch = ctx.recipe.allocation, ctx.recipe.launch
    if allocation is None or launch is None or allocation.scheduler != "Kubernetes" or launch.launcher not in SPAWNERS:
        return
    yield from ranks_and_gpus(ctx, CODE, launch.nproc_per_node if launch.nproc_per_node.given else None, launch.launcher)
