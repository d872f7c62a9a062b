"""A Kubernetes file named alone that holds no training launch recipelint reads.

## What it does
Reports, once, a manifest passed by name (as pre-commit passes changed files) whose documents
are all objects recipelint does not read as a training job (a Service, a Deployment, a
ConfigMap, an etcd server, a ClusterTrainingRuntime on its own), or a workload whose command
is no training launch (a Pod copying files, an MPIJob running an NCCL benchmark binary; its
allocation still shows in `show`). It names their kinds. The
workloads read are a PyTorchJob, an MPIJob, a Volcano Job, a Trainer v2 TrainJob, a JobSet, a
batch Job and a Pod; each document of a `---` stream is read on its own. Found by walking a
folder, such a file is skipped without a word.

## Why is this bad
It is not: the finding says what recipelint did not do. Without it, a file named on purpose
would check as "No problems found", which reads as an all clear for a job nobody looked at.

## Example
A file with an etcd `Service` and `Deployment` only, checked with `recipelint check etcd.yaml`.

## Fix
None: nothing is wrong.

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity

CODE = "RL555"
NAME = "manifest-without-workload"
SEVERITY = Severity.INFO
VISITS = ("recipe",)
FIXABLE = False
SOURCE = "the workloads docs/toolkits/kube.md lists; YAML 1.2 streams of several documents (yaml.org/spec/1.2.2/#streams)"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    from recipelint.toolkits.kube.frontend import Objects

    objects = ctx.recipe.payload
    if isinstance(objects, Objects):
        kinds = ", ".join(objects.kinds) if objects.kinds else "no Kubernetes object"
        span = objects.source.span(0, 0)
        yield ctx.diagnostic(CODE, SEVERITY, f"no training launch recipelint reads in this file ({kinds}): not judged", span)
