"""An Accelerate config's inline `deepspeed_config` sets a value the Hugging Face Trainer refuses
because it differs from TrainingArguments.

## What it does
For `accelerate launch --config_file x.yaml train.py ...` with `distributed_type: DEEPSPEED` and
no `deepspeed_config_file`, accelerate builds the DeepSpeed config itself
(`DeepSpeedPlugin.__post_init__`, huggingface/accelerate@v1.10.1:src/accelerate/utils/dataclasses.py):
`gradient_accumulation_steps` and `gradient_clipping` come from the YAML's `deepspeed_config`
(`accelerate launch` passes them as `ACCELERATE_GRADIENT_ACCUMULATION_STEPS` and
`ACCELERATE_GRADIENT_CLIPPING`, src/accelerate/utils/launch.py), the batch sizes are "auto". A
training script that runs the Trainer then hands that config to `HfTrainerDeepSpeedConfig`
(`Trainer.propagate_args_to_deepspeed`, huggingface/transformers@v4.46.3:src/transformers/trainer.py)
and compares each value with TrainingArguments, as for a JSON (RL460). Judged when the YAML gives
the value; an unset `gradient_accumulation_steps` is 1 in older accelerate releases (0.21.0) and
"auto" in newer ones (1.10.1), which recipelint does not judge.

## Why is this bad
`trainer_config_finalize` raises `ValueError: Please correct the following DeepSpeed config values
that mismatch TrainingArguments values: - ds gradient_accumulation_steps=4 vs hf
gradient_accumulation_steps=2` before the first step (hiyouga/LlamaFactory#201).

## Severity
Error when the values differ in every transformers release of the range the run installs; a warning
naming the releases when in some only.

## Example
`deepspeed_config: {gradient_accumulation_steps: 4}` with `--gradient_accumulation_steps 2`.

## Fix
Sets the YAML's value to the Trainer's.

## Fix safety
Safe: the run cannot start as written, and the value becomes the one the launch states.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint import trainingargs, versions
from recipelint.context import Context
from recipelint.diagnostics import Applicability, Diagnostic, Edit, Fix, Severity
from recipelint.hftrainer import Value
from recipelint.parse.tree import Node
from recipelint.toolkits.accelerate import deepspeed_file, launches_deepspeed
from recipelint.toolkits.deepspeed.rules.trainer._values import arg

CODE = "RL461"
NAME = "trainer-accelerate-deepspeed-mismatch"
SEVERITY = Severity.ERROR
VISITS = ("recipe",)
FIXABLE = True
SOURCE = (
    "huggingface/accelerate@v1.10.1:src/accelerate/utils/dataclasses.py (DeepSpeedPlugin.__post_init__) and "
    "src/accelerate/utils/launch.py; huggingface/transformers@v4.46.3:src/transformers/trainer.py "
    "(propagate_args_to_deepspeed) and src/transformers/integrations/deepspeed.py (fill_match); "
    "https://github.com/hiyouga/LlamaFactory/issues/201"
)
# The YAML key -> (the Trainer's field, the name its error prints, how accelerate converts the value)
KEYS: dict[str, tuple[str, str, type[int] | type[float]]] = {
    "gradient_accumulation_steps": ("gradient_accumulation_steps", "gradient_accumulation_steps", int),
    "gradient_clipping": ("max_grad_norm", "max_grad_norm", float),
}


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    recipe = ctx.recipe
    read = recipe.hf_args
    parser = read.parser if read is not None else None
    if parser is None or not any(c.extends_trainer for c in parser.classes):
        return
    if not launches_deepspeed(recipe) or deepspeed_file(recipe) is not None or recipe.ds_config is not None:
        return
    config = recipe.launch.config if recipe.launch is not None else None
    if config is None:
        return
    for key in KEYS:
        node = config.root.get(f"deepspeed_config.{key}")
        if node is None or node.kind != "scalar" or isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
            continue
        yield _judge(ctx, key, node, parser.where)


def _judge(ctx: Context, key: str, node: Node, where: str) -> Diagnostic | None:
    name, label, kind = KEYS[key]
    ds_value = kind(node.value)
    sides: dict[versions.Version, Value | None] = {}

    def differs(version: versions.Version) -> bool:
        side = sides.setdefault(version, arg(ctx, name, trainingargs.clamp(version)))
        return side is not None and side.value is not None and ds_value != side.value

    verdict = versions.evaluate(ctx.version_range("transformers"), differs, trainingargs.boundaries())
    side = next((s for s in sides.values() if s is not None and s.value is not None and s.value != ds_value), None)
    if verdict.holds == "none" or side is None:
        return None
    hf = side.value
    when = f" with {verdict.condition}" if verdict.holds == "some" else ""
    message = (
        f"deepspeed_config.{key} {node.value} in the Accelerate config but the Trainer's {label} is {hf}{when}: the Trainer compares "
        f"the config accelerate builds and trainer_config_finalize raises 'Please correct the following DeepSpeed config values that "
        f"mismatch TrainingArguments values: - ds {key}={ds_value} vs hf {label}={hf}' before the first step"
    )
    evidence = [f"hf {label}: {side.source}", f"transformers: {verdict.range.allows()}", f"parser: {where}"]
    fix = Fix((Edit(node.span, str(hf)),), Applicability.SAFE, f"set deepspeed_config.{key} to {hf}")
    severity = Severity.ERROR if verdict.holds == "all" else Severity.WARNING
    return ctx.diagnostic(CODE, severity, message, node.span, setting=key, current=node.value, suggested=hf, evidence=evidence, fix=fix)
