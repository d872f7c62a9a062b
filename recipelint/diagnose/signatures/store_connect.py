"""A rank could not reach the TCP store it rendezvous through, before the store's timeout.

## What it does
Matches `The client socket has timed out after T while trying to connect to (host, port)`
and `connect() timed out. Original timeout was T ms`. Says which store it was by its timeout
(1800 s: the process group's store with a 30 min timeout; 600000 ms: torch's NCCL default;
900 s: torchrun's static rendezvous; 60 s: the c10d rendezvous), flags a store at a loopback
address, and recognises a process group created late, inside `deepspeed.initialize`, which
is what XTuner does when its train script runs without `--launcher pytorch`.

## Why is this bad
Every rank of a job must meet at one address and port before any training; one that cannot
waits out the timeout and the job dies at start-up (xtuner.md 6). The usual causes are in
the launch: nodes told to meet at 127.0.0.1 or at different ports, a node started much later
than the others, and, for XTuner, a direct launch without `--launcher pytorch`: mmengine then
never initialises torch.distributed, so DeepSpeed does it late inside `deepspeed.initialize`
with its own 30 min store timeout, each rank on its own schedule (xtuner#438, #238).

## Example
```
[E socket.cpp:860] [c10d] The client socket has timed out after 1800s while trying to connect to (33.97.225.68, 58787).
```

## Fix
RL801 (adds `--launcher pytorch`), RL501 and RL804 (where the nodes meet), RL503/RL504 (the
interface the sockets use).

## Fix safety
The fixes are the rules' own, with their safety; `diagnose --fix --write` applies the safe ones.
"""

from __future__ import annotations

from recipelint.diagnose.signatures import Cause, Explanation, Found
from recipelint.diagnose.signatures._common import when
from recipelint.diagnostics import Severity

CODE = "LOG003"
NAME = "store-connect-timeout"
SEVERITY = Severity.ERROR
SOURCE = "xtuner.md 6 (socket.cpp message and which timeout is which); xtuner#438, xtuner#238, ControlNet#382, pytorch#107021"
PATTERNS = {
    "client": (
        "The client socket has timed out",
        r"The client socket has timed out after (?P<t>\d+)(?P<unit>m?s) while trying to connect to \(?(?P<host>[^,\s)]+?)(?:, |:)(?P<port>\d+)\)?",
    ),
    "connect": ("connect() timed out", r"connect\(\) timed out\. Original timeout was (?P<t>\d+) ms"),
    # The process group created inside deepspeed.initialize, not before it (launcher "none").
    "late-init": ("init_distributed(dist_backend=dist_backend", r"init_distributed\(dist_backend=dist_backend"),
    "mmengine": ("_flexible_runner.py", r"_flexible_runner\.py"),
}
CAUSES = {
    "launcher": Cause(
        "XTuner's train.py started without --launcher pytorch: torch.distributed was never initialised, and DeepSpeed "
        "created the process group late, inside deepspeed.initialize, each rank on its own schedule",
        ("RL801",),
        "xtuner",
    ),
    "loopback": Cause("the nodes were told to meet at a loopback address (127.0.0.1, localhost, 0.0.0.0) or at port 0", ("RL501", "RL804")),
    "address": Cause("ADDR/PORT (or MASTER_ADDR/MASTER_PORT) differ between nodes, or NODE_RANK repeats", ("RL804",)),
    "interface": Cause("the store is reached over an interface the other node cannot route to", ("RL503", "RL504")),
    "late-node": Cause("a node started much later than the others, or never started: start all nodes together"),
}
LOOPBACK = ("127.", "localhost", "0.0.0.0", "::1")
STORES = {
    "1800s": "the process group's TCP store with a 30 min timeout (init_process_group under gloo, torch < 2.2, or DeepSpeed's init_distributed)",
    "900s": "torchrun's static rendezvous (900 s)",
    "600000ms": "the process group's TCP store with torch's 10 min NCCL timeout",
    "60s": "the c10d rendezvous store (60 s to connect)",
}


def explain(found: Found) -> Explanation | None:
    anchor = found.first("client", "connect")
    if anchor is None:
        return None
    host, port = anchor.groups.get("host"), anchor.groups.get("port")
    budget = anchor.groups.get("t", "") + anchor.groups.get("unit", "ms")
    said = (
        f"a rank could not connect to the TCP store at {host}:{port} within {budget}"
        if host
        else f"a rank could not connect to its TCP store within {budget}"
    )
    evidence = when(found, anchor)
    if budget in STORES:
        evidence.append(f"store: {budget} is {STORES[budget]}")
    causes: list[tuple[str, str]] = []
    late = found.stats("late-init").count
    if late and (found.stats("mmengine").count or found.scene.toolkit == "xtuner"):
        evidence.append("traceback: the connect happened inside deepspeed.initialize -> init_distributed, called from mmengine's runner")
        causes.append(("launcher", "the process group was first created inside deepspeed.initialize"))
    if host and host.startswith(LOOPBACK):
        causes.append(("loopback", f"the store address is {host}"))
    causes += [("address", ""), ("launcher", ""), ("loopback", ""), ("interface", ""), ("late-node", "")]
    return Explanation(anchor, said, evidence, causes)
