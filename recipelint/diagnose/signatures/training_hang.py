"""The job was stopped after it stopped making progress: a hang, with where it hung when the stack shows it.

## What it does
Fires when the job was ended from outside (Slurm's `*** JOB n ON node CANCELLED AT ...`,
torchelastic's `Received SIGTERM death signal`, a `KeyboardInterrupt`) and either the last
training progress line came ten minutes or more before that, or the stack printed at the stop
is inside shard reading (`bz2.py`, `gzip.py`, `tarfile.py`). Says how long the job was silent,
after which step, and what the stack was doing.

## Why is this bad
A hung job holds its GPUs until someone or the time limit kills it, and the log shows no error
at all. A stack inside bz2 or gzip decompression points at compressed shards: every worker
decompresses its own, single-threaded, and with WeNet's old IO `torchaudio.load` on a member
of a `.tar.bz2` hung outright (wenet.md 3.4, issue #2338).

## Example
```
  File "/usr/lib/python3.10/bz2.py", line 164, in read
KeyboardInterrupt
```

## Fix
RL204 (compressed shards: re-shard to plain tar), RL203 (HTTP shards), RL301 (join timeout for
slow data under deepspeed/fsdp: fixable), RL102/RL103 (an overloaded node).

## Fix safety
The fixes are the rules' own, with their safety; `diagnose --fix --write` applies the safe ones.
"""

from __future__ import annotations

from datetime import timedelta

from recipelint.diagnose.signatures import Cause, Explanation, Found
from recipelint.diagnose.signatures._common import when
from recipelint.diagnose.timeline import duration
from recipelint.diagnostics import Severity

CODE = "LOG017"
NAME = "training-hang"
SEVERITY = Severity.ERROR
SOURCE = "wenet.md 3.4 (tarfile modes, old IO and .tar.bz2, issue #2338); conda-mirror#57 (tarfile seeking in bz2)"
PATTERNS = {
    "cancelled": (
        "CANCELLED",
        r"\*\*\* (?:JOB|STEP) (?P<job>[\w.]+) ON (?P<node>\S+) CANCELLED AT (?P<at>\S+)(?P<limit> DUE TO TIME LIMIT)?",
    ),
    "sigterm": ("death signal", r"Received (?:Signals\.)?(?P<signal>SIG\w+) death signal"),
    "interrupt": ("KeyboardInterrupt", r"^\s*(?:\[rank\d+\]:\s*)?KeyboardInterrupt"),
    "bz2": ('bz2.py", line', r"bz2\.py\", line \d+, in (?P<function>\w+)"),
    "gzip": ('gzip.py", line', r"gzip\.py\", line \d+, in (?P<function>\w+)"),
    "tarfile": ('tarfile.py", line', r"tarfile\.py\", line \d+, in (?P<function>\w+)"),
}
CAUSES = {
    "compressed": Cause(
        "compressed shards: each worker decompresses its own, single-threaded; bz2 is slow enough to stall the loader", ("RL204",)
    ),
    "http": Cause("HTTP shards: the loader waits on a wget pipe per shard", ("RL203",)),
    "join": Cause(
        "under deepspeed/fsdp, a stall past --timeout ends the epoch early instead of waiting: check it is long enough for this data",
        ("RL301",),
    ),
    "node": Cause(
        "the node was overloaded: more loader processes or prefetched batches than its CPUs and RAM carry", ("RL102", "RL103", "RL105")
    ),
    "uneven": Cause("a rank without data left the others waiting in a collective", ("RL202", "RL205", "RL201")),
}
STALL = timedelta(minutes=10)


def explain(found: Found) -> Explanation | None:
    stop = found.first("cancelled", "sigterm", "interrupt")
    if stop is None:
        return None
    scan = found.file(stop.line.path)
    step = stop.progress or scan.last_progress
    ended = stop.time  # a traceback has no timestamp: then how long it was silent is unknown
    gap = ended - step.time if step is not None and step.time is not None and ended is not None else None
    frames = {name: found.stats(name).count for name in ("bz2", "gzip", "tarfile") if found.stats(name).count}
    if not frames and gap is not None and gap < STALL:
        return None  # stopped while still making progress: not a hang
    how = {"LOG017.cancelled": "cancelled by Slurm", "LOG017.sigterm": "sent SIGTERM", "LOG017.interrupt": "interrupted"}[stop.key]
    if stop.groups.get("limit"):
        how = "cancelled by Slurm at its time limit"
    said = f"the job was {how}"
    evidence = when(found, stop)
    if frames:
        said += f" while a process was inside {', '.join(f'{name}.py' for name in frames)}"
    if gap is not None:
        said += f" after {duration(gap)} without progress"
    elif step is not None:
        evidence.append(f"progress: the last was {step.describe()} ({scan.path.name}:{step.line}); how long before the stop is unknown")
    if frames:
        evidence.append("stack: inside " + ", ".join(f"{name}.py ({count} frames)" for name, count in frames.items()))
    causes: list[tuple[str, str]] = []
    remote, compressed = found.scene.shard_kinds()
    if frames.keys() & {"bz2", "gzip"} or compressed:
        causes.append(
            (
                "compressed",
                "the stack was in bz2/gzip decompression" if frames.keys() & {"bz2", "gzip"} else f"{compressed} compressed shards",
            )
        )
    if remote:
        causes.append(("http", f"{remote} remote shards"))
    causes += [("node", ""), ("uneven", ""), ("join", ""), ("compressed", ""), ("http", "")]
    severity = None if frames or gap is not None else Severity.INFO
    if severity is not None:
        said += "; the log has no timestamps to tell whether it had hung"
    return Explanation(stop, said, evidence, causes, severity)
