"""mmengine's pytorch launcher found no `RANK` in the environment: `KeyError: 'RANK'`.

## What it does
Matches `KeyError: 'RANK'` (or `'LOCAL_RANK'`, `'WORLD_SIZE'`), and mmengine's
`_init_dist_pytorch` frame when the traceback shows it.

## Why is this bad
`--launcher pytorch` tells mmengine to read `RANK` and `LOCAL_RANK` from the environment that
torchrun sets. A single-process `xtuner train` runs plain `python`, so nothing sets them and
the job stops at start-up (xtuner.md 1).

## Example
```
    rank = int(os.environ['RANK'])
KeyError: 'RANK'
```

## Fix
RL802 (removes `--launcher pytorch` from a single-process `xtuner train`: fixable); or set
`NPROC_PER_NODE` so the CLI starts torchrun.

## Fix safety
The fixes are the rules' own, with their safety; `diagnose --fix --write` applies the safe ones.
"""

from __future__ import annotations

from recipelint.diagnose.signatures import Cause, Explanation, Found
from recipelint.diagnose.signatures._common import when
from recipelint.diagnostics import Severity

CODE = "LOG018"
NAME = "launcher-env-missing"
SEVERITY = Severity.ERROR
SOURCE = "xtuner.md 1 (single-process path, --launcher pytorch, mmengine _init_dist_pytorch)"
PATTERNS = {
    "keyerror": ("KeyError: '", r"KeyError: '(?P<name>RANK|LOCAL_RANK|WORLD_SIZE|MASTER_ADDR|MASTER_PORT)'"),
    "mmengine": ("in _init_dist_pytorch", r"in _init_dist_pytorch"),
}
CAUSES = {
    "single": Cause("--launcher pytorch on a process nothing started with torchrun (a single-process xtuner train)", ("RL802",), "xtuner"),
    "launcher": Cause("a launcher that does not set the torch.distributed environment for this script"),
}


def explain(found: Found) -> Explanation | None:
    anchor = found.first("keyerror")
    if anchor is None:
        return None
    name = anchor.groups["name"]
    said = f"the process expected {name} in its environment and found none"
    evidence = when(found, anchor)
    if found.stats("mmengine").count:
        evidence.append("traceback: in mmengine's _init_dist_pytorch, the --launcher pytorch path")
    return Explanation(anchor, said, evidence, [("single", ""), ("launcher", "")])
