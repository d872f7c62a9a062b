"""XTuner's rank-0 dataset preprocessing outlasted a timeout: the gloo barrier or the NCCL broadcast after it.

## What it does
Fires when XTuner's `xtuner_dataset_timeout = H:MM:SS` line is followed by a monitored-barrier
failure or an NCCL watchdog timeout (usually `OpType=BROADCAST`, `SeqNum=1`, `NumelIn=1`: the
size tensor of `broadcast_object_list`). Compares the two budgets: `XTUNER_DATASET_TIMEOUT`
(for the barrier) and the process group's timeout in the watchdog line (for the broadcast).
Replaces LOG001 and LOG002 for that log.

## Why is this bad
With `process_hf_dataset`, rank 0 preprocesses the whole dataset while the other ranks wait in a
gloo `monitored_barrier` with `XTUNER_DATASET_TIMEOUT` minutes (default 60), then rank 0 pickles
the dataset and broadcasts it on the default NCCL group, whose timeout is the process group's
(10 min for torch's NCCL, 30 min with DeepSpeed <= 0.19.5). Raising `XTUNER_DATASET_TIMEOUT`
alone moves the failure to the broadcast: the most reported XTuner hang (xtuner.md 2; xtuner#768).

## Example
```
06/14 09:11:55 - mmengine - INFO - xtuner_dataset_timeout = 2:00:00
[E ProcessGroupNCCL.cpp:475] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=BROADCAST, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800584 milliseconds before timing out.
```

## Fix
RL805 (sets `env_cfg.dist_cfg.timeout` to the dataset timeout: fixable), RL806 (multi-node
without a shared datasets cache). For large data, preprocess offline.

## Fix safety
The fixes are the rules' own, with their safety; `diagnose --fix --write` applies the safe ones.
"""

from __future__ import annotations

import re
from datetime import timedelta

from recipelint.diagnose.signatures import Cause, Explanation, Found
from recipelint.diagnose.signatures._common import ranks, when
from recipelint.diagnose.timeline import duration, millis
from recipelint.diagnostics import Severity

CODE = "LOG015"
NAME = "xtuner-dataset-broadcast-timeout"
SEVERITY = Severity.ERROR
SOURCE = "xtuner.md 2 (process_hf_dataset: gloo barrier, then NCCL broadcast), 6; xtuner#768, xtuner#354, xtuner#390"
SUPERSEDES = ("LOG001", "LOG002")
PATTERNS = {"budget": ("xtuner_dataset_timeout = ", r"xtuner_dataset_timeout = (?P<budget>(?:\d+ days?, )?\d+:\d\d:\d\d)")}
CAUSES = {
    "broadcast": Cause(
        "the dataset broadcast after rank 0's preprocessing runs on the default process group, whose timeout "
        "XTUNER_DATASET_TIMEOUT does not raise",
        ("RL805",),
    ),
    "preprocess": Cause(
        "rank 0's preprocessing (map, tokenize, pack) took longer than XTUNER_DATASET_TIMEOUT: raise it, or preprocess offline", ("RL805",)
    ),
    "rank0-died": Cause("rank 0 died while preprocessing (out of memory, bad data): its own log has the first error"),
    "cache": Cause("other nodes cannot open rank 0's Arrow cache files without a shared HF_DATASETS_CACHE", ("RL806",)),
}
_BUDGET = re.compile(r"(?:(?P<days>\d+) days?, )?(?P<h>\d+):(?P<m>\d\d):(?P<s>\d\d)")


def budget_of(text: str) -> timedelta | None:
    match = _BUDGET.fullmatch(text)
    if match is None:
        return None
    return timedelta(days=int(match["days"] or 0), hours=int(match["h"]), minutes=int(match["m"]), seconds=int(match["s"]))


def explain(found: Found) -> Explanation | None:
    line = found.first("budget")
    if line is None:
        return None
    watchdog = [
        h
        for h in found.hits("watchdog", "LOG002")
        if h.line.path == line.line.path and h.line.number > line.line.number and h.groups.get("ms")
    ]
    barrier = [h for h in found.hits("failed", "LOG001") + found.hits("reached", "LOG001") if h.line.number > line.line.number]
    if not watchdog and not barrier:
        return None
    budget = budget_of(line.groups["budget"])
    evidence = [f"budget: {line.line}: XTUNER_DATASET_TIMEOUT {line.groups['budget']} for the barrier"]
    if watchdog:
        anchor = watchdog[0]
        ms = int(anchor.groups["ms"])
        op, seq = anchor.groups["op"], anchor.groups["seq"]
        said = f"the {op} after rank 0's dataset preprocessing (SeqNum {seq}) timed out after {millis(ms)}"
        evidence = when(found, anchor, ms) + evidence
        if budget is not None and budget.total_seconds() * 1000 > ms:
            evidence.append(f"mismatch: the barrier had {duration(budget)}, the broadcast only the process group's {millis(ms)}")
        waiting = {h.rank for h in watchdog if h.rank is not None}
        if waiting:
            evidence.append(f"ranks: rank {ranks(waiting)} waited for rank 0's broadcast")
        return Explanation(
            anchor, said, evidence, [("broadcast", "the watchdog, not the barrier, fired"), ("preprocess", ""), ("cache", "")]
        )
    anchor = barrier[0]
    evidence = when(found, anchor) + evidence
    if anchor.key.endswith("reached"):
        said = "the other ranks lost rank 0 during the dataset preprocessing"
        return Explanation(
            anchor, said, evidence, [("rank0-died", "they report errors from rank 0, not a timeout"), ("cache", ""), ("preprocess", "")]
        )
    said = f"rank 0's dataset preprocessing outlasted XTUNER_DATASET_TIMEOUT ({line.groups['budget']})"
    return Explanation(
        anchor, said, evidence, [("preprocess", "rank 0 named the ranks it waited for after the budget ran out"), ("broadcast", "")]
    )
