"""A deprecated DeepSpeed key, with its replacement.

## What it does
Flags `zero_optimization.cpu_offload`, `cpu_offload_param`, `cpu_offload_use_pin_memory`,
`stage3_gather_fp16_weights_on_model_save` and `aio.thread_count`, and `cpu_offload` given
together with `offload_optimizer`.

## Severity
Info while `DeepSpeedConfigModel._process_deprecated_field` maps the key
(`deepspeed/runtime/config_utils.py`, every release in the model tables); an error for
`cpu_offload` beside `offload_optimizer` (its assertion); a warning for `aio.thread_count` on
0.16.4 and later (`deepspeed/runtime/swap_tensor/aio_config.py` reads only `intra_op_parallelism`).

## Why is this bad
DeepSpeed still maps some of them (with a deprecation warning: info, the run is the same),
ignores others (`cpu_offload_use_pin_memory` only warns; `aio.thread_count` has been silently
ignored since 0.16.4: a warning, the setting is lost, naming the releases when only some of those
the run imports are that new, and nothing when none are), and stops on `cpu_offload` plus
`offload_optimizer`: "Cannot provide deprecated parameter 'cpu_offload' and replacing
parameter 'offload_optimizer' together" (an error).

## Example
```json
"zero_optimization": {"stage": 3, "stage3_gather_fp16_weights_on_model_save": true}
```

## Fix
Renames a key whose replacement is a plain rename (`stage3_gather_16bit_weights_on_model_save`,
`aio.intra_op_parallelism`).

## Fix safety
Safe: DeepSpeed maps the old name to the new one with the same meaning.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Applicability, Diagnostic, Edit, Fix, Severity
from recipelint.toolkits.deepspeed.knowledge import schema_node
from recipelint.toolkits.deepspeed.rules._ds import ds_document, since

CODE = "RL411"
NAME = "deepspeed-deprecated-key"
SEVERITY = Severity.WARNING
VISITS = ("deepspeed-config",)
FIXABLE = True
SOURCE = "deepspeedai/DeepSpeed@edaa7221:deepspeed/runtime/zero/config.py (deprecated ZeRO fields); deepspeedai/DeepSpeed@edaa7221:deepspeed/runtime/swap_tensor/aio_config.py (aio.thread_count renamed in 0.16.4)"
RENAMES = {"stage3_gather_fp16_weights_on_model_save": "stage3_gather_16bit_weights_on_model_save", "thread_count": "intra_op_parallelism"}
AIO_RENAMED_IN = "0.16.4"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    doc = ds_document(ctx)
    if doc is None:
        return
    for block in ("zero_optimization", "aio"):
        node = doc.root.get(block)
        if node is None or node.kind != "map":
            continue
        for key, key_span, _ in node.items:
            spec = schema_node(f"{block}.{key}")
            if spec is None or not spec.get("deprecated") or spec.get("x-removed-in"):
                continue
            replacement = spec.get("x-replaced-by", "")
            severity = Severity.INFO  # DeepSpeed still maps it: nothing changes in the run
            message = f"{block}.{key} is deprecated: use {replacement}"
            if key == "cpu_offload" and "offload_optimizer" in node.entries:
                severity = Severity.ERROR
                message = "cpu_offload and offload_optimizer together: DeepSpeed stops with 'Cannot provide deprecated parameter 'cpu_offload' and replacing parameter 'offload_optimizer' together'"
            elif key == "thread_count":
                renamed = since(ctx, AIO_RENAMED_IN)
                if renamed.holds == "none":
                    continue  # the releases the run imports read thread_count itself
                severity = SEVERITY
                when = f" ({renamed.says()})" if renamed.holds == "some" else ""
                message = f"aio.thread_count was renamed intra_op_parallelism in DeepSpeed {AIO_RENAMED_IN}; the old key is silently ignored{when}"
            new = RENAMES.get(key)
            fix = Fix((Edit(key_span, f'"{new}"'),), Applicability.SAFE, f"rename to {new}") if new and new not in node.entries else None
            yield ctx.diagnostic(
                CODE, severity, message, key_span, setting=f"{block}.{key}", current=key, suggested=new or replacement, fix=fix
            )
