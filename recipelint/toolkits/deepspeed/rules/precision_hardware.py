"""bf16 or fp16 on a GPU that cannot run it.

## What it does
Compares the enabled precision with the GPUs' compute capability (from the probe or the
profile): bf16 needs 8.0 or more (A100 8.0, A10/RTX 30 8.6, L4/L40 8.9, H100 9.0); fp16
needs 7.0 or more (DeepSpeed allows 6.x only with `DS_ALLOW_DEPRECATED_FP16=1`).

## Why is this bad
DeepSpeed's own bf16 check (`_do_sanity_check`, deepspeed/runtime/engine.py, since 0.16.0) asks
`torch.cuda.is_bf16_supported()` (accelerator/cuda_accelerator.py). How torch answers below 8.0
depends on the torch the run installs (torch/cuda/__init__.py read in the 2.2.2, 2.3.0, 2.3.1
and 2.4.0 wheels): up to 2.2 it tests `major >= 8` only, so on a V100 (7.0) or T4 (7.5) DeepSpeed
stops with "Type bf16 is not supported on your device."; from 2.3.0 it also answers True where
a bf16 tensor can be made (emulation), so the job starts, then runs slowly in emulation or fails
in kernels (`CUBLAS_STATUS_NOT_SUPPORTED`, flash-attn). fp16 below 7.0 stops with "Type fp16 is
not supported on your device." (since 0.13.0).

## Severity
Both follow the releases the run may import, DeepSpeed's and torch's (their pins, environment
or `target-versions`, like every version-dependent rule). bf16 below 8.0 is an error where every
pair refuses it (DeepSpeed >= 0.16.0 with torch < 2.3), a warning naming the releases where some
do, else a warning that it runs emulated: slower than written, failing only where a kernel has no
bf16 for the GPU (flash-attn, some fused optimizers), code recipelint does not judge. fp16 below
compute capability 7.0 is an error where every DeepSpeed release in the range has the fp16 check
(0.13.0 on), a warning naming the releases otherwise (older ones start and run fp16 unchecked).

## Example
`"bf16": {"enabled": true}` with a V100 profile (`gpu_compute_capability: "7.0"`).

## Fix
Switches bf16 off and fp16 on when the GPU has fp16 (7.0+) and the config has an fp16 block.

## Fix safety
Unsafe: fp16 needs loss scaling and can overflow where bf16 did not.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint import versions
from recipelint.context import Context
from recipelint.diagnostics import Applicability, Diagnostic, Edit, Fix, Severity
from recipelint.model import Setting
from recipelint.rulekit.unknown_fact import hardware_unknown
from recipelint.toolkits.deepspeed.rules._ds import bf16_block, ds_document, enabled, since

CODE = "RL417"
NAME = "deepspeed-precision-hardware"
SEVERITY = Severity.ERROR
VISITS = ("deepspeed-config",)
FIXABLE = True
SOURCE = "deepspeedai/DeepSpeed@v0.16.0:accelerator/cuda_accelerator.py and deepspeed/runtime/engine.py (_do_sanity_check: fp16 since v0.13.0, bf16 since v0.16.0); torch.cuda.is_bf16_supported in torch/cuda/__init__.py of the torch 2.2.2 and 2.3.0 wheels (PyPI)"
BF16_CHECK_SINCE = "0.16.0"
FP16_CHECK_SINCE = "0.13.0"
TORCH_EMULATES_SINCE = (2, 3)
FACTS = ("gpu_compute_capability", "gpu_model")


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    doc = ds_document(ctx)
    if doc is None:
        return
    root = doc.root
    bf16 = bf16_block(root)
    uses_bf16, uses_fp16 = enabled(root, bf16), enabled(root, "fp16")
    if not uses_bf16 and not uses_fp16:
        return
    cc = ctx.fact("gpu_compute_capability")
    node = root.get(f"{bf16}.enabled" if uses_bf16 else "fp16.enabled")
    assert node is not None
    if not cc.known:
        yield hardware_unknown(ctx, CODE, "gpu_compute_capability", Setting("precision", None, True, node.span))
        return
    major_minor = tuple(int(p) for p in str(cc.value).split(".")[:2])
    model = ctx.fact("gpu_model").value or "the GPU"
    if uses_bf16 and major_minor < (8, 0):
        fix = None
        fp16 = root.get("fp16.enabled")
        if fp16 is not None and major_minor >= (7, 0):
            fix = Fix((Edit(node.span, "false"), Edit(fp16.span, "true")), Applicability.UNSAFE, "use fp16 instead of bf16")
        severity, said, ranges = _bf16_verdict(ctx)
        yield ctx.diagnostic(
            CODE,
            severity,
            f"bf16 on {model} (compute capability {cc.value}): bf16 needs 8.0+; {said}",
            node.span,
            setting=f"{bf16}.enabled",
            current=True,
            suggested=False,
            evidence=[cc.cite("gpu_compute_capability"), *ranges],
            fix=fix,
        )
    if uses_fp16 and major_minor < (7, 0):
        fp16_node = root.get("fp16.enabled")
        assert fp16_node is not None
        checked = since(ctx, FP16_CHECK_SINCE)
        when = "" if checked.holds == "all" else f" {checked.says()}"
        yield ctx.diagnostic(
            CODE,
            SEVERITY if checked.holds == "all" else Severity.WARNING,
            f"fp16 on {model} (compute capability {cc.value}): DeepSpeed stops with 'Type fp16 is not supported on your device.' below 7.0 (its check since {FP16_CHECK_SINCE}){when}",
            fp16_node.span,
            setting="fp16.enabled",
            current=True,
            evidence=[cc.cite("gpu_compute_capability"), f"target {checked.range.allows()}"],
        )


def _bf16_verdict(ctx: Context) -> tuple[Severity, str, list[str]]:
    """bf16 below compute capability 8.0, by the DeepSpeed and the torch the run may import:
    refused where DeepSpeed has its bf16 check and torch does not count emulation."""
    checked = since(ctx, BF16_CHECK_SINCE)
    torch = ctx.version_range("torch")
    strict = versions.evaluate(torch, lambda version: version < TORCH_EMULATES_SINCE, (versions.show(TORCH_EMULATES_SINCE),))
    ranges = [f"target {checked.range.allows()}", f"target {torch.allows()}"]
    refused = "DeepSpeed stops with 'Type bf16 is not supported on your device.' (torch.cuda.is_bf16_supported() tests compute capability >= 8.0 only before torch 2.3; DeepSpeed checks since 0.16.0)"
    slow = "the run is slower than written, and fails where a kernel has no bf16 for this GPU (flash-attn, fused kernels)"
    emulated = f"DeepSpeed's check passes through emulation, so {slow}"
    if checked.holds == "all" and strict.holds == "all":
        return SEVERITY, refused, ranges
    if checked.holds == "none" or strict.holds == "none":
        return (
            Severity.WARNING,
            emulated if strict.holds == "none" else f"DeepSpeed before {BF16_CHECK_SINCE} has no bf16 check: {slow}",
            ranges,
        )
    conditions = " and ".join(v.condition for v in (checked, strict) if v.holds == "some")
    return Severity.WARNING, f"with {conditions}, {refused}; otherwise {emulated}", ranges
