"""A variable a launch uses is never assigned: bash refuses its assignment for a bad substitution.

## What it does
Finds an assignment whose value holds a parameter expansion bash cannot read, such as
`${batch_size*2}` (arithmetic written as `${...}` instead of `$((...))`), when a launch then
uses that variable. Bash prints `bad substitution`, does not assign the variable and goes on
with the next command, so the launch gets the variable as it was before: empty when nothing
set it.

## Why is this bad
The launch runs, but not as written: every flag the assignment holds (`--deepspeed
zero2.json`, the batch size, the output folder) is missing from it. A training script that
requires one of them stops at start-up; one that does not trains on its defaults, without the
DeepSpeed config the script names. recipelint reads the launch as bash runs it, so the
DeepSpeed rules do not judge the config the assignment names.

## Example
QwenLM/Qwen3-VL's qwen-vl-finetune/scripts/sft_30a3b_lora.sh:

```sh
args="
    --deepspeed ${deepspeed} \\
    --per_device_eval_batch_size ${batch_size*2} \\
    ..."
torchrun --nproc_per_node=${NPROC_PER_NODE} ... ${entry_file} ${args}
```

## Fix
Write the arithmetic as arithmetic: `$((batch_size*2))` (as the same repository's sft_30a3b.sh
does).

## Fix safety
No fix: the intended expression is the author's to write.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity

CODE = "RL014"
NAME = "assignment-refused"
SEVERITY = Severity.WARNING
VISITS = ("launch", "script")
FIXABLE = False
SOURCE = (
    "bash's parameter expansion: a `${...}` no expansion form allows is a 'bad substitution' error"
    " (https://www.gnu.org/software/bash/manual/html_node/Shell-Parameter-Expansion.html); the shell reader,"
    " recipelint/parse/shell.py"
)


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    script, launch = ctx.recipe.script, ctx.recipe.launch
    if script is None or launch is None:
        return
    command = launch.command
    for failed in script.failed:
        uses = [w for w in command.words if w.ref == failed.name and failed.span.start < command.span.start]
        if not uses:
            continue
        text = script.source.data[failed.span.start : failed.span.end].decode("utf-8", "replace")
        before = "keeps the value it had before" if failed.earlier else f"is empty (unless the environment sets {failed.name})"
        program = launch.script.value or launch.script.text
        yield ctx.diagnostic(
            CODE,
            SEVERITY,
            f"`{text}` is a bad substitution: bash refuses the assignment of {failed.name} at line {failed.line} and goes on,"
            f" so `{uses[0].text}` in the launch at line {command.span.line} {before} and {program} runs without what"
            f" line {failed.line} writes (a flag it requires stops it at start-up)",
            failed.span,
            setting=failed.name,
            evidence=[f"bash: {text}: bad substitution", f"{uses[0].text} at line {uses[0].span.line}"],
        )
