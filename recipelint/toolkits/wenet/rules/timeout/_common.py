"""What the timeout rules share: which engines use the join, and the slow-data conditions."""

from __future__ import annotations

from recipelint.context import Context
from recipelint.toolkits.wenet.part import REMOTE, train_data

JOIN_ENGINES = ("deepspeed", "torch_fsdp")


def slow_sources(ctx: Context) -> list[str]:
    """Why a per-batch data stall can be long: remote or compressed shards, Ethernet between nodes."""
    reasons = []
    for data in train_data(ctx.recipe):
        remote = sum(n for scheme, n in data.schemes.items() if scheme in REMOTE)
        if remote:
            reasons.append(f"{remote} remote shards in {data.path.name}")
        if data.compression:
            reasons.append(f"{sum(data.compression.values())} compressed shards in {data.path.name}")
    if ctx.nodes and ctx.nodes > 1:
        network = ctx.fact("inter_node_network")
        if network.value == "ethernet":
            reasons.append(f"{ctx.nodes} nodes over Ethernet ({network.cite('inter_node_network')})")
    return reasons
