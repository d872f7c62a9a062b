"""Rank 0's dataset preprocessing waited for under a timeout that cannot hold it.

## What it does
For a multi-process launch whose config preprocesses the dataset on rank 0
(`process_hf_dataset`, `LLaVADataset`, preference datasets) and does not load it preprocessed
(`offline_processed_text_folder`), compares what each wait can actually time out on
(`process_hf_dataset` in InternLM/xtuner@v0.2.0:xtuner/dataset/huggingface.py):

- From v0.1.14 on, the other ranks wait for rank 0's preprocessing in a gloo
  `monitored_barrier` under `XTUNER_DATASET_TIMEOUT` (minutes; default 60 since v0.1.19, 30
  in v0.1.14 to v0.1.18). The `broadcast_object_list` after the barrier starts only once rank 0
  is done: it waits for rank 0 to pickle the dataset (an Arrow-backed dataset pickles as file
  paths), not for the preprocessing, so the process-group timeout is not compared with it.
  Reported as info only: an `XTUNER_DATASET_TIMEOUT` over a day (it reads like seconds), and
  `LLaVADataset`, which builds its table in memory (`Dataset.from_list`), so the broadcast
  pickles and sends the whole processed dataset under the process-group timeout (xtuner#768:
  LLaVA on 4 GPUs, the BROADCAST timed out after the barrier); its fix raises
  `env_cfg.dist_cfg.timeout` to `XTUNER_DATASET_TIMEOUT`.
- In v0.1.10 to v0.1.13 there is no barrier: the other ranks wait for the whole preprocessing
  inside that NCCL broadcast, under the default process group's timeout (torch's NCCL default
  10 min; DeepSpeed's `init_distributed` 30 min up to 0.19.5, 10 min from 0.19.6; raised by
  `env_cfg.dist_cfg.timeout` in seconds or `DEEPSPEED_TIMEOUT` in minutes). Below 60 min (the
  budget XTuner itself gives preprocessing from v0.1.19) that is a warning.

The version comes from the XTuner checkout the launch runs (how `XTUNER_DATASET_TIMEOUT` is
read there, else its version), else one exact release the environment the script activates or
the repository's pins name (`xtuner==0.1.13`); otherwise the current behaviour (the barrier) is
assumed and nothing is compared. The process-group timeout is the shortest over the DeepSpeed
(or torch) releases the run imports, and the message names them when it differs across them.

## Why is this bad
Before v0.1.14, preprocessing a dataset of any size on rank 0 ends in "Watchdog caught
collective operation timeout: WorkNCCL(SeqNum=1, OpType=BROADCAST ...)" on the other ranks
once the process-group timeout passes (xtuner#390, February 2024: tokenising the fine-tuning
data on rank 0 outlasted NCCL's 30-minute default); v0.1.14 added the barrier for it.

## Example
XTuner v0.1.13 checkout, `NPROC_PER_NODE=8 xtuner train cfg.py --deepspeed deepspeed_zero2`,
`env_cfg = dict(dist_cfg=dict(backend='nccl'))`: 10 min for all of rank 0's preprocessing.

## Fix
Sets `env_cfg.dist_cfg.timeout` (seconds) to 3600, the 60 minutes XTuner v0.1.19+ gives
preprocessing. Better: upgrade XTuner, or preprocess offline
(`xtuner/tools/process_untokenized_datasets.py`).

## Fix safety
Safe: it only lengthens how long ranks wait in collectives before failing.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from recipelint.context import Context
from recipelint.diagnostics import Applicability, Diagnostic, Edit, Fix, Severity
from recipelint.model import Launch
from recipelint.parse.checkout import version_key
from recipelint.parse.span import Span
from recipelint.toolkits.xtuner.part import mmengine_config
from recipelint.toolkits.xtuner.rules._x import multi_process, xtuner_launch

CODE = "RL805"
NAME = "xtuner-dataset-timeout"
SEVERITY = Severity.WARNING
VISITS = ("xtuner-launch",)
FIXABLE = True
SOURCE = "InternLM/xtuner@v0.2.0:xtuner/dataset/huggingface.py (process_hf_dataset: gloo monitored_barrier, then NCCL broadcast_object_list; no barrier before v0.1.14); the timeout defaults of pytorch/pytorch@v2.2.0:torch/distributed/constants.py and deepspeedai/DeepSpeed@edaa7221:deepspeed/constants.py"
RANK0_DATASETS = {"process_hf_dataset", "LLaVADataset", "build_preference_dataset"}
# Datasets whose processed table lives in memory, so that the broadcast pickles the data itself.
IN_MEMORY_DATASETS = {"LLaVADataset"}
DEFAULT_MINUTES = 60  # since v0.1.19 (30 in v0.1.14-v0.1.18): the budget XTuner gives preprocessing
SECONDS_LIKE = 24 * 60  # minutes: a value over a day was probably written in seconds


def default_minutes(ctx: Context) -> tuple[int | None, str]:
    """XTUNER_DATASET_TIMEOUT's default for the XTuner the launch runs; None: that XTuner has no
    rank-0 barrier (before v0.1.14)."""
    checkout = ctx.recipe.checkout
    if checkout is not None:
        read = checkout.env_default("dataset/huggingface.py", "XTUNER_DATASET_TIMEOUT")
        if read is not None and read[0] and read[1] is not None:
            return read[1], f"default in the {checkout.label()} ({read[2]})"
        if read is not None and not read[0]:
            return None, f"the {checkout.label()} does not read XTUNER_DATASET_TIMEOUT"
    # The checkout's version, else one exact release the environment or the pins name.
    rng = ctx.version_range("xtuner")
    if rng.exact is not None and rng.kind != "newest":
        key = version_key(rng.exact)
        if key < version_key("0.1.14"):
            return None, f"XTuner {rng.exact} has no rank-0 barrier ({rng.source})"
        minutes = 30 if key < version_key("0.1.19") else 60
        return minutes, f"default of XTuner {rng.exact} ({rng.source})"
    return DEFAULT_MINUTES, "default since v0.1.19"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    launch = xtuner_launch(ctx)
    config = mmengine_config(ctx.recipe)
    if launch is None or config is None or not multi_process(launch) or not (RANK0_DATASETS & config.calls):
        return
    offline = config.get("offline_processed_text_folder")
    if offline is not None and offline.value is not None:
        return  # preprocessed offline: rank 0 only loads from disk
    default, default_origin = default_minutes(ctx)
    if default is not None:
        yield from _seconds_like(ctx, launch)
        yield from _in_memory_broadcast(ctx, launch, default, default_origin)
        return  # the barrier waits for the preprocessing; the broadcast after it only for pickling
    checkout = ctx.recipe.checkout
    rng = ctx.version_range("xtuner")
    at_least = checkout.version_at_least("0.1.10") if checkout is not None else None
    if at_least is None and rng.exact is not None and rng.kind != "newest":
        at_least = version_key(rng.exact) >= version_key("0.1.10")
    if at_least is not True:
        return  # before v0.1.10 every rank preprocesses for itself: nobody waits
    timeout = _pg_timeout(ctx)
    budget = DEFAULT_MINUTES * 60
    if timeout is None or timeout[0] >= budget:
        return
    pg, origin = timeout
    yield ctx.diagnostic(
        CODE,
        SEVERITY,
        f"{default_origin}: the other ranks wait for rank 0's whole preprocessing inside the dataset broadcast, under a {pg // 60} min process-group timeout ({origin}); raise env_cfg.dist_cfg.timeout to {budget} s, upgrade XTuner (v0.1.14+ waits in a barrier), or preprocess offline",
        _place(config, launch),
        setting="env_cfg.dist_cfg.timeout",
        current=pg,
        suggested=budget,
        evidence=[
            f"{default_origin}: process_hf_dataset broadcasts rank 0's result with broadcast_object_list on the default process group",
            f"process-group timeout {pg} s: {origin}",
            f"{budget} s: the {DEFAULT_MINUTES} min XTuner v0.1.19+ gives preprocessing (XTUNER_DATASET_TIMEOUT default)",
        ],
        fix=_timeout_fix(config, budget),
    )


def _pg_timeout(ctx: Context) -> tuple[int, str] | None:
    """The default process group's timeout (seconds) and where it comes from; None: set at run time."""
    config = mmengine_config(ctx.recipe)
    dist_timeout = config.get("env_cfg.dist_cfg.timeout") if config is not None else None
    if dist_timeout is not None and isinstance(dist_timeout.value, (int, float)):
        return int(dist_timeout.value), "env_cfg.dist_cfg.timeout"
    if ctx.recipe.args.get("cfg-options.env_cfg.dist_cfg.timeout") is not None:
        return None
    return ctx.process_group_timeout("deepspeed" if ctx.recipe.args.get("deepspeed") is not None else "torch")


