"""torchrun's node count against the pods the job starts.

## What it does
Compares the nodes a torchrun (or `python -m torch.distributed.run`) in a manifest is told to
meet as (`--nnodes`, else the operator's PET_NNODES, else torchrun's default 1) with the pods
the job starts: a PyTorchJob's Master and Worker replicas, a Volcano Job's tasks, a JobSet's
replicated Jobs, one pod a node. An elastic range (`--nnodes 1:4`, an elastic PyTorchJob) is
not judged.

## Why is this bad
torchrun starts one agent per pod and waits until `--nnodes` agents have joined its
rendezvous. More nodes than pods: the agents wait for nodes that never come, and the rendezvous
times out (an error; a warning in an elastic PyTorchJob whose autoscaler may add the pods, when
`--nnodes` is within its minReplicas..maxReplicas). Fewer: the pods past it do not join the training as written; with no
`--nnodes` and no operator to set PET_NNODES (a Volcano Job without its pytorch plugin, a
JobSet) every pod runs a one-node training of its own on the same data and outputs (a
warning).

## Example
A Volcano Job with a task of `replicas: 2` running `python -m torch.distributed.run
train.py` and no `--nnodes`.

## Fix
Give torchrun `--nnodes` the pods' count and a rendezvous all pods reach (the master task's
service), or use an operator that sets them (a PyTorchJob, Volcano's `pytorch` plugin).

## Fix safety
No fix: whether the job or the launch has the right count is the author's choice.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.model import Setting, setting_source

CODE = "RL964"
NAME = "pod-nodes-launch"
SEVERITY = Severity.ERROR
VISITS = ("allocation", "launch")
FIXABLE = False
SOURCE = (
    "torch.distributed.run --nnodes (https://docs.pytorch.org/docs/stable/elastic/run.html); "
    "aws-samples/aws-do-eks@f721602f:Container-Root/eks/deployment/distributed-training/pytorch/volcano/vcjob.yaml "
    "(2 pods, each a torchrun of one node)"
)
LAUNCHERS = ("torchrun", "torch.distributed.launch")


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    allocation, launch = ctx.recipe.allocation, ctx.recipe.launch
    if allocation is None or launch is None or allocation.scheduler != "Kubernetes" or launch.launcher not in LAUNCHERS:
        return
    pods = allocation.get("nodes")
    nodes = launch.nnodes.as_int()
    if pods is None or nodes is None or nodes == pods.value:
        return
    evidence = [f"torchrun nodes: {setting_source(launch.nnodes)}", f"pods: {pods.source()}"]
    if nodes > pods.value:
        scaled = _scalable(launch.env.get("PET_NNODES"), nodes)
        fills = (
            f"the rendezvous fills only if the autoscaler adds pods (elastic {scaled})"
            if scaled
            else "the rendezvous never fills and times out"
        )
        message = f"torchrun waits for {nodes} nodes but the job starts {pods.value} pod(s) ({pods.said}): {fills}"
        severity = Severity.WARNING if scaled else SEVERITY
        yield ctx.diagnostic(
            CODE, severity, message, launch.nnodes.span, setting="nnodes", current=nodes, suggested=pods.value, evidence=evidence
        )
        return
    alone = " each pod runs a training of its own" if nodes == 1 else f" {pods.value - nodes} pod(s) are not part of it"
    message = f"the job starts {pods.value} pods ({pods.said}) but torchrun meets as {nodes} node(s):{alone}"
    yield ctx.diagnostic(
        CODE, Severity.WARNING, message, launch.nnodes.span, setting="nnodes", current=nodes, suggested=pods.value, evidence=evidence
    )


def _scalable(elastic: Setting | None, nodes: int) -> str | None:
    """`1:36` when an elastic job's pod count may reach `nodes` (minReplicas:maxReplicas, the
    operator's PET_NNODES): then whether the rendezvous fills depends on the autoscaler."""
    low, colon, high = str(elastic.value if elastic is not None else "").partition(":")
    if colon and low.isdigit() and high.isdigit() and int(low) <= nodes <= int(high):
        return f"{low}:{high}"
    return None
