"""NCCL's watchdog ended a collective that did not complete within the process-group timeout.

## What it does
Matches `[Rank N] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=S,
OpType=OP, ..., Timeout(ms)=T) ran for X milliseconds before timing out` and torch's
follow-up `... detected by watchdog at work: S, last enqueued NCCL work: E, last completed
NCCL work: C`. Reports the collective, its sequence number and timeout, which ranks reported
it, which ranks were behind (a lower sequence number, or no report at all when the world size
is known), ranks that disagree on the collective at one sequence number, and when in the run
it happened.

## Why is this bad
A collective waits for every rank. When one rank does not arrive (its DataLoader is stalled,
it ran out of data and went to validation, it died, or the network is too slow), the others
wait the whole process-group timeout (10 min for NCCL since torch 2.2, 30 min with
DeepSpeed <= 0.19.5) and then the job is torn down (xtuner.md 6). The rank that is behind is
the one to look at; the timeout is rarely the problem.

## Example
```
[rank0]:[E321 02:07:08.408 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1580, OpType=ALLREDUCE, NumelIn=466119168, NumelOut=466119168, Timeout(ms)=600000) ran for 600060 milliseconds before timing out.
```

## Fix
The diagnostics of the rules behind each cause: the loader plan (RL105, RL102, RL103, RL201:
fixable), the network (RL504, RL503, RL502), the data (RL203, RL204, RL202) and the join
timeout against the process-group timeout (RL303).

## Fix safety
The fixes are the rules' own, with their safety; `diagnose --fix --write` applies the safe ones.
"""

from __future__ import annotations

from datetime import timedelta

from recipelint.diagnose.reader import Hit
from recipelint.diagnose.signatures import Cause, Explanation, Found
from recipelint.diagnose.signatures._common import phase, plural, ranks, timeout_note, when, world
from recipelint.diagnose.timeline import duration, millis
from recipelint.diagnostics import Severity

CODE = "LOG002"
NAME = "nccl-watchdog-timeout"
SEVERITY = Severity.ERROR
FIRST_COLLECTIVES = 3  # SeqNum up to this: set-up, or a broadcast of what rank 0 prepared
SOURCE = "xtuner.md 6 (watchdog message, default timeouts); pytorch#118369, OFA#271, LlamaFactory#7396, NVIDIA/nccl#1409, BasicSR#737"
PATTERNS = {
    # The needle is the message's first words: a terminal that wraps the long line later still
    # leaves it on the first line, and the reader joins the next one (reader._wrapped).
    "watchdog": (
        "Watchdog caught",
        r"(?:\[Rank (?P<rank>\d+)\] )?Watchdog caught collective operation timeout: WorkNCCL\(SeqNum=(?P<seq>\d+), "
        r"OpType=(?P<op>\w+)(?:, NumelIn=(?P<numel>\d+), NumelOut=\d+)?, Timeout\(ms\)=(?P<ms>\d+)\)(?: ran(?: for (?P<ran>\d+) milli)?)?"
        # or the message alone, its work on the next lines as a report re-wraps it (autocast#381)
        r"|(?:\[Rank (?P<bare_rank>\d+)\] )?Watchdog caught collective operation timeout:\s*$",
    ),
    "work-next": (
        "WorkNCCL(",
        r"^\s*WorkNCCL\((?:SeqNum=(?P<seq>\d+), )?[^)]*?OpType=(?P<op>\w+)(?:, NumelIn=(?P<numel>\d+))?[^)]*Timeout\(ms\)=(?P<ms>\d+)\)",
    ),
    # What ran before the hang, for the rank-divergent code paths (evaluation, the end of fit).
    "fit-end": ("stopped: `max_", r"`Trainer\.fit` stopped: `max_(?:epochs|steps)"),
    "eval": ("valuation", r"\*{5} Running [Ee]valuation \*{5}|Running evaluation|Evaluation (?:started|loop)"),
    "streaming": ("IterableDataset", r"IterableDataset|streaming=True"),
    "work": (
        "last enqueued NCCL work",
        r"Rank (?P<rank>\d+)\][^\n]*?work: (?P<seq>\d+), last enqueued NCCL work: (?P<enqueued>-?\d+), last completed NCCL work: (?P<completed>-?\d+)",
    ),
}
CAUSES = {
    "loader": Cause(
        "one rank's DataLoader fell behind (CPU, RAM or /dev/shm pressure, worse when several nodes share Ethernet); "
        "its next batch came after the others had waited out the timeout",
        ("RL105", "RL102", "RL103", "RL201"),
    ),
    "network": Cause("NCCL over the wrong interface, or over sockets where InfiniBand is up", ("RL504", "RL503", "RL502")),
    "slow-data": Cause("a rank stalled reading its data: remote or compressed shards", ("RL203", "RL204"), "wenet"),
    # Shard-count rules landing later (e.g. shards not divisible by the world size) go here too.
    "uneven": Cause(
        "a rank ran out of data and left the training loop (to validation or a checkpoint) while the others still all-reduce",
        ("RL202", "RL205", "RL201"),
    ),
    "join-order": Cause(
        "WeNet's join timeout at or above the process-group timeout: the watchdog fires before the join ends the epoch", ("RL303",), "wenet"
    ),
    "long-step": Cause("one rank legitimately worked longer than the timeout alone (rank-0 preprocessing, evaluation, saving)", ("RL805",)),
    "code-path": Cause(
        "the ranks took different code paths: a collective (a barrier, a metric's all-reduce, a gather) that only some ranks "
        "reach (evaluation or saving on rank 0 only, code after training ends, an early exit): the others wait in it"
    ),
}


