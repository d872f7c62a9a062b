"""What the timeout rules share: which engines use the join, and the slow-data conditions."""

from __future__ import annotations

from recipelint import tuner
from recipelint.context import Context
from recipelint.model import Setting
from recipelint.records import dataclass
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


@dataclass(frozen=True)
class JoinPlan:
    """The join timeout plan of one launch (RL301's fix and `tune`'s line): the `--timeout`
    setting, why the data can stall, and the suggestion under the process-group timeout."""

    setting: Setting
    current: int
    reasons: list[str]
    suggested: int  # tuner.join_timeout: upstream's 1200 s, else half the process-group timeout
    limit: int
    limit_source: str

    @property
    def raise_to(self) -> int | None:
        """The value to set: the suggestion where the data can stall past the current timeout."""
        return self.suggested if self.reasons and self.current < self.suggested else None


def join_plan(ctx: Context) -> JoinPlan | None:
    """None when the launch's engine runs no join (torch_ddp) or its timeout is not known."""
    from recipelint.toolkits.wenet.code import flag_unread

    recipe = ctx.recipe
    engine = recipe.arg("train_engine").value
    if recipe.launch is None or engine not in JOIN_ENGINES or flag_unread(ctx, "timeout") is not None:
        return None  # no join in the code this recipe runs (a fork that dropped it): no timeout to plan
    setting = recipe.arg("timeout")
    timeout = setting.as_int()
    if timeout is None:
        return None
    limit, limit_source = ctx.process_group_timeout(str(engine))
    return JoinPlan(setting, timeout, slow_sources(ctx), tuner.join_timeout(str(engine), limit), limit, limit_source)
