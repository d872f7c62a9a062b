"""A training process was killed with SIGKILL (exit code -9): on a training node, nearly always the OOM killer.

## What it does
Matches torchelastic's `failed (exitcode: -9) local_rank: L (pid: P)` and `Signal 9 (SIGKILL)
received by PID P`, DeepSpeed's launcher's `[launch.py:...:sigkill_handler] [...] exits with
return code = -9` (after which it kills the other ranks, `Killing subprocess P`), the kernel's
`Out of memory: Killed process P` and Slurm's `Detected N oom-kill event(s)`, and says which
local rank died and when: while the model loads, at start-up, or during training, with the
host's memory reading just before when DeepSpeed printed one (`CPU Virtual Memory: used = ...`).

## Why is this bad
Host RAM is shared by every rank on the node: each rank's model copy while it loads, DeepSpeed's
CPU offload (optimizer states, 16-18 bytes per parameter), and every DataLoader's prefetched
batches. When they outgrow the node's RAM (or the job's cgroup limit), the kernel kills the
largest process, and torchelastic tears the job down.

## Example
```
  rank      : 0 (local_rank: 0)
  exitcode  : -9 (pid: 14750)
  traceback : Signal 9 (SIGKILL) received by PID 14750
```

## Fix
RL103 (prefetch against RAM: fixable), RL420 (CPU offload against RAM), RL105 and RL807
(loader settings). A model that does not fit while loading needs fewer ranks per node, or
loading on one rank.

## Fix safety
The fixes are the rules' own, with their safety; `diagnose --fix --write` applies the safe ones.
"""

from __future__ import annotations

from recipelint.diagnose.signatures import Cause, Explanation, Found
from recipelint.diagnose.signatures._common import phase, when
from recipelint.diagnostics import Severity

CODE = "LOG009"
NAME = "rank-sigkill"
SEVERITY = Severity.ERROR
SOURCE = (
    "torchelastic ChildFailedError report; deepspeed/launcher/launch.py sigkill_handler; CPPO#6, ChatGLM2-6B#520, MiniCPM-V#770, "
    "ColossalAI#3514, DeepSpeed#3232, DeepSpeed#3456, DeepSpeedExamples#583"
)
PATTERNS = {
    "exitcode": ("exitcode", r"failed \(exitcode: -9\) local_rank: (?P<local_rank>\d+) \(pid: (?P<pid>\d+)\)"),
    "sigkill": ("Signal 9 (SIGKILL)", r"Signal 9 \(SIGKILL\) received by PID (?P<pid>\d+)"),
    "oom-killer": ("Out of memory: Killed", r"Out of memory: Killed process (?P<pid>\d+)"),
    "cgroup-oom": ("oom-kill", r"Detected (?P<events>\d+) oom-kill event"),
    # the shell's report of a child killed by SIGKILL (bash: `line 12: 31337 Killed   python train.py`)
    "shell-killed": ("Killed", r"(?:line \d+: +)?(?P<pid>\d+) +Killed +(?P<command>\S.*)"),
    "loading": ("Loading checkpoint shards", r"Loading checkpoint shards"),
    # DeepSpeed's launcher (deepspeed/launcher/launch.py sigkill_handler): a child's exit status, then the others killed.
    "ds-exit": ("sigkill_handler", r"exits with return code = -9\b"),
    "ds-killing": ("sigkill_handler", r"Killing subprocess (?P<pid>\d+)"),
    # DeepSpeed's see_memory_usage: the host's memory just before.
    "cpu-memory": ("CPU Virtual Memory", r"CPU Virtual Memory: +used = (?P<used>[\d.]+) GB, percent = (?P<percent>[\d.]+)%"),
}
# DeepSpeed's see_memory_usage percentage from which a kill that follows is read as the host running
# out: the kernel's OOM killer acts near 100 %, and the reading is taken before the last
# allocations (optimizer states, the next batch).
HIGH_PERCENT = 80.0
CAUSES = {
    "loader-ram": Cause("the DataLoaders' prefetched batches across all ranks of the node outgrew its RAM", ("RL103", "RL105", "RL807")),
    "offload": Cause("DeepSpeed CPU offload of optimizer states or parameters larger than the node's RAM", ("RL420",)),
    "model-load": Cause("every rank loads a full copy of the model into host RAM at once: fewer ranks per node, or load on one rank"),
    "other": Cause("another process, or the scheduler's memory limit (cgroup), took the memory: check the job's memory request"),
}


def explain(found: Found) -> Explanation | None:
    anchor = found.first("sigkill", "exitcode", "oom-killer", "cgroup-oom", "ds-exit", "shell-killed")
    if anchor is None:
        return None
    local = sorted({h.groups["local_rank"] for h in found.hits("exitcode")}, key=int)
    said = "a training process was killed with SIGKILL" + (f" (local rank {', '.join(local)})" if local else "")
    evidence = when(found, anchor)
    if found.stats("oom-killer").count or found.stats("cgroup-oom").count:
        evidence.append("memory: the kernel or Slurm reported an out-of-memory kill")
        said += ": the out-of-memory killer"
    if anchor.key.endswith(".shell-killed"):
        said += f": the shell reports `{anchor.groups['command'].strip()[:80]}` killed"
        evidence.append(
            "shell: bash prints `Killed` for a child ended by SIGKILL (exit 137): the kernel's OOM killer, unless someone ran kill -9"
        )
    if found.stats("ds-exit").count:
        killed = found.stats("ds-killing").count
        evidence.append(
            "launcher: DeepSpeed's launcher saw a rank exit with -9 (SIGKILL)" + (f" and killed {killed} others" if killed else "")
        )
    readings = [h for h in found.hits("cpu-memory") if h.line.number < anchor.line.number or h.line.path != anchor.line.path]
    high = False
    if readings:
        last = readings[-1]
        high = float(last.groups["percent"]) >= HIGH_PERCENT
        evidence.append(
            f"memory: the last reading before ({last.line}): {last.groups['used']} GB used, {last.groups['percent']}% of the host"
            + (f": at or above {HIGH_PERCENT:.0f}%, the host was running out" if high else "")
        )
    loads = {h.line.number for h in found.hits("loading")}
    loading = bool(loads) and (anchor.progress is None or anchor.progress.line in loads)
    causes: list[tuple[str, str]] = []
    if loading:
        causes.append(("model-load", "it died while checkpoint shards were loading"))
    kind, _ = phase(anchor, found.file(anchor.line.path))
    if kind in ("mid-epoch", "epoch-end", "first-steps", "training"):
        causes.append(("loader-ram", "it died during training, when the loaders' queues are full"))
    if high and not loading:
        causes.append(("offload", "DeepSpeed's own reading shows the host's memory nearly full before the kill"))
    offload = [
        line
        for line in found.scene.settings_at("zero_optimization.offload_optimizer.device", "zero_optimization.offload_param.device")
        if line.endswith(" cpu")
    ]
    deepspeed = bool(offload) or any(found.stats(name).count for name in ("ds-exit", "ds-killing", "cpu-memory"))
    # CPU offload is DeepSpeed's: a log and recipe without DeepSpeed rank it last
    causes += (
        [("offload", ""), ("loader-ram", ""), ("model-load", ""), ("other", "")]
        if deepspeed
        else [
            ("loader-ram", ""),
            ("model-load", ""),
            ("other", ""),
            ("offload", ""),
        ]
    )
    return Explanation(anchor, said, evidence, causes, recipe_lines={"offload": offload} if offload else {})
