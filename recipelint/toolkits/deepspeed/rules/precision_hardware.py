"""bf16 or fp16 on a GPU that cannot run it.

## What it does
Compares the enabled precision with the GPUs' compute capability (from the probe or the
profile): bf16 needs 8.0 or more (A100 8.0, A10/RTX 30 8.6, L4/L40 8.9, H100 9.0); fp16
needs 7.0 or more (DeepSpeed allows 6.x only with `DS_ALLOW_DEPRECATED_FP16=1`).

## Why is this bad
DeepSpeed's own bf16 check uses `torch.cuda.is_bf16_supported()`, which answers True on a
V100 (7.0) or T4 (7.5) because it only creates a tensor (emulation): the job starts, then
runs slowly in emulation or fails in kernels (`CUBLAS_STATUS_NOT_SUPPORTED`, flash-attn).
fp16 below 7.0 stops with "Type fp16 is not supported on your device." (deepspeedai/DeepSpeed@edaa7221:deepspeed/runtime/engine.py).

## Example
`"bf16": {"enabled": true}` with a V100 profile (`gpu_compute_capability: "7.0"`).

## Fix
Switches bf16 off and fp16 on when the GPU has fp16 (7.0+) and the config has an fp16 block.

## Fix safety
Unsafe: fp16 needs loss scaling and can overflow where bf16 did not.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Applicability, Diagnostic, Edit, Fix, Severity
from recipelint.model import Setting
from recipelint.rulekit.unknown_fact import hardware_unknown
from recipelint.toolkits.deepspeed.rules._ds import bf16_block, ds_document, enabled

CODE = "RL417"
NAME = "deepspeed-precision-hardware"
SEVERITY = Severity.ERROR
FIXABLE = True
SOURCE = "deepspeedai/DeepSpeed@edaa7221:accelerator/cuda_accelerator.py and deepspeedai/DeepSpeed@edaa7221:deepspeed/runtime/engine.py (_do_sanity_check): bf16 needs compute capability >= 8.0; fp16 >= 7.0"
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
        yield ctx.diagnostic(
            CODE,
            SEVERITY,
            f"bf16 on {model} (compute capability {cc.value}): bf16 needs 8.0+; DeepSpeed's check passes through emulation, then kernels fail or crawl",
            node.span,
            setting=f"{bf16}.enabled",
            current=True,
            suggested=False,
            evidence=[cc.cite("gpu_compute_capability")],
            fix=fix,
        )
    if uses_fp16 and major_minor < (7, 0):
        fp16_node = root.get("fp16.enabled")
        assert fp16_node is not None
        yield ctx.diagnostic(
            CODE,
            SEVERITY,
            f"fp16 on {model} (compute capability {cc.value}): DeepSpeed stops with 'Type fp16 is not supported on your device.' below 7.0",
            fp16_node.span,
            setting="fp16.enabled",
            current=True,
            evidence=[cc.cite("gpu_compute_capability")],
        )
