"""A flag the recipe's `wenet/bin/train.py` does not accept.

## What it does
Checks every `--flag` after `wenet/bin/train.py` against the arguments of the train.py the
recipe runs: the `add_argument` calls of `wenet/bin/train.py` and `wenet/utils/train_utils.py`
in the WeNet checkout found beside the recipe (read with `ast`, never imported), else
recipelint's table of train.py at WeNet HEAD. argparse accepts unique prefixes, so this does
too. Flags the v3 refactor removed (`--gpu`, `--symbol_table`, `--cmvn`, `--ddp.rank`, ...)
are named with their replacement; flags the checkout is too old for say so. Flags a variable
carries on one branch (`$cmvn && cmvn_opts="--cmvn ..."`, passed as `$cmvn_opts`) or
`${x:+--flag v}` carries are checked too: each is reported where its text is written, with
the condition it is passed on.

## Why is this bad
train.py uses `parse_args()`: an unknown flag stops the run with "unrecognized arguments".
Thirteen upstream recipes still pass removed flags (e.g. wenet-e2e/wenet@01546996:examples/hkust/s0/run.sh), and a recipe copied from
WeNet HEAD passes `--train_engine`, `--timeout` or `--device` that an older checkout lacks.

## Example
```sh
python wenet/bin/train.py --gpu $gpu_id --symbol_table $dict ...   # against WeNet 3.x
torchrun ... wenet/bin/train.py --train_engine torch_ddp ...         # against WeNet 2.2.1
```

## Fix
None: removing a flag can change what the recipe means; the message says what replaces it.
The evidence says which train.py the flags were read from.

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.rulekit import closest
from recipelint.toolkits.wenet.frontend import REMOVED_FLAGS, TRAIN_FLAGS, entry_of, train_flags

CODE = "RL601"
NAME = "unknown-train-flag"
SEVERITY = Severity.ERROR
VISITS = ("recipe",)
FIXABLE = False
SOURCE = "the checkout's train.py and train_utils.py (ast); else wenet-e2e/wenet@01546996:wenet/bin/train.py and wenet-e2e/wenet@01546996:wenet/utils/train_utils.py (the arguments at HEAD), and wenet-e2e/wenet@v2.2.1:wenet/bin/train.py (flags removed in the v3 refactor)"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    if not ctx.recipe.unknown_args:
        return
    flags, source = train_flags(ctx.recipe)
    if flags is None:
        return  # a training script no checkout shows: its flags are not known
    checkout = ctx.recipe.checkout
    judged_by_checkout = flags is not TRAIN_FLAGS and checkout is not None
    script = entry_of(ctx.recipe).rsplit("/", 1)[-1]
    for name, word in ctx.recipe.unknown_args:
        if name in REMOVED_FLAGS:
            message = f"--{name} was removed in WeNet 3 ({REMOVED_FLAGS[name]}); {script} stops with 'unrecognized arguments'"
        elif judged_by_checkout and name in TRAIN_FLAGS and checkout is not None:
            message = (
                f"the {script} this recipe runs ({checkout.label()}) has no --{name}: it came with a later WeNet; "
                f"{script} stops with 'unrecognized arguments' (update WeNet or drop the flag)"
            )
        else:
            guess = closest(name, flags)
            hint = f"; did you mean --{guess}?" if guess else ""
            message = f"{script} has no --{name}: it stops with 'unrecognized arguments'{hint}"
        if word.condition is not None:
            message += f"; passed when {word.condition}"
        yield ctx.diagnostic(CODE, SEVERITY, message, word.span, setting=name, current=word.text, evidence=[f"flags from {source}"])
