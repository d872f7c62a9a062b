"""Gradient pre-scaling or a pre-divide factor under ZeRO's reduce-scatter, which its optimizer refuses.

## What it does
Flags `prescale_gradients: true` or a `gradient_predivide_factor` other than 1.0 with ZeRO stage 2
(and stage 1 before DeepSpeed 0.13.0) while `zero_optimization.reduce_scatter` is on (its
default). The ZeRO optimizer's constructor (`DeepSpeedZeroOptimizer.__init__`,
`deepspeed/runtime/zero/stage_1_and_2.py`) asserts, in this order:

    assert self.gradient_predivide_factor == 1.0, "gradient_predivide_factor != 1.0 is not yet supported with ZeRO-2 with reduce scatter enabled"
    assert self.postscale_gradients, "pre-scale gradients is not yet supported with ZeRO-2 with reduce scatter enabled"

`postscale_gradients` is `not prescale_gradients`, both top-level keys read with `dict.get`, so
any truthy `prescale_gradients` (`"false"` too) and any factor that is not equal to 1.0 (`2`,
`"1.0"`, `null`) fail. Per release, read from each tag of deepspeedai/DeepSpeed: under
`if self.reduce_scatter:` for stages 1 and 2 up to 0.12.6, under `if self.reduce_scatter and
self.partition_gradients:` (stage 2 only) from 0.13.0; from 0.19.6 only when gradients are
averaged (`gradient_allreduce_op` "mean", its default; "sum" skips both assertions).

## Severity
Error where every release the run may import asserts it (the ZeRO optimizer is built at
`deepspeed.initialize`, whoever builds the basic optimizer: the Trainer and Accelerate too); a
warning naming the releases where only some do (stage 1 with releases before and after 0.13.0).

## Why is this bad
`deepspeed.initialize` stops with the AssertionError after the job has its GPUs and has loaded
the model.

## Example
```json
"prescale_gradients": true, "zero_optimization": {"stage": 2}
```

## Fix
None: drop `prescale_gradients` and `gradient_predivide_factor`, or set
`zero_optimization.reduce_scatter: false` when pre-scaling is what the run needs.

## Fix safety
No fix.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from recipelint import versions
from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.parse.tree import Node
from recipelint.toolkits.deepspeed import models
from recipelint.toolkits.deepspeed.rules._ds import ds_document, zero_stage

CODE = "RL428"
NAME = "deepspeed-zero-prescale"
SEVERITY = Severity.ERROR
VISITS = ("deepspeed-config",)
FIXABLE = False
SOURCE = "deepspeedai/DeepSpeed@v0.16.4:deepspeed/runtime/zero/stage_1_and_2.py (DeepSpeedZeroOptimizer.__init__: the reduce-scatter assertions; stage 1 too before v0.13.0, gradient_average since 0.19.6)"
# The releases where the assertions' condition changes (git tags of deepspeedai/DeepSpeed; the
# 0.19.6 sdist for gradient_average).
STAGE_2_ONLY_SINCE = "0.13.0"
AVERAGE_ONLY_SINCE = "0.19.6"
MESSAGES = {
    "gradient_predivide_factor": "gradient_predivide_factor != 1.0 is not yet supported with ZeRO-2 with reduce scatter enabled",
    "prescale_gradients": "pre-scale gradients is not yet supported with ZeRO-2 with reduce scatter enabled",
}


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    doc = ds_document(ctx)
    if doc is None:
        return
    root = doc.root
    stage = zero_stage(root)
    if stage not in (1, 2) or _reduce_scatter(root) is False:
        return
    plain = root.plain()
    refused = [
        key
        for key, fails in (
            ("gradient_predivide_factor", "gradient_predivide_factor" in plain and plain["gradient_predivide_factor"] != 1.0),
            ("prescale_gradients", bool(plain.get("prescale_gradients", False))),
        )
        if fails and plain.get(key) != "auto"
    ]
    if not refused:
        return
    averaged = str(plain.get("gradient_allreduce_op", "mean")).lower() != "sum"
    floor_stage, floor_average = versions.parse(STAGE_2_ONLY_SINCE), versions.parse(AVERAGE_ONLY_SINCE)

    def asserts(version: versions.Version) -> bool:
        built = stage == 2 or version < floor_stage
        return built and (averaged or version < floor_average)

    verdict = versions.evaluate(ctx.version_range("deepspeed"), asserts, (STAGE_2_ONLY_SINCE, AVERAGE_ONLY_SINCE, *models.releases()))
    if verdict.holds == "none":
        return
    for key in refused:
        yield _finding(ctx, root, key, stage, verdict)


def _reduce_scatter(root: Node) -> bool | None:
    """`zero_optimization.reduce_scatter` as the ZeRO model reads it (default true; "auto" is dropped)."""
    node = root.get("zero_optimization.reduce_scatter")
    if node is None or node.value == "auto":
        return True
    return models.coerce_bool(node.value)


def _finding(ctx: Context, root: Node, key: str, stage: int, verdict: versions.Verdict) -> Diagnostic | None:
    node = root.get(key)
    if node is None:
        return None
    value: Any = node.value
    when = "" if verdict.holds == "all" else f" {verdict.says()}"
    return ctx.diagnostic(
        CODE,
        SEVERITY if verdict.holds == "all" else Severity.WARNING,
        f"{key} {json.dumps(value)} with ZeRO stage {stage} and reduce_scatter on: the ZeRO optimizer asserts '{MESSAGES[key]}' at deepspeed.initialize{when} (deepspeed/runtime/zero/stage_1_and_2.py)",
        node.span,
        setting=key,
        current=value,
        evidence=[f"target {verdict.range.allows()}", "set zero_optimization.reduce_scatter false, or drop the key"],
    )
