"""Duplicate keys, comments and trailing commas in a DeepSpeed JSON.

## What it does
Reports a key given twice (error, with both places), and comments or trailing commas
(warning) when the config may be read by Hugging Face or Accelerate (their launch, or a JSON
linted alone).

## Why is this bad
DeepSpeed reads a config path with hjson and rejects duplicates ("Duplicate keys in DeepSpeed
config"); Hugging Face and Accelerate read it with strict `json`, where duplicates silently
take the last value and a comment or trailing comma is a JSONDecodeError (deepspeed.md 1).
The same file then works under one launcher and fails, or means something else, under another.

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
FIXABLE = False
SOURCE = "deepspeed.md 1: hjson with dict_raise_error_on_duplicate_keys vs strict json in HF/Accelerate"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    doc = ds_document(ctx)
    if doc is None:
        return
    strict_readers = ctx.recipe.ds_filler in ("hf", "accelerate", "unknown")
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
        elif strict_readers:
            what = "a comment" if kind == "comment" else "a trailing comma"
            yield ctx.diagnostic(
                CODE,
                Severity.WARNING,
                f"{what}: DeepSpeed's hjson accepts it, but Hugging Face and Accelerate read the file with strict json and fail (JSONDecodeError)",
                detail,
                setting=None,
            )
