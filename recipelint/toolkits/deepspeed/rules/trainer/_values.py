"""What the Trainer rules share: the Trainer's value of each key `fill_match` compares."""

from __future__ import annotations

import math

from recipelint import hftrainer, trainingargs, versions
from recipelint.context import Context
from recipelint.records import dataclass


@dataclass(frozen=True)
class HfValue:
    """The Trainer's side of one comparison in one release: its value (None: unknown) and why."""

    value: object
    label: str  # as the Trainer's error prints it: "per_device_train_batch_size"
    source: str


def trainer_reads(ctx: Context) -> bool:
    """The JSON's consumer is the Hugging Face Trainer, seen in the training code (not inferred
    from the flag alone), and the script's TrainingArguments were read."""
    consumer = ctx.recipe.reader
    read = ctx.recipe.hf_args
    built = hftrainer.trainer_parser(read) is not None or (read is not None and bool(read.calls))
    return consumer.kind == "hf-trainer" and not consumer.inferred and built


def arg(ctx: Context, name: str, version: versions.Version) -> hftrainer.Value | None:
    return hftrainer.value_of(ctx.recipe, ctx.recipe.hf_args, name, version)


def hf_value(ctx: Context, expression: str, label: str, version: versions.Version) -> HfValue | None:
    """The Trainer's value for one `fill_match` of a release, from the expression its source
    passes (`args.per_device_train_batch_size`, `[args.adam_beta1, args.adam_beta2]`, ...); None
    for the ones that need the dataset or the model (total and warmup steps from the step count)."""
    if expression.startswith("args.") and expression[5:].isidentifier():
        found = arg(ctx, expression[5:], version)
        return HfValue(found.value, label, found.source) if found is not None else None
    if expression == "[args.adam_beta1, args.adam_beta2]":
        betas = [arg(ctx, "adam_beta1", version), arg(ctx, "adam_beta2", version)]
        if betas[0] is None or betas[1] is None or betas[0].value is None or betas[1].value is None:
            return None
        return HfValue([betas[0].value, betas[1].value], label, f"{betas[0].source}; {betas[1].source}")
    if expression == "train_batch_size":
        return _train_batch(ctx, label, version)
    if expression.lstrip("(").startswith(("args.fp16 or args.fp16_full_eval", "args.bf16 or args.bf16_full_eval")):
        return _precision(ctx, "fp16" if "fp16" in expression else "bf16", label, version)
    if expression == "num_training_steps":
        return _steps(ctx, version)
    if expression.startswith(("max(1, args.get_warmup_steps", "args.get_warmup_steps")):
        return _warmup(ctx, label, version, floor=expression.startswith("max(1"))
    return None


def _train_batch(ctx: Context, label: str, version: versions.Version) -> HfValue | None:
    world = ctx.world_size
    micro = arg(ctx, "per_device_train_batch_size", version)
    accumulation = arg(ctx, "gradient_accumulation_steps", version)
    if (
        world is None
        or micro is None
        or accumulation is None
        or not isinstance(micro.value, int)
        or not isinstance(accumulation.value, int)
    ):
        return None
    total = world * micro.value * accumulation.value
    source = f"world size {world} ({ctx.ranks_evidence}) x {micro.source} x {accumulation.source}"
    return HfValue(total, label, source)


def _precision(ctx: Context, kind: str, label: str, version: versions.Version) -> HfValue | None:
    """`fp16 or fp16_full_eval` (`bf16 ...`): the older releases also ask for the amp backend,
    which is the one used unless --half_precision_backend apex."""
    main, full = arg(ctx, kind, version), arg(ctx, f"{kind}_full_eval", version)
    if main is None or full is None or main.value is None or full.value is None:
        return None
    if kind == "fp16":
        backend = arg(ctx, "half_precision_backend", version)
        if backend is not None and backend.value == "apex":
            return None
    return HfValue(bool(main.value or full.value), label, main.source if main.value or not full.value else full.source)


def _steps(ctx: Context, version: versions.Version) -> HfValue | None:
    """`num_training_steps` as the Trainer passes it to `deepspeed_init`: `max_steps` when it is
    above 0 (`_inner_training_loop`: `if args.max_steps > 0: max_steps = args.max_steps`, every
    release read); otherwise the dataset's length decides, which is not known here."""
    found = arg(ctx, "max_steps", version)
    if found is None or not isinstance(found.value, int) or isinstance(found.value, bool) or found.value <= 0:
        return None
    return HfValue(found.value, "num_training_steps (calculated)", f"{found.source} (num_training_steps = max_steps when above 0)")


def _warmup(ctx: Context, label: str, version: versions.Version, floor: bool) -> HfValue | None:
    """`get_warmup_steps(n)`: before 5.0 `warmup_steps` when above 0, else `ceil(n x warmup_ratio)`;
    from 5.0 a `warmup_ratio` that is not None replaces `warmup_steps` (`__post_init__`; the field
    is gone in 5.15), and a value below 1 is `ceil(n x value)`. The step count n is known when
    `--max_steps` is given (_steps); otherwise only a warmup that needs no n is judged."""
    steps = arg(ctx, "warmup_steps", version)
    ratio = arg(ctx, "warmup_ratio", version)
    if steps is None or not isinstance(steps.value, (int, float)) or isinstance(steps.value, bool):
        return None
    ratio_value = ratio.value if ratio is not None else None
    if ratio is not None and ratio_value is None and ratio.given:
        return None  # a ratio only the run time knows
    if ratio is None and any(f.option == "--warmup_ratio" for f in hftrainer.launch_flags(ctx.recipe) or []):
        return None  # a release without the field stops at parsing (RL530), before any comparison
    total = _steps(ctx, version)
    if version >= (5, 0):
        by_ratio = isinstance(ratio_value, (int, float))
        share = ratio_value if isinstance(ratio_value, (int, float)) else steps.value
        whole = share >= 1
    else:
        by_ratio = steps.value <= 0
        share = steps.value if steps.value > 0 else (ratio_value or 0.0)
        whole = steps.value > 0
    sources = [steps.source] + ([ratio.source] if ratio is not None and by_ratio else [])
    if whole or share == 0:
        value = int(share)
    elif total is not None and isinstance(total.value, int):
        value = math.ceil(total.value * share)
        sources.append(total.source)
    else:
        return None
    return HfValue(max(1, value) if floor else value, label, "; ".join(sources))


def compared(version: versions.Version) -> list[tuple[str, str, str]]:
    """The (ds key, expression, label) `fill_match` compares in a release (must_match)."""
    return trainingargs.fill_match(version)
