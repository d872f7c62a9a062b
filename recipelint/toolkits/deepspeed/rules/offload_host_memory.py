"""CPU offload of optimizer states larger than the node's RAM.

## What it does
With `offload_optimizer.device: "cpu"`, estimates the host memory ZeRO needs per node from
the parameter count (`model-params` in the config, e.g. `model-params = 7e9`) and compares it
with the profile's RAM. Bytes per parameter follow DeepSpeed's memory docs
(`docs/code-docs/source/memory.rst`): fp32 parameters, gradients, momentum and variance =
16 B, plus 2 B for 16-bit parameters when `offload_param` is on (18 B). Stage 3 spreads this
over the nodes (`estimate_zero3_model_states_mem_needs` with `zero_init`); stages 1 and 2 keep
it per node. DeepSpeed's estimators add a 1.5 buffer factor, and so does this rule.

## Why is this bad
When the optimizer states do not fit, the OOM killer takes a rank during the first
optimizer step, and the others hang in the next collective. Pinned memory (`pin_memory`,
default true since 0.19.5) cannot be swapped out.

## Severity
Error: the host runs out of memory in the first optimizer step, the OOM killer takes a rank
and the others hang in the next collective (the estimate follows DeepSpeed's own estimators,
deepspeedai/DeepSpeed@edaa7221:deepspeed/runtime/zero/stage3.py
`estimate_zero3_model_states_mem_needs`, with their 1.5 factor). Judged only against a profile
of the training node and a stated `model-params`.

## Example
7e9 parameters, stage 2, offload to CPU: 7e9 x 16 B x 1.5 = 168 GB per node, on a 128 GiB node.

## Fix
None: lower the stage's share (stage 3 over more nodes), offload to NVMe at stage 3, or use
nodes with more memory.

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.toolkits.deepspeed.rules._ds import ds_document, int_value

CODE = "RL420"
NAME = "deepspeed-offload-host-memory"
SEVERITY = Severity.ERROR
VISITS = ("deepspeed-config",)
FIXABLE = False
SOURCE = "deepspeedai/DeepSpeed@edaa7221:docs/code-docs/source/memory.rst (16 B/param optimizer offload, 18 B with parameter offload); the ZeRO estimators' 1.5 buffer factor (deepspeedai/DeepSpeed@edaa7221:deepspeed/runtime/zero/stage3.py)"
FACTS = ("memory_gib",)
BUFFER_FACTOR = 1.5


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    doc = ds_document(ctx, versioned=False)  # the same in every release from 0.7.0
    params = ctx.options.model_params
    if doc is None or not params:
        return
    zero = doc.root.get("zero_optimization")
    if zero is None or zero.kind != "map" or zero.scalar("offload_optimizer.device") != "cpu":
        return
    stage = int_value(zero, "stage") or 0
    per_param = 18 if stage == 3 and zero.scalar("offload_param.device") == "cpu" else 16
    nodes = ctx.nodes or ctx.fact("nodes").value or 1
    share = nodes if stage == 3 else 1
    need = float(params) * per_param * BUFFER_FACTOR / share
    memory = ctx.fact("memory_gib")
    if not memory.known or need <= memory.value * 1024**3:
        return
    yield ctx.diagnostic(
        CODE,
        SEVERITY,
        f"CPU offload needs about {need / 1e9:.0f} GB of host RAM per node ({float(params):.3g} params x {per_param} B x {BUFFER_FACTOR}{f' / {nodes} nodes' if share > 1 else ''}), the node has {memory.value:g} GiB",
        zero.get("offload_optimizer.device").span,  # type: ignore[union-attr]
        setting="zero_optimization.offload_optimizer.device",
        current="cpu",
        evidence=[memory.cite("memory_gib"), f"model-params {float(params):.3g}", f"stage {stage}"],
    )
