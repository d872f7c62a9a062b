"""What the signatures share: when in the run a line was written, rank lists, timeouts."""

from __future__ import annotations

from collections.abc import Iterable

from recipelint.diagnose.reader import FileScan, Hit
from recipelint.diagnose.signatures import Found
from recipelint.diagnose.timeline import Progress, duration, millis

# Steps that still count as the start of training (data loaders and communicators warming up).
FIRST_STEPS = 50
# A progress line at or past this share of its epoch is the epoch's end.
EPOCH_END_SHARE = 0.9
# torch's default process-group timeouts (xtuner.md 6): NCCL 10 min since torch 2.2; 30 min
# for gloo, for NCCL before 2.2, and DeepSpeed's init_distributed up to 0.19.5.
KNOWN_TIMEOUTS_MS = {
    600000: "torch's NCCL default (10 min, torch >= 2.2), or DeepSpeed >= 0.19.6's",
    1800000: "the 30 min default of DeepSpeed's init_distributed (<= 0.19.5), of gloo, and of NCCL before torch 2.2",
}


def ranks(numbers: Iterable[int]) -> str:
    """`0, 2-4, 7`."""
    values = sorted(set(numbers))
    parts: list[str] = []
    i = 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and values[j + 1] == values[j] + 1:
            j += 1
        parts.append(str(values[i]) if i == j else f"{values[i]}-{values[j]}")
        i = j + 1
    return ", ".join(parts)


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def previous_epoch(scan: FileScan, progress: Progress) -> Progress | None:
    """The last training step of the epoch before `progress`'s, when the log shows its end."""
    for _, end in reversed(scan.epoch_ends):
        if end is not None and end.tag == "train" and end.step and end.line < progress.line and end.epoch != progress.epoch:
            return end
    return None


def phase(hit: Hit, scan: FileScan) -> tuple[str, str]:
    """Where in the run a line was written, and in words. The kinds: "unknown" (no progress in the
    log), "init", "first-steps", "mid-epoch", "epoch-end", "training" (during training, where in
    its epoch unknown)."""
    step = hit.progress
    if step is None and scan.first_progress is None:
        return "unknown", "the log shows no training progress (an excerpt, or a failure at start-up)"
    if step is None:
        return "init", "before the first training step was logged (start-up: process group, data loading, model set-up)"
    if step.tag == "prep":
        return "init", f"at start-up, while data was prepared or the model loaded ({step.describe()})"
    if hit.after_epoch:
        return "epoch-end", f"after the last training step of an epoch ({step.describe()}), during its validation or checkpoint"
    if step.step is None:
        return "training", f"during training ({step.describe()})"
    if step.total and step.step >= EPOCH_END_SHARE * step.total:
        return "epoch-end", f"at the end of an epoch ({step.describe()})"
    earlier = previous_epoch(scan, step)
    if earlier is not None and earlier.step:
        share = step.step / earlier.step
        if share >= EPOCH_END_SHARE:
            return "epoch-end", f"at the end of an epoch ({step.describe()}; the epoch before ended at step {earlier.step})"
        return "mid-epoch", f"in the middle of an epoch ({step.describe()}, {share:.0%} of the {earlier.step} steps the epoch before ran)"
    if step.step <= FIRST_STEPS and (step.total is None or step.step < 0.1 * step.total):
        return "first-steps", f"in the first training steps ({step.describe()})"
    if step.total:
        return "mid-epoch", f"in the middle of an epoch ({step.describe()}, {step.step / step.total:.0%})"
    return "training", f"during training ({step.describe()})"


PHASE_WORDS = {
    "unknown": "at an unknown point of the run",
    "init": "at start-up",
    "first-steps": "in the first steps",
    "mid-epoch": "in the middle of an epoch",
    "training": "during training",
    "epoch-end": "at the end of an epoch",
}


