"""Optimizer and scheduler settings DeepSpeed rejects when it builds them.

## What it does
- `optimizer.params.max_grad_norm`: "'max_grad_norm' is not supported as an optimizer
  parameter, please switch to using the deepspeed parameter 'gradient_clipping'".
- LAMB or OneBitLamb with a fixed fp16 loss scale: "DeepSpeed {name} optimizer requires
  dynamic loss scaling".
- a `scheduler.type` that is not one of DeepSpeed's (LRRangeTest, OneCycle, WarmupLR,
  WarmupDecayLR, WarmupCosineLR; case-sensitive) nor a torch scheduler: "DeepSpeed does not
  recognize LR scheduler".

## Why is this bad
All three fail inside `deepspeed.initialize`, after the job has its GPUs and has loaded the model.

## Example
```json
"optimizer": {"type": "Adam", "params": {"lr": 1e-4, "max_grad_norm": 1.0}}
```

## Fix
Moves nothing by itself: set `gradient_clipping` at the top level and delete the parameter.

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.toolkits.deepspeed.rules._ds import ds_document

CODE = "RL421"
NAME = "deepspeed-optimizer-params"
SEVERITY = Severity.ERROR
FIXABLE = False
SOURCE = "deepspeed.md 4.3: engine optimizer/scheduler construction (messages from deepspeed/runtime/engine.py)"
SCHEDULERS = {"LRRangeTest", "OneCycle", "WarmupLR", "WarmupDecayLR", "WarmupCosineLR"}
TORCH_SCHEDULERS = {
    "LambdaLR",
    "MultiplicativeLR",
    "StepLR",
    "MultiStepLR",
    "ConstantLR",
    "LinearLR",
    "ExponentialLR",
    "SequentialLR",
    "CosineAnnealingLR",
    "ChainedScheduler",
    "ReduceLROnPlateau",
    "CyclicLR",
    "CosineAnnealingWarmRestarts",
    "OneCycleLR",
    "PolynomialLR",
    "LRScheduler",
}


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    doc = ds_document(ctx)
    if doc is None:
        return
    root = doc.root
    max_norm = root.get("optimizer.params.max_grad_norm")
    if max_norm is not None:
        yield ctx.diagnostic(
            CODE,
            SEVERITY,
            "optimizer.params.max_grad_norm: DeepSpeed raises 'max_grad_norm' is not supported as an optimizer parameter, please switch to using the deepspeed parameter 'gradient_clipping'",
            max_norm.span,
            setting="optimizer.params.max_grad_norm",
            current=max_norm.value,
        )
    kind = root.scalar("optimizer.type")
    if isinstance(kind, str) and kind.lower() in ("lamb", "onebitlamb"):
        scale = root.get("fp16.loss_scale")
        if root.scalar("fp16.enabled") is True and scale is not None and scale.value not in (0, 0.0):
            yield ctx.diagnostic(
                CODE,
                SEVERITY,
                f"{kind} with a fixed fp16 loss_scale {scale.value}: DeepSpeed raises 'DeepSpeed {kind} optimizer requires dynamic loss scaling' (set loss_scale 0)",
                scale.span,
                setting="fp16.loss_scale",
                current=scale.value,
                suggested=0,
            )
    scheduler = root.get("scheduler.type")
    if scheduler is not None and isinstance(scheduler.value, str) and scheduler.value not in SCHEDULERS | TORCH_SCHEDULERS:
        near = next((s for s in SCHEDULERS if s.lower() == scheduler.value.lower()), None)
        hint = f"; the name is case-sensitive: '{near}'" if near else ""
        yield ctx.diagnostic(
            CODE,
            SEVERITY,
            f"scheduler type '{scheduler.value}': DeepSpeed raises 'DeepSpeed does not recognize LR scheduler {scheduler.value}'{hint}",
            scheduler.span,
            setting="scheduler.type",
            current=scheduler.value,
            suggested=near,
        )
