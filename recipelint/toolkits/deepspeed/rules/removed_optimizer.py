"""An `optimizer.type` that the target DeepSpeed release no longer has.

## What it does
Flags `OneBitAdam`, `ZeroOneAdam` and `OneBitLamb` (any case), the 1-bit communication
optimizers: `DEEPSPEED_OPTIMIZERS` in `deepspeed/runtime/config.py` lists them in the 0.19.6
sdist and not in the 0.19.7 and 0.19.8 ones (the `deepspeed/runtime/fp16/onebit/` package is
gone too). schemas/deepspeed/engine.json, read from each release's source by
tools/build_deepspeed_engine_table.py, holds the names of every release from 0.8.0 on.
The releases judged are those the run imports (the environment the script activates, the
repository's pins, `target-versions`, else the newest known): an error when all of them lack the
optimizer, a warning naming the releases when some do. Nothing is reported when the training
code passes its own optimizer to `deepspeed.initialize` (Megatron-DeepSpeed, XTuner): DeepSpeed
then never looks the name up, and RL421 reports the ignored block.

## Why is this bad
From 0.19.7 the name is no longer lower-cased into a DeepSpeed optimizer and `torch.optim` has
no such class, so `deepspeed.initialize` stops in `_configure_optimizer` with
`AssertionError: OneBitAdam is not a supported DeepSpeed Optimizer`, after the job has its
GPUs and has loaded the model. The 1-bit parameters (`freeze_step`, `cuda_aware`,
`comm_backend_name`, `var_freeze_step`, ...) would also make a plain Adam or Lamb fail with
`TypeError: unexpected keyword argument`. On an older target the finding is info, so an
upgrade does not come as a surprise.

## Severity
Error when every DeepSpeed release the run may import lacks the optimizer
(`deepspeed.initialize` asserts before the first step); a warning naming the releases when only
some lack it; info when the run's releases still have it (a later upgrade breaks it).

## Example
```json
"optimizer": {"type": "OneBitAdam", "params": {"lr": 2e-5, "freeze_step": 1000, "cuda_aware": false}}
```

## Fix
None: either switch to `Adam`/`AdamW` (`Lamb` for OneBitLamb) and delete the 1-bit parameters
the message names (all-reduce is then uncompressed: more traffic, the same convergence the
1-bit papers compare against), or pin `deepspeed<0.19.7`. Which one is the team's choice.

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.toolkits.deepspeed.rules import _engine
from recipelint.toolkits.deepspeed.rules._ds import builds_block, ds_document, since

CODE = "RL423"
NAME = "deepspeed-removed-optimizer"
SEVERITY = Severity.ERROR
VISITS = ("deepspeed-config",)
FIXABLE = False
SOURCE = (
    "DEEPSPEED_OPTIMIZERS in deepspeedai/DeepSpeed@edaa7221:deepspeed/runtime/config.py (0.19.6) and in the same file"
    " of the 0.19.7 and 0.19.8 sdists (https://pypi.org/project/deepspeed/0.19.8/), tabled in schemas/deepspeed/engine.json"
)
# Constructor arguments of deepspeed/runtime/fp16/onebit/{adam,zoadam,lamb}.py (0.19.6) that
# neither FusedAdam nor FusedLamb accepts.
ONE_BIT_PARAMS = (
    "freeze_step",
    "cuda_aware",
    "comm_backend_name",
    "var_freeze_step",
    "var_update_scaler",
    "local_step_scaler",
    "local_step_clipper",
    "coeff_beta",
    "factor_max",
    "factor_min",
    "factor_threshold",
)
REPLACEMENT = {"onebitadam": "Adam or AdamW", "zerooneadam": "Adam or AdamW", "onebitlamb": "Lamb"}


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    doc = ds_document(ctx)
    if doc is None:
        return
    node = doc.root.get("optimizer.type")
    if node is None or not isinstance(node.value, str):
        return
    if builds_block(ctx, "optimizer")[0] is False:
        return  # the training code passes its own optimizer: the name is never looked up (RL421 says the block is ignored)
    removed_in = _engine.removed_in(node.value.lower())
    if removed_in is None:
        return
    verdict = since(ctx, removed_in)
    params = doc.root.get("optimizer.params")
    one_bit = [key for key in ONE_BIT_PARAMS if params is not None and params.get(key) is not None]
    drop = f" and delete {', '.join(one_bit)}" if one_bit else ""
    replacement = REPLACEMENT.get(node.value.lower(), "Adam or AdamW")
    instead = f"use {replacement}{drop}, or pin deepspeed<{removed_in}"
    evidence = [f"target: {verdict.range.allows()}", f"DeepSpeed {removed_in} dropped {node.value.lower()} from DEEPSPEED_OPTIMIZERS"]
    if verdict.holds != "none":
        when = f" {verdict.says()}:" if verdict.holds == "some" else ""
        yield ctx.diagnostic(
            CODE,
            SEVERITY if verdict.holds == "all" else Severity.WARNING,
            f"optimizer {node.value} was removed in DeepSpeed {removed_in}:{when} the engine asserts '{node.value} is not a supported DeepSpeed Optimizer'; {instead}",
            node.span,
            setting="optimizer.type",
            current=node.value,
            suggested=replacement.split(" ")[0],
            evidence=evidence,
        )
    else:
        yield ctx.diagnostic(
            CODE,
            Severity.INFO,
            f"optimizer {node.value} works with the target but DeepSpeed {removed_in} removed it ('{node.value} is not a supported DeepSpeed Optimizer'); before upgrading, {instead}",
            node.span,
            setting="optimizer.type",
            current=node.value,
            evidence=evidence,
        )
