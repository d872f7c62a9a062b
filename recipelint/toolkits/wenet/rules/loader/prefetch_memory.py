"""DataLoader workers and prefetched batches that do not fit in the node's memory.

## What it does
Estimates what one node's WeNet loaders hold, per rank:
`num_workers x worker + num_workers x prefetch x batch` (prefetch is PyTorch's
`prefetch_factor`: batches per worker), plus the idle workers of the cv loader, and compares
`ranks_per_node x` that with half of RAM. Without `--pin_memory` the batches in each loader's
result pipe wait in shared memory, `min(num_workers x prefetch, 48)` of them (measured), so
`ranks x` those batches must fit in /dev/shm too.

## Why is this bad
When the loaders outgrow RAM the OOM killer takes a rank and the others hang in the next
collective; when the queue outgrows /dev/shm, workers die with a bus error. WeNet cut its recipe
default from `prefetch=500` to 10 for this reason (#2486, "Large prefetch may cause OOM issue").

The model (`tuner.loader_memory`, calibrated against WeNet's own pipeline by `bench/fidelity`
on 44 grid points and judged on 22 held-out points chosen before the refit, docs/tuner.md):
- a worker holds its shuffle and sort buffers, `(shuffle_size + sort_size) x U x 1100 B`
  (U the mean utterance in 10 ms frames; a sample keeps its waveform, its fbank and its
  bookkeeping: 1035-1113 B a frame measured), the raw bytes it reads ahead (375 utterances x
  U x 320 B on average for shards; 375 text lines for a raw list), every line of the data.list
  (its list-level shuffle holds the whole list: about 500 B a line), and 0.067 GB of its own;
- a batch is `max_frames_in_batch x fill` padded frames (dynamic: fill = 1 - 0.79 U /
  max_frames, at least 0.97) or `batch_size x U x padding` (static: padded to the longest
  utterance, about 3x for 32 unsorted, 1.1-1.3x sorted; `tuner.pad_factor`), at
  `4 x (num_mel_bins + sample_rate x frame_shift)` bytes a frame: 960 B since WeNet put the
  waveform in every batch (#2268), 320 B before;
- with `--pin_memory` the pin thread copies every queued batch into pinned RAM, each tensor
  rounded up to a power of two (CUDA's caching host allocator), over the measured spread of
  fills (a mean just under a power of two hides the batches over it);
- each queued batch leaves 0.20 of its bytes on its worker's heap.
The evidence names the mean utterance used: `mean-utterance-seconds` in recipelint.toml, the
durations of a raw data.list, the middle of `filter_conf`'s length bounds, or 5 s.
`recipelint tune --measure` replaces the batch and worker estimates with measured values.

The model is upstream WeNet's batcher (static, dynamic, bucket). When the recipe's checkout
batches by its own rules (its batch() reads a `batch_conf` key the model does not know, or
takes another `batch_type`), the memory is not estimated, and an info says why: the plan then
takes no memory cap either.

## Example
4 ranks x (4 workers x 1.4 GB + 4 x 500 batches x 30 MB pinned, with heap) = 263 GB against
half of 256 GiB.

## Fix
Sets `prefetch` to the largest value that fits, after any cut to `num_workers` from the CPU
or shard rules (one shared plan); never below 1.

## Fix safety
Safe: a smaller prefetch only bounds how far the loader reads ahead.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint import tuner
from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.rulekit import gib
from recipelint.rulekit.unknown_fact import hardware_unknown
from recipelint.toolkits.wenet.loader import loader

CODE = "RL103"
NAME = "prefetch-memory"
SEVERITY = Severity.WARNING
VISITS = ("launch",)
FIXABLE = True
SOURCE = "tuner.loader_memory: ranks x nw x (worker + prefetch x batch) <= RAM/2, and the batches in the result pipe <= /dev/shm without --pin_memory (recipelint/tuner.py, bench/fidelity, docs/tuner.md)"
FACTS = ("memory_gib", "shm_gib")


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    recipe = ctx.recipe
    workers = recipe.arg("num_workers").as_int()
    prefetch = recipe.arg("prefetch").as_int()
    if recipe.launch is None or not workers or workers < 1 or prefetch is None:
        return
    memory, ranks = loader(ctx).memory_inputs, ctx.ranks_per_node
    unmodelled = loader(ctx).pipeline.unmodelled
    if unmodelled:  # a fork's own batcher: say so rather than extrapolate upstream's
        setting = recipe.arg("prefetch")
        message = f"the loader memory of num_workers {workers} and prefetch {prefetch} is not estimated: {unmodelled}"
        yield ctx.diagnostic(CODE, Severity.INFO, message, setting.span, setting="prefetch", current=prefetch, evidence=[unmodelled])
        return
    if memory is None or ranks is None:
        return
    if memory.ram is None:
        yield hardware_unknown(ctx, CODE, "memory_gib", recipe.arg("prefetch"))
        return
    usage = memory.usage(workers, prefetch)
    total = ranks * usage.total
    in_shm = tuner.shm_batches(workers, prefetch)
    queue_shm = ranks * in_shm * memory.batch.bytes
    over_shm = memory.shm is not None and queue_shm > memory.shm[0]
    if total <= memory.ram[0] and not over_shm:
        return
    setting = recipe.arg("prefetch")
    where = "" if setting.given else " (train.py's default)"
    pinned = " pinned" if memory.pin else ""
    if total > memory.ram[0]:
        message = (
            f"num_workers {workers} and prefetch {prefetch}{where} take about {gib(total)} GiB per node: {ranks} ranks x "
            f"({gib(usage.workers)} GiB of workers + {workers} x {prefetch} queued batches, {gib(usage.queue)} GiB{pinned}), "
            f"over the loaders' {gib(memory.ram[0])} GiB ({memory.ram[1]})"
        )
    else:
        assert memory.shm is not None
        message = (
            f"prefetch {prefetch}{where} lets {ranks} ranks x {in_shm} batches wait in /dev/shm, about {gib(queue_shm)} GiB, "
            f"over {memory.shm[1]}"
        )
    yield ctx.diagnostic(
        CODE,
        SEVERITY,
        message,
        setting.span,
        setting="prefetch",
        current=prefetch,
        suggested=loader(ctx).plan.prefetch,
        evidence=usage.how
        + [
            ctx.fact("memory_gib").cite("memory_gib"),
            ctx.fact("shm_gib").cite("shm_gib") + ("" if memory.pin else " (no --pin_memory: the queue waits in shared memory)"),
            loader(ctx).pipeline.evidence,
            "formula: ranks x (num_workers x worker + num_workers x prefetch x batch) <= RAM x 0.5",
        ],
        fix=loader(ctx).fix(),
    )
