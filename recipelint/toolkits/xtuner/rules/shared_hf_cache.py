"""Multi-node XTuner training with rank-0 preprocessing and no shared `HF_DATASETS_CACHE`.

## What it does
Flags a launch on several nodes whose config preprocesses on rank 0 (`process_hf_dataset`)
and whose environment sets neither `HF_DATASETS_CACHE` nor `HF_HOME`.

## Why is this bad
Rank 0's processed dataset is memory-mapped from Arrow cache files, and the broadcast sends
only their paths. Other nodes then look for `~/.cache/huggingface/datasets/...` on their own
disk: `FileNotFoundError: [Errno 2] Failed to open local file '.../cache-*.arrow'`
(InternLM/xtuner#251; InternLM/xtuner@v0.2.0:xtuner/dataset/huggingface.py).

## Example
```sh
NPROC_PER_NODE=8 NNODES=2 NODE_RANK=0 ADDR=$HEAD PORT=29600 xtuner train cfg.py
```

## Fix
None: export a cache folder on storage every node mounts, e.g. `export HF_DATASETS_CACHE=/shared/hf_datasets`.

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.toolkits.xtuner.part import mmengine_config
from recipelint.toolkits.xtuner.rules._x import xtuner_launch

CODE = "RL806"
NAME = "xtuner-shared-hf-cache"
SEVERITY = Severity.WARNING
VISITS = ("xtuner-launch",)
FIXABLE = False
SOURCE = "InternLM/xtuner@v0.2.0:xtuner/dataset/huggingface.py: the broadcast sends Arrow cache file paths (InternLM/xtuner#251)"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    launch = xtuner_launch(ctx)
    config = mmengine_config(ctx.recipe)
    if launch is None or config is None or "process_hf_dataset" not in config.calls:
        return
    count = launch.nnodes.as_int()  # the front end reads NNODES (1 when unset)
    if count is not None and count < 2:
        return
    if launch.env.get("HF_DATASETS_CACHE") is not None or launch.env.get("HF_HOME") is not None:
        return
    yield ctx.diagnostic(
        CODE,
        SEVERITY,
        "several nodes and rank-0 dataset preprocessing, but no HF_DATASETS_CACHE on shared storage: the other nodes get cache file paths that exist only on rank 0's disk",
        launch.script.span,
        setting="HF_DATASETS_CACHE",
    )
