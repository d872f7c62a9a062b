"""An `accelerate launch` option that accelerate does not have.

## What it does
Checks each `--option` between `accelerate launch` and the training script against the options
of accelerate's `launch_command_parser` (huggingface/accelerate@16cb6eb8:src/accelerate/commands/launch.py;
`-` and `_` both accepted), with a "did you mean" for a close one. An option an older release
had and the newer ones refuse (`--fsdp_backward_prefetch_policy` through 0.34.2, `--use_xpu`
and `--mpirun_ccl` through 1.12.0, ...) is judged against the accelerate releases the run
imports (the repository's pins, `target-versions`): quiet when all of them still have it.

## Why is this bad
The parser is built with `allow_abbrev=False`: argparse stops with "unrecognized arguments"
before any process starts, and no prefix of a real option counts. A misspelt option's value is
then taken for the training script. accelerate's own examples/README.md has
`accelerate launch --mixed_precison fp16 ./cv_example.py`.

## Severity
Error where every accelerate release the run may import refuses the option (argparse with
`allow_abbrev=False` stops before any process starts,
huggingface/accelerate@16cb6eb8:src/accelerate/commands/launch.py), also for a retired option
when the pins admit only newer releases; a warning naming where the range was read when only
some refuse it (a retired option and no pin); nothing when all of them take it.

## Example
```sh
accelerate launch --mixed_precison fp16 ./cv_example.py   # --mixed_precision
```

## Fix
None: spell the option as accelerate does (`--mixed_precision`).

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.rulekit import closest
from recipelint.toolkits.accelerate import LAUNCH_OPTIONS, RETIRED_OPTIONS, retired, written_options
from recipelint.toolkits.launchers import word_text

CODE = "RL427"
NAME = "accelerate-launch-unknown-option"
SEVERITY = Severity.ERROR
VISITS = ("launch",)
FIXABLE = False
SOURCE = "huggingface/accelerate@16cb6eb8:src/accelerate/commands/launch.py (launch_command_parser, allow_abbrev=False)"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    launch = ctx.recipe.launch
    if launch is None or launch.launcher != "accelerate":
        return
    for name, word in written_options(launch):
        if name in LAUNCH_OPTIONS:
            continue
        last = RETIRED_OPTIONS.get(name)
        if last is not None:
            yield retired(ctx, CODE, f"--{name} was an accelerate launch option", last, "error: unrecognized arguments", word.span, name)
            continue
        near = closest(name, sorted(LAUNCH_OPTIONS))
        hint = f"; did you mean --{near}?" if near else ""
        yield ctx.diagnostic(
            CODE,
            SEVERITY,
            f"accelerate launch has no --{name}: it stops at start (error: unrecognized arguments: {word_text(word)}){hint}",
            word.span,
            setting=name,
        )
