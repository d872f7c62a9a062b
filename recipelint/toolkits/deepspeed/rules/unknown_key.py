"""A DeepSpeed config key that DeepSpeed does not read: silently ignored, or rejected.

## What it does
Walks the config against `schemas/deepspeed/ds_config.schema.json`. In blocks DeepSpeed
reads with `dict.get` (the top level, `optimizer`, `scheduler`, `aio`, `checkpoint`, ...), an
unknown key is ignored without a word: a warning when it is close to a key DeepSpeed reads (a
misspelling loses that setting), info when it is not (a key from another tool only does
nothing). In blocks it validates with
pydantic (`zero_optimization` and its offload blocks, `fp16`/`bf16` since 0.17.1, the
monitors, `compile`, `tensor_parallel`, ...), an unknown key is an error: DeepSpeed stops with
"Extra inputs are not permitted" (a warning naming the releases when only some of those the
run may import validate the block). Either way the closest known key is suggested.

## Why is this bad
A misspelled top-level key (`"gradient_clipp1ng": 1`, DeepSpeed #653) or a key from another
tool (`cuda_visible_devices`, `comms_config`, `monitor_config`) changes nothing, and the
author believes it does. In strict blocks the job dies at `deepspeed.initialize`, after it
has its GPUs. A key whose name starts with `_` or `//` is taken as a deliberate comment.

## Example
```json
{"train_batch_size": 32, "comms_config": {"verbose": false}}
```

## Fix
Renames the key to the suggestion, when there is one.

## Fix safety
Unsafe: the suggestion is a guess from spelling, and enabling an ignored block changes the run.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Applicability, Diagnostic, Edit, Fix, Severity
from recipelint.parse.tree import Node
from recipelint.rulekit import closest
from recipelint.toolkits.deepspeed.knowledge import schema_node
from recipelint.toolkits.deepspeed.rules._ds import ds_document, since

CODE = "RL410"
NAME = "deepspeed-unknown-key"
SEVERITY = Severity.WARNING
FIXABLE = True
SOURCE = "deepspeedai/DeepSpeed@edaa7221:deepspeed/runtime/config_utils.py (DeepSpeedConfigModel: pydantic blocks forbid extra keys); deepspeedai/DeepSpeed@edaa7221:deepspeed/runtime/config.py (dict.get blocks ignore them)"
# Keys that are DeepSpeed's own but deliberately free-form.
_FREE = {
    "optimizer.params",
    "scheduler.params",
    "zero_optimization.zenflow",
    "weight_quantization",
    "expert_parallel",
    "datastates",
    "checkpoint.parallel_write",
    "checkpoint.writer",
    "data_efficiency.data_sampling",
    "data_efficiency.data_routing",
    "zero_optimization.zeropp_loco_param",
}


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    doc = ds_document(ctx)
    if doc is None:
        return
    yield from _walk(ctx, doc.root, "")


def _walk(ctx: Context, node: Node, path: str) -> Iterator[Diagnostic | None]:
    if node.kind != "map" or path in _FREE:
        return
    schema = schema_node(path)
    if schema is None or "properties" not in schema:
        return
    known = schema["properties"]
    strict = since(ctx, schema.get("x-strict-since", "0")) if schema.get("additionalProperties") is False else None
    for key, key_span, child in node.items:
        child_path = f"{path}.{key}" if path else key
        if key in known:
            yield from _walk(ctx, child, child_path)
            continue
        if key.startswith(("_", "//", "#")) or key.lower() in ("comment", "comments"):
            continue
        guess = closest(key, known)
        hint = f"; did you mean '{guess}'?" if guess else ""
        rejects = f"DeepSpeed rejects it ('Extra inputs are not permitted' in {path or 'the config'})"
        if strict is not None and strict.holds == "all":
            severity, effect = Severity.ERROR, rejects
        elif strict is not None and strict.holds == "some":
            # Older releases the run may import read this block with dict.get and ignore the key.
            severity, effect = Severity.WARNING, f"{rejects} {strict.says()}; older releases silently ignore it"
        else:
            # A misspelling of a key DeepSpeed reads loses that setting; a key DeepSpeed never had
            # (`cuda_visible_devices`, another tool's block) only does nothing.
            severity, effect = (Severity.WARNING if guess else Severity.INFO), "DeepSpeed silently ignores it"
        fix = (
            Fix((Edit(key_span, f'"{guess}"'),), Applicability.UNSAFE, f"rename to {guess}")
            if guess and guess not in node.entries
            else None
        )
        yield ctx.diagnostic(
            CODE,
            severity,
            f"unknown key '{child_path}': {effect}{hint}",
            key_span,
            setting=child_path,
            current=key,
            suggested=guess,
            evidence=[f"target {strict.range.allows() if strict is not None else ctx.version_range('deepspeed').allows()}"],
            fix=fix,
        )
