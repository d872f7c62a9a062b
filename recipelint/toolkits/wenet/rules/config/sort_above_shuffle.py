"""`sort_conf.sort_size` larger than `shuffle_conf.shuffle_size`.

## What it does
Compares the two buffers of the WeNet data pipeline.

## Why is this bad
Samples are shuffled in a buffer of `shuffle_size`, then sorted by length in a buffer of
`sort_size`. A sort buffer larger than the shuffle buffer undoes the shuffle: batches come
out in long runs of similar utterances, and each worker holds more decoded audio than the
shuffle needs. WeNet documents the rule "sort_size should be less than shuffle_size", and
every upstream config keeps it (wenet-e2e/wenet@01546996:examples/aishell/s0/conf/train_conformer.yaml).

## Example
```yaml
shuffle_conf: {shuffle_size: 500}
sort_conf: {sort_size: 1500}
```

## Fix
None: which buffer is wrong is the author's call.

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.toolkits.wenet.rules.config._wenet import wenet_config

CODE = "RL703"
NAME = "sort-above-shuffle"
SEVERITY = Severity.WARNING
VISITS = ("wenet-config",)
FIXABLE = False
SOURCE = "wenet-e2e/wenet@01546996:examples/aishell/s0/conf/train_conformer.yaml: the documented rule 'sort_size should be less than shuffle_size'"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    config = wenet_config(ctx)
    if config is None:
        return
    sort = config.root.get("dataset_conf.sort_conf.sort_size")
    shuffle = config.root.get("dataset_conf.shuffle_conf.shuffle_size")
    if sort is None or shuffle is None or not all(isinstance(n.value, int) for n in (sort, shuffle)):
        return
    if config.root.scalar("dataset_conf.sort") is False or config.root.scalar("dataset_conf.shuffle") is False:
        return
    if sort.value > shuffle.value:
        yield ctx.diagnostic(
            CODE,
            SEVERITY,
            f"sort_size {sort.value} is larger than shuffle_size {shuffle.value}: the sort buffer undoes the shuffle",
            sort.span,
            setting="dataset_conf.sort_conf.sort_size",
            current=sort.value,
            evidence=[f"{shuffle.span}: shuffle_size {shuffle.value}"],
        )
