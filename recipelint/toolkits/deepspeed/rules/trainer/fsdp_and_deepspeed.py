"""A Hugging Face Trainer launch asks for FSDP and DeepSpeed together.

## What it does
Reports a launch whose training script runs the Trainer (its HfArgumentParser read) with both
`--fsdp <options>` (not empty) and `--deepspeed <config>`.

## Why is this bad
`Trainer.__init__` raises `ValueError: Using --fsdp xxx together with --deepspeed is not possible,
deactivate one of those flags.` (huggingface/transformers@v4.46.3:src/transformers/trainer.py; the
same test in every release from 4.30.2 to 5.24.0): every rank stops before training.

## Example
`torchrun ... train.py --fsdp "full_shard auto_wrap" --deepspeed ds_config.json`.

## Fix
None offered: which of the two sharding engines the run should use is the author's choice.

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint import versions
from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.toolkits.deepspeed.rules.trainer._values import arg

CODE = "RL471"
NAME = "trainer-fsdp-with-deepspeed"
SEVERITY = Severity.ERROR
VISITS = ("recipe",)
FIXABLE = False
SOURCE = "huggingface/transformers@v4.46.3:src/transformers/trainer.py (Trainer.__init__: 'Using --fsdp xxx together with --deepspeed is not possible')"
TOOLKITS = ("deepspeed",)


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    read = ctx.recipe.hf_args
    if read is None or read.parser is None or not any(c.extends_trainer for c in read.parser.classes):
        return
    newest = versions.parse("99")
    fsdp, deepspeed = arg(ctx, "fsdp", newest), arg(ctx, "deepspeed", newest)
    if fsdp is None or deepspeed is None or not fsdp.source.startswith("flag ") or not deepspeed.source.startswith("flag "):
        return
    if not isinstance(fsdp.value, str) or not fsdp.value.strip() or deepspeed.value in (None, ""):
        return
    yield ctx.diagnostic(
        CODE,
        SEVERITY,
        f"--fsdp {fsdp.value} and --deepspeed {deepspeed.value} together: Trainer.__init__ raises 'Using --fsdp xxx together "
        "with --deepspeed is not possible, deactivate one of those flags.'",
        fsdp.span,
        setting="fsdp",
        current=fsdp.value,
        evidence=[f"fsdp: {fsdp.source}", f"deepspeed: {deepspeed.source}", f"parser: {read.parser.where}"],
    )
