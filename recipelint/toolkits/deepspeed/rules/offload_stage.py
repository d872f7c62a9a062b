"""Offload settings the ZeRO stage ignores or rejects.

## What it does
- `offload_param` below stage 3: ignored (only stage 3 partitions parameters).
- `offload_optimizer.ratio` below 1.0 below stage 3: "Partial offloading only supported for
  ZeRO Stage 3." (deepspeedai/DeepSpeed@edaa7221:deepspeed/runtime/zero/offload_config.py, verified by running it).
- `device: "nvme"` without `nvme_path`: fails in `zero.Init` ("nvme_path ... cannot be None
  if remote device is nvme") or with a TypeError in `os.path.join`.
- `offload_optimizer.device: "nvme"` at stage 1 or 2: treated as CPU offload; NVMe swapping
  only exists in stage 3.

## Severity
An error for partial offload below stage 3 (`offload_ratio_check`,
`deepspeed/runtime/zero/config.py`, since 0.12.6) and NVMe without `nvme_path` (zero.Init,
`deepspeed/runtime/zero/partition_parameters.py`); a warning for what runs but not as written
(`offload_param` below stage 3, NVMe optimizer offload at stage 1/2: `stage_1_and_2.py`). The stage
is read as the model reads it (`"3"` and `3.0` are stage 3).

## Why is this bad
Each either stops the job after it has its GPUs, or silently runs something other than what
the config says (no parameter offload, CPU instead of NVMe: host RAM then fills up).

## Example
```json
"zero_optimization": {"stage": 2, "offload_param": {"device": "cpu"}}
```

## Fix
None: raising the stage or removing the block changes the run either way.

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.toolkits.deepspeed import models
from recipelint.toolkits.deepspeed.rules._ds import ds_document

CODE = "RL419"
NAME = "deepspeed-offload-stage"
SEVERITY = Severity.WARNING
VISITS = ("deepspeed-config",)
FIXABLE = False
SOURCE = "deepspeedai/DeepSpeed@edaa7221:deepspeed/runtime/zero/offload_config.py, deepspeedai/DeepSpeed@edaa7221:deepspeed/runtime/zero/stage_1_and_2.py, deepspeedai/DeepSpeed@edaa7221:deepspeed/runtime/zero/stage3.py (messages verified by running them)"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    doc = ds_document(ctx)
    if doc is None:
        return
    zero = doc.root.get("zero_optimization")
    if zero is None or zero.kind != "map":
        return
    written = zero.get("stage")
    # The stage as DeepSpeed's model reads it: "3" and 3.0 are stage 3 (pydantic's lax mode).
    stage = (models.coerce_int(written.value) if written is not None and written.kind == "scalar" else 0) or 0
    param = zero.get("offload_param")
    if param is not None and param.kind == "map" and stage < 3 and param.scalar("device") not in (None, "none"):
        yield ctx.diagnostic(
            CODE,
            Severity.WARNING,
            f"offload_param at stage {stage} is ignored: only stage 3 offloads parameters",
            zero.key_span("offload_param"),
            setting="zero_optimization.offload_param",
            current=param.scalar("device"),
        )
    optimizer = zero.get("offload_optimizer")
    if optimizer is not None and optimizer.kind == "map":
        ratio = optimizer.get("ratio")
        if ratio is not None and isinstance(ratio.value, (int, float)) and ratio.value < 1 and stage < 3:
            yield ctx.diagnostic(
                CODE,
                Severity.ERROR,
                f"offload_optimizer.ratio {ratio.value} at stage {stage}: DeepSpeed stops with 'Partial offloading only supported for ZeRO Stage 3.'",
                ratio.span,
                setting="zero_optimization.offload_optimizer.ratio",
                current=ratio.value,
            )
        device = optimizer.get("device")
        if device is not None and device.value == "nvme" and stage < 3:
            yield ctx.diagnostic(
                CODE,
                Severity.WARNING,
                f"offload_optimizer to nvme at stage {stage} is CPU offload: NVMe swapping exists only in stage 3, so host RAM holds the optimizer states",
                device.span,
                setting="zero_optimization.offload_optimizer.device",
                current="nvme",
            )
    for name, block in (("offload_param", param), ("offload_optimizer", optimizer)):
        where = block.get("device") if block is not None and block.kind == "map" else None
        if block is not None and where is not None and where.value == "nvme" and not block.scalar("nvme_path"):
            yield ctx.diagnostic(
                CODE,
                Severity.ERROR,
                f"{name} to nvme without nvme_path: zero.Init fails with '\"nvme_path\" in DeepSpeed Config cannot be None if remote device is nvme'",
                where.span,
                setting=f"zero_optimization.{name}.nvme_path",
            )
