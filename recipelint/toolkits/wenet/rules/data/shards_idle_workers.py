"""Fewer data.list lines than DataLoader workers across all ranks.

## What it does
Checks `lines(train data.list) >= world_size x num_workers`.

## Why is this bad
WeNet shards the list by line over every reader: `total = world_size x num_workers`
(torch's sharding filter, `wenet/dataset/datapipes.py`; the old IO did
`data[rank::world_size][worker_id::num_workers]`). With fewer lines than readers, some
workers never get a shard: they cost a process, RAM and a prefetch queue for nothing, and
the ranks whose workers got one shard more run longer every epoch.

## Example
34 shards, 4 nodes x 4 GPUs = 16 ranks, `num_workers 4`: 64 readers, 30 of them idle.

## Fix
Sets `num_workers` to `shards // world_size` (34 // 16 = 2) and scales `prefetch` by the
same factor (250 -> 125), the fix of the shipped case examples/wenet-4node-v100 (docs/diagnose.md).

## Fix safety
Safe: only the loader settings change.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.toolkits.wenet.loader import loader
from recipelint.toolkits.wenet.part import train_data

CODE = "RL201"
NAME = "shards-idle-workers"
SEVERITY = Severity.WARNING
VISITS = ("recipe",)
FIXABLE = True
SOURCE = "wenet-e2e/wenet@01546996:wenet/dataset/datapipes.py (ShardDataPipe): lines are split over world_size x num_workers readers"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    recipe = ctx.recipe
    workers = recipe.arg("num_workers").as_int()
    shards, world = loader(ctx).shards, ctx.world_size
    if shards is None or world is None or not workers or workers < 1:
        return
    readers = world * workers
    if shards >= readers or shards < world:  # fewer than world_size: RL202 says more
        return
    plan = loader(ctx).plan
    setting = recipe.arg("num_workers")
    lists = ", ".join(str(item.path) for item in train_data(recipe) if item.exists)
    yield ctx.diagnostic(
        CODE,
        SEVERITY,
        f"{shards} data.list lines for {world} ranks x {workers} workers = {readers} readers: {readers - shards} workers get no data",
        setting.span,
        setting="num_workers",
        current=workers,
        suggested=plan.num_workers,
        evidence=[f"{lists}: {shards} lines", ctx.ranks_evidence, "formula: num_workers <= lines // world_size"],
        fix=loader(ctx).fix(),
    )
