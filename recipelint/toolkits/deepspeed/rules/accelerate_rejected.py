"""An `accelerate launch` whose Accelerate config and DeepSpeed JSON accelerate refuses together.

## What it does
For an `accelerate launch` that uses DeepSpeed with a JSON (`deepspeed_config_file` in the
Accelerate config's `deepspeed_config`, or `--deepspeed_config_file`), flags what accelerate's
`DeepSpeedPlugin` raises on when the training script builds its `Accelerator`
(huggingface/accelerate@16cb6eb8:src/accelerate/utils/dataclasses.py, since v0.16.0). The same
checks run when the launch's Accelerate config uses DeepSpeed without a JSON of its own and the
training script hands the Hugging Face Trainer `--deepspeed ds.json`: `TrainingArguments.__post_init__`
builds `DeepSpeedPlugin(hf_ds_config=...)` from that JSON (huggingface/transformers@v4.46.3:
src/transformers/training_args.py; every release from 4.30.2 to 5.24.0), and accelerate launch has
passed the config's `deepspeed_config` keys in `ACCELERATE_CONFIG_DS_FIELDS`
(huggingface/accelerate@v1.10.1:src/accelerate/commands/launch.py, `launch_command`):

- a key of the Accelerate config's `deepspeed_config` that the JSON must hold instead
  (`gradient_accumulation_steps`, `gradient_clipping`, `zero_stage`, `offload_optimizer_device`,
  `offload_param_device`, `offload_optimizer_nvme_path`, `offload_param_nvme_path`,
  `zero3_save_16bit_model`), or a top-level `mixed_precision` when `--mixed_precision` is not
  on the command line (`_deepspeed_config_checks`: "When using `deepspeed_config_file`, the
  following accelerate config variables will be ignored");
- `--mixed_precision fp16` (or `bf16`/`fp8`) while the JSON enables the other half precision
  (`set_mixed_precision`: "`--mixed_precision` arg cannot be set to `bf16` when `fp16` is set in
  the DeepSpeed config file.");
- a JSON without `zero_optimization` ("Please specify the ZeRO optimization config in the
  DeepSpeed config.").

## Why is this bad
Each is a ValueError in every process at start-up, after the job has its GPUs. Even
`mixed_precision: 'no'` counts: accelerate passes every `mixed_precision` it read from the config
file to the check (`launch.py`: `mp_from_config_flag`).

## Severity
Error: accelerate's `DeepSpeedPlugin` raises ValueError in every process when the training
script builds its `Accelerator`, before the first step
(huggingface/accelerate@16cb6eb8:src/accelerate/utils/dataclasses.py, every release since
v0.16.0).

## Example
```yaml
# accelerate config
distributed_type: DEEPSPEED
mixed_precision: bf16
deepspeed_config:
  deepspeed_config_file: ds_zero3.json
  zero_stage: 3
```

## Fix
None: move the value into the DeepSpeed JSON (or set it there to "auto") and delete it from the
Accelerate config; pick one precision.

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.parse.tree import Document
from recipelint.toolkits.accelerate import config_of, launch_options, uses_file

CODE = "RL424"
NAME = "accelerate-deepspeed-rejected"
SEVERITY = Severity.ERROR
VISITS = ("recipe",)
FIXABLE = False
SOURCE = "huggingface/accelerate@16cb6eb8:src/accelerate/utils/dataclasses.py (DeepSpeedPlugin), commands/launch.py"

# DeepSpeedPlugin._deepspeed_config_checks: the accelerate config keys a deepspeed_config_file replaces
REPLACED = (
    "gradient_accumulation_steps",
    "gradient_clipping",
    "zero_stage",
    "offload_optimizer_device",
    "offload_param_device",
    "offload_param_nvme_path",
    "offload_optimizer_nvme_path",
    "zero3_save_16bit_model",
)
_ERROR = "ValueError: When using `deepspeed_config_file`, the following accelerate config variables will be ignored"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    recipe = ctx.recipe
    launch = recipe.launch
    # accelerate's DeepSpeedPlugin raises these at start whatever the script runs (a Trainer too):
    # an `accelerate launch`, or an Accelerate config checked alone
    under_accelerate = launch.launcher == "accelerate" if launch is not None else config_of(recipe) is not None
    if not under_accelerate:
        return
    found, switches = launch_options(launch) if launch is not None else ({}, set())
    config = config_of(recipe)
    # the JSON accelerate's DeepSpeedPlugin reads: its own flag, or the config file's entry (a
    # training script's `--deepspeed x.json` is the script's business, not accelerate launch's)
    through = "a DeepSpeed config file"
    if "deepspeed_config_file" not in found and uses_file(config, switches) is None:
        trainer = _trainer_json(ctx)
        if trainer is None:
            return
        through = f"the Trainer's --deepspeed {trainer} (TrainingArguments builds DeepSpeedPlugin(hf_ds_config=...))"
    if config is not None:
        yield from _replaced(ctx, config, "mixed_precision" in found, launch is not None, through)
    ds = recipe.ds_config
    if ds is None or ds.root.kind != "map":
        return
    yield from _precision(ctx, ds, found.get("mixed_precision"))
    if "zero_optimization" not in ds.root.entries:
        yield ctx.diagnostic(
            CODE,
            SEVERITY,
            f"{ds.path.name} has no zero_optimization block: accelerate raises "
            "'Please specify the ZeRO optimization config in the DeepSpeed config.' at start",
            ds.root.span,
            setting="zero_optimization",
        )


def _trainer_json(ctx: Context) -> str | None:
    """The JSON a DeepSpeed `accelerate launch` hands the Trainer as `--deepspeed` (a script whose
    HfArgumentParser receives TrainingArguments); None otherwise."""
    from recipelint import hftrainer
    from recipelint.toolkits.accelerate import launches_deepspeed

    if not launches_deepspeed(ctx.recipe) or hftrainer.trainer_parser(ctx.recipe.hf_args) is None:
        return None
    given = [f for f in hftrainer.launch_flags(ctx.recipe) or [] if f.option == "--deepspeed" and f.value is not None]
    return given[-1].value.text if given and given[-1].value is not None else None


def _replaced(ctx: Context, config: Document, precision_on_command: bool, launched: bool, through: str) -> Iterator[Diagnostic | None]:
    block = config.root.get("deepspeed_config")
    keys = [key for key in REPLACED if block is not None and block.kind == "map" and key in block.entries]
    if block is not None and keys:
        keys.sort(key=lambda key: block.entries[key].span.start)
        first = keys[0]
        written = ", ".join(f"{key} {_text(block.entries[key].value)}" for key in keys)
        yield ctx.diagnostic(
            CODE,
            SEVERITY,
            f"deepspeed_config in {config.path.name} sets {written} beside {through}: accelerate stops at start "
            f"({_ERROR}); set them in the JSON instead",
            block.key_span(first) or block.entries[first].span,
            setting=f"deepspeed_config.{first}",
            current=written,
            evidence=[f"{config.path.name}:{block.entries[key].span.line}: {key}" for key in keys],
        )
    precision = config.root.get("mixed_precision")
    if precision is not None and precision.value is not None and not precision_on_command:
        yield ctx.diagnostic(
            CODE,
            SEVERITY,
            f"mixed_precision {precision.value} in {config.path.name} beside {through}: accelerate stops at start "
            f"({_ERROR}){'' if launched else ' unless the launch passes --mixed_precision'}; "
            "set fp16/bf16 in the JSON, or pass --mixed_precision on the command line",
            config.root.key_span("mixed_precision") or precision.span,
            setting="mixed_precision",
            current=precision.value,
        )


def _precision(ctx: Context, ds: Document, word: object) -> Iterator[Diagnostic | None]:
    """`--mixed_precision X` against the JSON's other half precision (set_mixed_precision reads
    `enabled` as text: true, "true", "True")."""
    from recipelint.parse.shell import Word

    if not isinstance(word, Word) or word.value not in ("fp16", "bf16", "fp8"):
        return
    other = "bf16" if word.value == "fp16" else "fp16"
    node = ds.root.get(f"{other}.enabled")
    if node is None or str(node.value).lower() != "true":
        return
    yield ctx.diagnostic(
        CODE,
        SEVERITY,
        f"--mixed_precision {word.value} while {ds.path.name} enables {other}: accelerate stops at start "
        f"(ValueError: `--mixed_precision` arg cannot be set to `{word.value}` when `{other}` is set in the DeepSpeed config file.)",
        word.span,
        setting="mixed_precision",
        current=word.value,
        evidence=[f"{node.span.path.name}:{node.span.line}: {other}.enabled {_text(node.value)}"],
    )


def _text(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)
