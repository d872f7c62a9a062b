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
train()`, and `llava/train/train.py` builds the parser); an info with that condition when the
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

from recipelint import tuner
from recipelint.context import Context
from recipelint.diagnostics import Applicability, Diagnostic, Fix, Severity
from recipelint.rulekit import oversubscribed
from recipelint.rulekit.allocated import worker_setting
from recipelint.rulekit.unknown_fact import hardware_unknown

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
WRAPPER_LEVELS = 6  # folders above the launched script searched for the modules it imports
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
    reaches = _reaches(ctx, setting.name) if any(s is setting for s in recipe.args.values()) else True
    if reaches is False:
        return  # the script parses the flag and never hands it to a DataLoader
    cpus = ctx.fact("cpus")
    if not cpus.known:
        yield hardware_unknown(ctx, CODE, "cpus", setting)
        return
    ranks = ctx.ranks_per_node
    if ranks is None or not isinstance(cpus.value, int):
        return
    cap = tuner.loader_worker_cap(cpus.value, ranks)
    if workers <= cap:
        return
    edit = ctx.set_value(setting, str(cap)) if setting.given else None
    unsure = "" if reaches else f"; if the training script hands --{setting.name} to its DataLoader (the script was not found to read)"
    yield ctx.diagnostic(
        CODE,
        SEVERITY if reaches else Severity.INFO,
        oversubscribed(ranks, workers, cpus.value) + unsure,
        setting.span,
        setting=setting.name,
        current=workers,
        suggested=cap,
        evidence=[cpus.cite("cpus"), ctx.ranks_evidence, "formula: ranks_per_node x num_workers <= usable CPUs"],
        fix=Fix((edit,), Applicability.SAFE, f"set {setting.name} {cap}") if edit is not None else None,
    )


def _reaches(ctx: Context, flag: str) -> bool | None:
    """Whether the launched training script hands the flag's value to a DataLoader (read with
    ast); None when the script is not found."""
    from recipelint.parse import pycode

    launch = ctx.recipe.launch
    script = launch.script.value if launch is not None else None
    path = ctx.recipe.locate(script)[0] if isinstance(script, str) and script.endswith(".py") else None
    parsed = pycode.parse_python(path) if path is not None else None
    if parsed is None or path is None:
        return None
    # A wrapper (LLaVA's train_mem.py: `from llava.train.train import train; train()`) runs the
    # code of the module it imports: that module's parser and DataLoader decide.
    roots = list(path.resolve().parents)[:WRAPPER_LEVELS]
    files = pycode.script_closure(parsed, roots)
    if any(pycode.workers_reach(file, flag.replace("-", "_")) for file in files):
        return True
    # No code read parses the command line: the parser is in a module not found here.
    return False if any(pycode.parses_arguments(file) for file in files) else None
