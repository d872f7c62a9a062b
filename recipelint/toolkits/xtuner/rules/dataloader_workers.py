"""`dataloader_num_workers` against the node's CPUs, and 0 for image datasets.

## What it does
Applies the CPU formula RL102 applies, `ranks_per_node x dataloader_num_workers <= usable
CPUs` (recipelint.tuner.loader_worker_cap, docs/tuner.md), to an XTuner config, and flags 0
workers for `LLaVADataset` and `InternVL_V1_5_Dataset`, which decode images in `__getitem__`,
that is in the DataLoader workers.

## Why is this bad
Too many workers starve the training processes (see RL102). With 0 workers, every image of
every batch is decoded in the training process between steps: the GPUs wait. XTuner's own
LLaVA and InternVL configs use 4 (82 shipped configs under InternLM/xtuner@v0.2.0:xtuner/configs).

## Example
`dataloader_num_workers = 16` with 8 ranks on a 64-CPU node: 8 x 16 = 128 > 64.

## Fix
Sets the value: `usable_cpus // ranks_per_node` (never below 1) when oversubscribed; for an image dataset
with 0 workers, 4 (XTuner's shipped value), capped by the same CPU bound.

## Fix safety
Safe: only the worker count changes.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint import tuner
from recipelint.context import Context
from recipelint.diagnostics import Applicability, Diagnostic, Edit, Fix, Severity
from recipelint.rulekit import oversubscribed
from recipelint.toolkits.xtuner.part import mmengine_config
from recipelint.toolkits.xtuner.rules._x import xtuner_launch

CODE = "RL807"
NAME = "xtuner-dataloader-workers"
SEVERITY = Severity.WARNING
VISITS = ("xtuner-config",)
FIXABLE = True
SOURCE = "the CPU formula in recipelint/tuner.py (loader_worker_cap, docs/tuner.md); InternLM/xtuner@v0.2.0:xtuner/configs (image datasets decode in workers; shipped value 4)"
FACTS = ("cpus",)
IMAGE_DATASETS = {"LLaVADataset", "InternVL_V1_5_Dataset"}
SHIPPED_IMAGE_WORKERS = 4


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    config = mmengine_config(ctx.recipe)
    if config is None:
        return
    value = config.get("train_dataloader.num_workers") or config.get("dataloader_num_workers")
    if value is None or not isinstance(value.value, int) or isinstance(value.value, bool):
        return
    workers = value.value
    launch = xtuner_launch(ctx)
    ranks = ctx.ranks_per_node if launch is not None else None
    cpus = ctx.fact("cpus").value if launch is not None else None
    cap = tuner.loader_worker_cap(cpus, ranks) if isinstance(cpus, int) and ranks else None
    name = value.name or "dataloader_num_workers"
    if cap is not None and ranks is not None and workers > cap:
        new = cap
        yield ctx.diagnostic(
            CODE,
            SEVERITY,
            oversubscribed(ranks, workers, cpus),
            value.span,
            setting=name,
            current=workers,
            suggested=new,
            evidence=[ctx.fact("cpus").cite("cpus"), ctx.ranks_evidence],
            fix=Fix((Edit(value.span, str(new)),), Applicability.SAFE, f"set {name} = {new}") if value.literal else None,
        )
    elif workers == 0 and IMAGE_DATASETS & config.calls:
        new = min(SHIPPED_IMAGE_WORKERS, cap) if cap is not None else SHIPPED_IMAGE_WORKERS
        new = max(1, new)
        kind = sorted(IMAGE_DATASETS & config.calls)[0]
        yield ctx.diagnostic(
            CODE,
            SEVERITY,
            f"{name} = 0 with {kind}: images are decoded in the training process between steps; XTuner's own configs use {SHIPPED_IMAGE_WORKERS}",
            value.span,
            setting=name,
            current=0,
            suggested=new,
            fix=Fix((Edit(value.span, str(new)),), Applicability.SAFE, f"set {name} = {new}") if value.literal else None,
        )
