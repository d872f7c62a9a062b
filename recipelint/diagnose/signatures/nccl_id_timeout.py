"""The ranks waited for rank 0's NCCL id in the store and timed out: `store->get('0') got error: Socket Timeout`.

## What it does
Matches ProcessGroupNCCL's `[R] is setting up NCCL communicator and retrieving ncclUniqueId
from [0] via c10d key-value store by key 'K', but store->get('K') got error: ...` (both
spellings, `retreiving` before torch 2.1), and says which ranks waited, for which
communicator, what rank 0 was doing (its data-preparation progress bar, its first error) and
how long into the run.

## Why is this bad
The first collective of a communicator makes rank 0 create an NCCL id and publish it in the
store; every other rank blocks on `store->get` until it appears, for the process group's
timeout. When rank 0 is still busy (tokenizing or `datasets.map` on rank 0 first, loading
a model, building an index) or already dead, the others time out here, at start-up, with an
error that names the network although the network is fine.

## Example
```
torch.distributed.DistBackendError: [4] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: Socket Timeout
```

## Fix
Prepare the data before the launch (or once, with a shared cache, before the process group's
first collective), or give the process group a timeout longer than the preparation
(`ddp_timeout` in Hugging Face's arguments, `timeout=` of `init_process_group`). When rank 0
died, its first error is the cause: it is listed with the report's root errors.

## Fix safety
No fix is applied: the timeout and where the data are prepared are the script's choices.
"""

from __future__ import annotations

from recipelint.diagnose.signatures import Cause, Explanation, Found
from recipelint.diagnose.signatures._common import phase, ranks, root_of, when
from recipelint.diagnostics import Severity

CODE = "LOG020"
NAME = "nccl-id-store-timeout"
SEVERITY = Severity.ERROR
SOURCE = (
    "torch ProcessGroupNCCL broadcastUniqueNCCLID (pytorch#68597); ChatGLM-6B#1232, LlamaFactory#3698, "
    "bytedance/HLLM#20, NVIDIA/nccl#845, InternLM/InternEvo#285, pytorch#82091"
)
PATTERNS = {
    "get": (
        "ncclUniqueId from [",
        r"\[(?P<rank>\d+)\] is setting up NCCL communicator and retr\w+ ncclUniqueId from \[(?P<root>\d+)\] via c10d key-value store "
        r"by key '(?P<key>[^']*)', but store->get\('[^']*'\) got (?:error|exception): ?(?P<error>[^.\n]*)",
    ),
}
CAUSES = {
    "root-busy": Cause(
        "rank 0 had not reached the first collective: it was still preparing data (tokenizing, datasets.map on rank 0 first), "
        "loading the model or building an index past the process group's timeout"
    ),
    "root-died": Cause("rank 0 died before it created the NCCL id: its first error is the cause"),
    "store": Cause("the store itself was unreachable or restarted (rank 0's node went down, a firewall cut the connection)"),
}


def explain(found: Found) -> Explanation | None:
    anchor = found.first("get")
    if anchor is None:
        return None
    hits = found.hits("get")
    waited = sorted({int(h.groups["rank"]) for h in hits})
    root, key = anchor.groups.get("root", "0"), anchor.groups.get("key", "0")
    error = anchor.groups.get("error", "").strip()
    said = f"rank {ranks(waited)} waited for rank {root}'s NCCL id (store key '{key}') and gave up" + (f": {error}" if error else "")
    evidence = when(found, anchor)
    if key != "0":
        evidence.append(f"communicator: key '{key}' is not the default group's first: a later communicator (a subgroup, or a second group)")
    died = root_of(found, int(root))
    causes: list[tuple[str, str]] = []
    if died:
        evidence.append(f"rank {root}'s first error: {died}")
        causes.append(("root-died", f"rank {root} printed {died.split(': ', 1)[1]}"))
    kind, _ = phase(anchor, found.file(anchor.line.path))
    if anchor.progress is not None and anchor.progress.tag == "prep":
        causes.append(("root-busy", f"the log shows data preparation just before ({anchor.progress.describe()})"))
    elif kind in ("init", "unknown"):
        causes.append(("root-busy", "it happened at start-up, before any training step"))
    causes += [("root-busy", ""), ("root-died", ""), ("store", "")]
    return Explanation(anchor, said, evidence, causes)
