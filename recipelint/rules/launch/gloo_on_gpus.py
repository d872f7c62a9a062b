"""gloo as the process-group backend of a multi-GPU CUDA job.

## What it does
Flags a training-script flag that sets the default process group's backend to gloo
(WeNet's `--ddp.dist_backend`, `--dist_backend` in DeepSpeed and Megatron-style scripts,
Hugging Face's `--ddp_backend`) when the launch starts two or more ranks that train on CUDA
GPUs (WeNet's `--device` is `cuda`, its default; the profile, when it knows, has GPUs).

## Why is this bad
PyTorch's rule of thumb (torch.distributed docs, "Which backend to use?"): NCCL for
distributed GPU training, gloo for CPU training. gloo moves every gradient all-reduce through
host memory and TCP sockets, so each step copies the gradients off and back onto the GPU and
is bound by the CPU and the Ethernet stack, not NVLink or InfiniBand. Users report jobs that
start at 4 x 8 GPUs but hang at 8 x 8 with gloo and run once switched to nccl (WeNet #812).
WeNet's old v2 recipes defaulted to gloo; its current ones pass nccl.

## Example
```sh
torchrun --nnodes=8 --nproc_per_node=8 ... wenet/bin/train.py --ddp.dist_backend gloo ...
```

## Fix
Sets the backend to `nccl`.

## Fix safety
Unsafe: a team may use gloo on purpose while NCCL does not start on its nodes (then fix NCCL:
`NCCL_SOCKET_IFNAME`, `NCCL_IB_DISABLE`, see RL502-RL504). WeNet's separate gloo join group
(`--timeout`) is not this setting and stays.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Applicability, Diagnostic, Fix, Severity

CODE = "RL505"
NAME = "gloo-on-gpus"
SEVERITY = Severity.WARNING
VISITS = ("recipe",)
FIXABLE = True
SOURCE = "torch.distributed docs (NCCL for distributed GPU training, gloo for CPU: pytorch/pytorch@v2.1.2:docs/source/distributed.rst); wenet-e2e/wenet#812; wenet-e2e/wenet@01546996:wenet/bin/train.py (--dist_backend)"
# The flags training scripts use for the default group's backend, by the name recipelint stores.
BACKEND_FLAGS = ("ddp.dist_backend", "dist_backend", "ddp_backend")


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    recipe = ctx.recipe
    setting = next((recipe.args[name] for name in BACKEND_FLAGS if name in recipe.args and recipe.args[name].given), None)
    if setting is None or str(setting.value).lower() != "gloo":
        return
    device = recipe.arg("device").value
    gpus = ctx.fact("gpus").value
    if (device is not None and device != "cuda") or gpus == 0:
        return  # CPU (or NPU) training: gloo is the right backend there
    world = ctx.world_size
    if world is None or world < 2:
        return
    edit = ctx.set_value(setting, "nccl")
    flag = next(name for name in BACKEND_FLAGS if recipe.args.get(name) is setting)
    yield ctx.diagnostic(
        CODE,
        SEVERITY,
        f"--{flag} gloo on {world} CUDA ranks: every gradient all-reduce goes through host memory and TCP; use nccl for GPU training",
        setting.span,
        setting=setting.via or flag,
        current="gloo",
        suggested="nccl",
        evidence=[ctx.ranks_evidence, "torch.distributed docs: NCCL for distributed GPU training, gloo for CPU training"],
        fix=Fix((edit,), Applicability.UNSAFE, f"set {flag} nccl") if edit is not None else None,
    )
