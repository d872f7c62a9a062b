"""A rank ran out of GPU memory: `CUDA out of memory. Tried to allocate ...`.

## What it does
Matches both forms torch has printed (`Tried to allocate X (GPU n; T total capacity; A already
allocated; F free; R reserved in total by PyTorch)` and, since torch 2.1, `Tried to allocate X.
GPU n has a total capacity of T of which F is free`), and `CUDA error: out of memory`. Reports
the request against the GPU's size, compares that size with the hardware profile, and says
whether it happened at the first steps (the configuration does not fit) or later (one batch
larger than the rest).

## Why is this bad
The job dies. A failure at the first steps means the model, optimizer state and the batch do
not fit the GPU; a failure deep into an epoch means one batch was larger than the others. With
WeNet's dynamic batching that is a single utterance longer than `max_frames_in_batch`, which
the filter lets through when `filter_conf.max_length` is above the batch budget (wenet.md 3.6).

## Example
```
torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.81 GiB (GPU 1; 39.59 GiB total capacity; 34.83 GiB already allocated; 1.69 GiB free; 35.63 GiB reserved in total by PyTorch)
```

## Fix
RL704 (filter above the batch budget: fixable). Otherwise a smaller batch (`batch_size`,
`max_frames_in_batch`, micro batch), gradient accumulation, activation checkpointing or ZeRO.

## Fix safety
The fixes are the rules' own, with their safety; `diagnose --fix --write` applies the safe ones.
"""

from __future__ import annotations

from recipelint.diagnose.signatures import Cause, Explanation, Found
from recipelint.diagnose.signatures._common import phase, when
from recipelint.diagnostics import Severity

CODE = "LOG010"
NAME = "cuda-out-of-memory"
SEVERITY = Severity.ERROR
SOURCE = "torch CUDA caching allocator messages; wenet.md 3.6 (dynamic batches); wenet#1678, FramePack#382"
_SIZE = r"[\d.]+ [KMGT]iB"
PATTERNS = {
    "old": (
        "CUDA out of memory. Tried to allocate",
        rf"CUDA out of memory\. Tried to allocate (?P<size>{_SIZE}) \(GPU (?P<gpu>\d+); (?P<total>{_SIZE}) total capacity; "
        rf"(?P<allocated>{_SIZE}) already allocated; (?P<free>{_SIZE}) free(?:; (?P<reserved>{_SIZE}) reserved)?",
    ),
    "new": (
        "CUDA out of memory. Tried to allocate",
        rf"CUDA out of memory\. Tried to allocate (?P<size>{_SIZE})\. GPU (?P<gpu>\d+) has a total capacity of (?P<total>{_SIZE}) of which (?P<free>{_SIZE}) is free",
    ),
    "plain": ("CUDA error: out of memory", r"CUDA error: out of memory"),
}
CAUSES = {
    "long-batch": Cause("one batch larger than the rest (a longer sequence, utterance or image batch than any before it)"),
    "dynamic-batch": Cause(
        "WeNet's dynamic batching admits single utterances longer than max_frames_in_batch: one batch exceeds the budget",
        ("RL704",),
        "wenet",
    ),
    "too-big": Cause(
        "the model, its optimizer state and one batch do not fit this GPU: smaller batch, accumulation, activation checkpointing or ZeRO"
    ),
    "fragmentation": Cause("fragmentation: much more reserved than allocated; PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"),
}
# Per toolkit: the DeepSpeed JSON's micro batch, Hugging Face's flag, WeNet's batch budget.
BATCH_SETTINGS = (
    "train_micro_batch_size_per_gpu",
    "per_device_train_batch_size",
    "dataset_conf.batch_conf.batch_size",
    "dataset_conf.batch_conf.max_frames_in_batch",
    "gradient_accumulation_steps",
)
_UNITS = {"KiB": 1 / 1024 / 1024, "MiB": 1 / 1024, "GiB": 1.0, "TiB": 1024.0}


def gib(size: str) -> float:
    number, unit = size.split()
    return float(number) * _UNITS[unit]


def explain(found: Found) -> Explanation | None:
    anchor = found.first("old", "new", "plain")
    if anchor is None:
        return None
    groups = anchor.groups
    said = "a rank ran out of GPU memory"
    evidence = when(found, anchor)
    if "size" in groups:
        said += f": {groups['size']} requested on GPU {groups['gpu']} ({groups['total']}, {groups['free']} free)"
        profile = found.scene.ctx.fact("gpu_memory_gib").value if found.scene.ctx is not None else None
        if isinstance(profile, (int, float)) and abs(gib(groups["total"]) - profile) > max(2.0, 0.1 * profile):
            evidence.append(
                f"hardware: the log's GPU has {groups['total']}, the profile says {profile} GiB: lint against the GPU the job ran on"
            )
    causes: list[tuple[str, str]] = []
    reserved, allocated = groups.get("reserved"), groups.get("allocated")
    if reserved and allocated and gib(reserved) - gib(allocated) > max(1.0, 0.2 * gib(allocated)):
        causes.append(("fragmentation", f"{reserved} reserved against {allocated} allocated"))
    kind, _ = phase(anchor, found.file(anchor.line.path))
    count = found.stats("old").count + found.stats("new").count + found.stats("plain").count
    if kind in ("mid-epoch", "epoch-end", "training"):
        deep = "it happened deep into an epoch, after many batches fitted"
        causes += [("dynamic-batch", deep), ("long-batch", deep)]
    elif kind in ("init", "first-steps"):
        causes.append(("too-big", "it happened at the first steps"))
    causes += [("dynamic-batch", ""), ("long-batch", ""), ("too-big", ""), ("fragmentation", "")]
    # The settings that size a batch, where the recipe writes them: what "smaller" changes.
    batch = found.scene.settings_at(*BATCH_SETTINGS)
    lines = {"too-big": batch, "long-batch": batch} if batch else {}
    if count > 1:
        ranks = found.stats("old").ranks | found.stats("new").ranks
        evidence.append(f"repeats: {count} out-of-memory lines" + (f" from rank {', '.join(map(str, sorted(ranks)))}" if ranks else ""))
    return Explanation(anchor, said, evidence, causes, recipe_lines=lines)
