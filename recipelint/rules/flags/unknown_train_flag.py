"""A flag `wenet/bin/train.py` does not accept.

## What it does
Checks every `--flag` after `wenet/bin/train.py` against train.py's arguments at HEAD
(argparse accepts unique prefixes, so this does too). Flags the v3 refactor removed
(`--gpu`, `--symbol_table`, `--cmvn`, `--ddp.rank`, ...) are named with their replacement.

## Why is this bad
train.py uses `parse_args()`: an unknown flag stops the run with "unrecognized arguments".
Thirteen upstream recipes still pass removed flags (wenet.md 8.2).

## Example
```sh
python wenet/bin/train.py --gpu $gpu_id --symbol_table $dict ...
```

## Fix
None: removing a flag can change what the recipe means; the message says what replaces it.

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.rules._util import closest
from recipelint.sources.wenet import REMOVED_FLAGS, TRAIN_FLAGS

CODE = "RL601"
NAME = "unknown-train-flag"
SEVERITY = Severity.ERROR
FIXABLE = False
SOURCE = "wenet.md 1: train.py arguments at HEAD; flags removed in the v3 refactor"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    for name, word in ctx.recipe.unknown_args:
        if name in REMOVED_FLAGS:
            message = f"--{name} was removed in WeNet 3 ({REMOVED_FLAGS[name]}); train.py stops with 'unrecognized arguments'"
        else:
            guess = closest(name, TRAIN_FLAGS)
            hint = f"; did you mean --{guess}?" if guess else ""
            message = f"train.py has no --{name}: it stops with 'unrecognized arguments'{hint}"
        yield ctx.diagnostic(CODE, SEVERITY, message, word.span, setting=name, current=word.text)
