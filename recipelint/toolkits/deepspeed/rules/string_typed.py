"""A DeepSpeed boolean or number written as a string ("false", "3").

## What it does
Flags string values where the schema wants a boolean or an integer.

The verdict follows the code that reads the JSON (docs/toolkits/deepspeed.md): an error when
the Hugging Face Trainer or Accelerate reads it, or the training code also hands it to
transformers' `HfDeepSpeedConfig` (XTuner's DeepSpeedStrategy, DeepSpeed-Chat), or when the key is in a block DeepSpeed reads
with `dict.get` (it keeps the string); info when plain DeepSpeed, Megatron-DeepSpeed or WeNet
hand it to DeepSpeed's pydantic model, which converts it (lax mode); a warning naming the
condition when the reader is not known.

## Severity
Inside a block DeepSpeed hands to a pydantic model (the model tables, e.g. `fp16`/`bf16` since
0.17.1, `deepspeed/runtime/precision_config.py`): the model converts it, so info where only
DeepSpeed reads the JSON, an error where Hugging Face or Accelerate read it too (seen in the code:
they misread it), a warning with the condition where that is only inferred from the launch flag or
not known. In a `dict.get` key (`get_scalar_param`, `deepspeed/runtime/config.py`, every release):
`"false"` on a flag is truthy (a warning: on, not as written), `"true"` info, a number kept as a
string an error (its comparisons fail with TypeError). `wall_clock_breakdown` and
`flops_profiler.enabled` are left to RL413: DeepSpeed combines them with `|`, which a string
fails. A warning naming the releases when the
block is a model in some of them only.

## Why is this bad
DeepSpeed's pydantic blocks coerce them ("false" -> False, "3" -> 3), but its dict.get blocks
do not, and Hugging Face and Accelerate read these values with `bool(value)` and `== 3`:
`"enabled": "false"` is True for them, and `"stage": "3"` is not stage 3 for HF's
`is_zero3()`, so `zero.Init` is skipped and the whole model is materialised on every rank
(deepspeedai/DeepSpeed@edaa7221:deepspeed/runtime/config_utils.py, huggingface/transformers@00e12e7c:src/transformers/integrations/deepspeed.py).

## Example
```json
"zero_optimization": {"stage": "3"}, "bf16": {"enabled": "false"}
```

## Fix
Writes the literal: `"3"` -> `3`, `"false"` -> `false`.

## Fix safety
Safe: it writes what DeepSpeed itself would read; only HF's reading changes, to the intended one.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator

from recipelint import versions
from recipelint.context import Context
from recipelint.diagnostics import Applicability, Diagnostic, Edit, Fix, Severity
from recipelint.toolkits.deepspeed import models
from recipelint.toolkits.deepspeed.knowledge import BITOR_FLAGS, schema_node
from recipelint.toolkits.deepspeed.rules._ds import ds_document

CODE = "RL414"
NAME = "deepspeed-string-typed"
SEVERITY = Severity.ERROR
VISITS = ("deepspeed-config",)
FIXABLE = True
SOURCE = "deepspeedai/DeepSpeed@edaa7221:deepspeed/runtime/config_utils.py (pydantic lax coercion) vs huggingface/transformers@00e12e7c:src/transformers/integrations/deepspeed.py (is_true(), is_zero3())"
_BOOLS = {"true": "true", "yes": "true", "false": "false", "no": "false"}


def _types(spec: dict) -> set[str]:  # type: ignore[type-arg]
    found: set[str] = set()
    for option in [spec, *spec.get("anyOf", [])]:
        kind = option.get("type")
        found.update([kind] if isinstance(kind, str) else kind or [])
        if "enum" in option and all(isinstance(v, int) for v in option["enum"] if v is not None):
            found.add("integer")
    return found


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    doc = ds_document(ctx)
    if doc is None:
        return
    for node in doc.root.walk():
        if node.kind != "scalar" or not isinstance(node.value, str) or node.value == "auto" or "[" in node.path:
            continue
        if node.path in BITOR_FLAGS:
            continue  # never tested for truth: DeepSpeed's `|` on a string is a TypeError (RL413)
        spec = schema_node(node.path)
        if spec is None:
            continue
        types = _types(spec)
        text = node.value.strip().lower()
        literal = None
        if "boolean" in types and text in _BOOLS:
            literal = _BOOLS[text]
        elif types & {"integer", "number"} and "string" not in types:
            try:
                number = float(text)
                if not math.isfinite(number):
                    continue  # "inf"/"nan": JSON has no literal for them
                literal = str(int(number)) if number.is_integer() and "e" not in text else text
            except ValueError:
                continue
        if literal is None:
            continue
        severity, message, evidence = _verdict(ctx, node.path, node.value, literal in ("true", "false"))
        yield ctx.diagnostic(
            CODE,
            severity,
            message,
            node.span,
            setting=node.path,
            current=node.value,
            suggested=json.loads(literal),  # the value, as the fix writes it
            evidence=evidence,
            fix=Fix((Edit(node.span, literal),), Applicability.SAFE, f"write {literal}"),
        )


def _verdict(ctx: Context, path: str, value: str, boolean: bool) -> tuple[Severity, str, list[str]]:
    """By the reading of each release (a pydantic model converts the string, `dict.get` keeps it)
    and by who else reads the JSON (Hugging Face and Accelerate compare the raw value)."""
    parent = path.rpartition(".")[0]
    rng = ctx.version_range("deepspeed")
    modelled = versions.evaluate(
        rng, lambda v: parent != "" and models.model_at(models.table_for(v), parent) is not None, models.releases()
    )
    if modelled.holds == "all":
        return _by_consumer(ctx, path, value)
    severity, message = _dict_get(path, value, boolean)
    if modelled.holds == "none":
        return severity, message, []
    plain = versions.evaluate(rng, lambda v: models.model_at(models.table_for(v), parent) is None, models.releases())
    return min(severity, Severity.WARNING, key=_rank), f"{message} ({plain.says()}; later releases validate the block and convert it)", []


def _rank(severity: Severity) -> int:
    return [Severity.INFO, Severity.WARNING, Severity.ERROR].index(severity)


def _dict_get(path: str, value: str, boolean: bool) -> tuple[Severity, str]:
    """A string DeepSpeed reads with dict.get: a flag is tested for truth, a number used as is."""
    if boolean:
        said = value.strip().lower()
        if said in ("false", "no"):
            return (
                Severity.WARNING,
                f"{path} is the string {value!r}: DeepSpeed reads it with dict.get and tests it for truth; a non-empty string is true, so it is on",
            )
        return (
            Severity.INFO,
            f"{path} is the string {value!r}: DeepSpeed reads it with dict.get and tests it for truth; it is on, as written",
        )
    return (
        SEVERITY,
        f"{path} is the string {value!r}: DeepSpeed reads it with dict.get and keeps the string; its comparisons and arithmetic fail with TypeError",
    )


def _by_consumer(ctx: Context, path: str, value: str) -> tuple[Severity, str, list[str]]:
    """A pydantic block converts the string; Hugging Face and Accelerate read the raw value."""
    hf = f"Hugging Face/Accelerate read bool({value!r}) = {bool(value)}{' and compare stage == 3' if path.endswith('stage') else ''}"
    consumer = ctx.recipe.reader
    where = [f"consumer: {consumer.label} ({consumer.why()})"] if consumer.why() else []
    if consumer.hf_reads and consumer.inferred and not consumer.hf_config:
        # Taken from the launch flag, not seen in code: the verdict is conditional.
        return (
            Severity.WARNING,
            f"{path} is the string {value!r}: DeepSpeed's pydantic model converts it, but if Hugging Face or Accelerate reads this config ({consumer.inferred}), they read bool({value!r}) = {bool(value)}{' and compare stage == 3' if path.endswith('stage') else ''}",
            where,
        )
    if consumer.hf_reads and consumer.kind not in ("hf-trainer", "accelerate"):
        also = f"{consumer.label} also hands the JSON to transformers' HfDeepSpeedConfig ({consumer.hf_config}), and"
        return SEVERITY, f"{path} is the string {value!r}: DeepSpeed's pydantic blocks coerce it, but {also} {hf}", where
    if consumer.hf_reads:
        return SEVERITY, f"{path} is the string {value!r}: DeepSpeed's pydantic blocks coerce it, but {hf}", where
    if consumer.hf_reads is False:
        return (
            Severity.INFO,
            f"{path} is the string {value!r}: {consumer.label} hands it to DeepSpeed, whose pydantic model converts it; only a Hugging Face/Accelerate launch would misread it",
            where,
        )
    why = consumer.why() or "no launch names this JSON"
    return (
        Severity.WARNING,
        f"{path} is the string {value!r}: DeepSpeed's pydantic blocks coerce it, but if Hugging Face or Accelerate reads this config, {hf} (not decided: {why})",
        where,
    )
