"""DataLoader workers of every rank in a pod against the container's CPU limit.

## What it does
For a training script whose toolkit has no loader rule of its own (a plain torchrun or
DeepSpeed launch), checks `ranks_per_pod x workers <= resources.limits.cpu` (whole cores). The
workers are the script's own flag (`--dataloader_num_workers`, `--num-workers`,
`--num_workers`, `--workers`).

## Why is this bad
The CPU limit is a CFS quota: past it the container is throttled, whatever the node's cores.
Workers beyond the limit slow every rank's steps unevenly (RL102's formula, for the pod).
A request without a limit is not judged: the pod may use the node's idle CPUs.

## Example
`limits: {cpu: 16}` with `torchrun --nproc_per_node 8 train.py --num_workers 4`: 32 workers on 16 CPUs.

## Fix
Sets the workers to `cpu_limit // ranks_per_pod` (tuner.loader_worker_cap).

## Fix safety
Safe: only the worker count changes.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.rulekit.workers import workers_and_cpus

CODE = "RL963"
NAME = "pod-workers-cpus"
SEVERITY = Severity.WARNING
VISITS = ("allocation",)
FIXABLE = True
SOURCE = (
    "formula ranks_per_node x num_workers <= the container's CPU limit (recipelint/tuner.py "
    "loader_worker_cap); CPU limits "
    "(https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/)"
)
TOOLKITS = ("torch", "deepspeed")


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    allocation = ctx.recipe.allocation
    if allocation is None or allocation.scheduler != "Kubernetes":
        return
    yield from workers_and_cpus(ctx, CODE, SEVERITY)
