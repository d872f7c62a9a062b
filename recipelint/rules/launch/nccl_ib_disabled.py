"""`NCCL_IB_DISABLE=1` on nodes whose InfiniBand is up.

## What it does
Flags `NCCL_IB_DISABLE=1` in the launch environment of a job on more than one node when the
profile says the nodes talk over InfiniBand or RoCE with an active port. On one node NCCL moves
data over NVLink, PCIe peer-to-peer or shared memory, never the network, so the variable
changes nothing there and the rule is silent.

## Why is this bad
NCCL then moves every collective over TCP sockets: several times slower, CPU-bound, and
the reported path to "Watchdog caught collective operation timeout" on multi-node jobs.
The setting is often copied from a recipe comment written for a cluster without IB
(WeNet's run.sh mentions it).

## Example
```sh
export NCCL_IB_DISABLE=1   # profile: inter_node_network: infiniband
```

## Fix
Sets it to 0.

## Fix safety
Safe: only the variable changes; NCCL falls back to sockets by itself if IB fails to start.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Applicability, Diagnostic, Edit, Fix, Severity

CODE = "RL502"
NAME = "nccl-ib-disabled"
SEVERITY = Severity.WARNING
VISITS = ("recipe",)
FIXABLE = True
SOURCE = "NCCL environment variables (NCCL_IB_DISABLE: NVIDIA/nccl@48bb7fec:src/transport/net_ib.cc); probe of /sys/class/infiniband port state (recipelint/hardware/probe.py)"
FACTS = ("inter_node_network",)


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    setting = ctx.recipe.env("NCCL_IB_DISABLE")
    if setting is None or str(setting.value).strip() != "1":
        return
    if ctx.nodes is not None and ctx.nodes <= 1:
        return  # one node: NCCL's transports are P2P and SHM; the network is never used
    network = ctx.fact("inter_node_network")
    if network.value not in ("infiniband", "roce"):
        return
    fix = Fix((Edit(setting.edit_span, "0"),), Applicability.SAFE, "set NCCL_IB_DISABLE=0") if setting.edit_span else None
    yield ctx.diagnostic(
        CODE,
        SEVERITY,
        f"NCCL_IB_DISABLE=1 forces TCP sockets although the nodes have {network.value}: collectives run slower and CPU-bound",
        setting.span,
        setting="NCCL_IB_DISABLE",
        current=setting.value,
        suggested="0",
        evidence=[network.cite("inter_node_network")],
        fix=fix,
    )
