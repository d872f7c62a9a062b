"""Multi-node training over Ethernet with loader settings the node cannot carry.

## What it does
On a job of several nodes whose inter-node network is Ethernet, flags DataLoader settings
that the tuner's plan would lower (CPU, shard or memory bound; see RL102, RL103, RL105).

## Why is this bad
Without InfiniBand, NCCL moves gradients over TCP sockets with CPU proxy threads. Workers
that compete for those cores or that push the node into swap delay every all-reduce; the
slowest rank then holds all the others until the NCCL watchdog kills the job ("Watchdog
caught collective operation timeout"). This is the documented case: 4 nodes x 4 V100 over
Ethernet with `num_workers 4`, `prefetch 250`, fixed by 2 and 125.

## Example
`num_nodes=4`, profile `inter_node_network: ethernet`, 34 shards, `num_workers=4`.

## Fix
Applies the tuner's plan for `num_workers` and `prefetch` (the same edits as the rules above).

## Fix safety
Safe: only the loader settings change.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.toolkits.wenet.loader import loader

CODE = "RL105"
NAME = "ethernet-loader-pressure"
SEVERITY = Severity.WARNING
VISITS = ("launch",)
FIXABLE = True
SOURCE = (
    "the shipped case examples/wenet-4node-v100 (4 nodes x 4 V100, Ethernet, num_workers 4 -> 2, prefetch 250 -> 125; docs/diagnose.md)"
)
FACTS = ("inter_node_network", "cpus", "memory_gib", "shm_gib")


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    recipe = ctx.recipe
    if recipe.launch is None or not ctx.nodes or ctx.nodes < 2:
        return
    network = ctx.fact("inter_node_network")
    if network.value != "ethernet":
        return
    workers = recipe.arg("num_workers").as_int()
    prefetch = recipe.arg("prefetch").as_int()
    plan = loader(ctx).plan
    if not workers or workers < 1 or (plan.num_workers == workers and plan.prefetch == prefetch):
        return
    setting = recipe.arg("num_workers")
    yield ctx.diagnostic(
        CODE,
        SEVERITY,
        f"{ctx.nodes} nodes over Ethernet with num_workers {workers} and prefetch {prefetch}: loader pressure stalls NCCL's socket transport (watchdog timeouts); plan: num_workers {plan.num_workers}, prefetch {plan.prefetch}",
        setting.span,
        setting="num_workers",
        current=workers,
        suggested=plan.num_workers,
        evidence=[network.cite("inter_node_network"), ctx.ranks_evidence] + [f"{k} bound: {v}" for k, v in plan.limits.items()],
        fix=loader(ctx).fix(),
    )
