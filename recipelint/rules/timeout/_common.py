"""What the timeout rules share: which engines use the join, and the slow-data conditions."""

from __future__ import annotations

from recipelint import versions
from recipelint.context import Context
from recipelint.rules.data.http_shards import REMOTE
from recipelint.tuner import PG_TIMEOUT, deepspeed_pg_timeout

JOIN_ENGINES = ("deepspeed", "torch_fsdp")


def slow_sources(ctx: Context) -> list[str]:
    """Why a per-batch data stall can be long: remote or compressed shards, Ethernet between nodes."""
    reasons = []
    for data in ctx.recipe.train_data:
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


def pg_timeout(ctx: Context, engine: str) -> tuple[int, str]:
    """The default process group's timeout in seconds, and where that number comes from."""
    launch = ctx.recipe.launch
    if engine == "deepspeed" and launch is not None:
        env = launch.env.get("DEEPSPEED_TIMEOUT")
        if env is not None and env.as_int():
            return int(env.as_int() or 0) * 60, f"DEEPSPEED_TIMEOUT={env.value} minutes"
    if engine == "deepspeed":
        version, origin = versions.target("deepspeed", ctx.options.get("deepspeed-version"))
        seconds = deepspeed_pg_timeout(versions.parse(version))
        return seconds, f"deepspeed.init_distributed default {seconds // 60} min for {origin}; DEEPSPEED_TIMEOUT raises it"
    return PG_TIMEOUT.get(engine, 600), "torch NCCL default 10 min (torch >= 2.2)"
