"""DeepSpeed refused the batch sizes: `train_batch_size is not equal to micro_batch_per_gpu * gradient_acc_step * world_size`.

## What it does
Matches DeepSpeed's batch assertion, also when a rich traceback wraps it over several lines,
reads the four numbers, and compares the world size DeepSpeed counted with the launch's.

## Why is this bad
DeepSpeed asserts `train_batch_size == train_micro_batch_size_per_gpu x
gradient_accumulation_steps x data-parallel size` when it builds its config and the job stops
(deepspeed.md). Two different mistakes end here: a JSON whose three values contradict each other
for this world size, and processes that did not join one group (DeepSpeed counted a world size
of 1 where the launch starts many: launched without torchrun/deepspeed, or mpirun without
`WORLD_SIZE`).

## Example
```
AssertionError: Check batch related parameters. train_batch_size is not equal to micro_batch_per_gpu * gradient_acc_step * world_size 256 != 2 * 18 * 7
```

## Fix
RL415 (the batch triple against the launch's world size: fixable), RL402 (WeNet's own asserts
on the DeepSpeed JSON).

## Fix safety
The fixes are the rules' own, with their safety; `diagnose --fix --write` applies the safe ones.
"""

from __future__ import annotations

import re

from recipelint.diagnose.signatures import Cause, Explanation, Found
from recipelint.diagnose.signatures._common import when
from recipelint.diagnostics import Severity

CODE = "LOG011"
NAME = "deepspeed-batch-assert"
SEVERITY = Severity.ERROR
SOURCE = "deepspeed.md (batch triple, _batch_assertion); DeepSpeed#6914, OpenRLHF#346, LlamaFactory#2574, starcoder#77"
# The assertion, or its first line when a rich traceback wraps it right after "is not".
PATTERNS = {"assert": ("train_batch_size is not", r"train_batch_size is not(?P<rest>\s*$| equal to micro_batch_per_gpu.*)")}
CAUSES = {
    "triple": Cause(
        "the DeepSpeed JSON's train_batch_size, micro batch and accumulation contradict each other for this world size", ("RL415",)
    ),
    "world": Cause("the processes did not form one group: DeepSpeed counted a different world size than the launch starts"),
    "wenet": Cause("WeNet's own consistency checks between its YAML and the DeepSpeed JSON", ("RL402",), "wenet"),
}
_NUMBERS = re.compile(r"world_size\s*(?P<train>\d+)\s*!=\s*(?P<micro>\d+)\s*\*\s*(?P<acc>\d+)\s*\*\s*(?P<world>\d+)")


def explain(found: Found) -> Explanation | None:
    anchor = found.first("assert")
    if anchor is None:
        return None
    # A rich traceback wraps the message: read on into the next lines.
    text = " ".join([anchor.groups.get("rest", "")] + [line.text for line in anchor.after])
    numbers = _NUMBERS.search(re.sub(r"\s+", " ", text))
    evidence = when(found, anchor)
    if numbers is None:
        return None
    train, micro, acc, logged = (int(numbers[name]) for name in ("train", "micro", "acc", "world"))
    said = f"DeepSpeed's batch assertion failed: train_batch_size {train} != {micro} x {acc} x world size {logged} = {micro * acc * logged}"
    causes: list[tuple[str, str]] = []
    launched = found.scene.world_size
    if launched and launched != logged:
        evidence.append(f"world size: DeepSpeed counted {logged}, the launch starts {launched} processes")
        causes.append(("world", f"DeepSpeed saw world size {logged}, not {launched}"))
    elif logged == 1 and train % micro == 0 and train // (micro * acc or 1) > 1:
        evidence.append(f"world size: DeepSpeed counted 1 process; the JSON was written for {train // (micro * acc or 1)}")
        causes.append(("world", "a world size of 1 where the JSON expects more"))
    if train % (micro * acc or 1) == 0 and logged:
        evidence.append(f"arithmetic: {train} / ({micro} x {acc}) = {train / (micro * acc):g} ranks would satisfy it, the job has {logged}")
    causes += [("triple", ""), ("world", ""), ("wenet", "")]
    return Explanation(anchor, said, evidence, causes)
