"""A rank did not reach a gloo monitored barrier in time: WeNet's per-batch join, or a plain barrier.

## What it does
Matches `[Rank 0]: Rank N failed to pass monitoredBarrier in T ms` (rank 0's side),
`Rank N successfully reached monitoredBarrier, but received errors while waiting for
send/recv from rank 0` (the others'), WeNet's `Detected uneven workload distribution ...
Break current worker to manually join all workers, world_size W, current rank R`, and gloo's
`Timed out waiting T ms for recv operation to complete`. Says which ranks were late (the ones
rank 0 names), which waited, the timeout against the recipe's `--timeout`, and where in the
epoch it happened.

## Why is this bad
Under `--train_engine deepspeed` or `torch_fsdp` WeNet runs a gloo `monitored_barrier` with
`--timeout` (default 30 s) before every batch from the second on; when it fails, every rank
breaks out of the epoch (wenet.md 2). At the very end of an epoch that is the designed way
to stop a rank that has run out of data. Anywhere else the epoch was cut short: a rank's next
batch took longer than `--timeout` (remote or compressed shards, a loaded node), or its data
is gone early (HTTP shards that WeNet 3.x cannot read, empty or uneven shards).

## Example
```
[E ProcessGroupGloo.cpp:138] [Rank 0]: Rank 2 failed to pass monitoredBarrier in 30000 ms
2024-07-21 00:11:29,529 INFO Detected uneven workload distribution: Rank 3 successfully reached monitoredBarrier, ...
Break current worker to manually join all workers, world_size 4, current rank 3, current local_rank 3
```

## Fix
The diagnostics of the rules behind each cause: RL301 (`--timeout` for slow data, fixable),
RL203 (HTTP shards), RL204 (compressed shards), RL201/RL202 (shards against readers and
ranks), RL303 (`--timeout` at or above the process-group timeout), RL302 (`--timeout` with
torch_ddp has no effect).

## Fix safety
The fixes are the rules' own, with their safety; `diagnose --fix --write` applies the safe ones.
"""

from __future__ import annotations

from recipelint.diagnose.signatures import Cause, Explanation, Found
from recipelint.diagnose.signatures._common import PHASE_WORDS, phase, plural, rank_numbers, ranks, root_of, when, world
from recipelint.diagnose.timeline import millis
from recipelint.diagnostics import Severity

CODE = "LOG001"
NAME = "monitored-barrier-timeout"
SEVERITY = Severity.ERROR
SOURCE = "wenet.md 2 (wenet_join, gloo monitoredBarrier messages); wenet#2552, wenet#2266, CosyVoice#180, torchtune#2676"
PATTERNS = {
    "failed": (
        "monitoredBarrier",
        r"(?:\[Rank (?P<reporter>\d+)\]: )?Ranks? (?P<late>\d+(?:, \d+)*) failed to pass monitoredBarrier in (?P<ms>\d+) ms",
    ),
    "reached": ("monitoredBarrier", r"Rank (?P<rank>\d+) successfully reached monitoredBarrier"),
    "uneven": ("Detected uneven workload distribution", r"Detected uneven workload distribution"),
    "joined": ("Break current worker to manually join", r"world_size (?P<world>\d+), current rank (?P<rank>\d+)"),
    "recv": ("Timed out", r"Timed out waiting (?P<ms>\d+)ms for recv operation"),
}
CAUSES = {
    "slow-batch": Cause(
        "a rank's next batch took longer than the barrier's timeout (remote or compressed shards, a loaded loader, "
        "Ethernet between nodes); the others took it for the end of its data",
        ("RL301", "RL105", "RL102", "RL103"),
    ),
    "http": Cause(
        "HTTP shards: WeNet 3.x opens each one in seek mode on a wget pipe ('Illegal seek'), the shard yields nothing and the rank runs dry",
        ("RL203",),
        "wenet",
    ),
    "compressed": Cause("compressed shards, decompressed single-threaded in each worker", ("RL204",), "wenet"),
    # Shard-count rules landing later (e.g. shards not divisible by the world size) go here too.
    "uneven": Cause(
        "the ranks got unequal data: fewer shards than readers or ranks, or a shard count the ranks do not divide; one rank finishes its shards first",
        ("RL202", "RL205", "RL201"),
    ),
    "order": Cause(
        "--timeout at or above the process-group timeout: the NCCL watchdog kills the job before the join can end the epoch",
        ("RL303",),
        "wenet",
    ),
    "rank0": Cause(
        "rank 0 stopped answering: it died, or was still busy (dataset preprocessing, saving) past the timeout; its log has the first error"
    ),
    "ddp": Cause(
        "--timeout has no effect with torch_ddp: WeNet skips its join under DDP (a modified train loop runs it)", ("RL302",), "wenet"
    ),
}


