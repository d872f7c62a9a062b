"""The ranks ran different collectives: `Detected mismatch between collectives on ranks` (CollectiveFingerPrint).

## What it does
Matches torch's `Detected mismatch between collectives on ranks. Rank A is running collective:
CollectiveFingerPrint(SequenceNumber=S, OpType=OP, TensorShape=...)` (with
`TORCH_DISTRIBUTED_DEBUG=DETAIL`), its `Collectives differ in the following aspects: ...`, and
NCCL's `Mismatched collective detected`; says which ranks, which operations, sequence numbers
and shapes differ. `[Rank N] Running collective: CollectiveFingerPrint(...)` lines alone are
the debug mode's normal output: they are read as evidence (ranks at different sequence numbers)
only next to a mismatch.

## Why is this bad
Every rank of a process group must call the same collectives in the same order with the same
shapes. When one takes another path (a metric gathered on rank 0 only, a branch on the data,
an early exit, a different number of batches, parameters unused on one rank) the collectives
pair up wrongly: a hang until the watchdog, or this error when the debug mode checks.

## Example
```
RuntimeError: Detected mismatch between collectives on ranks. Rank 1 is running collective: CollectiveFingerPrint(SequenceNumber=21, OpType=BROADCAST, ...), but Rank 0 is running collective: CollectiveFingerPrint(SequenceNumber=21, OpType=ALLREDUCE, ...)
```

## Fix
In the code: the collective that differs (its sequence number and the traceback of each rank
name it). Uneven data per rank is the one recipe-side cause (a rank with more batches runs
more collectives).

## Fix safety
No fix is applied: the code decides which collectives run.
"""

from __future__ import annotations

import re

from recipelint.diagnose.signatures import Cause, Explanation, Found
from recipelint.diagnose.signatures._common import not_recipe, ranks, when
from recipelint.diagnostics import Severity

CODE = "LOG024"
NAME = "collective-mismatch"
SEVERITY = Severity.ERROR
SOURCE = (
    "torch ProcessGroupWrapper (pytorch#79901, #100207, #100214); pytorch-lightning#19106, ms-swift#9443, "
    "OpenDDE#23, DeepSpeed#4890, NVIDIA/nccl#296"
)
PATTERNS = {
    # torch prints the fingerprints on the mismatch line and on each debug line: one needle for both.
    "mismatch": (
        "CollectiveFingerPrint",
        r"Detected mismatch between collectives on ranks\. Rank (?P<a>\d+) is running (?:inconsistent )?collective: ?"
        r"CollectiveFingerPrint\((?:SequenceNumber=(?P<seq_a>\d+),? ?)?OpType=(?P<op_a>\w+)",
    ),
    "aspects": ("CollectiveFingerPrint", r"Collectives differ in the following aspects: *(?P<aspects>.+)"),
    "nccl": (
        "Mismatched collective detected",
        r"Mismatched collective detected(?:, please check your collective calls at and around rank (?P<a>\d+))?",
    ),
    "running": (
        "CollectiveFingerPrint",
        r"\[Rank (?P<rank>\d+)\] Running collective: CollectiveFingerPrint\(SequenceNumber=(?P<seq>\d+), OpType=(?P<op>\w+)",
    ),
}
CAUSES = {
    "code-path": Cause(
        "the ranks took different code paths: a collective inside a branch some ranks skip (logging or metrics on rank 0, "
        "an evaluation or checkpoint only some ranks reach, an early exit)"
    ),
    "shapes": Cause(
        "the same collective with different shapes per rank: tensors sized by the rank's data, or parameters unused on one rank"
    ),
    "uneven": Cause("the ranks got a different number of batches, so one runs more steps (and collectives) than the others"),
}
_OTHER = re.compile(
    r"but Rank (?P<b>\d+) is running (?:inconsistent )?collective: ?CollectiveFingerPrint\((?:SequenceNumber=(?P<seq_b>\d+),? ?)?OpType=(?P<op_b>\w+)"
)


def explain(found: Found) -> Explanation | None:
    anchor = found.first("mismatch", "nccl")
    if anchor is None:
        return None
    said, order = "the ranks ran different collectives", ["code-path", "shapes", "uneven"]
    if anchor.key.endswith(".mismatch"):
        a, op_a = anchor.groups["a"], anchor.groups["op_a"]
        other = _OTHER.search(anchor.line.text + " ".join(x.text for x in anchor.after))
        said = f"rank {a} ran {op_a}"
        said += f" while rank {other['b']} ran {other['op_b']}" if other else " unlike another rank"
        if other and other["op_b"] == op_a:
            order = ["shapes", "code-path", "uneven"]
    evidence = when(found, anchor)
    aspects = found.first("aspects")
    if aspects is not None:
        evidence.append(f"differ: {aspects.groups['aspects'].strip()[:200]}")
        if "shape" in aspects.groups["aspects"].lower():
            order = ["shapes", "code-path", "uneven"]
    seqs = {int(h.groups["rank"]): int(h.groups["seq"]) for h in found.hits("running")}
    if len(set(seqs.values())) > 1:
        low = min(seqs.values())
        behind = [r for r, s in seqs.items() if s == low]
        evidence.append(f"sequence numbers: rank {ranks(behind)} last ran collective {low}, others up to {max(seqs.values())}")
    evidence.append(not_recipe("the training code (which collectives each rank runs)", "desync"))
    return Explanation(anchor, said, evidence, [(key, "") for key in order])
