"""One DataLoader worker per rank on a node with cores to spare.

## What it does
Flags `num_workers 1` when the loader plan (`loader(ctx).plan`, `tuner.plan_loader`) allows
more: its `headroom` is the worker count the CPU cap (`ranks_per_node x num_workers <= usable
CPUs`, or the measured throughput plateau) and the shard cap (`lines // world_size`) allow, up
to upstream's 8.

## Why is this bad
One worker is the only process that reads, decodes, resamples and computes fbank for its
rank (each worker is single-threaded, pytorch/pytorch@v2.1.2:torch/utils/data/_utils/worker.py); when it is slower than the GPU step the
GPU waits, and its utilisation is low and fluctuating. `prefetch` only lengthens the queue
that one worker fills: it absorbs short stalls but adds no producer, so raising it (WeNet #988:
`num_workers 1`, `prefetch 200`, "trying to change prefetch and num_workers has no effect",
CPU utilisation low) costs RAM and changes nothing once the queue has drained.

## Example
2 nodes x 8 V100, 48 CPUs per node, 240 shards: `num_workers 1`, `prefetch 200`; the plan
allows 6 workers (48 // 8).

## Fix
None applied (info): set `num_workers` to the plan's value and divide `prefetch` by the same
factor to keep `workers x prefetch` batches queued per rank, the same memory
(`tuner.queued_batches`), but not below a worker's sort burst, where workers wait on each other
(`LoaderModel.burst`, docs/tuner.md), and not above what memory allows.

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint import tuner
from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.toolkits.wenet.loader import loader

CODE = "RL106"
NAME = "loader-workers-underused"
SEVERITY = Severity.INFO
VISITS = ("launch",)
FIXABLE = False
SOURCE = "plan_loader in recipelint/tuner.py (CPU and shard caps, upstream 8; docs/tuner.md); pytorch/pytorch@v2.1.2:torch/utils/data/_utils/worker.py (one thread per worker); wenet-e2e/wenet#988"
FACTS = ("cpus",)


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    recipe = ctx.recipe
    workers = recipe.arg("num_workers").as_int()
    if recipe.launch is None or workers != 1 or not ctx.fact("cpus").known:
        return  # an unknown CPU count is RL001's finding, said by RL102
    plan = loader(ctx).plan
    target, new_prefetch = plan.advised(workers)
    ranks = ctx.ranks_per_node
    if target is None or target <= workers or ranks is None:
        return
    prefetch = recipe.arg("prefetch").as_int()
    queued = (
        f", prefetch {new_prefetch}: {tuner.queued_batches(ranks, target, new_prefetch)} batches queued per node"
        f" (now {tuner.queued_batches(ranks, workers, prefetch)})"
        if prefetch and new_prefetch
        else ""
    )
    setting = recipe.arg("num_workers")
    caps = ", ".join(f"{name} cap {value}" for name, value in plan.limits.items() if name in ("cpu", "shards"))
    yield ctx.diagnostic(
        CODE,
        SEVERITY,
        f"num_workers 1{f' with prefetch {prefetch}' if prefetch else ''}: one process per rank decodes and extracts features while the node has {ctx.fact('cpus').value} CPUs for {ranks} ranks; prefetch adds no producer. The loader plan: num_workers {target}{queued}",
        setting.span,
        setting="num_workers",
        current=workers,
        suggested=target,
        evidence=[
            ctx.fact("cpus").cite("cpus"),
            ctx.ranks_evidence,
            f"loader plan headroom {target} ({caps}, upstream {tuner.UPSTREAM_NUM_WORKERS})",
        ],
    )
