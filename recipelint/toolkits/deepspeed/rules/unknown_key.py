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
run may import validate the block). Either way the closest known key is suggested. A key
DeepSpeed has, but not in the releases the run imports (`zero_optimization.zenflow` before 0.17.6,
`stage3_module_granularity_threshold` before 0.16.0: the per-release model tables,
`schemas/deepspeed/models/`), is rejected the same way.

## Severity
By the model tables (`schemas/deepspeed/models/<release>.json`): an error where the model of every
release the run may import rejects the key (`extra="forbid"` on `DeepSpeedConfigModel`,
`deepspeed/runtime/config_utils.py`, every release since 0.8.0 in the tables); a warning naming
the releases when only some do; a warning when the value is `"auto"` (`DeepSpeedConfigModel.__init__`
drops it first: ignored); in `dict.get` blocks (`deepspeed/runtime/config.py`, every release) a
warning when the key is close to one DeepSpeed reads (that setting is lost), info when not.

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
from typing import Any

from recipelint import versions
from recipelint.context import Context
from recipelint.diagnostics import Applicability, Diagnostic, Edit, Fix, Severity
from recipelint.parse.span import Span
from recipelint.parse.tree import Node
from recipelint.rulekit import closest
from recipelint.toolkits.deepspeed import models
from recipelint.toolkits.deepspeed.knowledge import schema_node
from recipelint.toolkits.deepspeed.rules._ds import ds_document, since

CODE = "RL410"
NAME = "deepspeed-unknown-key"
SEVERITY = Severity.WARNING
VISITS = ("deepspeed-config",)
FIXABLE = True
SOURCE = "deepspeedai/DeepSpeed@edaa7221:deepspeed/runtime/config_utils.py (DeepSpeedConfigModel: pydantic blocks forbid extra keys); deepspeedai/DeepSpeed@edaa7221:deepspeed/runtime/config.py (dict.get blocks ignore them)"
# Keys that are DeepSpeed's own but deliberately free-form.
_FREE = {
    "optimizer.params",
    "scheduler.params",
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
    schema = schema_node(path) or {}
    rng = ctx.version_range("deepspeed")
    tables = [models.table(release) for _, release in models.points(rng)] if path else []
    known = set(schema.get("properties", {})) | {k for data in tables for k in models.keys_at(data, path)}
    if not known:
        return
    for key, key_span, child in node.items:
        child_path = f"{path}.{key}" if path else key
        if key in known:
            yield _not_in_release(ctx, path, key, key_span, child)
            yield from _walk(ctx, child, child_path)
            continue
        if key.startswith(("_", "//", "#")) or key.lower() in ("comment", "comments"):
            continue
        guess = closest(key, known)
        severity, effect, target = _verdict(ctx, schema, path, key, child, guess)
        if severity is None:
            continue
        hint = f"; did you mean '{guess}'?" if guess else ""
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
            evidence=[f"target {target}"],
            fix=fix,
        )


def _verdict(ctx: Context, schema: dict[str, Any], path: str, key: str, child: Node, guess: str | None) -> tuple[Severity | None, str, str]:
    """Rejected by the models of every release in the range (error), of some (warning), or
    ignored (dict.get blocks: a warning when the caller finds a close key, else info)."""
    rng = ctx.version_range("deepspeed")
    validated = versions.evaluate(rng, lambda v: path != "" and models.model_at(models.table_for(v), path) is not None, models.releases())
    rejected = versions.evaluate(rng, lambda v: path != "" and models.rejects_key(models.table_for(v), path, key), models.releases())
    where = f"{models.extra_forbidden(rng)} in {path or 'the config'}"
    if validated.holds != "none" and child.kind == "scalar" and child.value == "auto":
        why = 'DeepSpeed drops every "auto" value before its model validates the block, so the key is ignored'
        return Severity.WARNING, why, validated.range.allows()
    if rejected.holds == "all":
        return Severity.ERROR, f"DeepSpeed rejects it ({where})", rejected.range.allows()
    if rejected.holds == "some":
        # Releases whose model lacks the block read it with dict.get and ignore the key.
        return Severity.WARNING, f"DeepSpeed rejects it ({where}) {rejected.says()}; other releases ignore it", rejected.range.allows()
    if validated.holds != "none":
        return None, "", ""  # every release that validates the block knows the key
    if schema.get("additionalProperties") is False:
        strict = since(ctx, schema.get("x-strict-since", "0"))  # a block the tables have no model for (a plain BaseModel)
        if strict.holds == "all":
            return Severity.ERROR, f"DeepSpeed rejects it ({where})", strict.range.allows()
        if strict.holds == "some":
            return (
                Severity.WARNING,
                f"DeepSpeed rejects it ({where}) {strict.says()}; older releases silently ignore it",
                strict.range.allows(),
            )
    # A misspelling of a key DeepSpeed reads loses that setting; a key DeepSpeed never had only does nothing.
    return Severity.WARNING if guess else Severity.INFO, "DeepSpeed silently ignores it", rng.allows()


def _not_in_release(ctx: Context, path: str, key: str, key_span: Span, child: Node) -> Diagnostic | None:
    """A key DeepSpeed has, but not in the releases the run imports: their model rejects it (a key
    of a newer release on an older one, e.g. `stage3_module_granularity_threshold` before 0.16.0).
    Keys DeepSpeed removed are RL412's."""
    child_path = f"{path}.{key}" if path else key
    if not path or (schema_node(child_path) or {}).get("x-removed-in") or (child.kind == "scalar" and child.value == "auto"):
        return None
    rng = ctx.version_range("deepspeed")
    rejected = versions.evaluate(rng, lambda v: models.rejects_key(models.table_for(v), path, key), models.releases())
    if rejected.holds == "none":
        return None
    has = [release for release in models.releases() if not models.rejects_key(models.table(release), path, key)]
    since = f"; the model tables have it from DeepSpeed {has[0]}" if has else ""
    where = f"{models.extra_forbidden(rng)} in {path}"
    severity = Severity.ERROR if rejected.holds == "all" else Severity.WARNING
    return ctx.diagnostic(
        CODE,
        severity,
        f"'{child_path}' is not a key of the DeepSpeed the run imports: it rejects it ({where}) {rejected.says()}{since}",
        key_span,
        setting=child_path,
        current=key,
        evidence=[f"target {rng.allows()}"],
    )
