"""An XTuner v1 launch, which recipelint reads but does not judge yet.

## What it does
Reports, as info, once per launch, a run of XTuner v1's trainer (`torchrun
xtuner/v1/train/cli/sft.py ...`, `python xtuner/v1/train/cli/rl.py ...`). XTuner v1 has no
`xtuner train` CLI, no `--launcher` and no mmengine config: its settings are a trainer config
(`--config`) or cyclopts arguments (`--load-from`, `--dataset`, `--total-step`,
InternLM/xtuner@v1.0.1:xtuner/v1/train/cli/sft.py), which no rule reads yet. The launch itself
(processes per node, nodes, rendezvous) is read, and the shared launch rules judge it.

## Why is this bad
It is not: the finding says what was not checked, instead of a silence that reads as an all clear.

## Example
```sh
torchrun --nproc-per-node 8 xtuner/v1/train/cli/sft.py --load-from <model_path> --dataset <dataset_path>
```

## Fix
None.

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity

CODE = "RL811"
NAME = "xtuner-v1-not-judged"
SEVERITY = Severity.INFO
VISITS = ("launch",)
FIXABLE = False
SOURCE = "InternLM/xtuner@v1.0.1:xtuner/v1/train/cli/sft.py (cyclopts arguments or a trainer config; no mmengine config)"
TOOLKITS = ("xtuner-v1",)


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    launch = ctx.recipe.launch
    if launch is None:
        return
    entry = launch.script.value if launch.script.value is not None else launch.script.text
    yield ctx.diagnostic(
        CODE,
        SEVERITY,
        f"XTuner v1 launch of {Path(entry).name}: its trainer settings (model, dataset, batch, optimizer, parallelism, "
        "from --config or the command's arguments) are not judged: recipelint has no XTuner v1 rules yet; "
        "the launch's processes and rendezvous are",
        launch.script.span,
        setting=None,
    )
