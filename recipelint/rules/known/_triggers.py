"""When a recipe meets a known bug: the conditions the known-issue tables name in `trigger`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path

from recipelint.context import Context
from recipelint.knownissues import KnownIssue
from recipelint.parse.span import Span
from recipelint.records import dataclass
from recipelint.toolkits.wenet.part import train_data


@dataclass(frozen=True)
class Hit:
    met: bool | None  # None: the recipe does not say (e.g. the GPU count is unknown)
    span: Span | None = None  # the setting that meets it
    evidence: str = ""


def several_ranks_epoch_mode(ctx: Context) -> Hit:
    config = ctx.recipe.config
    if config is not None and config.root.kind == "map" and "save_interval" in config.root.entries:
        return Hit(False, evidence=f"{config.path.name} sets save_interval: step saving is asked for")
    world = ctx.world_size
    launch = ctx.recipe.launch
    span = launch.script.span if launch is not None else None
    if world is None:
        return Hit(None, span)
    return Hit(world > 1, span, f"{world} ranks ({ctx.ranks_evidence}); no save_interval in the train YAML")


def shard_data(ctx: Context) -> Hit:
    setting = ctx.recipe.arg("data_type")
    met = None if setting.value is None else setting.value == "shard"
    return Hit(met, setting.span, f"--data_type {setting.value}")


def compressed_shards(ctx: Context) -> Hit:
    """Shards the data lists show compressed (bz2, gzip, xz, zstd): a tar member decoded in place
    then reads a stream that cannot seek (wenet#2338's hang). Plain `.tar` shards, which WeNet's
    make_shard_list.py writes, do not meet it; lists not read here leave it open (no finding)."""
    shard = shard_data(ctx)
    if shard.met is not True:
        return shard
    lists = [item for item in train_data(ctx.recipe) if item.exists]
    if not lists:
        return Hit(None, shard.span, "--data_type shard; the shard list is not here to say whether its shards are compressed")
    kinds = sum((item.compression for item in lists), Counter())
    if not kinds:
        return Hit(False, shard.span, f"--data_type shard; {lists[0].path.name} lists plain tar shards")
    shown = ", ".join(f"{count} {kind}" for kind, count in kinds.most_common())
    return Hit(True, lists[0].setting.span or shard.span, f"--data_type shard with compressed shards in {lists[0].path.name} ({shown})")


def prefetch_500(ctx: Context) -> Hit:
    setting = ctx.recipe.arg("prefetch")
    value = setting.as_int()
    return Hit(bool(setting.given and value is not None and value >= 500), setting.span, f"--prefetch {value}")


def srun_slurm_with_torchrun_env(ctx: Context) -> Hit:
    launch = ctx.recipe.launch
    launcher = ctx.recipe.args.get("launcher")
    if launch is None or launch.launcher != "srun" or launcher is None or launcher.value != "slurm":
        return Hit(False)
    names = [name for name in ("NPROC_PER_NODE", "NNODES") if name in launch.env]
    if not names:
        return Hit(False)
    setting = launch.env[names[0]]
    return Hit(True, setting.span, f"srun ... --launcher slurm with {', '.join(names)} in the environment")


def rank0_dataset_default_timeout(ctx: Context) -> Hit:
    from recipelint.toolkits.xtuner.part import mmengine_config
    from recipelint.toolkits.xtuner.rules._x import multi_process
    from recipelint.toolkits.xtuner.rules.dataset_timeout import RANK0_DATASETS

    launch, config = ctx.recipe.launch, mmengine_config(ctx.recipe)
    if launch is None or config is None:
        return Hit(None)
    if "XTUNER_DATASET_TIMEOUT" in launch.env or not multi_process(launch) or not (RANK0_DATASETS & config.calls):
        return Hit(False)
    return Hit(
        True,
        launch.script.span,
        f"{Path(config.source.path).name} builds {', '.join(sorted(RANK0_DATASETS & config.calls))} on rank 0; XTUNER_DATASET_TIMEOUT is not set",
    )


def dataset_timeout_set(ctx: Context) -> Hit:
    launch = ctx.recipe.launch
    setting = launch.env.get("XTUNER_DATASET_TIMEOUT") if launch is not None else None
    if setting is None:
        return Hit(False)
    return Hit(True, setting.span, f"XTUNER_DATASET_TIMEOUT={setting.value}")


TRIGGERS: dict[str, Callable[[Context], Hit]] = {
    "several_ranks_epoch_mode": several_ranks_epoch_mode,
    "shard_data": shard_data,
    "compressed_shards": compressed_shards,
    "prefetch_500": prefetch_500,
    "srun_slurm_with_torchrun_env": srun_slurm_with_torchrun_env,
    "rank0_dataset_default_timeout": rank0_dataset_default_timeout,
    "dataset_timeout_set": dataset_timeout_set,
}


# The code path a trigger lies on, when a recipe can stay off it altogether: compressed shards are
# met only by a recipe that opens shards at all (--data_type shard); a raw-data recipe never
# reaches the tar reading a fix of that trigger changed.
PATHS: dict[str, Callable[[Context], Hit]] = {"compressed_shards": shard_data}


def on_path(ctx: Context, issue: KnownIssue) -> bool:
    """Whether the recipe reaches the code an issue's fix changed (True when it cannot tell)."""
    path = PATHS.get(issue.trigger or "")
    return path is None or path(ctx).met is not False


def evaluate(ctx: Context, issue: KnownIssue) -> Hit:
    if issue.trigger is None:
        return Hit(True)
    return TRIGGERS[issue.trigger](ctx)
