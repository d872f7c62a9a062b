"""More DataLoader workers than the node's CPUs can run, or than a rank can use.

## What it does
Checks `ranks_per_node x num_workers <= usable CPUs`: each DataLoader worker of each rank
needs a core. With a profile measured by `recipelint tune --measure` on a rank's share of
the cores, checks `num_workers` against the measured throughput plateau instead: the fewest
workers within 10 % of the best batches/s.

## Why is this bad
WeNet's workers run `torch.set_num_threads(1)` and decode, resample and compute fbank on one
core each. When they outnumber the cores, the training processes lose their CPU time, steps
slow down unevenly across ranks, and collectives wait on the slowest rank until NCCL's
watchdog fires ("Watchdog caught collective operation timeout"). Measured with WeNet's own
pipeline (bench/fidelity, docs/tuner.md): workers past the cores add no throughput, while
the trainer, waiting on its step, used 0.02-0.05 of a core, so it gets no core of its own
(capping at `cores - 1`, 1 worker on 2 cores, gave 0.49 of the best throughput; 2 workers 0.92). PyTorch's own warning counts
one DataLoader in one process; this rule counts every rank on the node. Usable CPUs means
scheduler affinity and the cgroup quota, whichever is smaller. The cv loader is built with
the same settings but is idle while training runs, so it is not counted.

## Example
8 ranks per node with `--num_workers 16` on a 64-CPU node: 8 x 16 = 128 > 64.

## Fix
Sets `num_workers` to `usable_cpus // ranks_per_node` (never below 1), or to the measured
plateau, and scales `prefetch` by the same factor so each worker keeps the same share of
queued batches (not below the sort burst, see docs/tuner.md).

## Fix safety
Safe: only `num_workers` and `prefetch` change, by the stated formula.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.rulekit import oversubscribed
from recipelint.rulekit.unknown_fact import hardware_unknown
from recipelint.toolkits.wenet.loader import loader

CODE = "RL102"
NAME = "cpu-oversubscription"
SEVERITY = Severity.WARNING
VISITS = ("launch",)
FIXABLE = True
SOURCE = "formula ranks_per_node x num_workers <= usable CPUs, or the measured plateau (loader_worker_cap in recipelint/tuner.py, docs/tuner.md; bench/fidelity)"
FACTS = ("cpus",)


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    recipe = ctx.recipe
    workers = recipe.arg("num_workers").as_int()
    if recipe.launch is None or not workers or workers < 1:
        return
    cpus = ctx.fact("cpus")
    if not cpus.known:
        yield hardware_unknown(ctx, CODE, "cpus", recipe.arg("num_workers"))
        return
    ranks, cap = ctx.ranks_per_node, loader(ctx).cpu_cap
    if ranks is None or cap is None or workers <= cap[0]:
        return
    setting = recipe.arg("num_workers")
    if cap[1].startswith("formula"):
        message = oversubscribed(ranks, workers, cpus.value)
    else:
        message = (
            f"num_workers {workers} is past the measured throughput plateau: {cap[0]} worker(s) reach within 10 % of the best batches/s"
        )
    yield ctx.diagnostic(
        CODE,
        SEVERITY,
        message,
        setting.span,
        setting="num_workers",
        current=workers,
        suggested=loader(ctx).plan.num_workers,
        evidence=[_cpus_evidence(ctx), ctx.ranks_evidence, cap[1]],
        fix=loader(ctx).fix(),
    )


def _cpus_evidence(ctx: Context) -> str:
    cpus, host = ctx.fact("cpus"), ctx.fact("host_cpus")
    text = cpus.cite("cpus")
    if host.known and host.value != cpus.value:
        text += f", host has {host.value}"
    return text
