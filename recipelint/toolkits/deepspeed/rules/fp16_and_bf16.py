"""fp16 and bf16 both enabled.

## What it does
Flags a config with `fp16.enabled` and `bf16.enabled` (or the legacy `bfloat16`) both true.

## Severity
Error: `DeepSpeedConfig._initialize_params` asserts it at start-up (`deepspeed/runtime/config.py`,
every release in the model tables). `enabled` is read as the model reads it (`1`, `"true"`).

## Why is this bad
`DeepSpeedConfig._initialize_params` asserts "bfloat16 and fp16 modes cannot be
simultaneously enabled": the job stops at `deepspeed.initialize`. On DeepSpeed 0.17.0 and
older, `"auto"` in both did the same, because the string is truthy (deepspeedai/DeepSpeed@edaa7221:deepspeed/runtime/config.py).

## Example
```json
"fp16": {"enabled": true}, "bf16": {"enabled": true}
```

## Fix
Turns fp16 off when the GPU supports bf16 (compute capability 8.0+), else bf16 off.

## Fix safety
Unsafe: it picks the precision.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from recipelint.context import Context
from recipelint.diagnostics import Applicability, Diagnostic, Edit, Fix, Severity
from recipelint.toolkits.deepspeed import models
from recipelint.toolkits.deepspeed.rules._ds import bf16_block, ds_document

CODE = "RL418"
NAME = "deepspeed-fp16-and-bf16"
SEVERITY = Severity.ERROR
VISITS = ("deepspeed-config",)
FIXABLE = True
SOURCE = (
    "deepspeedai/DeepSpeed@edaa7221:deepspeed/runtime/config.py: AssertionError 'bfloat16 and fp16 modes cannot be simultaneously enabled'"
)


def _on(value: Any) -> bool:
    """`enabled` as DeepSpeed's model reads it: true, 1, "true", "yes" (pydantic's lax mode)."""
    return models.coerce_bool(value) is True


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    doc = ds_document(ctx, versioned=False)  # the same in every release from 0.7.0
    if doc is None:
        return
    root = doc.root
    block = bf16_block(root)
    fp16, bf16 = root.get("fp16.enabled"), root.get(f"{block}.enabled")
    if fp16 is None or bf16 is None or not (_on(fp16.value) and _on(bf16.value)):
        return
    cc = ctx.fact("gpu_compute_capability").value if ctx.recipe.launch is not None else None
    keep_bf16 = cc is not None and tuple(int(p) for p in str(cc).split(".")[:2]) >= (8, 0)
    off = fp16 if keep_bf16 or cc is None else bf16
    fix = Fix((Edit(off.span, "false"),), Applicability.UNSAFE, f"disable {off.path.split('.')[0]}")
    yield ctx.diagnostic(
        CODE,
        SEVERITY,
        "fp16 and bf16 are both enabled: DeepSpeed asserts 'bfloat16 and fp16 modes cannot be simultaneously enabled'",
        fp16.span,
        setting="fp16.enabled",
        current=fp16.value,
        evidence=[f"{bf16.span}: {bf16.path} true"],
        fix=fix,
    )
