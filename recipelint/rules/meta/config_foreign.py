"""A file a launch passes as its config holds none of the keys that config's reader knows, so nothing of it is checked or shown.

## What it does
Reports, as info, a file a launch names as its DeepSpeed JSON (`--deepspeed`, `--deepspeed_config`)
or as WeNet's train YAML (`--config`) that is not one: a JSON object with no key DeepSpeed reads
(a Docker `config.json` holds only `auths`), a YAML with no key of a WeNet train config (a
password table read as YAML is a list of unknown keys). The file is named; no key or value of it
is checked or quoted.

## Why is this bad
The launcher will reject the file or train without the settings the recipe meant, so it is worth
a look. Judging it as a config would only put its contents in the report: every line of
`/etc/shadow` as an unknown key, a registry token in a code frame, in logs CI often publishes.

## Example
```sh
deepspeed_config=$HOME/.docker/config.json   # copied into the repository as conf/ds.json
python wenet/bin/train.py --train_engine deepspeed --deepspeed_config $deepspeed_config ...
```

## Fix
None: point the launch at the config it means.

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.parse.files import printable
from recipelint.parse.where import shown

CODE = "RL021"
NAME = "launch-config-foreign"
SEVERITY = Severity.INFO
VISITS = ("recipe",)
FIXABLE = False
SOURCE = "the keys each reader knows: DeepSpeed's config schema (schemas/deepspeed), WeNet's train YAML keys (recipelint/toolkits/wenet/__init__.py)"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    for link in ctx.recipe.links:
        if not link.foreign or link.path is None:
            continue
        setting = link.setting
        yield ctx.diagnostic(
            CODE,
            SEVERITY,
            f"{shown(link.path).as_posix()}, passed as the {link.role}, holds no key of one: not checked, nothing of it is shown",
            setting.span,
            setting=setting.via or setting.name,
            current=printable(setting.value, 200),
        )
