"""A DeepSpeed release older than the releases recipelint knows: its version-dependent checks are skipped.

## What it does
Says once per recipe when the DeepSpeed the run imports (its pin, its environment, the
`target-versions` setting) is, or may be, older than the oldest release recipelint has tables for
(0.8.0: `schemas/deepspeed/models/`, generated from the tagged sources by
tools/build_deepspeed_models.py, and `schemas/deepspeed/engine.json`). Those releases are not
judged: every check whose verdict depends on the release (unknown, removed and deprecated keys,
the models' types and bounds, strings, `"auto"`, the optimizer and scheduler the engine builds,
ZeRO's assertions, the device checks) is skipped for them, rather than judged by a table that is
not theirs. The checks that hold alike from 0.7.0 (the batch triple, fp16 with bf16, offload host
memory) still run. A range that also admits known releases (`>=0.6,<0.10`) is judged at those, and
this says which part was not.

## Severity
Info: not judged.

## Why is this bad
It is not; it says what was not checked, so "no problems found" on `deepspeed==0.7.3` is not read
as DeepSpeed 0.7.3 accepting the file.

## Example
`requirements.txt` with `deepspeed==0.7.3` beside the recipe.

## Fix
None: pin a release from 0.8.0 on to have it judged.

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint import versions
from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.toolkits.deepspeed import models
from recipelint.toolkits.deepspeed.rules._ds import ds_document

CODE = "RL429"
NAME = "deepspeed-release-unjudged"
SEVERITY = Severity.INFO
VISITS = ("deepspeed-config",)
FIXABLE = False
SOURCE = "schemas/deepspeed/models/ and schemas/deepspeed/engine.json: the releases recipelint has tables for (tools/build_deepspeed_models.py, tools/build_deepspeed_engine_table.py)"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    doc = ds_document(ctx, versioned=False)
    if doc is None:
        return
    rng = ctx.version_range("deepspeed")
    older = rng.older_than_judged()
    if older is None:
        return
    known = f"{versions.JUDGED_FROM['deepspeed']} to {models.releases()[-1]}"
    if rng.points():
        message = f"{rng.allows()}: the releases before {versions.JUDGED_FROM['deepspeed']} are older than the releases recipelint knows ({known}): their version-dependent checks are skipped, the others are judged"
    elif rng.exact is not None:
        message = (
            f"DeepSpeed {rng.exact} is older than the releases recipelint knows ({known}): version-dependent checks skipped ({rng.source})"
        )
    else:
        message = f"{rng.allows()}: every release it admits is older than the releases recipelint knows ({known}): version-dependent checks skipped"
    yield ctx.diagnostic(CODE, SEVERITY, message, doc.root.span, setting="deepspeed", current=older, evidence=[f"target {rng.allows()}"])
