"""A train-YAML key the recipe's WeNet indexes at start-up and the config does not have.

## What it does
Reads the first function of the recipe's WeNet checkout that takes the loaded YAML
(`init_tokenizer` in `wenet/utils/init_tokenizer.py`, WeNet 3) with `ast`, and lists the
top-level keys it indexes as `configs['key']` on every path through it (a key read with
`.get`, or only on some branches, is not required). A train YAML without one of them is
reported, with the function and the line that indexes it. With no checkout beside the recipe,
recipelint's table of the releases (generated from the tagged sources by
`tools/build_wenet_code_table.py`) stands in: judged as WeNet HEAD, and the message names the
releases that index the key and those that do not.

## Why is this bad
`configs['tokenizer_conf']` on a config without that key raises KeyError: train.py stops at
start-up, before any data is read. WeNet 3 moved the tokenizer, CMVN and symbol table out of
train.py's flags into the YAML; the un-migrated recipes of WeNet v3.0.0 and v3.1.0 (csj, hkust,
multi_cn, swbd, tedlium3, vkw2021, wsj, ...) still carry WeNet 2 configs without
`tokenizer_conf`.

## Example
```yaml
# examples/csj/s0/conf/train_conformer.yaml at WeNet v3.1.0: a WeNet 2 config
encoder: conformer
encoder_conf:
  output_size: 256
# no tokenizer / tokenizer_conf
```

## Fix
None: the values (`symbol_table_path`, `bpe_path`, ...) are what the old flags passed; write
them as a WeNet 3 example does (`examples/aishell/s0/conf/train_conformer.yaml`).

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.toolkits.wenet.checkout import required_keys
from recipelint.toolkits.wenet.rules.config._wenet import table_releases, wenet_config

CODE = "RL705"
NAME = "missing-required-config-key"
SEVERITY = Severity.ERROR
VISITS = ("wenet-config",)
FIXABLE = False
SOURCE = "the checkout's wenet/utils/init_tokenizer.py (ast), else recipelint/toolkits/wenet/codetable.py (the same, from the tagged sources): the keys init_tokenizer() indexes on every path"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    config = wenet_config(ctx)
    if config is None or not config.root.items:
        return
    who, tail, evidence, keys = _required(ctx)
    missing = [(key, where) for key, where in keys if key not in config.root.entries]
    if not missing:
        return
    names = " and ".join(f"'{key}'" for key, _ in missing)
    reads = " and ".join(f"configs['{key}'] ({where})" for key, where in missing)
    yield ctx.diagnostic(
        CODE,
        SEVERITY,
        f"the config has no {names}: {who} indexes {reads}, so train.py stops with KeyError at start-up{tail}",
        config.root.items[0][1],  # a missing key has no place: the config's first key stands for it
        setting=missing[0][0],
        evidence=evidence,
    )


def _required(ctx: Context) -> tuple[str, str, list[str], list[tuple[str, str]]]:
    """(who indexes the keys, what the verdict depends on, evidence, [(key, where)]): the
    checkout's code, else recipelint's table of the releases, judged as WeNet HEAD with the
    releases that do not read the keys named."""
    checkout = ctx.recipe.checkout
    if checkout is not None and checkout.toolkit == "wenet":
        who = f"WeNet {checkout.version}" if checkout.version else "the WeNet this recipe runs"
        found = required_keys(checkout)
        keys = [(key, f"{function}(), wenet/{span.path.parent.name}/{span.path.name}:{span.line}") for key, function, span in found]
        evidence = [f"{span} of the {checkout.label()} (read with ast)" for _, _, span in found]
        return who, "", evidence, keys
    from recipelint.toolkits.wenet import codetable

    releases, declared = table_releases(ctx)
    needing = [r for r in releases if codetable.REQUIRED[r]]
    if not needing:
        return "", "", [], []
    others = [r for r in releases if r not in needing]
    newest = needing[-1]
    if declared is not None:
        tail = f" ({declared}" + (f"; {others[0]} to {others[-1]} do not read them)" if others else ")")
    else:
        tail = (
            f"; {others[0]} to {others[-1]} do not read them (no WeNet checkout found beside the recipe to tell which runs)"
            if others
            else ""
        )
    at = "" if declared is not None and len(needing) == 1 else f" at {newest}"
    keys = [
        (key, f"{function}(), wenet/utils/init_tokenizer.py:{line}{at}") for key, (function, line) in codetable.REQUIRED[newest].items()
    ]
    evidence = ["recipelint/toolkits/wenet/codetable.py: init_tokenizer() of each release, generated from the tagged sources"]
    who = f"WeNet {needing[0]} to {newest}" if len(needing) > 1 else f"WeNet {newest}"
    return who, tail, evidence, keys
