"""DataLoader workers of every rank on a node against the node's CPUs, for a plain launch.

## What it does
For a training script whose toolkit has no loader rule of its own (a torchrun, `deepspeed` or
`accelerate launch` of a Hugging Face Trainer or any other script), checks
`ranks_per_node x workers <= usable CPUs` on the training node's profile. The workers are the
script's own flag: `--dataloader_num_workers` (Hugging Face `TrainingArguments`),
`--num-workers` (Megatron), `--num_workers`, `--workers`, when the training script (read with
`ast`) hands that value to a DataLoader (`num_workers=args.num_workers`, or
`HfArgumentParser` for `--dataloader_num_workers`), or a module of the repository it imports
does (a wrapper: LLaVA's `llava/train/train_mem.py` is `from llava.train.train import train;
train()`, and `llava/train/train.py` builds the parser; a module launch, `-m llava.train.train_mem`,
is that file, its imports found from the folder holding `llava`); an info with that condition when the
script is not found; nothing when it parses the flag and never passes it on. A job whose Slurm script or
Kubernetes manifest states its CPUs is judged against those instead (RL953, RL962).

## Why is this bad
Each rank builds its own DataLoader with that many worker processes. When they outnumber the
cores, workers and training processes share them: steps slow down unevenly across ranks, and
collectives wait on the slowest rank (the same formula as WeNet's RL102 and XTuner's RL807).
X-PLUG/mPLUG-Owl's v1 `train_it.sh` passes `--num-workers 32` to 8 ranks, but its
`pipeline/train.py` builds `TrainingArguments` without it: no finding there.

## Example
`torchrun --nproc_per_node 8 train.py --dataloader_num_workers 16` on a 64-CPU node: 8 x 16 =
128 workers on 64 CPUs.

## Fix
Sets the workers to `usable_cpus // ranks_per_node` (never below 1; tuner.loader_worker_cap).

## Fix safety
Safe: only the worker count changes, by the stated formula.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.model import setting_source
from recipelint.rulekit import oversubscribed
from recipelint.rulekit.allocated import worker_setting
from recipelint.rulekit.unknown_fact import hardware_unknown
from recipelint.rulekit.workers import plan as workers_plan

CODE = "RL506"
NAME = "launch-workers-cpus"
SEVERITY = Severity.WARNING
VISITS = ("launch",)
FIXABLE = True
SOURCE = (
    "formula ranks_per_node x num_workers <= usable CPUs (recipelint/tuner.py loader_worker_cap, docs/tuner.md); "
    "one DataLoader per rank: Hugging Face TrainingArguments.dataloader_num_workers "
    "(https://huggingface.co/docs/transformers/main_classes/trainer)"
)
# WeNet and XTuner judge their workers against the same CPUs themselves (RL102, RL807).
TOOLKITS = ("torch", "deepspeed")
FACTS = ("cpus",)


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    recipe = ctx.recipe
    setting = worker_setting(ctx)
    workers = setting.as_int() if setting is not None else None
    if recipe.launch is None or setting is None or workers is None or workers < 1:
        return
    if recipe.allocation is not None and recipe.allocation.get("cpus") is not None:
        return  # the job states its CPUs: RL953/RL962 judge against them
    # a config key is found where the script hands it to its DataLoader: it reaches it
    reaches = workers_plan(ctx).reaches
    if reaches is False:
        return  # the script parses the flag and never hands it to a DataLoader
    cpus = ctx.fact("cpus")
    if not cpus.known:
        yield hardware_unknown(ctx, CODE, "cpus", setting)
        return
    ranks = ctx.ranks_per_node
    if ranks is None or not isinstance(cpus.value, int):
        return
    cap = workers_plan(ctx).cap
    if cap is None or workers <= cap:
        return
    unsure = "" if reaches else f"; if the training script hands --{setting.name} to its DataLoader (the script was not found to read)"
    yield ctx.diagnostic(
        CODE,
        SEVERITY if reaches else Severity.INFO,
        oversubscribed(ranks, workers, cpus.value) + unsure,
        setting.span,
        setting=setting.name,
        current=workers,
        suggested=cap,
        evidence=[
            *([f"workers: {setting_source(setting)}"] if setting.origin is not None else []),  # a config key: which and why
            cpus.cite("cpus"),
            ctx.ranks_evidence,
            "formula: ranks_per_node x num_workers <= usable CPUs",
        ],
        fix=workers_plan(ctx).fix(),
    )
