"""A launch of a trainer recipelint does not judge.

## What it does
Reports each launch of a trainer recipelint reads nothing of: LLaMA-Factory's
`llamafactory-cli train` (also with `FORCE_TORCHRUN=1 NNODES=2 ...`), Axolotl's `axolotl train`
and `python -m axolotl.cli.train`, torchtune's `tune run` and ms-swift's `swift sft`, `swift pt`
and `swift rlhf`, in a script, a README's shell blocks or `--command`. One info per launch; the
exit code stays 0.

## Why is this bad
It is not: the finding says what recipelint did not do. Without it, a README full of such
launches checks as "No problems found", which reads as an all clear for recipes nobody looked
at. The DeepSpeed JSON such a trainer names in its own config is checked when that JSON is
passed to recipelint (docs/toolkits/deepspeed.md); the launch, its YAML and the node are not.

## Example
```sh
FORCE_TORCHRUN=1 NNODES=2 NODE_RANK=0 MASTER_ADDR=192.168.0.1 MASTER_PORT=29500 llamafactory-cli train examples/train_lora/qwen3_lora_sft.yaml
```

## Fix
None: nothing is wrong. Select it away (`ignore = ["RL013"]`) where such launches are known.

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity

CODE = "RL013"
NAME = "trainer-not-judged"
SEVERITY = Severity.INFO
VISITS = ("recipe",)
FIXABLE = False
SOURCE = (
    "the trainers recipelint reads (docs/usage.md); hiyouga/LLaMA-Factory@ff6d4d12:examples/README.md (llamafactory-cli train launches)"
)


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    from recipelint.toolkits.unjudged.frontend import TrainerLaunch

    launch = ctx.recipe.payload
    if isinstance(launch, TrainerLaunch) and not launch.server:
        yield ctx.diagnostic(CODE, SEVERITY, f"launch of {launch.trainer}: not judged by recipelint", launch.command.span)
