"""The training script's argparse refused flags: `error: unrecognized arguments: ...`.

## What it does
Matches `<prog>: error: unrecognized arguments: <args>`, lists the flags, and points at the
recipe's RL601 findings for the same flags.

## Why is this bad
A training script that calls `parse_args()` stops at start-up on any flag it does not define.
For WeNet, the v3 refactor removed `--gpu`, `--symbol_table`, `--cmvn`, `--ddp.rank`,
`--ddp.world_size`, `--ddp.init_method`, ... and thirteen upstream recipes still pass them
(wenet.md 1, 8.2).

## Example
```
train.py: error: unrecognized arguments: --gpu 0 --symbol_table data/dict/lang_char.txt
```

## Fix
RL601 names each flag train.py does not accept and what replaces it.

## Fix safety
No fix is applied for this signature alone: removing a flag can change what the recipe means.
"""

from __future__ import annotations

import re

from recipelint.diagnose.signatures import Cause, Explanation, Found
from recipelint.diagnose.signatures._common import when
from recipelint.diagnostics import Severity

CODE = "LOG014"
NAME = "unrecognized-arguments"
SEVERITY = Severity.ERROR
SOURCE = "wenet.md 1 (train.py parse_args, removed v2 flags); argparse; delight#13, MaskCycleGAN-VC#16"
PATTERNS = {"unrecognized": ("error: unrecognized arguments:", r"(?:(?P<prog>\S+): )?error: unrecognized arguments: (?P<args>.*)")}
CAUSES = {
    "local-rank": Cause(
        "torch >= 2.0's torch.distributed.launch passes --local-rank=N (with a hyphen) and the script's argparse defines only "
        "--local_rank: launch with torchrun (the script reads LOCAL_RANK), or accept both spellings"
    ),
    "no-local-rank": Cause(
        "the launcher (torch.distributed.launch before torch 2.0, or the deepspeed launcher) passes --local_rank=N and the "
        "script defines no such option: read LOCAL_RANK instead, add the option, or launch with torchrun (deepspeed: --no_local_rank)"
    ),
    "removed-flag": Cause("flags the training script no longer (or never) accepts", ("RL601",)),
    "wrapper": Cause("a launcher or wrapper added a flag the script does not define (e.g. --local_rank from the deepspeed launcher)"),
}
_FLAG = re.compile(r"--[\w.-]+")


def explain(found: Found) -> Explanation | None:
    anchor = found.first("unrecognized")
    if anchor is None:
        return None
    flags = _FLAG.findall(anchor.groups.get("args", ""))
    said = f"{anchor.groups.get('prog', 'the script')} refused {', '.join(flags) if flags else anchor.groups.get('args', 'arguments')}"
    evidence = when(found, anchor)
    known = [d for d in found.scene.found(("RL601",)) if any(flag in d.message for flag in flags)]
    if known:
        evidence.append("recipe: " + "; ".join(f"{d.span}: {d.code}" for d in known))
    causes: list[tuple[str, str]] = [("removed-flag", "")]
    lines: dict[str, list[str]] = {}
    if "--local-rank" in flags:
        causes.insert(0, ("local-rank", "the refused flag is spelled --local-rank, as torch >= 2.0's launcher writes it"))
        lines["local-rank"] = _local_rank_lines(found, "--local_rank")
    elif "--local_rank" in flags:
        causes.insert(0, ("no-local-rank", "--local_rank is what the deepspeed launcher and torch.distributed.launch add"))
        lines["no-local-rank"] = _local_rank_lines(found, None)
    causes.append(("wrapper", ""))
    return Explanation(anchor, said, evidence, causes, recipe_lines={k: v for k, v in lines.items() if v})


def _local_rank_lines(found: Found, spelling: str | None) -> list[str]:
    """The launch that adds the flag and the script's option that does not take it."""
    scene = found.scene
    ctx = scene.ctx
    launch = ctx.recipe.launch if ctx is not None else None
    if launch is None:
        return []
    # Which launchers add the flag: torch.distributed.launch (--local-rank since torch 2.0,
    # --local_rank before; none with --use-env) and the deepspeed launcher (--local_rank, none
    # with --no_local_rank); torchrun sets LOCAL_RANK in the environment instead.
    passes = launch.launcher in ("torch.distributed.launch", "deepspeed") and not scene.launch_flag(
        "--use-env", "--use_env", "--no_local_rank", "--no-local-rank"
    )
    if not passes:
        return [f"{launch.command.span}: this launch ({launch.launcher}) passes no --local_rank: the log comes from another launch"]
    lines = [f"{launch.command.span}: {launch.launcher} passes the flag to {launch.script.value or launch.script.text}"]
    options = scene.script_options()
    for option, span in options:
        if spelling is not None and option == spelling:
            lines.append(f"{span}: the script defines {option} only")
    if spelling is None and options and not any(o in ("--local_rank", "--local-rank") for o, _ in options):
        lines.append(f"{options[0][1]}: the script's argparse defines no --local_rank")
    return lines
