"""`--train_engine deepspeed` without a DeepSpeed JSON that exists.

## What it does
Flags a WeNet launch with the deepspeed engine whose `--deepspeed_config` is not given or
names a file that is not there.

## Why is this bad
train.py asserts `args.deepspeed_config is not None`, then opens the file: the job fails
with an AssertionError or FileNotFoundError after it has its GPUs. 18 of WeNet's 31 run
scripts still name `conf/ds_stage2.json`, deleted in wenet-e2e/wenet#2343.

## Example
```sh
deepspeed_config=conf/ds_stage2.json   # no such file
torchrun ... wenet/bin/train.py --train_engine deepspeed --deepspeed_config $deepspeed_config
```

## Fix
None: point it at an existing JSON (WeNet ships `examples/aishell/whisper/conf/ds_stage{1,2,3}.json`).

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.parse.where import shown

TOOLKITS = ("wenet",)
CODE = "RL401"
NAME = "deepspeed-config-missing"
SEVERITY = Severity.ERROR
VISITS = ("launch",)
FIXABLE = False
SOURCE = "wenet-e2e/wenet@01546996:wenet/utils/train_utils.py (assert deepspeed_config is not None); ds_stage2.json deleted in wenet-e2e/wenet#2343"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    recipe = ctx.recipe
    if recipe.launch is None or recipe.arg("train_engine").value != "deepspeed":
        return
    setting = recipe.arg("deepspeed_config")
    if not setting.given:
        yield ctx.diagnostic(
            CODE,
            SEVERITY,
            "--train_engine deepspeed without --deepspeed_config: train.py asserts it is given",
            recipe.arg("train_engine").span,
            setting="deepspeed_config",
        )
        return
    if not isinstance(setting.value, str):
        return
    path, tried = recipe.locate(setting.value)
    if path is None:
        yield ctx.diagnostic(
            CODE,
            SEVERITY,
            f"--deepspeed_config {setting.value}: no such file under {', '.join(str(shown(folder)) for folder in tried)}; train.py opens it at start and fails",
            setting.span,
            setting="deepspeed_config",
            current=setting.value,
        )
