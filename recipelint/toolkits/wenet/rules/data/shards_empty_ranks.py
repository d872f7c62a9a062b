"""Fewer data.list lines than ranks: whole ranks train on nothing.

## What it does
Checks `lines(train data.list) >= world_size`.

## Why is this bad
A rank without a shard leaves the epoch at once. Under DDP the others wait in `join()`;
under DeepSpeed or FSDP it goes straight to `destroy_process_group` and `dist.barrier()` while
the others run batch 0 with DeepSpeed collectives: mismatched collectives, then a hang until
the process-group timeout (wenet-e2e/wenet@01546996:wenet/dataset/datapipes.py).

## Example
8 shards for 2 nodes x 8 GPUs.

## Fix
None in the recipe: make more shards (`tools/make_shard_list.py --num_utts_per_shard` lower),
at least `world_size x num_workers`, ideally a multiple of `world_size`.

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.toolkits.wenet.loader import loader
from recipelint.toolkits.wenet.part import train_data

CODE = "RL202"
NAME = "shards-empty-ranks"
SEVERITY = Severity.ERROR
VISITS = ("recipe",)
FIXABLE = False
SOURCE = "wenet-e2e/wenet@01546996:wenet/dataset/datapipes.py (ShardDataPipe) and wenet-e2e/wenet@01546996:wenet/bin/train.py: a rank with no shard leaves the epoch; under deepspeed the collectives mismatch"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    shards, world = loader(ctx).shards, ctx.world_size
    if shards is None or world is None or shards >= world:
        return
    data = next(item for item in train_data(ctx.recipe) if item.exists)
    engine = ctx.recipe.arg("train_engine").value
    outcome = "DDP's join hides it" if engine == "torch_ddp" else f"under {engine} the ranks' collectives mismatch and the job hangs"
    yield ctx.diagnostic(
        CODE,
        SEVERITY,
        f"{shards} data.list lines for {world} ranks: {world - shards} {'rank gets' if world - shards == 1 else 'ranks get'} no data ({outcome}); make at least {world} shards",
        data.setting.span,
        setting="train_data",
        current=shards,
        suggested=world,
        evidence=[f"{data.path}: {shards} lines", ctx.ranks_evidence],
    )
