"""A DeepSpeed JSON value the Hugging Face Trainer refuses because it differs from TrainingArguments.

## What it does
Replays `HfTrainerDeepSpeedConfig.trainer_config_process` and `trainer_config_finalize`
(huggingface/transformers@v4.46.3:src/transformers/integrations/deepspeed.py; `deepspeed.py`
before 4.33): for each key they compare with `fill_match` (the list is read from each release's
source: schemas/transformers/training_args.json), a JSON value that is not `"auto"` is compared
with the Trainer's, with Python's `!=` as the Trainer does (`"8"` differs from 8; 1.0 equals 1):

- `train_micro_batch_size_per_gpu` vs `per_device_train_batch_size`; `gradient_accumulation_steps`;
  `train_batch_size` vs world size x micro batch x accumulation; `gradient_clipping` vs `max_grad_norm`;
- `optimizer.params.lr`/`betas`/`eps`/`weight_decay` vs `learning_rate`, `[adam_beta1, adam_beta2]`,
  `adam_epsilon`, `weight_decay`; `scheduler.params.warmup_max_lr` vs `learning_rate`;
  `scheduler.params.total_num_steps` vs the step count; `scheduler.params.warmup_num_steps` vs
  `get_warmup_steps(step count)`;
- `fp16.enabled` vs `fp16 or fp16_full_eval`; `bf16.enabled` vs `bf16 or bf16_full_eval`.

The Trainer's values come from the launch's flags, the defaults of the script's own
TrainingArguments subclass, a `TrainingArguments(...)` call's literal keywords, else the default
of the transformers release (each release of the range the run installs is evaluated), and the
world size of the launch. The step count the Trainer hands `trainer_config_finalize` is `--max_steps`
when above 0 (`_inner_training_loop`); otherwise the dataset's length decides it, and
`total_num_steps` and a warmup from a ratio are not judged. The JSON reaches the Trainer through `--deepspeed` or an Accelerate
config's `deepspeed_config_file` (the Trainer then runs the same check,
`Trainer.propagate_args_to_deepspeed`). Judged only when the training code shows the Trainer
and its TrainingArguments were read.

## Why is this bad
`trainer_config_finalize` raises, before the first step, `ValueError: Please correct the following
DeepSpeed config values that mismatch TrainingArguments values: - ds train_micro_batch_size_per_gpu=1
vs hf per_device_train_batch_size=8 ... The easiest method is to set these DeepSpeed config values
to 'auto'.` Reported again and again: huggingface/transformers#24640, #29348, and the trackers of
the projects built on the Trainer.

## Severity
Error when the values differ in every release of the range; a warning naming the releases when
the Trainer's value (a default that moved) differs in some only.

## Example
`--per_device_train_batch_size 4` with `"train_micro_batch_size_per_gpu": 8` in the JSON.

## Fix
Sets the JSON value to `"auto"`: the Trainer then writes its own value in.

## Fix safety
Safe: the run cannot start as written, and `"auto"` takes the value the launch states.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from recipelint import trainingargs, versions
from recipelint.context import Context
from recipelint.diagnostics import Applicability, Diagnostic, Edit, Fix, Severity
from recipelint.parse.tree import Node
from recipelint.toolkits.deepspeed.rules._ds import ds_document
from recipelint.toolkits.deepspeed.rules.trainer._values import HfValue, compared, hf_value, trainer_reads

CODE = "RL460"
NAME = "trainer-deepspeed-mismatch"
SEVERITY = Severity.ERROR
VISITS = ("deepspeed-config",)
FIXABLE = True
SOURCE = (
    "huggingface/transformers@v4.46.3:src/transformers/integrations/deepspeed.py (HfTrainerDeepSpeedConfig.fill_match, "
    "trainer_config_process, trainer_config_finalize; the keys of each release: schemas/transformers/training_args.json); "
    "https://github.com/hendrycks/apps/issues/9"
)
TOOLKITS = ("deepspeed",)


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    doc = ds_document(ctx)
    if doc is None or not trainer_reads(ctx):
        return
    rng = ctx.version_range("transformers")
    keys = dict.fromkeys(key for version in trainingargs.points(rng) for key, _, _ in compared(version))
    for key in keys:
        node = doc.root.get(key)
        if node is None or node.kind == "map" or node.value == "auto":
            continue
        yield _judge(ctx, rng, key, node)


def _side(ctx: Context, key: str, version: versions.Version) -> HfValue | None:
    for ds_key, expression, label in compared(version):
        if ds_key == key:
            return hf_value(ctx, expression, label, version)
    return None


def _judge(ctx: Context, rng: versions.Range, key: str, node: Node) -> Diagnostic | None:
    ds_value = node.plain()
    sides: dict[versions.Version, HfValue | None] = {}

    def differs(version: versions.Version) -> bool:
        side = sides.setdefault(version, _side(ctx, key, trainingargs.clamp(version)))
        return side is not None and side.value is not None and _mismatch(ds_value, side.value)

    verdict = versions.evaluate(rng, differs, trainingargs.boundaries())
    if verdict.holds == "none":
        return None
    side = next(s for v, s in sides.items() if s is not None and s.value is not None and _mismatch(ds_value, s.value))
    line = f"- ds {key}={_show(ds_value)} vs hf {side.label}={_show(side.value)}"
    when = f" with {verdict.condition}" if verdict.holds == "some" else ""
    kind = " (a string)" if isinstance(ds_value, str) else ""
    message = (
        f"{key} is {ds_value!r}{kind} in the DeepSpeed config but the Trainer's {side.label} is {side.value!r}{when}: "
        f"trainer_config_finalize raises 'Please correct the following DeepSpeed config values that mismatch "
        f"TrainingArguments values: {line}' before the first step"
    )
    evidence = [f"hf {side.label}: {side.source}", f"transformers: {verdict.range.allows()}", f"consumer: {ctx.recipe.reader.why()}"]
    fix = Fix((Edit(node.span, '"auto"'),), Applicability.SAFE, f'set {key} to "auto"')
    severity = Severity.ERROR if verdict.holds == "all" else Severity.WARNING
    return ctx.diagnostic(CODE, severity, message, node.span, setting=key, current=ds_value, suggested="auto", evidence=evidence, fix=fix)


def _mismatch(ds_value: Any, hf: Any) -> bool:
    """fill_match: `ds_val is not None and ds_val != hf_val`, Python's comparison."""
    return ds_value is not None and bool(ds_value != hf)


def _show(value: Any) -> str:
    """As the Trainer's f-string prints it."""
    return str(value)