def explain(found: Found) -> Explanation | None:
    hits = [h for h in found.hits("watchdog") if h.groups.get("seq")]
    if not hits:
        return _bare(found)
    anchor = hits[0]
    top = max(int(h.groups["seq"]) for h in hits)
    ops = sorted({h.groups["op"] for h in hits if int(h.groups["seq"]) == top})
    ms = int(anchor.groups["ms"])
    reported = found.stats("watchdog").ranks
    ran = max((int(h.groups["ran"]) for h in hits if int(h.groups["seq"]) == top and h.groups.get("ran")), default=ms)
    said = f"the NCCL watchdog ended {'/'.join(ops)} (SeqNum {top}) after {duration(timedelta(milliseconds=ran))}"
    said += f" on {plural(len(reported), 'rank')}" if reported else ""
    evidence = when(found, anchor, ms)
    evidence.append(timeout_note(found, ms))
    if ran > 2 * ms:
        evidence.append(
            f"late: the watchdog reported it {duration(timedelta(milliseconds=ran))} after it started, long past its {millis(ms)} timeout"
        )
    evidence.extend(_ranks(found, hits, top, reported))
    kind, _ = phase(anchor, found.file(anchor.line.path))
    causes = _order(found, kind, top, ops)
    if anchor.progress is not None and anchor.progress.tag == "prep":
        # The other ranks waited in a collective while this log still prepared data (a tokenizer's
        # or datasets.map's bar just before the watchdog): the wait was for that preparation.
        causes.insert(0, ("long-step", f"data preparation was still running ({anchor.progress.describe()})"))
    elif top > FIRST_COLLECTIVES:
        causes = _divergent(found, hits, causes)
    return Explanation(anchor, said, evidence, causes)


def _bare(found: Found) -> Explanation | None:
    """The message whose work a report put on the next line: what it says, and the same ranking."""
    anchor = found.first("watchdog")
    if anchor is None:
        return None
    work = found.first("work-next")
    ops = work.groups["op"] if work is not None else "a collective"
    evidence = when(found, anchor)
    if work is not None:
        evidence.append(timeout_note(found, int(work.groups["ms"])))
    kind, _ = phase(anchor, found.file(anchor.line.path))
    seq = int(work.groups["seq"]) if work is not None and work.groups.get("seq") else FIRST_COLLECTIVES + 1
    causes = _order(found, kind, seq, [ops])
    causes = _divergent(found, [work] if work is not None else [], causes) if seq > FIRST_COLLECTIVES else causes
    return Explanation(anchor, f"the NCCL watchdog ended {ops} after the process group's timeout", evidence, causes)


