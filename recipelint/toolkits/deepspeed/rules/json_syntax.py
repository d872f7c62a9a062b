"""Duplicate keys, comments and trailing commas in a DeepSpeed JSON.

## What it does
Reports a key given twice (error, with both places), and comments or trailing commas when
the code that reads the config parses it with strict `json` first: an error under the Hugging
Face Trainer, Accelerate and Megatron-DeepSpeed (`json.load` in `megatron/training.py`
`_create_ds_config_dict`, microsoft/Megatron-DeepSpeed@f4157bea), a warning that names the
condition when the reader is not known (a JSON linted alone), nothing when only DeepSpeed reads
it (a plain `deepspeed.initialize`, WeNet, XTuner).

## Why is this bad
DeepSpeed reads a config path with hjson and rejects duplicates ("Duplicate keys in DeepSpeed
config"); Hugging Face and Accelerate read it with strict `json`, where duplicates silently
take the last value and a comment or trailing comma is a JSONDecodeError (huggingface/accelerate@16cb6eb8:src/accelerate/utils/deepspeed.py).
The same file then works under one launcher and fails, or means something else, under another.

## Severity
Error for a duplicate key (DeepSpeed's hjson reader raises "Duplicate keys in DeepSpeed
config", deepspeedai/DeepSpeed@edaa7221:deepspeed/runtime/config.py) and for a comment or a
trailing comma where a strict `json` reader reads the file first (the Trainer, Accelerate,
Megatron-DeepSpeed: JSONDecodeError at start-up); a warning with the condition when the reader
is not known; nothing when only DeepSpeed's hjson reads it (it accepts both).

## Example
```json
{"train_micro_batch_size_per_gpu": 4, "train_micro_batch_size_per_gpu": 8,}
```

## Fix
None: which duplicate is meant is the author's call.

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.toolkits.deepspeed.rules._ds import ds_document

CODE = "RL422"
NAME = "deepspeed-json-syntax"
SEVERITY = Severity.ERROR
VISITS = ("deepspeed-config",)
FIXABLE = False
SOURCE = "deepspeedai/DeepSpeed@edaa7221:deepspeed/runtime/config.py (hjson with dict_raise_error_on_duplicate_keys) vs strict json in huggingface/accelerate@16cb6eb8:src/accelerate/utils/deepspeed.py (HfDeepSpeedConfig)"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    doc = ds_document(ctx)
    if doc is None:
        return
    strict = _strict_reader(ctx)
    for kind, detail in doc.notes:
        if kind == "duplicate":
            span, first = detail
            key = doc.source.slice(span)
            yield ctx.diagnostic(
                CODE,
                SEVERITY,
                f"duplicate key {key} (first at line {first.line}): DeepSpeed rejects it ('Duplicate keys in DeepSpeed config'), Hugging Face silently keeps the last",
                span,
                setting=key.strip('"'),
                evidence=[f"{first}: first {key}"],
            )
        elif strict is not None:
            what = "a comment" if kind == "comment" else "a trailing comma"
            severity, reader = strict
            yield ctx.diagnostic(
                CODE,
                severity,
                f"{what}: DeepSpeed's hjson accepts it, but {reader} with strict json and fail (JSONDecodeError)",
                detail,
                setting=None,
            )


def _strict_reader(ctx: Context) -> tuple[Severity, str] | None:
    """Who parses the file with strict `json` before DeepSpeed sees it: an error when the consumer
    does, a warning naming the condition when the consumer is not known; None when only DeepSpeed
    reads it."""
    consumer = ctx.recipe.reader
    if consumer.kind in ("hf-trainer", "accelerate"):
        return SEVERITY, "Hugging Face and Accelerate read the file"
    if consumer.kind == "megatron":  # megatron/training.py _create_ds_config_dict: json.load
        return SEVERITY, "Megatron-DeepSpeed reads the file (json.load in megatron/training.py _create_ds_config_dict)"
    if consumer.kind == "unknown":
        return Severity.WARNING, "if Hugging Face, Accelerate or Megatron-DeepSpeed reads this config, they read the file"
    return None