def _place(config: Any, launch: Launch) -> Span:
    dist_cfg = config.get("env_cfg.dist_cfg")
    span: Span = dist_cfg.span if dist_cfg is not None else launch.script.span
    return span


def _in_memory_broadcast(ctx: Context, launch: Launch, default: int, default_origin: str) -> Iterator[Diagnostic | None]:
    """Info: LLaVADataset builds its table in memory, so the broadcast after the barrier pickles and
    sends the whole processed dataset, not Arrow file paths, under the process-group timeout."""
    config = mmengine_config(ctx.recipe)
    if config is None or not (IN_MEMORY_DATASETS & config.calls):
        return
    setting = launch.env.get("XTUNER_DATASET_TIMEOUT")
    minutes = (setting.as_int() if setting is not None else None) or default
    timeout = _pg_timeout(ctx)
    if timeout is None or minutes > SECONDS_LIKE or timeout[0] >= minutes * 60:
        return
    pg, origin = timeout
    kind = sorted(IN_MEMORY_DATASETS & config.calls)[0]
    yield ctx.diagnostic(
        CODE,
        Severity.INFO,
        f"{kind} keeps the processed dataset in memory: after the barrier rank 0 pickles and broadcasts all of it, and the other ranks wait for that under the {pg // 60} min process-group timeout ({origin}), not XTUNER_DATASET_TIMEOUT's {minutes} min; for a large dataset raise env_cfg.dist_cfg.timeout or preprocess offline",
        _place(config, launch),
        setting="env_cfg.dist_cfg.timeout",
        current=pg,
        suggested=minutes * 60,
        evidence=[
            f"{kind}: HFDataset.from_list(json.load(...)) then process_hf_dataset (xtuner/dataset/llava.py)",
            f"XTUNER_DATASET_TIMEOUT {minutes} min" + ("" if setting is not None else f" ({default_origin})"),
            f"process-group timeout {pg} s: {origin}",
            "xtuner#768: LLaVA fine-tuning on 4 GPUs, BROADCAST SeqNum=1 timed out after the barrier",
        ],
        fix=_timeout_fix(config, minutes * 60),
    )


