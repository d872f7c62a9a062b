"""The DeepSpeed config a launch names is decided at run time, so it is not checked.

## What it does
Reports, as info, a launch whose DeepSpeed config path only the run time knows: a variable the
script never sets (`--deepspeed $PATH_TO_DEEPSPEED_CONFIG`), one set differently on the branches
of an `if`, or a flag hidden in a variable built that way (`deepspeed pretrain_gpt.py
${deepspeed_options}`, `eval ${run_cmd}`). The message says why the value is unknown.

## Why is this bad
It is not wrong: it says which launch the DeepSpeed rules did not see, and why, instead of
staying silent or guessing one branch.

## Example
```sh
deepspeed train.py --deepspeed $PATH_TO_DEEPSPEED_CONFIG   # set by the user before running
```

## Fix
None. Lint the launch as it runs: `recipelint check --command 'deepspeed train.py --deepspeed ds.json'`,
or give the variable a default in the script.

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity

CODE = "RL012"
NAME = "launch-config-unknown"
SEVERITY = Severity.INFO
VISITS = ("recipe",)
FIXABLE = False
SOURCE = "the shell reader's account of why a value is unknown (branches, command substitutions, unset variables: recipelint/parse/shellvalue.py, docs/show.md)"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    for link in ctx.recipe.links:
        if link.path is not None or link.tried or link.written_at is not None or not link.report_missing:
            continue
        setting = link.setting
        word = setting.word
        written = word.text if word is not None else setting.name
        why = word.reason if word is not None and word.reason else "it is decided at run time"
        yield ctx.diagnostic(
            CODE,
            SEVERITY,
            f"the {link.role} of this launch comes from `{written}`, which only the run time knows: the DeepSpeed checks are skipped",
            setting.span,
            setting=setting.via or setting.name,
            evidence=[why],
        )
