"""Optimizer and scheduler settings DeepSpeed rejects when it builds them.

## What it does
Follows the code that reads the JSON (docs/toolkits/deepspeed.md, "Which code reads the JSON").
When DeepSpeed builds the blocks (a script's `deepspeed.initialize` without an optimizer, the
Hugging Face Trainer and Accelerate, which hand a JSON optimizer to DeepSpeed, WeNet), each of
these is an error:

- `optimizer.params.max_grad_norm`: "'max_grad_norm' is not supported as an optimizer
  parameter, please switch to using the deepspeed parameter 'gradient_clipping'".
- LAMB or OneBitLamb with a fixed fp16 loss scale: "DeepSpeed {name} optimizer requires
  dynamic loss scaling".
- a `scheduler.type` that is not one of DeepSpeed's (LRRangeTest, OneCycle, WarmupLR,
  WarmupDecayLR, WarmupCosineLR; case-sensitive) nor a torch scheduler: "DeepSpeed does not
  recognize LR scheduler".

When the training code passes its own optimizer or scheduler to `deepspeed.initialize`
(Megatron-DeepSpeed's `megatron/training.py`, mmengine's DeepSpeedStrategy for XTuner),
DeepSpeed never builds that block ("This overrides any optimizer definition in the DeepSpeed
json config", `deepspeed/__init__.py`; `_configure_optimizer` / `_configure_lr_scheduler` in
`deepspeed/runtime/engine.py`, DeepSpeed 0.19.8): nothing above fails, and the block itself is
reported once as a warning, since the run does not do what it says. When no launch or no
readable training code tells which, the finding is a warning that names the condition.

## Why is this bad
All three fail inside `deepspeed.initialize`, after the job has its GPUs and has loaded the
model. An ignored block is settings (learning rate, betas, warmup) the run never uses.

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
from recipelint.parse.tree import Node
from recipelint.toolkits.deepspeed.rules._ds import builds_block, ds_document

CODE = "RL421"
NAME = "deepspeed-optimizer-params"
SEVERITY = Severity.ERROR
FIXABLE = False
SOURCE = "deepspeedai/DeepSpeed@edaa7221:deepspeed/runtime/engine.py: the engine's optimizer/scheduler construction and its messages"
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
    yield from _optimizer(ctx, doc.root)
    yield from _scheduler(ctx, doc.root)


def _ignored(ctx: Context, root: Node, block: str, why: str) -> Diagnostic | None:
    """The block is there, but the training code passes its own: DeepSpeed never reads it."""
    node = root.get(block)
    if node is None:
        return None
    own = "optimizer" if block == "optimizer" else "scheduler"
    return ctx.diagnostic(
        CODE,
        Severity.WARNING,
        f"the {block} block is ignored: the training code passes its own {own} to deepspeed.initialize, which overrides the JSON's",
        root.key_span(block) or node.span,
        setting=block,
        evidence=[why],
    )


def _optimizer(ctx: Context, root: Node) -> Iterator[Diagnostic | None]:
    builds, why = builds_block(ctx, "optimizer")
    if builds is False:
        yield _ignored(ctx, root, "optimizer", why)
        return  # DeepSpeed names the client optimizer by its class: no JSON check runs
    severity, condition = (SEVERITY, "") if builds else (Severity.WARNING, f" {why}")
    evidence = [f"consumer: {why}"] if builds else []
    max_norm = root.get("optimizer.params.max_grad_norm")
    if max_norm is not None:
        yield ctx.diagnostic(
            CODE,
            severity,
            f"optimizer.params.max_grad_norm: DeepSpeed raises 'max_grad_norm' is not supported as an optimizer parameter, please switch to using the deepspeed parameter 'gradient_clipping'{condition}",
            max_norm.span,
            setting="optimizer.params.max_grad_norm",
            current=max_norm.value,
            evidence=evidence,
        )
    kind = root.scalar("optimizer.type")
    if isinstance(kind, str) and kind.lower() in ("lamb", "onebitlamb"):
        scale = root.get("fp16.loss_scale")
        if root.scalar("fp16.enabled") is True and scale is not None and scale.value not in (0, 0.0):
            yield ctx.diagnostic(
                CODE,
                severity,
                f"{kind} with a fixed fp16 loss_scale {scale.value}: DeepSpeed raises 'DeepSpeed {kind} optimizer requires dynamic loss scaling' (set loss_scale 0){condition}",
                scale.span,
                setting="fp16.loss_scale",
                current=scale.value,
                suggested=0,
                evidence=evidence,
            )


def _scheduler(ctx: Context, root: Node) -> Iterator[Diagnostic | None]:
    builds, why = builds_block(ctx, "scheduler")
    if builds is False:
        yield _ignored(ctx, root, "scheduler", why)
        return
    scheduler = root.get("scheduler.type")
    if scheduler is None or not isinstance(scheduler.value, str) or scheduler.value in SCHEDULERS | TORCH_SCHEDULERS:
        return
    near = next((s for s in SCHEDULERS if s.lower() == scheduler.value.lower()), None)
    hint = f"; the name is case-sensitive: '{near}'" if near else ""
    yield ctx.diagnostic(
        CODE,
        SEVERITY if builds else Severity.WARNING,
        f"scheduler type '{scheduler.value}': DeepSpeed raises 'DeepSpeed does not recognize LR scheduler {scheduler.value}'{hint}{'' if builds else ' ' + why}",
        scheduler.span,
        setting="scheduler.type",
        current=scheduler.value,
        suggested=near,
        evidence=[f"consumer: {why}"] if builds else [],
    )
