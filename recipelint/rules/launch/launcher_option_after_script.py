"""A launcher's own option written after the training script, where the script gets it.

## What it does
Finds an option only the launcher reads (`--num_processes` of `accelerate launch`,
`--nproc_per_node` of torchrun, `--num_gpus` of `deepspeed`, ...) written after the training
script, and reads the script (with `ast`) for how it parses its arguments.

## Why is this bad
Everything after the training script is the script's: `accelerate launch` keeps it as
`training_script_args` (`argparse.REMAINDER`), torchrun and the deepspeed launcher hand it over
as they find it. The launcher runs with its default instead, and the script gets an option it
does not define: argparse's `parse_args()` stops with "error: unrecognized arguments", and
Hugging Face's `HfArgumentParser.parse_args_into_dataclasses()` (TRL's `TrlParser` too) raises
"Some specified arguments are not used by the HfArgumentParser". An error where the script parses
that way; a warning where the script's parser is not known (not found, or not one of these);
quiet where it takes unknown arguments (`parse_known_args`, `return_remaining_strings=True`) or
defines the option itself.

## Example
```sh
accelerate launch --config_file zero2.yaml train.py --config x.yaml --num_processes 8
```

## Fix
None: move the option before the training script.

## Fix safety
No fix.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.parse.shell import Word

CODE = "RL509"
NAME = "launcher-option-after-script"
SEVERITY = Severity.ERROR
VISITS = ("launch",)
FIXABLE = False
SOURCE = (
    "huggingface/accelerate@v1.15.0:src/accelerate/commands/launch.py (training_script_args, nargs=argparse.REMAINDER); "
    "huggingface/transformers@v5.24.0:src/transformers/hf_argparser.py (parse_args_into_dataclasses: "
    "'Some specified arguments are not used by the HfArgumentParser'); https://docs.python.org/3/library/argparse.html#partial-parsing"
)
_TORCH = frozenset(
    {"nproc_per_node", "nnodes", "node_rank", "master_addr", "master_port", "rdzv_endpoint", "rdzv_backend", "rdzv_id", "standalone"}
)
# Options only the launcher reads: none is a field of transformers' TrainingArguments, which a
# Hugging Face script parses (accelerate's --gradient_accumulation_steps is one, so it is not here).
LAUNCHER_ONLY: dict[str, frozenset[str]] = {
    "torchrun": _TORCH,
    "torch.distributed.launch": _TORCH,
    "accelerate": frozenset(
        {"num_processes", "num_machines", "machine_rank", "main_process_ip", "main_process_port", "config_file", "multi_gpu"}
    ),
    "deepspeed": frozenset({"num_gpus", "num_nodes", "include", "exclude", "hostfile", "master_addr", "master_port"}),
}
# How a script parses its arguments, by the method it calls: True rejects an unknown one.
_STRICT = {"parse_args": True, "parse_args_into_dataclasses": True, "parse_args_and_config": True, "parse_known_args": False}


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    launch = ctx.recipe.launch
    own = LAUNCHER_ONLY.get(launch.launcher) if launch is not None else None
    if launch is None or own is None:
        return
    words = launch.command.words
    start = next((i for i, word in enumerate(words) if word is launch.script), None)
    misplaced = [(word, name) for word in words[start + 1 :] if (name := _long_name(word)) in own] if start is not None else []
    if not misplaced:
        return
    strict, how, text = _parser(ctx, launch.script)
    program = launch.script.value or launch.script.text
    for word, name in misplaced:
        if strict is False or (text is not None and _defines(text, name)):
            continue
        outcome = how if strict else f"if {program} rejects arguments it does not define ({how}), it stops at start-up"
        yield ctx.diagnostic(
            CODE,
            SEVERITY if strict else Severity.WARNING,
            f"--{name} is {launch.launcher}'s option but comes after the training script {program}, so {program} gets it and "
            f"{launch.launcher} runs with its default: {outcome}; move it before {program}",
            word.span,
            setting=name,
            evidence=[f"training script {program} at line {launch.script.span.line}"],
        )


def _long_name(word: Word) -> str | None:
    text = word.option[0] if word.option is not None else (word.value or "")
    return text[2:].replace("-", "_") if text.startswith("--") else None


def _parser(ctx: Context, script: Word) -> tuple[bool | None, str, str | None]:
    """(whether the training script rejects unknown arguments, how, its text); None: not known."""
    from recipelint.parse import pycode

    path = ctx.recipe.locate(script.value)[0] if script.value is not None and script.value.endswith(".py") else None
    parsed = pycode.parse_python(path) if path is not None else None
    if parsed is None:
        return None, "the script was not found to read", None
    strict: bool | None = None
    how = "its parser is not one recipelint reads"
    for call in parsed.calls:
        method = call.func.attr if isinstance(call.func, ast.Attribute) else None
        if method not in _STRICT:
            continue
        remaining = any(k.arg == "return_remaining_strings" and isinstance(k.value, ast.Constant) and k.value.value for k in call.keywords)
        if not _STRICT[method] or remaining:
            return False, f"{method} takes unknown arguments", parsed.source.text
        strict = True
        how = (
            "argparse stops at start-up (error: unrecognized arguments)"
            if method == "parse_args"
            else f"{method} raises ValueError (Some specified arguments are not used by the HfArgumentParser)"
        )
    return strict, how, parsed.source.text


def _defines(text: str, name: str) -> bool:
    """The script defines the option itself: `--name` in an add_argument, or a dataclass field `name:`."""
    return any(
        form in text
        for form in (f"'--{name}'", f'"--{name}"', f"'--{name.replace('_', '-')}'", f'"--{name.replace("_", "-")}"', f" {name}:")
    )
