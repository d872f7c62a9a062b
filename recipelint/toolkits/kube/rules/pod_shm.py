"""A pod whose ranks and DataLoader workers share the container's default 64 MiB /dev/shm.

## What it does
Flags a training container with no memory-backed volume at `/dev/shm` (so it has the
container runtime's default 64 MiB) when it runs DataLoader workers or more than one rank:
the numbers are the ranks per pod, the workers per rank (the training script's worker flag)
and the batches they keep in flight (`ranks x workers x prefetch_factor 2`). With
`pin_memory` (the script's `--pin_memory`/`--pin-memory`/`--pin_mem` switch, or the config key
the script hands to its DataLoader's `pin_memory`) the loader's pin thread copies each batch
out of shared memory as it arrives and the queued batches wait in pinned RAM instead: the
batches in /dev/shm at once are then `ranks x workers` (each worker's last one on its way),
torch/utils/data/dataloader.py `_MultiProcessingDataLoaderIter` (its `pin_memory_thread`
reads the workers' result queue, `_utils/pin_memory.py` `_pin_memory_loop`).

## Why is this bad
A DataLoader worker hands each batch to its rank through shared memory; with 64 MiB the
workers fail ("DataLoader worker (pid N) is killed by signal: Bus error", "This might be
caused by insufficient shared memory (shm)": torch/utils/data/_utils/signal_handling.py) as
soon as the batches in flight pass it. PyTorch's README says so for containers: "the default
shared memory segment size that container runs with is not enough" (`--ipc=host` or
`--shm-size`). NCCL puts its intra-node buffers in /dev/shm too when the GPUs talk through
host memory; too little fails with "unhandled system error" (NCCL's troubleshooting page,
Docker section: `--shm-size=1g`). Kubernetes has no `--shm-size`: a pod gets more only from an
`emptyDir` with `medium: Memory` mounted at `/dev/shm`.

## Example
A PyTorchJob container running `torchrun --nproc_per_node 8 train.py --num_workers 8` with
no `/dev/shm` volume: 8 ranks x 8 workers x 2 = 128 batches in flight in 64 MiB.

## Fix
Mount a memory-backed emptyDir at /dev/shm:
`volumes: [{name: dshm, emptyDir: {medium: Memory, sizeLimit: 16Gi}}]` and
`volumeMounts: [{name: dshm, mountPath: /dev/shm}]`.

## Fix safety
No fix: the size is the author's (it counts against the pod's memory limit).
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.model import setting_source
from recipelint.rulekit.allocated import config_loader, worker_setting

CODE = "RL961"
NAME = "pod-default-shm"
SEVERITY = Severity.ERROR
VISITS = ("allocation", "launch")
FIXABLE = False
SOURCE = (
    "insufficient shared memory "
    "(https://github.com/pytorch/pytorch/blob/v2.5.0/torch/utils/data/_utils/signal_handling.py); "
    "NCCL troubleshooting, Docker --shm-size "
    "(https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html); the container "
    "runtime's 64 MiB /dev/shm default (https://docs.docker.com/reference/cli/docker/container/run/)"
)
PREFETCH = 2  # torch.utils.data.DataLoader prefetch_factor default with workers


PIN_FLAGS = ("--pin_memory", "--pin-memory", "--pin_mem")  # switches scripts name it by (MAE's and V-JEPA's --pin_mem)


def pin_memory(ctx: Context) -> str | None:
    """Where the launch says its loader pins its batches: a pin switch among the script's words
    (`--pin_memory` or `--pin_memory true`), or the config key the script hands to its
    DataLoader's pin_memory set true; None where it says not, or nothing."""
    launch = ctx.recipe.launch
    words = launch.command.words if launch is not None else []
    start = next((i for i, w in enumerate(words) if w is launch.script), len(words)) if launch is not None else 0
    for position, word in enumerate(words[start + 1 :], start + 1):
        text = word.value or word.text
        name, _, value = text.partition("=")
        following = words[position + 1].value if position + 1 < len(words) else None
        if name in PIN_FLAGS and (value or following or "").lower() not in ("false", "0", "no"):
            return f"{text} ({word.span.path.name}:{word.span.line})"
    config = config_loader(ctx, "pin_memory")
    return setting_source(config) if config is not None and config.value is True else None


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    recipe = ctx.recipe
    allocation, launch = recipe.allocation, recipe.launch
    shm = allocation.get("shm_gib") if allocation is not None else None
    if allocation is None or launch is None or shm is None or allocation.scheduler != "Kubernetes" or "default" not in shm.said:
        return
    ranks = ctx.ranks_per_node or 1
    setting = worker_setting(ctx)
    workers = setting.as_int() if setting is not None else None
    mib = round(shm.value * 1024)
    evidence = [f"/dev/shm: {shm.source()}", ctx.ranks_evidence]
    if workers is not None and workers >= 1 and setting is not None:
        prefetch_setting = recipe.args.get("prefetch_factor") or config_loader(ctx, "prefetch_factor")
        prefetch = prefetch_setting.as_int() if prefetch_setting is not None else None
        prefetch = prefetch if prefetch is not None and prefetch >= 1 else PREFETCH
        if prefetch_setting is not None and prefetch_setting.as_int() == prefetch:
            evidence.append(f"prefetch_factor: {setting_source(prefetch_setting)}")
        pinned = pin_memory(ctx)
        if pinned is not None:
            evidence.append(f"pin_memory: {pinned}: the pin thread copies each batch out of /dev/shm as it arrives")
            batches = ranks * workers
            held = (
                f"{batches} batches on their way to the pin thread (pin_memory: the {ranks * workers * prefetch} queued wait in pinned RAM)"
            )
        else:
            batches = ranks * workers * prefetch
            held = f"{batches} batches in flight (x prefetch_factor {prefetch})"
        message = (
            f"{ranks} rank(s) x {workers} DataLoader workers in a pod with no /dev/shm volume: {held} "
            f"share the container's default {mib} MiB; the workers die with 'Bus error' "
            f"(insufficient shared memory) once a batch passes {mib * 1024 // batches} KiB"
        )
        evidence.append(f"workers: {setting.name} {workers}")
        yield ctx.diagnostic(CODE, SEVERITY, message, setting.span, setting="/dev/shm", current=f"{mib} MiB", evidence=evidence)
        return
    if ranks > 1 and allocation.value("gpus"):  # NCCL's buffers; gloo on CPUs talks over TCP
        message = (
            f"{ranks} ranks share the container's default {mib} MiB /dev/shm (no /dev/shm volume in the pod): NCCL fails "
            "with 'unhandled system error' when its GPUs talk through host shared memory (no P2P between them)"
        )
        yield ctx.diagnostic(
            CODE, Severity.WARNING, message, launch.nproc_per_node.span, setting="/dev/shm", current=f"{mib} MiB", evidence=evidence
        )
