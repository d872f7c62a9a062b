"""Compressed shards (gzip, bz2, xz, zstd) in a data.list.

## What it does
Flags data.list lines whose shard is compressed, by suffix and, for local files, by their
first bytes.

## Why is this bad
`tools/make_shard_list.py` writes plain `.tar`. A compressed tar must be decompressed by
the worker on every epoch, single-threaded (`torch.set_num_threads(1)` in workers): bz2 in
particular is slow enough that per-batch stalls exceed the join timeout and epochs are cut
short, and with the old IO `.tar.bz2` shards hung (issue #2338). zstd needs Python 3.14
(wenet-e2e/wenet@01546996:tools/make_shard_list.py).

## Example
```
/data/shards/shards_000000000.tar.bz2
```

## Fix
None in the recipe: re-shard without compression (`tools/make_shard_list.py`).

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.toolkits.wenet.part import train_data

CODE = "RL204"
NAME = "compressed-shards"
SEVERITY = Severity.WARNING
VISITS = ("recipe",)
FIXABLE = False
SOURCE = "wenet-e2e/wenet@01546996:tools/make_shard_list.py writes plain tar; wenet-e2e/wenet#2338 (bz2 shards)"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    for data in train_data(ctx.recipe):
        if not data.compression:
            continue
        kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(data.compression.items()))
        example = data.example[next(iter(data.compression))]
        yield ctx.diagnostic(
            CODE,
            SEVERITY,
            f"{data.path.name} lists compressed shards ({kinds}): each worker decompresses them single-threaded every epoch; WeNet's tools write plain .tar",
            data.setting.span,
            setting="train_data",
            current=example,
            evidence=[f"e.g. {example}"],
        )
