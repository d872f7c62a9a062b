"""A train-YAML value of the wrong type or outside its allowed set.

## What it does
Validates the train YAML against `schemas/wenet/train.schema.json` (JSON Schema 2020-12)
for types, enums and minimums. Unknown keys are RL701's job.

## Why is this bad
WeNet does not validate its config: `batch_size: "16"` reaches the batcher as a string,
`batch_type: dynamc` falls through to an error deep in the data pipeline, after the
workers have started.

## Example
```yaml
dataset_conf:
  batch_conf:
    batch_type: dynamc
```

## Fix
None: the intended value is not knowable.

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.schemas import validate
from recipelint.toolkits.wenet.rules.config._wenet import SCHEMA, wenet_config

CODE = "RL702"
NAME = "invalid-config-value"
SEVERITY = Severity.ERROR
FIXABLE = False
SOURCE = "schemas/wenet/train.schema.json, from wenet-e2e/wenet@01546996:wenet/dataset/dataset.py and wenet-e2e/wenet@01546996:wenet/dataset/processor.py"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    config = wenet_config(ctx)
    if config is None:
        return
    for problem in validate(SCHEMA, config.root.plain()):
        if "Additional properties" in problem.message:
            continue
        node = config.root.get(problem.path) if problem.path else None
        if node is None:
            continue
        yield ctx.diagnostic(CODE, SEVERITY, f"invalid value: {problem.message}", node.span, setting=problem.path, current=node.value)