def when(found: Found, hit: Hit, timeout_ms: int | None = None) -> list[str]:
    """Evidence on time: the phase, how long into the log, and the silence before the line."""
    scan = found.file(hit.line.path)
    _, words = phase(hit, scan)
    out = [f"when: {words}, {hit.line}"]
    if hit.time is not None and scan.first_time is not None and (hit.time - scan.first_time).total_seconds() >= 60:
        out.append(f"time: {duration(hit.time - scan.first_time)} after the log's first timestamp ({scan.first_time:%m-%d %H:%M:%S})")
    elif hit.progress is not None and hit.progress.elapsed is not None:
        out.append(f"time: {duration(hit.progress.elapsed)} into the run (progress bar)")
    step = hit.progress
    if step is not None and step.time is not None and hit.time is not None and hit.time >= step.time:
        gap = hit.time - step.time
        said = f"silence: the last progress line ({scan.path.name}:{step.line}) came {duration(gap)} before"
        if timeout_ms and abs(gap.total_seconds() * 1000 - timeout_ms) <= max(0.2 * timeout_ms, 60000):
            said += f", about the timeout ({millis(timeout_ms)}): training stalled right after it, the timeout only ended the wait"
        out.append(said)
    return out


def timeout_note(found: Found, ms: int) -> str:
    """What a timeout in a log is, and how it compares with the recipe's."""
    known = KNOWN_TIMEOUTS_MS.get(ms)
    note = f"timeout: {millis(ms)}" + (f", {known}" if known else ", set explicitly")
    recipe = found.scene.pg_timeout()
    if recipe is not None:
        seconds, source = recipe
        if seconds * 1000 == ms:
            note += f"; the recipe's process group has the same ({source})"
        else:
            note += f"; with this recipe it would be {seconds} s ({source})"
    return note


def rank_numbers(hits: Iterable[Hit], group: str) -> list[int]:
    """Rank numbers listed in a group of the hits (`Ranks 4, 5, 6 failed ...`)."""
    out: list[int] = []
    for hit in hits:
        value = hit.groups.get(group)
        if value:
            out.extend(int(part) for part in value.replace(",", " ").split() if part.isdigit())
    return out


def world(found: Found, *logged: int | None) -> int | None:
    """The world size: as the log says it, else the recipe's."""
    for value in logged:
        if value:
            return value
    return found.scene.world_size


# What to collect next when the evidence points past the recipe, by what it points at.
COLLECT = {
    "desync": "TORCH_DISTRIBUTED_DEBUG=DETAIL (each rank's collective fingerprints), TORCH_NCCL_DESYNC_DEBUG=1, and the flight "
    "recorder (TORCH_NCCL_TRACE_BUFFER_SIZE=2000 TORCH_NCCL_DUMP_ON_TIMEOUT=1, then torch.distributed.flight_recorder's fr_trace)",
    "cuda": "CUDA_LAUNCH_BLOCKING=1 (the failing kernel in the traceback), compute-sanitizer on one rank, NCCL_DEBUG=INFO, "
    "and the driver's Xid lines (dmesg) and nvidia-smi -q's ECC counters on the node",
    "nccl": "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET on every rank (which interface and port each rank tried)",
    "build": "ds_report (which DeepSpeed ops are built and why not), pip list (torch, CUDA, the package's releases), nvcc --version "
    "and gcc --version in the training environment",
    "packages": "pip list (or pip freeze) in the training environment, and the requirements the project pins",
}


def not_recipe(what: str, collect: str) -> str:
    """The verdict when no recipe setting explains the failure: where to look, what to collect."""
    return f"verdict: {what}, not a recipe setting; collect next: {COLLECT[collect]}"


def root_of(found: Found, rank: int | None) -> str | None:
    """The first exception of a rank (of any rank when None), as `path:line: Type: message (raised at ...)`."""
    for root in found.scanner.roots.values():
        if rank is None or root.hit.rank == rank:
            return f"{root.hit.line}: {root.raised.describe()}"
    return None