def _seconds_like(ctx: Context, launch: Launch) -> Iterator[Diagnostic | None]:
    setting = launch.env.get("XTUNER_DATASET_TIMEOUT")
    minutes = setting.as_int() if setting is not None else None
    if setting is None or minutes is None or minutes <= SECONDS_LIKE:
        return
    yield ctx.diagnostic(
        CODE,
        Severity.INFO,
        f"XTUNER_DATASET_TIMEOUT={minutes} is in minutes ({minutes / 1440:.0f} days): if seconds were meant, that is {max(1, minutes // 60)}",
        setting.span,
        setting="XTUNER_DATASET_TIMEOUT",
        current=minutes,
        suggested=max(1, minutes // 60),
        evidence=["xtuner/dataset/huggingface.py: timedelta(minutes=int(os.getenv('XTUNER_DATASET_TIMEOUT', default=60)))"],
    )


def _timeout_fix(config: Any, seconds: int) -> Fix | None:
    """`timeout=<seconds>` added inside `env_cfg.dist_cfg`'s dict(...) or {...}."""
    dist_cfg = config.get("env_cfg.dist_cfg")
    if dist_cfg is None or not isinstance(dist_cfg.value, dict) or "timeout" in dist_cfg.value:
        return None
    inside = config.source.before_closing(dist_cfg.span)  # before the ')' of dict(...) or the '}'
    if inside is None:
        return None
    place, bracket = inside
    text = f", timeout={seconds}" if bracket == ")" else f', "timeout": {seconds}'
    edit = Edit(place, text)
    return Fix((edit,), Applicability.SAFE, f"set env_cfg.dist_cfg.timeout={seconds}")
