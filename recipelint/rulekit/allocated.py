"""What the scheduler toolkits' rules share (recipelint.toolkits.slurm, recipelint.toolkits.kube):
a launch's ranks per node against the GPUs its job asks for, and DataLoader workers against
the job's CPUs, for a training script whose own toolkit has no loader rule."""

from __future__ import annotations

from collections.abc import Iterator

from recipelint import tuner
from recipelint.allocation import Grant
from recipelint.context import Context
from recipelint.diagnostics import Applicability, Diagnostic, Fix, Severity
from recipelint.model import Setting, setting_source
from recipelint.rulekit import oversubscribed

# The training script's worker flags, by the argument parsers that name them: Hugging Face
# TrainingArguments (`--dataloader_num_workers`), Megatron (`--num-workers`), the common
# `--num_workers` and torchvision's reference scripts and ImageNet example (`--workers`, `-j`).
WORKER_FLAGS = ("dataloader_num_workers", "num_workers", "num-workers", "workers")


def ranks_and_gpus(ctx: Context, code: str, ranks: Setting | None, how: str, idle: bool = True) -> Iterator[Diagnostic | None]:
    """The ranks a node runs (`ranks`, said as `how`) against the GPUs the job gives it; `idle`:
    whether fewer ranks than GPUs is a finding (not for a process that may drive several GPUs)."""
    allocation = ctx.recipe.allocation
    gpus = allocation.get("gpus") if allocation is not None else None
    count = ranks.as_int() if ranks is not None else None
    if gpus is None or ranks is None or count is None or count <= 0 or count == gpus.value:
        return
    evidence = [f"ranks per node: {setting_source(ranks)}", f"GPUs per node: {gpus.source()}"]
    if count > gpus.value:
        message = (
            f"{how} starts {count} ranks per node but the job gives each node {gpus.value} GPU(s) ({gpus.said}): "
            f"ranks {gpus.value}..{count - 1} of each node have no GPU of their own; a script that picks cuda:LOCAL_RANK "
            "fails with 'invalid device ordinal', and NCCL rejects two ranks on one GPU"
        )
        yield ctx.diagnostic(
            code, Severity.ERROR, message, ranks.span, setting=ranks.name, current=count, suggested=gpus.value, evidence=evidence
        )
        return
    ranks_said = f"{count} rank{'s' if count != 1 else ''}"
    if not idle:
        return
    message = f"{how} starts {ranks_said} per node but the job gives each node {gpus.value} GPUs ({gpus.said}): {gpus.value - count} GPU(s) per node stay idle"
    yield ctx.diagnostic(
        code, Severity.WARNING, message, ranks.span, setting=ranks.name, current=count, suggested=gpus.value, evidence=evidence
    )


def worker_setting(ctx: Context) -> Setting | None:
    """The training script's DataLoader worker flag, when the launch passes one."""
    return next((ctx.recipe.args[name] for name in WORKER_FLAGS if name in ctx.recipe.args), None)


def workers_and_cpus(ctx: Context, code: str, severity: Severity) -> Iterator[Diagnostic | None]:
    """ranks per node x workers against the CPUs the job gives a node (tuner.loader_worker_cap,
    RL102's formula): past them, workers and trainers share cores."""
    allocation, setting = ctx.recipe.allocation, worker_setting(ctx)
    cpus: Grant | None = allocation.get("cpus") if allocation is not None else None
    workers = setting.as_int() if setting is not None else None
    ranks = ctx.ranks_per_node
    if cpus is None or setting is None or workers is None or workers < 1 or ranks is None:
        return
    cap = tuner.loader_worker_cap(cpus.value, ranks)
    if workers <= cap:
        return
    message = f"{oversubscribed(ranks, workers, cpus.value)} in this job ({cpus.said})"
    edit = ctx.set_value(setting, str(cap)) if setting.given else None
    fix = Fix((edit,), Applicability.SAFE, f"set {setting.name} {cap}") if edit is not None else None
    evidence = [f"CPUs per node: {cpus.source()}", ctx.ranks_evidence, "formula: ranks_per_node x num_workers <= the job's CPUs per node"]
    yield ctx.diagnostic(
        code, severity, message, setting.span, setting=setting.name, current=workers, suggested=cap, evidence=evidence, fix=fix
    )
