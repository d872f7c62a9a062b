"""A block or key that newer DeepSpeed releases removed and now reject.

## What it does
Flags keys DeepSpeed removed, keyed to the releases the run imports (the environment the script
activates, the repository's pins, `target-versions`, else the newest known): from 0.19.7 `compression_training`,
`quantize_training`, `sparse_attention`, `nebula` and `zero_optimization.mics_shard_size` /
`mics_hierarchical_params_gather`; from 0.19.8 also `amp`, `sparse_gradients`, `eigenvalue`,
`elasticity`, `graph_harvesting`, top-level `curriculum_learning`, `progressive_layer_drop`
and `zero_optimization.zeropp_loco_param` (`_REMOVED_TOP_LEVEL_CONFIG_KEYS` in
`deepspeed/runtime/config.py`, read in the 0.19.6, 0.19.7 and 0.19.8 sdists).

## Severity
An error where every release the run may import lists the key in `_REMOVED_TOP_LEVEL_CONFIG_KEYS`
(`deepspeed/runtime/config.py`, 0.19.7 and 0.19.8) and stops at start-up; a warning naming the
releases when only some do; info when none do.

## Why is this bad
On those releases `DeepSpeedConfig` raises `DeepSpeedConfigError` ("The DeepSpeed compression
library has been removed ...") at start-up: an error when every release the run may import
removed it, a warning naming the releases when only some did. On older releases the block still
works; the finding is then info, so an upgrade does not come as a surprise.

## Example
```json
{"train_batch_size": 8, "compression_training": {"weight_quantization": {}}}
```

## Fix
None: the replacement (if any) is named; the feature itself is gone (issue #8489).

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.toolkits.deepspeed.knowledge import schema_node
from recipelint.toolkits.deepspeed.rules._ds import ds_document, since

CODE = "RL412"
NAME = "deepspeed-removed-key"
SEVERITY = Severity.ERROR
VISITS = ("deepspeed-config",)
FIXABLE = False
SOURCE = "_REMOVED_TOP_LEVEL_CONFIG_KEYS in deepspeed/runtime/config.py of the DeepSpeed 0.19.7 and 0.19.8 sdists (https://pypi.org/project/deepspeed/0.19.8/)"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    doc = ds_document(ctx)
    if doc is None:
        return
    places = [("", doc.root)]
    zero = doc.root.get("zero_optimization")
    if zero is not None and zero.kind == "map":
        places.append(("zero_optimization", zero))
    for prefix, node in places:
        for key, key_span, _ in node.items:
            path = f"{prefix}.{key}" if prefix else key
            spec = schema_node(path)
            if spec is None or "x-removed-in" not in spec:
                continue
            removed_in = spec["x-removed-in"]
            instead = f"; use {spec['x-replaced-by']}" if spec.get("x-replaced-by") else ""
            verdict = since(ctx, removed_in)
            if verdict.holds == "none":
                yield ctx.diagnostic(
                    CODE,
                    Severity.INFO,
                    f"'{path}' works with the target ({verdict.range.allows()}) but DeepSpeed {removed_in} removed it and rejects the config{instead}",
                    key_span,
                    setting=path,
                    current=key,
                )
                continue
            yield ctx.diagnostic(
                CODE,
                SEVERITY if verdict.holds == "all" else Severity.WARNING,
                f"'{path}' was removed in DeepSpeed {removed_in}: the target ({verdict.says()}) stops with DeepSpeedConfigError{instead}",
                key_span,
                setting=path,
                current=key,
            )
