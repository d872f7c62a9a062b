"""A `type=bool` flag given "False", which argparse reads as True.

## What it does
Flags `--use_lora`, `--only_optimize_lora`, `--lora_reinit`, `--fsdp_cpu_offload` and
`--fsdp_sync_module_states` given a value such as "False", "false", "0" or "no".

## Why is this bad
These flags are declared `type=bool` (in the checkout's train.py when recipelint finds one,
else at WeNet HEAD), and `bool("False")` is True: any non-empty string
turns the feature on (wenet-e2e/wenet@01546996:wenet/bin/train.py). `--use_lora False` trains with LoRA.

## Example
```sh
python wenet/bin/train.py --use_lora False
```

## Fix
Removes the flag and its value when the default is False.

## Fix safety
Unsafe: the run's behaviour changes (the feature is turned off, as written).
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Applicability, Diagnostic, Edit, Fix, Severity
from recipelint.parse.span import Span
from recipelint.toolkits.wenet.frontend import train_flags

CODE = "RL602"
NAME = "bool-flag-false"
SEVERITY = Severity.ERROR
VISITS = ("recipe",)
FIXABLE = True
SOURCE = "wenet-e2e/wenet@01546996:wenet/bin/train.py: argparse type=bool treats any non-empty string as True; the type from the checkout's train.py when there is one"
FALSY = {"false", "0", "no", "off", "n"}


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    recipe = ctx.recipe
    flags, source = train_flags(recipe)
    for name, flag in (flags or {}).items():
        setting = recipe.args.get(name)
        if flag.kind != "bool" or setting is None or not setting.given or not isinstance(setting.value, str):
            continue
        if setting.value.strip().lower() not in FALSY:
            continue
        fix = None
        flag_word = _flag_word(ctx, name)
        if flag.default is False and flag_word is not None and setting.span is not None:
            removal = flag_word.to(setting.span)
            fix = Fix((Edit(removal, ""),), Applicability.UNSAFE, f"remove --{name} {setting.value}")
        default = "off" if flag.default is False else "on, and cannot be turned off from the command line"
        yield ctx.diagnostic(
            CODE,
            SEVERITY,
            f"--{name} {setting.value} turns the option ON: train.py declares it type=bool and bool('{setting.value}') is True (default: {default})",
            setting.span,
            setting=name,
            current=setting.value,
            suggested=None,
            evidence=[f"flags from {source}"],
            fix=fix,
        )


def _flag_word(ctx: Context, name: str) -> Span | None:
    launch = ctx.recipe.launch
    if launch is None:
        return None
    for word in launch.command.words:
        if (word.value or word.text) == f"--{name}":
            return word.span
    return None