def _divergent(found: Found, hits: list[Hit], causes: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Put the rank-divergent causes first where the log shows them: training had ended, an
    evaluation had started, the data streams (each rank its own length), or the collective is
    a one-element ALLREDUCE (a barrier or a metric, never a gradient bucket)."""
    why = []
    if found.stats("fit-end").count:
        why.append(f"training had ended before it ({found.first('fit-end')})")
    if found.stats("eval").count:
        why.append(f"an evaluation had started ({found.first('eval')})")
    scalar = next((h.groups["op"] for h in hits if h.groups.get("numel") == "1"), None)
    ahead: list[tuple[str, str]] = []
    if found.stats("streaming").count:
        ahead.append(("uneven", f"a streaming dataset gives each rank its own number of batches ({found.first('streaming')})"))
    if why:
        ahead.insert(0, ("code-path", "; ".join(why)))
    if scalar is not None:
        # One element is a barrier, a metric or an object's size, never a gradient bucket: the
        # others waited for a rank that was elsewhere (saving, evaluating) or on another path.
        said = f"a one-element {scalar}: a barrier, a metric or an object's size, not gradients"
        ahead += [("long-step", said), ("code-path", said)] if not why else [("long-step", said)]
    if not ahead:
        return causes + [("code-path", "")]
    keys = {key for key, _ in ahead}
    return ahead + [(key, text) for key, text in causes if key not in keys] + ([("code-path", "")] if "code-path" not in keys else [])


def _ranks(found: Found, hits: list[Hit], top: int, reported: set[int]) -> list[str]:
    out = []
    latest: dict[int, int] = {}
    for hit in hits:
        if hit.rank is not None:
            latest[hit.rank] = max(latest.get(hit.rank, 0), int(hit.groups["seq"]))
    for rank, seq in sorted(latest.items()):
        if seq < top:
            out.append(f"behind: rank {rank} was stuck at SeqNum {seq}, {top - seq} collectives before the others' {top}: start there")
    at_top: dict[str, set[int]] = {h.groups["op"]: set() for h in hits if int(h.groups["seq"]) == top}
    for hit in hits:
        if int(hit.groups["seq"]) == top and hit.rank is not None:
            at_top[hit.groups["op"]].add(hit.rank)
    if len(at_top) > 1:
        split = "; ".join(f"{op} on rank {ranks(r)}" for op, r in at_top.items())
        out.append(f"desync: at SeqNum {top} the ranks ran different collectives ({split}): they took different code paths")
    size = world(found)
    if reported and size and len(reported) < size:
        out.extend(_silent(found, reported, size))
    elif reported:
        out.append(f"ranks: rank {ranks(reported)} reported the timeout")
    works = found.hits("work")
    late = sorted({h.rank for h in works if h.rank is not None and int(h.groups["completed"]) < int(h.groups["seq"]) - 1})
    if late:
        out.append(f"queue: rank {ranks(late)} had completed work older than the one that timed out")
    return out


def _silent(found: Found, reported: set[int], size: int) -> list[str]:
    """Ranks that did not report: with ranks per node known, those whose node's log reports the
    others are the ones the others waited for; nodes with no report at all had no log given."""
    per = found.scene.ctx.ranks_per_node if found.scene.ctx is not None else None
    if not per:
        silent = sorted(set(range(size)) - reported)
        return [
            f"ranks: {len(reported)} of {size} ranks reported the timeout; rank {ranks(silent)} did not (the rank the others waited for, or a log not given)"
        ]
    nodes = {rank // per for rank in reported}
    out = [f"ranks: {len(reported)} of {size} ranks reported the timeout"]
    stuck = [r for r in range(size) if r not in reported and r // per in nodes]
    if stuck:
        out.append(f"stuck: rank {ranks(stuck)} did not report while the other ranks of its node did: the rank the others waited for")
    unseen = sorted(set(range(-(-size // per))) - nodes)
    if unseen:
        out.append(
            f"logs: none from node {ranks(unseen)} (ranks {ranks(r for r in range(size) if r // per in unseen)}): give them to see those ranks"
        )
    return out


def _order(found: Found, kind: str, seq: int, ops: list[str]) -> list[tuple[str, str]]:
    scene = found.scene
    sockets = found.stats("socket", "LOG006").count + found.stats("network-socket", "LOG006").count
    network = ("network", f"NCCL ran over sockets ({found.stats('socket', 'LOG006').count or 'some'} NET/Socket lines)" if sockets else "")
    if kind == "init" or seq <= FIRST_COLLECTIVES:  # the communicator is set up lazily, at the first collectives
        first = [
            ("network", f"SeqNum {seq}: the first collectives, where communicator set-up problems surface"),
            ("long-step", ""),
            ("loader", ""),
        ]
        if "BROADCAST" in ops:
            first.insert(0, ("long-step", f"a BROADCAST at SeqNum {seq}: rank 0 sending what it alone prepared (a dataset, a checkpoint)"))
        return first
    if kind == "epoch-end":
        return [("uneven", "it happened at the end of an epoch"), ("join-order", ""), ("loader", ""), network, ("slow-data", "")]
    causes = [("loader", "")]
    nodes = scene.nodes or 1
    if nodes > 1 and scene.network() == "ethernet":
        causes = [("loader", f"{nodes} nodes over Ethernet carry every rank's gradients and its loader's traffic")]
    remote, compressed = scene.shard_kinds()
    if remote or compressed:
        causes.insert(0, ("slow-data", f"{remote + compressed} remote or compressed shards"))
    return causes + [network, ("uneven", ""), ("join-order", ""), ("long-step", "")]
