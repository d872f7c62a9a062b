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

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.rulekit import oversubscribed
from recipelint.toolkits.xtuner.loader import SHIPPED_IMAGE_WORKERS, XTunerWorkers

CODE = "RL807"
NAME = "xtuner-dataloader-workers"
SEVERITY = Severity.WARNING
VISITS = ("xtuner-config",)
FIXABLE = True
SOURCE = "the CPU formula in recipelint/tuner.py (loader_worker_cap, docs/tuner.md); InternLM/xtuner@v0.2.0:xtuner/configs (image datasets decode in workers; shipped value 4)"
FACTS = ("cpus",)


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    plan = ctx.derived(XTunerWorkers)
    setting, workers, cap = plan.setting, plan.workers, plan.cap
    ranks, cpus = ctx.ranks_per_node, plan.cpus
    if setting is None or workers is None:
        return
    if cap is not None and ranks is not None and cpus is not None and workers > cap:
        yield ctx.diagnostic(
            CODE,
            SEVERITY,
            oversubscribed(ranks, workers, cpus[0]),
            setting.span,
            setting=setting.name,
            current=workers,
            suggested=plan.suggested,
            evidence=[cpus[1], ctx.ranks_evidence],
            fix=plan.fix(),
        )
    elif workers == 0 and plan.image_dataset is not None:
        yield ctx.diagnostic(
            CODE,
            SEVERITY,
            f"{setting.name} = 0 with {plan.image_dataset}: images are decoded in the training process between steps; "
            f"XTuner's own configs use {SHIPPED_IMAGE_WORKERS}",
            setting.span,
            setting=setting.name,
            current=0,
            suggested=plan.suggested,
            fix=plan.fix(),
        )
