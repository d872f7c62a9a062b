"""A config file a launch names is in none of the folders the launch may run from.

## What it does
Looks up each config path a launch passes (a DeepSpeed JSON after `--deepspeed`,
`--deepspeed_config` or `--deepspeed_config_file`, a WeNet `--config` YAML, the Accelerate config
after `accelerate launch --config_file`) in the launch's
working folder (the candidate holding the training script: the folder after the script's `cd`s,
a `git clone URL; cd NAME/sub` in a README mapped to the clone, the repository root, the folder
recipelint runs in, the script's folder), then the folder the command runs in, the script's
folder, the folders above it up to the repository root (the nearest folder with `.git`,
`pyproject.toml` or `setup.py`) and the folder recipelint runs in, and reports a path found in
none of them, with the folders tried (relative to the folder recipelint runs in). With no
repository root above the script, the search climbs a bounded few folders, and the message says
"no repository root (.git, pyproject.toml, setup.py) above the script: searched up to X". A
file the script writes itself (`cat <<EOF > $ds_config`) is not missing. `recipelint show`
prints the working folder and why (docs/show.md).

## Why is this bad
The launcher opens the file at start: Hugging Face's `TrainingArguments` and DeepSpeed stop with
a `FileNotFoundError` (or "Expected a string path to an existing deepspeed config") after the
job has its GPUs; `accelerate launch` stops before it starts anything ("The passed configuration
file `X` does not exist", huggingface/accelerate@16cb6eb8:src/accelerate/commands/config/config_args.py),
and the message says so. It stays a warning: the folder the job really runs from may hold it. A path that only works from one folder is a trap for the next user. And
recipelint cannot check what it cannot read, so the DeepSpeed rules stay silent for it.

## Example
```sh
# scripts/archive/run_finetune.sh, run from the repository root
deepspeed examples/finetune.py --deepspeed configs/archive/ds_config_zero3.json  # no such file
```

DeepSpeedExamples@83757d9:compression/gpt2/bash_script/run_zero_quant.sh names
`config/ds_config_W8A8_Qgroup64_fp32.json`, relative to `compression/gpt2` where its README
says to run it; copied out of the repository (no `.git`), that folder is still searched, as the
folder recipelint runs in or a folder above the script holding `run_clm_no_trainer.py`.

When a file of the config's name is elsewhere below the working folder (below the repository
root when the working folder is undecided), the message says where: OpenBMB/MiniCPM's minicpm_sala/finetune/README.md passes
`--deepspeed configs/ds_config_zero3.json` to `finetune.py`, whose folder holds
`configs/deepspeed/ds_config_zero3.json`.

## Fix
None: point the launch at the file (recipelint shows where it looked), or add the file.

## Fix safety
No fix.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.model import Link
from recipelint.parse.where import ROOT_MARKERS, holds_name, named, shown, shown_folder

CODE = "RL010"
NAME = "launch-config-not-found"
SEVERITY = Severity.WARNING
VISITS = ("recipe",)
FIXABLE = False
SOURCE = "the launch's own path, looked up where the launch may run from (recipelint show lists the folders: docs/show.md)"


# A value the user is meant to replace: `...`, `<path>`, `{config}`, `/path/to/x.json`, `YOUR_CONFIG`.
_PLACEHOLDER = re.compile(r"\.\.\.|<[^>]*>|\{[^}$]*\}|/path/to/|\bpath_to_|YOUR_|\bxxx", re.IGNORECASE)


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    workdir = ctx.recipe.workdir
    stopped = ""
    if workdir is not None and workdir.root is None and workdir.searched_to is not None:
        stopped = f"; no repository root ({', '.join(ROOT_MARKERS)}) above the script: searched up to {shown_folder(workdir.searched_to)}"
    elsewhere = _another_checkout(ctx)
    for link in ctx.recipe.links:
        if link.path is not None or not link.tried or not link.report_missing or link.written_at is not None:
            continue
        setting = link.setting
        if isinstance(setting.value, str) and _PLACEHOLDER.search(setting.value):
            yield ctx.diagnostic(
                CODE,
                Severity.INFO,
                f"{link.role} {setting.value} is a placeholder to fill in before the run: not checked",
                setting.span,
                setting=setting.via or setting.name,
                current=setting.value,
            )
            continue
        if elsewhere is not None:
            continue  # the launch belongs to another checkout (show says so): nothing here to judge
        severity, certain = _severity(ctx, link)
        tried = ", ".join(shown_folder(folder) for folder in link.tried)
        evidence = [
            f"looked in {len(link.tried)} folder(s): the command's folder, the script's, those above it up to the repository root, the folder recipelint runs in"
        ]
        if workdir is not None:
            evidence.append(f"working folder {shown_folder(workdir.path) if workdir.path else 'undecided'}: {workdir.reason}")
        if certain:
            evidence.append(certain)
        yield ctx.diagnostic(
            CODE,
            severity,
            f"{link.role} {setting.value} is not in any folder this launch may run from (tried {tried}){stopped}"
            + (f"; {link.missing}" if link.missing else "")
            + _same_name(ctx, setting.value),
            setting.span,
            setting=setting.via or setting.name,
            current=setting.value,
            evidence=evidence,
        )


def _another_checkout(ctx: Context) -> str | None:
    """Why the launch runs in a checkout this tree is not (a README that clones LLaMA-Factory and
    runs its `src/train.py`): the training script is in none of the candidate folders and no file
    of its name is anywhere in the repository. None when the launch's own script is here."""
    workdir, launch = ctx.recipe.workdir, ctx.recipe.launch
    if workdir is None or workdir.path is not None or workdir.root is None or launch is None or launch.script.value is None:
        return None
    name = PurePosixPath(launch.script.value).name
    if not name.endswith(".py") or _PLACEHOLDER.search(name) or holds_name(workdir.root, name) is not False:
        return None  # `scripts/run_{task}.py` names no file: nothing says the launch is another checkout's
    return f"{launch.script.value} is nowhere in {shown_folder(workdir.root)}: the launch runs in another checkout"


def _same_name(ctx: Context, value: object) -> str:
    """Where a file of the config's name is below the working folder (below the repository root
    when the working folder is undecided): a guide that writes `configs/ds_config_zero3.json` for
    `configs/deepspeed/ds_config_zero3.json`."""
    workdir = ctx.recipe.workdir
    if workdir is None or not isinstance(value, str) or not value or Path(value).is_absolute():
        return ""
    top = workdir.path if workdir.path is not None else workdir.root
    found = named(top, PurePosixPath(value).name) if top is not None else None
    return f"; a file of that name is at {shown(found).as_posix()}" if isinstance(found, Path) else ""


def _severity(ctx: Context, link: Link) -> tuple[Severity, str]:
    """An error when the run surely fails: the launch's training script is in this repository and no
    file of the config's name is anywhere in it. Otherwise a warning: the folder the job really runs
    from may hold it."""
    workdir, launch = ctx.recipe.workdir, ctx.recipe.launch
    value = link.setting.value
    if workdir is None or workdir.root is None or launch is None or not isinstance(value, str) or Path(value).is_absolute():
        return SEVERITY, ""
    script = PurePosixPath(str(launch.script.value or "")).name
    ours = workdir.path is not None or (script.endswith(".py") and holds_name(workdir.root, script) is True)
    name = PurePosixPath(value).name
    if not ours or holds_name(workdir.root, name) is not False:
        return SEVERITY, ""
    return (
        Severity.ERROR,
        f"no file named {name} anywhere in {shown_folder(workdir.root)}, which holds the launch's training script: the run stops at start",
    )
