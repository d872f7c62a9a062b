"""Shard count not divisible by the world size under deepspeed or torch_fsdp.

## What it does
With `--data_type shard` and `--train_engine deepspeed` or `torch_fsdp`, checks
`lines(train data.list) % world_size == 0` (when there are at least as many lines as ranks;
fewer is RL202).

## Why is this bad
WeNet gives line `i` of the list to rank `i % world_size` (wenet-e2e/wenet@01546996:wenet/dataset/datapipes.py), so 15 shards on 2
ranks give 8 and 7: one rank runs out a whole shard (1000 utterances by default) before the
others. DDP evens this out with `model.join()` (`wenet/utils/executor.py`), but deepspeed and
FSDP cannot skip a gradient sync for a rank without data, so WeNet uses `wenet_join`
(`wenet/utils/train_utils.py`, skipped only for `torch_ddp`): from batch 1 every rank waits in
a gloo `monitored_barrier`; when one rank is gone the others time out after `--timeout` and
break. Every epoch then ends with "Detected uneven workload distribution", the rest of the
longer ranks' shard unused, and a `--timeout` wait (1200 s in the WenetSpeech recipes); a
rank that reaches the next collective early instead hangs it (OSUM #9, WeNet #2552).

## Example
15 lines in `data/train/data.list`, 2 GPUs, `--train_engine deepspeed`.

## Fix
None in the recipe: re-shard to the nearest multiple of the world size (ties upward),
`tools/make_shard_list.py --num_utts_per_shard` about `1000 x lines / new_lines` when the
shards hold the default 1000 utterances. 15 shards on 2 ranks: 16 shards, 937 utterances each.

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.toolkits.wenet.loader import loader
from recipelint.toolkits.wenet.part import train_data

CODE = "RL205"
NAME = "shards-uneven-ranks"
SEVERITY = Severity.WARNING
VISITS = ("recipe",)
FIXABLE = False
SOURCE = "wenet-e2e/wenet@01546996:wenet/dataset/datapipes.py: line i goes to rank i % world_size; wenet-e2e/wenet@01546996:wenet/utils/train_utils.py: wenet_join skips only torch_ddp"
# tools/make_shard_list.py: --num_utts_per_shard default 1000 (WeNet HEAD 01546996).
DEFAULT_UTTS_PER_SHARD = 1000


def nearest_multiple(lines: int, world: int) -> int:
    """The multiple of world_size nearest to `lines` (ties upward), at least world_size."""
    low = max(world, lines // world * world)
    high = low if low >= lines else low + world
    return low if lines - low < high - lines else high


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    recipe = ctx.recipe
    engine = recipe.arg("train_engine").value
    if engine not in ("deepspeed", "torch_fsdp") or recipe.arg("data_type").value != "shard":
        return
    shards, world = loader(ctx).shards, ctx.world_size
    if shards is None or world is None or world < 2 or shards < world or shards % world == 0:
        return
    data = next(item for item in train_data(recipe) if item.exists)
    more, fewer = shards % world, world - shards % world
    target = nearest_multiple(shards, world)
    per_shard = DEFAULT_UTTS_PER_SHARD * shards // target
    yield ctx.diagnostic(
        CODE,
        SEVERITY,
        f"{shards} shards on {world} ranks: {more} rank(s) get {shards // world + 1} shards and {fewer} get {shards // world}; under {engine} each epoch ends in wenet_join's --timeout wait (or a hang) when the first rank runs out; make {target} shards",
        data.setting.span,
        setting="train_data",
        current=shards,
        suggested=target,
        evidence=[
            f"{data.path}: {shards} lines",
            ctx.ranks_evidence,
            "formula: shards % world_size == 0; nearest multiple of the world size",
            f"tools/make_shard_list.py --num_utts_per_shard {per_shard} (= {DEFAULT_UTTS_PER_SHARD} x {shards} / {target}, for shards of the default {DEFAULT_UTTS_PER_SHARD})",
        ],
    )
