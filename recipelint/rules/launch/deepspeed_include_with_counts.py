"""The deepspeed launcher given `--include`/`--exclude` and `--num_gpus`/`--num_nodes` together.

## What it does
Reads the options of a `deepspeed` launch (those before the training script) and reports
`--include`/`-i` or `--exclude`/`-e` given together with `--num_gpus` (`--num_accelerators`) or
`--num_nodes`.

## Why is this bad
DeepSpeed's runner refuses the pair before any process starts: `if args.num_nodes >= 0 or
args.num_gpus >= 0: if args.include != "" or args.exclude != "": raise ValueError("Cannot
specify num_nodes/gpus with include/exclude")` (deepspeedai/DeepSpeed@v0.19.6:
deepspeed/launcher/runner.py, `main`). Both default to -1, so any count given with a host filter
stops the launch. A filter whose value only the run time knows (`--include $HOSTS`) stops it
when that value is not empty: then the finding is a warning naming the variable.

## Example
```sh
deepspeed --include localhost:1,0 --num_gpus 2 train.py --deepspeed ds_config.json
```

## Fix
None: keep one of them. `--include localhost:0,1` alone already says which GPUs (and how many).

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.parse.shell import Word

CODE = "RL508"
NAME = "deepspeed-include-with-counts"
SEVERITY = Severity.ERROR
VISITS = ("launch",)
FIXABLE = False
SOURCE = (
    "deepspeedai/DeepSpeed@v0.19.6:deepspeed/launcher/runner.py (main: ValueError 'Cannot specify num_nodes/gpus with include/exclude')"
)
FILTERS = {"--include": "--include", "-i": "--include", "--exclude": "--exclude", "-e": "--exclude"}
COUNTS = {"--num_gpus": "--num_gpus", "--num_accelerators": "--num_gpus", "--num_nodes": "--num_nodes"}


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    launch = ctx.recipe.launch
    if launch is None or launch.launcher != "deepspeed":
        return
    words = launch.command.words
    end = next((i for i, word in enumerate(words) if word is launch.script), len(words))
    given = _options(words[1:end])
    filters = [(name, value) for name, value in given if name in FILTERS]
    counts = [(name, value) for name, value in given if name in COUNTS]
    if not filters or not counts:
        return
    (name, value), (count, number) = filters[0], counts[0]
    if value.value == "":
        return  # `--include ""`: the runner reads no filter
    known = value.value is not None
    variable = value.ref or value.text
    when = "" if known else f" when {variable} is not empty ({value.reason or 'decided at run time'})"
    yield ctx.diagnostic(
        CODE,
        SEVERITY if known else Severity.WARNING,
        f"deepspeed {FILTERS[name]} {value.value if known else value.text} with {COUNTS[count]} {number.value or number.text}: "
        f"DeepSpeed's runner stops before any process starts{when} "
        "(ValueError: Cannot specify num_nodes/gpus with include/exclude); keep one of them",
        number.span,
        setting=COUNTS[count].lstrip("-"),
        current=int(number.value) if number.value is not None and number.value.isdigit() else number.value,
        evidence=[f"{FILTERS[name]} at line {value.span.line}", f"{COUNTS[count]} at line {number.span.line}"],
    )


def _options(words: list[Word]) -> list[tuple[str, Word]]:
    """(the option's name, its value's word) for `--name value` and `--name=value`."""
    found: list[tuple[str, Word]] = []
    for index, word in enumerate(words):
        if word.option is not None:
            found.append((word.option[0], word.option[1]))
        elif (word.value or "") in {**FILTERS, **COUNTS} and index + 1 < len(words):
            found.append((word.value or "", words[index + 1]))
    return found
