"""A flag whose value is a variable the script never sets: bash drops the word, the flag takes the next one.

## What it does
Finds a launch word that is an unquoted `$name` (or `${name}`) right after an option that takes a
value (`--model_dir $dir`), when the script, and what it sources, never assign `name`, and the
word after it is another option (or nothing). Names the assigned variable whose name is closest
(`MODEL` for `$MODEL_PATH`), when there is one.

## Why is this bad
An unquoted expansion of an unset variable is no word at all: bash runs `train.py --model_dir
--tensorboard_dir runs`, and argparse stops at start-up with "argument --model_dir: expected one
argument" (HfArgumentParser and TrlParser are argparse). A lower-case name is the script's own
(bash's convention: the environment's names are upper case), so the launch fails: an error. An
upper-case name may come from the environment the script is started in (`NODE_RANK` given on
each node): it is reported, as a warning that says so, only where the script sets a variable of
a close name (`MODEL` for `$MODEL_PATH`: a slip, not the environment's). Names a scheduler, a
launcher or the system sets (SLURM_*, RANK, MASTER_ADDR, HOME, ...) are not reported.

## Example
```sh
MODEL=/models/llama
torchrun --nproc_per_node 8 train.py --model_name_or_path $MODEL_PATH --output_dir out
```

## Fix
None: set the variable, or use the one the script sets (`$MODEL`).

## Fix safety
No fix.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.parse.shell import Command, Word

CODE = "RL015"
NAME = "flag-value-unset"
SEVERITY = Severity.ERROR
VISITS = ("launch", "script")
FIXABLE = False
SOURCE = (
    "bash: an unquoted expansion of an unset variable expands to no word (Word Splitting, "
    "https://www.gnu.org/software/bash/manual/html_node/Word-Splitting.html); argparse: 'expected one argument'"
)
# Names the environment of a job sets (schedulers, MPI, the login shell): never the script's slip.
_ENVIRONMENT = re.compile(
    r"^(SLURM|PBS|LSB|OMPI|PMI|PMIX|MV2|KUBERNETES|MLP|ARNOLD|CUDA|NVIDIA|HOST|HOME|USER|PATH|PWD|TMPDIR|LOGNAME|SHELL"
    r"|RANK|LOCAL_RANK|NODE_RANK|GROUP_RANK|WORLD_SIZE|MASTER_|NNODES|NPROC)"
)


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    launch, script = ctx.recipe.launch, ctx.recipe.script
    if launch is None or script is None:
        return
    command = launch.command
    words = command.words
    for index in range(1, len(words)):
        word = words[index]
        name = _unset_use(word, command, script.source.text)
        if name is None or not _takes_value(words[index - 1]):
            continue
        following = words[index + 1] if index + 1 < len(words) else None
        if following is not None and not (following.value or "").startswith("-"):
            continue  # the flag takes that next word instead: another story
        flag = words[index - 1].value or ""
        yield _finding(ctx, word, name, flag, following, command)


def _finding(ctx: Context, word: Word, name: str, flag: str, following: Word | None, command: Command) -> Diagnostic | None:
    local = name != name.upper()
    close = _close(name, command)
    if not local and not close:
        return None  # an upper-case name the script never mentions is the environment's to give (NODE_RANK per node)
    takes = f"bash passes `{flag} {following.value}`" if following is not None else f"bash passes {flag} last, with nothing after it"
    similar = (
        f"; the script sets {close[0]}" + (f" (line {origin.span.line})" if (origin := command.scope[close[0]].origin) is not None else "")
        if close
        else ""
    )
    outcome = (
        "argparse stops at start-up (expected one argument)"
        if local
        else (f"unless the environment sets {name}, argparse stops at start-up (expected one argument)")
    )
    return ctx.diagnostic(
        CODE,
        SEVERITY if local else Severity.WARNING,
        f"{name} is never set in the script, so the unquoted `{word.text}` is no word at all: {takes} and {outcome}{similar}",
        word.span,
        setting=name,
        evidence=[f"{flag} {word.text} at line {word.span.line}"],
    )


def _close(name: str, command: Command) -> list[str]:
    """A variable the script sets whose name is this one's with a part more or less (MODEL for
    MODEL_PATH) or a letter off (DATA_DIR for DATA_DIRS)."""
    names = sorted(n for n in command.scope if n != name and n.isidentifier())
    parts = [n for n in names if name.startswith(n + "_") or n.startswith(name + "_") or name.endswith("_" + n) or n.endswith("_" + name)]
    return parts[:1] or difflib.get_close_matches(name, names, n=1, cutoff=0.8)


def _unset_use(word: Word, command: Command, text: str) -> str | None:
    """The variable an unquoted `$name` word is, when nothing in the script assigns it: not in
    scope at the launch, and nowhere in the text either (a function the reader does not walk,
    `read name`, `for name in`, `declare`/`local`/`export name`)."""
    if word.ref is None or word.value is not None or word.text.startswith('"') or word.binding is not None:
        return None
    if word.ref in command.scope or _ENVIRONMENT.match(word.ref) or word.reason != f"{word.ref} is not set in the script":
        return None
    name = re.escape(word.ref)
    assigned = rf"(?<![\w$]){name}\+?=|\b(?:read|for|declare|local|export|typeset|readonly)\b[^\n;]*(?<![\w$]){name}\b"
    return None if re.search(assigned, text) else word.ref


def _takes_value(word: Word) -> bool:
    """`--model_dir` (a long option without `=value`), never a word the script decides at run time."""
    value = word.value or ""
    return value.startswith("--") and len(value) > 2 and "=" not in value and word.option is None
