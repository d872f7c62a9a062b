"""XTuner config settings that contradict each other or the launch.

## What it does
- `sequence_parallel_size` must divide the world size (`setup_distributed.py`), and needs
  `--deepspeed` ("Sequence parallel training without DeepSpeed lacks validation").
- `use_varlen_attn = True` needs `batch_size == 1` (`check_cfg`).
- A `_gpuN` / `_Ngpus` in the config file name that disagrees with `NPROC_PER_NODE x NNODES`.

## Why is this bad
The first two stop the job in `check_cfg` or at the first collective; the third runs, but
with a different global batch than the config was tuned for (InternLM/xtuner@v0.2.0:xtuner/tools/train.py, InternLM/xtuner@v0.2.0:xtuner/configs).

## Example
`sequence_parallel_size = 4` with `NPROC_PER_NODE=6 xtuner train cfg_sp4.py --deepspeed deepspeed_zero2`.

## Fix
None: which side is intended is the author's call.

## Fix safety
No fix.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.toolkits.xtuner.part import mmengine_config
from recipelint.toolkits.xtuner.rules._x import xtuner_launch

CODE = "RL808"
NAME = "xtuner-config-consistency"
SEVERITY = Severity.ERROR
VISITS = ("xtuner-config",)
FIXABLE = False
SOURCE = "InternLM/xtuner@v0.2.0:xtuner/tools/train.py (check_cfg, setup_distributed); the _gpuN config names under InternLM/xtuner@v0.2.0:xtuner/configs"
_GPUS = re.compile(r"_gpu(\d+)(?:_|$)|_(\d+)gpus(?:_|$)")


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    config = mmengine_config(ctx.recipe)
    if config is None:
        return
    launch = xtuner_launch(ctx)
    world = ctx.world_size if launch is not None else None
    sp = config.get("sequence_parallel_size")
    if sp is not None and isinstance(sp.value, int) and sp.value > 1:
        if world is not None and world % sp.value:
            yield ctx.diagnostic(
                CODE,
                SEVERITY,
                f"sequence_parallel_size {sp.value} does not divide the world size {world}: XTuner's setup_distributed asserts world_size % sequence_parallel_size == 0",
                sp.span,
                setting="sequence_parallel_size",
                current=sp.value,
                evidence=[ctx.ranks_evidence],
            )
        if launch is not None and "deepspeed" not in ctx.recipe.args:
            yield ctx.diagnostic(
                CODE,
                SEVERITY,
                f"sequence_parallel_size {sp.value} without --deepspeed: check_cfg asserts 'Sequence parallel training without DeepSpeed lacks validation'",
                sp.span,
                setting="sequence_parallel_size",
                current=sp.value,
            )
    varlen = config.get("use_varlen_attn")
    batch = config.get("train_dataloader.batch_size") or config.get("batch_size")
    if varlen is not None and varlen.value is True and batch is not None and isinstance(batch.value, int) and batch.value != 1:
        yield ctx.diagnostic(
            CODE,
            SEVERITY,
            f"use_varlen_attn needs batch_size 1 (packed sequences), but batch_size is {batch.value}: check_cfg rejects it",
            batch.span,
            setting=batch.name or "batch_size",
            current=batch.value,
            suggested=1,
            evidence=[f"{varlen.span}: use_varlen_attn = True"],
        )
    if launch is not None and world is not None:
        match = _GPUS.search(Path(config.source.path).stem)
        if match:
            intended = int(match.group(1) or match.group(2))
            if intended != world:
                yield ctx.diagnostic(
                    CODE,
                    Severity.WARNING,
                    f"the config is named for {intended} GPUs but the launch starts {world} processes: the global batch differs from the one the config was tuned for",
                    launch.script.span,
                    setting="NPROC_PER_NODE",
                    current=world,
                    suggested=intended,
                    evidence=[ctx.ranks_evidence],
                )
