"""A multi-node job over Ethernet with no socket interface pinned.

## What it does
Flags a launch of several nodes whose network is Ethernet (no active InfiniBand/RoCE port)
and whose environment sets neither `NCCL_SOCKET_IFNAME` nor `GLOO_SOCKET_IFNAME`.

## Why is this bad
NCCL then picks the first interface that is not loopback or docker; on nodes with several
NICs, or where interface names differ between nodes, ranks connect over different networks
or to an unreachable address and hang at the first collective until the 10-30 min timeout.
WeNet's run.sh leaves `# export NCCL_SOCKET_IFNAME=ens4f1` commented for this case.

## Example
```sh
num_nodes=4   # profile: inter_node_network: ethernet; no NCCL_SOCKET_IFNAME
```

## Fix
None: export the interface that carries inter-node traffic, e.g.
`export NCCL_SOCKET_IFNAME=eth0 GLOO_SOCKET_IFNAME=eth0`.

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity

CODE = "RL504"
NAME = "multinode-unpinned-interface"
SEVERITY = Severity.WARNING
VISITS = ("launch",)
FIXABLE = False
SOURCE = "NCCL socket interface selection (NCCL_SOCKET_IFNAME, NVIDIA/nccl@76145438:src/misc/socket.cc); the comment in wenet-e2e/wenet@01546996:examples/aishell/s0/run.sh"
FACTS = ("inter_node_network",)


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    launch = ctx.recipe.launch
    if launch is None or not ctx.nodes or ctx.nodes < 2:
        return
    network = ctx.fact("inter_node_network")
    if network.value != "ethernet":
        return
    if ctx.recipe.env("NCCL_SOCKET_IFNAME") is not None or ctx.recipe.env("GLOO_SOCKET_IFNAME") is not None:
        return
    yield ctx.diagnostic(
        CODE,
        SEVERITY,
        f"{ctx.nodes} nodes over Ethernet and no NCCL_SOCKET_IFNAME/GLOO_SOCKET_IFNAME: each node picks its own interface; export the one that carries inter-node traffic",
        launch.command.words[0].span,
        setting="NCCL_SOCKET_IFNAME",
        evidence=[network.cite("inter_node_network")],
    )
