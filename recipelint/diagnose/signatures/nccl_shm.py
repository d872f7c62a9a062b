"""NCCL could not create its shared-memory segment: `/dev/shm` is full or too small (in a container).

## What it does
Matches NCCL's `Call to posix_fallocate failed : No space left on device`, `failed to extend
/dev/shm/nccl-XXXX to N bytes` and `Error while creating shared memory segment NAME (size N)`,
and says the segment size NCCL asked for. A DataLoader's own `/dev/shm` errors (bus errors,
`unable to write to file </torch_...>`) are LOG008's.

## Why is this bad
Ranks on one node exchange data through segments NCCL creates in `/dev/shm` (a few MB to
tens of MB per peer and channel). Docker gives a container 64 MB of `/dev/shm` unless told
otherwise, and Kubernetes pods the same unless a memory-backed volume is mounted there; the
communicator's set-up fails at the first collective, or after segments of crashed jobs have
filled it.

## Example
```
[3] include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space left on device
[3] include/shm.h:48 NCCL WARN Error while creating shared memory segment nccl-shm-recv-1462445a6f01cbfc-1-2-3 (size 9637888)
```

## Fix
Give the container more `/dev/shm` (`docker run --shm-size=16g` or `--ipc=host`; on Kubernetes
an `emptyDir` with `medium: Memory` mounted at `/dev/shm`), remove stale `/dev/shm/nccl-*`
segments, or as a last resort `NCCL_SHM_DISABLE=1` (slower intra-node traffic).

## Fix safety
No fix is applied: the container's `/dev/shm` is not part of the recipe.
"""

from __future__ import annotations

from recipelint.diagnose.signatures import Cause, Explanation, Found
from recipelint.diagnose.signatures._common import when
from recipelint.diagnostics import Severity

CODE = "LOG022"
NAME = "nccl-shm-full"
SEVERITY = Severity.ERROR
SOURCE = (
    "NCCL include/shm.h and misc/shmutils.cc messages; NVIDIA/nccl#290, NVIDIA/nccl#342, NVIDIA/nccl#525, llm-d#352, pytorch/ci-infra#490"
)
PATTERNS = {
    # NCCL prints each as a warning (`NCCL WARN`): that needle is searched for anyway, so these
    # cost no pass of their own over the log.
    "fallocate": ("posix_fallocate failed", r"Call to posix_fallocate failed ?: (?P<why>[^\n]*)"),
    "extend": ("failed to extend ", r"failed to extend (?P<segment>/dev/shm/nccl-\w+) to (?P<size>\d+) bytes(?:, error: (?P<why>[^\n]*))?"),
    "segment": (
        "Error while creating shared memory segment",
        r"Error while creating shared memory segment (?P<segment>\S+) \(size (?P<size>\d+)\)",
    ),
}
CAUSES = {
    "container": Cause(
        "the container's /dev/shm is too small for NCCL's intra-node segments (Docker and Kubernetes default to 64 MB): "
        "--shm-size or --ipc=host, or a memory-backed emptyDir at /dev/shm"
    ),
    "stale": Cause("segments left by crashed or killed jobs fill /dev/shm: remove the stale /dev/shm/nccl-* files"),
    "disable": Cause("where /dev/shm cannot grow: NCCL_SHM_DISABLE=1 sends intra-node traffic another way (slower)"),
}


def explain(found: Found) -> Explanation | None:
    anchor = found.first("fallocate", "extend", "segment")
    if anchor is None:
        return None
    size = next((int(h.groups["size"]) for h in found.hits("segment") + found.hits("extend") if "size" in h.groups), None)
    why = next((h.groups["why"].strip() for h in found.hits("fallocate") + found.hits("extend") if h.groups.get("why")), "")
    said = "NCCL could not create a shared-memory segment in /dev/shm" + (f" ({size / 2**20:.1f} MiB)" if size else "")
    said += f": {why}" if why else ""
    evidence = when(found, anchor)
    count = found.stats("segment").count + found.stats("extend").count
    if count > 1:
        evidence.append(f"repeats: {count} segments refused")
    evidence.append(
        "verdict: the container's or node's /dev/shm, not a recipe setting; collect next: df -h /dev/shm in the "
        "container and ls /dev/shm/nccl-* (segments of earlier jobs)"
    )
    return Explanation(anchor, said, evidence, [("container", ""), ("stale", ""), ("disable", "")])
