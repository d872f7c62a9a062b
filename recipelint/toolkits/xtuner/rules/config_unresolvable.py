"""An XTuner config given by name, or a path that is not there.

## What it does
Flags `xtuner train NAME` where NAME is a registered config name (no `.py`), and a config or
`--deepspeed` JSON path that does not exist beside the script.

## Why is this bad
It is not wrong: XTuner resolves names from its installed package. But recipelint reads
configs offline and never imports XTuner, so it cannot check a named config: the findings
about `dataloader_num_workers`, sequence parallelism and timeouts are skipped, and this
says so instead of guessing. A missing path, on the other hand, makes `xtuner train` stop
with "Cannot find ...".

## Example
```sh
xtuner train internlm2_chat_7b_qlora_oasst1_e3 --deepspeed deepspeed_zero2
```

## Fix
None: `xtuner copy-cfg NAME .` writes the config beside the script; lint that copy.

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.toolkits.xtuner.frontend import PRESETS
from recipelint.toolkits.xtuner.part import mmengine_config
from recipelint.toolkits.xtuner.rules._x import xtuner_launch

CODE = "RL809"
NAME = "xtuner-config-unresolvable"
SEVERITY = Severity.INFO
VISITS = ("xtuner-launch",)
FIXABLE = False
SOURCE = "InternLM/xtuner@v0.2.0:xtuner/tools/train.py: config and --deepspeed accept a path or a name resolved by cfgs_name_path (InternLM/xtuner@v0.2.0:xtuner/configs/__init__.py)"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    launch = xtuner_launch(ctx)
    if launch is None:
        return
    on_disk = launch.command.span.path.suffix == ".sh"  # a README or --command has no folder to look in
    config = ctx.recipe.args.get("config")
    if config is not None and isinstance(config.value, str):
        value = config.value
        if not value.endswith(".py") and "/" not in value and mmengine_config(ctx.recipe) is None:
            checkout = ctx.recipe.checkout
            where = (
                f"the {checkout.label()} has no xtuner/configs/**/{value}.py"
                if checkout is not None
                else "no XTuner checkout or installed xtuner is found to look it up in"
            )
            yield ctx.diagnostic(
                CODE,
                SEVERITY,
                f"config '{value}' is an XTuner config name, not a file, and {where}: the config checks are skipped (xtuner copy-cfg {value} .)",
                config.span,
                setting="config",
                current=value,
            )
        elif value.endswith(".py") and mmengine_config(ctx.recipe) is None and not ctx.recipe.errors and on_disk:
            yield ctx.diagnostic(
                CODE,
                Severity.WARNING,
                f"config {value} does not exist under {ctx.recipe.root}: xtuner train stops with 'Cannot find {value}'",
                config.span,
                setting="config",
                current=value,
            )
    ds = ctx.recipe.args.get("deepspeed")
    if ds is not None and isinstance(ds.value, str) and ds.value.endswith(".json") and ctx.recipe.ds_config is None and on_disk:
        yield ctx.diagnostic(
            CODE,
            Severity.WARNING,
            f"--deepspeed {ds.value} does not exist under {ctx.recipe.root}",
            ds.span,
            setting="deepspeed",
            current=ds.value,
        )
    elif (
        ds is not None
        and isinstance(ds.value, str)
        and not ds.value.endswith(".json")
        and ds.value not in PRESETS
        and not ds.value.startswith("[")
    ):
        yield ctx.diagnostic(
            CODE,
            Severity.WARNING,
            f"--deepspeed {ds.value} is neither a JSON path nor one of XTuner's presets ({', '.join(sorted(PRESETS))})",
            ds.span,
            setting="deepspeed",
            current=ds.value,
        )