def explain(found: Found) -> Explanation | None:
    anchor = found.first("failed", "uneven", "reached", "recv")
    if anchor is None:
        return None
    # One join per epoch is normal at its end; the one that cut an epoch short is the finding.
    joins = found.hits(anchor.key.split(".")[1])
    phases = [(hit, phase(hit, found.file(hit.line.path))) for hit in joins]
    anchor = next((hit for hit, (kind, _) in phases if kind == "mid-epoch"), anchor)
    failed, reached, joined = found.hits("failed"), found.hits("reached"), found.hits("joined")
    late = rank_numbers(failed, "late")
    waited = rank_numbers(reached, "rank") + rank_numbers(joined, "rank")
    ms = next((int(h.groups["ms"]) for h in failed + found.hits("recv") if "ms" in h.groups), None)
    size = world(found, next((int(h.groups["world"]) for h in joined), None))
    lost = not late and bool(reached)
    if late:
        said = f"rank {ranks(late)} did not reach the monitored barrier"
    elif lost:
        said = f"rank {ranks(rank_numbers(reached, 'rank'))} waited at the monitored barrier and lost rank 0"
    else:
        said = "a rank did not reach the monitored barrier"
    said += f" within {millis(ms)}" if ms else ""
    joined_epoch = found.stats("uneven").count > 0
    said += "; WeNet's join then ended the epoch on every rank" if joined_epoch else ""
    kind, _ = phase(anchor, found.file(anchor.line.path))
    evidence = when(found, anchor)
    if late or waited:
        evidence.append(_ranks(late, waited, size))
    evidence.extend(_timeout(found, ms))
    if len(phases) > 1:
        listed = "; ".join(
            f"{hit.line.path.name}:{hit.line.number} {PHASE_WORDS[kind]}" + (f" ({hit.progress.describe()})" if hit.progress else "")
            for hit, (kind, _) in phases[:6]
        )
        evidence.append(f"repeats: {plural(len(phases), 'barrier failure')}: {listed}")
    causes = _order(found, kind, ms)
    if lost:
        first = root_of(found, 0)
        causes.insert(0, ("rank0", f"rank 0's first error: {first}" if first else "the ranks report errors from rank 0, not a late rank"))
    return Explanation(anchor, said, evidence, causes)


def _ranks(late: list[int], waited: list[int], size: int | None) -> str:
    words = []
    if late:
        words.append(f"rank {ranks(late)} never arrived (rank 0 names the ranks it waited for)")
    if waited:
        words.append(f"rank {ranks(waited)} reached the barrier and waited")
    text = "ranks: " + "; ".join(words)
    if size:
        text += f"; world size {size}"
    return text


def _timeout(found: Found, ms: int | None) -> list[str]:
    if not ms:
        return []
    configured = found.scene.join_timeout
    if configured is not None and configured * 1000 == ms:
        return [f"timeout: {millis(ms)} is this recipe's --timeout"]
    if configured is not None:
        return [f"timeout: {millis(ms)} in the log; this recipe's --timeout is {configured} s: the log comes from another setting"]
    if ms == 30000:
        return [f"timeout: {millis(ms)} is train.py's default --timeout"]
    return [f"timeout: {millis(ms)}"]


def _order(found: Found, kind: str, ms: int | None) -> list[tuple[str, str]]:
    scene = found.scene
    remote, compressed = scene.shard_kinds()
    causes: list[tuple[str, str]] = []
    if scene.engine == "torch_ddp":
        causes.append(("ddp", "the recipe trains with torch_ddp"))
    if remote:
        causes.append(("http", f"{remote} remote shards in the recipe's data.list"))
    wenet = found.stats("uneven").count > 0 or found.stats("joined").count > 0 or scene.toolkit == "wenet"
    if wenet and ms and ms >= 600000:
        causes.append(("http", f"the join timeout was already {millis(ms)}: the rank is not slow, it has no data"))
    if kind == "epoch-end":
        causes += [("uneven", "it happened at the end of an epoch, where a rank with fewer shards runs out first"), ("slow-batch", "")]
    else:
        said = f"it happened {PHASE_WORDS[kind]}, not at the end of the data" if kind not in ("unknown", "init") else ""
        causes += [("slow-batch", said), ("uneven", "")]
    if compressed:
        causes.insert(1, ("compressed", f"{compressed} compressed shards in the recipe's data.list"))
    causes += [("http", ""), ("compressed", ""), ("order", "")]
    return causes
