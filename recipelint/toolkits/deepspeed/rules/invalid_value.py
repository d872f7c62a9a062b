"""A DeepSpeed value of the wrong type, outside its range, or not one of its allowed values.

## What it does
Validates the config against `schemas/deepspeed/ds_config.schema.json` (JSON Schema 2020-12):
`"stage": 4`, `"device": "CPU"` (lower case only), `"steps_per_print": 0`, a negative
`loss_scale`, a non-integer batch size. `"auto"` is left to RL415, strings standing for
booleans or numbers to RL414, unknown keys to RL410.

## Why is this bad
DeepSpeed checks some of these at start-up (pydantic blocks: "Input should be 0, 1, 2, 3")
and others only when the value is used: `steps_per_print: 0` divides by zero at the first
step (`global_steps % 0`).

## Example
```json
"zero_optimization": {"stage": 3, "offload_param": {"device": "CPU"}}
```

## Fix
None: the intended value is not knowable.

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.schemas import validate
from recipelint.toolkits.deepspeed.knowledge import SCHEMA
from recipelint.toolkits.deepspeed.rules._ds import ds_document

CODE = "RL413"
NAME = "deepspeed-invalid-value"
SEVERITY = Severity.ERROR
FIXABLE = False
SOURCE = "schemas/deepspeed/ds_config.schema.json, from deepspeedai/DeepSpeed@edaa7221:deepspeed/runtime/config.py and the pydantic models it loads"


def _without_auto(value: Any) -> Any:
    """DeepSpeed's pydantic blocks drop "auto" (their default applies); RL415 judges it."""
    if isinstance(value, dict):
        return {k: _without_auto(v) for k, v in value.items() if v != "auto"}
    if isinstance(value, list):
        return [_without_auto(v) for v in value]
    return value


def _stringly(value: Any) -> bool:
    return (
        isinstance(value, str)
        and value.strip().lower() in ("true", "false", "yes", "no")
        or (isinstance(value, str) and value.strip().lstrip("-").replace(".", "", 1).isdigit())
    )


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    doc = ds_document(ctx)
    if doc is None:
        return
    for problem in validate(SCHEMA, _without_auto(doc.root.plain())):
        if "Additional properties" in problem.message or "were unexpected" in problem.message:
            continue  # RL410
        node = doc.root.get(problem.path) if problem.path else None
        if node is None or node.kind == "map" and "is not valid under any of the given schemas" in problem.message:
            continue  # a block with a nested problem: the nested one is reported on its own
        if node.kind == "scalar" and _stringly(node.value):
            continue  # RL414
        yield ctx.diagnostic(CODE, SEVERITY, f"invalid value: {problem.message}", node.span, setting=problem.path, current=node.value)
