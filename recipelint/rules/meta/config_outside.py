"""A config file a launch names lies outside the linted folders and their repository, so it is not read.

## What it does
Reports, as info, a config a launch names (a WeNet `--config` YAML, a DeepSpeed JSON, an
Accelerate config, an mmengine config) that resolves, after links, outside every folder given to
recipelint and the repository each sits in (the nearest `.git`): an absolute path such as
`train_config=/etc/shadow`, a `../../..` path that climbs out, or a link to another folder. The
file is named, never opened: no value of it can reach the report.

## Why is this bad
It is not wrong: the path names the training machine's disk, or a file recipelint was not asked
to read. Reading it would put another file's lines (a password table, a Docker `config.json` with
its registry token, a kubeconfig's keys) into the report, which CI logs often publish. The checks
that need the file are skipped, and this says so instead of staying silent.

## Example
```sh
train_config=/etc/shadow
torchrun --nproc_per_node=8 wenet/bin/train.py --config $train_config
```

## Fix
None. Copy the config into the repository, or lint its folder too (`recipelint check . /path/to/configs`).

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.parse.files import printable

CODE = "RL020"
NAME = "launch-config-outside"
SEVERITY = Severity.INFO
VISITS = ("recipe",)
FIXABLE = False
SOURCE = "the read policy of docs/reliability.md: only files under the linted folders and their repository are read"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    for link in ctx.recipe.links:
        if link.outside is None:
            continue
        setting = link.setting
        yield ctx.diagnostic(
            CODE,
            SEVERITY,
            f"{link.role} {printable(setting.value, 200)} is outside the linted folders and their repository: not read, its checks are skipped",
            setting.span,
            setting=setting.via or setting.name,
            current=setting.value,
        )
