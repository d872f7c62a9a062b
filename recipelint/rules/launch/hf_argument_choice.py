"""A launch gives a TrainingArguments flag a value outside the choices the release's HfArgumentParser allows.

## What it does
For a script whose `HfArgumentParser` (or trl's `TrlParser`) receives TrainingArguments (or a class
that extends it), reads each `--flag value` after the training script whose field has choices in
the transformers release: an Enum annotation (`Union[SchedulerType, str]`: `--lr_scheduler_type`,
`--optim`, `--save_strategy`, `--eval_strategy`, `--logging_strategy`, `--hub_strategy`) or a
`choices` list in the field's metadata (`--ddp_backend`, `--half_precision_backend`). The choices
of each release come from schemas/transformers/training_args.json (tools/build_training_args.py).
A field the script's own dataclass declares again (`optim: str = "adamw_torch"`) has no choices;
a list-typed field (`--fsdp`) is parsed as text and is not judged; a value decided at run time is
not judged.

## Why is this bad
`HfArgumentParser._parse_dataclass_field` (huggingface/transformers@v4.46.3:src/transformers/hf_argparser.py)
gives argparse `choices=[x.value for x in Enum]`: any other value stops every rank at start-up
with `error: argument --lr_scheduler_type: invalid choice: 'cosine_with_min_lr' (choose from ...)`.
A value added in a newer release (`cosine_with_min_lr` in 4.40, `warmup_stable_decay` in 4.41,
`best` for `--save_strategy` in 4.47) fails on an older pin; one removed fails on a newer one.

## Severity
Error when no release of the range accepts the value; a warning naming the releases when some do not.

## Example
`--lr_scheduler_type cosine_with_min_lr` with `transformers==4.38.2`.

## Fix
None offered: which schedule, optimizer or strategy the run should use is the author's choice.

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from typing import TYPE_CHECKING

from recipelint import trainingargs, versions
from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity

if TYPE_CHECKING:  # a WeNet check imports this family's modules: no Python reader at import
    from recipelint.hftrainer import Flag
    from recipelint.parse.hfparser import Parser

CODE = "RL532"
NAME = "hf-argument-choice"
SEVERITY = Severity.ERROR
VISITS = ("recipe",)
FIXABLE = False
SOURCE = (
    "huggingface/transformers@v4.46.3:src/transformers/hf_argparser.py (_parse_dataclass_field: choices of an Enum field); "
    "the choices by release: schemas/transformers/training_args.json (tools/build_training_args.py)"
)
TOOLKITS = ("torch", "deepspeed")


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    read = ctx.recipe.hf_args
    parser = read.parser if read is not None else None
    if parser is None or not any(cls.extends_trainer for cls in parser.classes) or any(cls.base == "unknown" for cls in parser.classes):
        return  # a dataclass recipelint cannot read may declare the field again, without choices
    from recipelint import hftrainer

    rng = ctx.version_range("transformers")
    for flag in hftrainer.launch_flags(ctx.recipe) or []:
        value = flag.value.value if flag.value is not None else None
        if flag.conditional or value is None:
            continue
        refused = partial(_refuses, parser, flag.option, value)
        verdict = versions.evaluate(rng, partial(_refused, parser, flag.option, value), trainingargs.boundaries())
        if verdict.holds != "none":
            # the choices of the newest release of the range that refuses the value
            choices = next((c for c in map(refused, reversed(trainingargs.points(rng))) if c is not None), ())
            yield _finding(ctx, parser, flag, value, choices, verdict)


def _refused(parser: Parser, option: str, value: str, version: versions.Version) -> bool:
    return _refuses(parser, option, value, version) is not None


def _refuses(parser: Parser, option: str, value: str, version: versions.Version) -> tuple[str, ...] | None:
    """The release's choices for the flag's field when they exclude `value`; None when the value is
    accepted, the field has no choices, or the release has no such field (RL530's verdict)."""
    from recipelint.hftrainer import parser_fields

    fields, _ = parser_fields(parser, version)
    name = trainingargs.accepted(option, trainingargs.options(fields, version))
    spec = fields.get(name) if name is not None else None
    if spec is None or spec.choices is None or "list[" in spec.type.lower():
        return None  # a list-typed field (fsdp) is parsed as text by HfArgumentParser
    return spec.choices if value not in spec.choices else None


def _finding(
    ctx: Context, parser: Parser, flag: Flag, value: str, choices: tuple[str, ...], verdict: versions.Verdict
) -> Diagnostic | None:
    severity = Severity.ERROR if verdict.holds == "all" else Severity.WARNING
    when = f"with {verdict.condition}" if verdict.holds == "some" else "in any release the run may install"
    message = (
        f"{flag.option} {value} is not one of the choices HfArgumentParser gives {flag.option} {when}: argparse stops at "
        f"start-up with 'error: argument {flag.option}: invalid choice: {value!r}'"
    )
    evidence = [
        f"choices: {', '.join(choices)}",
        f"parser: {parser.where}",
        f"transformers: {ctx.version_range('transformers').allows()}",
    ]
    span = flag.value.span if flag.value is not None else flag.word.span
    return ctx.diagnostic(CODE, severity, message, span, setting=flag.option.lstrip("-"), current=value, evidence=evidence)
