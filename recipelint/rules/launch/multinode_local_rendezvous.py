"""Several nodes told to meet at localhost, or at port 0.

## What it does
Flags a launch with more than one node whose rendezvous endpoint (`--rdzv_endpoint`, or
`--master_addr`/`--master_port`, or XTuner's `ADDR`) is `localhost`, a loopback or wildcard
address (`0.0.0.0`), or port 0.

## Why is this bad
Each node then looks for the others on itself: every node waits for peers that never come
until the rendezvous times out ("The client socket has timed out after 1800s"), or starts
its own job as node 0. WeNet's `HOST_NODE_ADDR="localhost:0"` is only valid for one node;
the script's comment says to change it for multi-node (wenet.md 5).

## Example
```sh
num_nodes=2
HOST_NODE_ADDR="localhost:0"
torchrun --nnodes=$num_nodes --rdzv_endpoint=$HOST_NODE_ADDR ...
```

## Fix
None: the head node's address cannot be known here. Set it to `head-node:29400`.

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity

CODE = "RL501"
NAME = "multinode-local-rendezvous"
SEVERITY = Severity.ERROR
FIXABLE = False
SOURCE = "wenet.md 5: HOST_NODE_ADDR=localhost:0 is only valid for a single node"
LOCAL_HOSTS = ("localhost", "127.", "::1", "0.0.0.0")


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    launch = ctx.recipe.launch
    nodes = launch.nnodes.as_int() if launch is not None else None
    if launch is None or nodes is None or nodes < 2:
        return
    endpoint = launch.rendezvous
    if not isinstance(endpoint.value, str) or (launch.launcher in ("xtuner", "srun", "deepspeed") and not endpoint.given):
        return  # an unset ADDR is RL803's finding; srun and deepspeed take the first host
    host, _, port = endpoint.value.rpartition(":") if ":" in endpoint.value else (endpoint.value, "", "")
    problems = []
    if host.startswith(LOCAL_HOSTS) or host in ("", "[::1]"):
        problems.append(f"host {host or 'missing'} is this machine")
    if port == "0":
        problems.append("port 0 picks a random port on each node")
    if not problems:
        return
    via = f" (via ${endpoint.via})" if endpoint.via else ""
    yield ctx.diagnostic(
        CODE,
        SEVERITY,
        f"{nodes} nodes but the rendezvous is {endpoint.value}{via}: {' and '.join(problems)}; use the head node's address and a fixed port",
        endpoint.span,
        setting=endpoint.via or endpoint.name,
        current=endpoint.value,
        evidence=[f"--nnodes {nodes}"],
    )
