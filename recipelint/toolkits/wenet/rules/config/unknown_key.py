"""A train-YAML key WeNet does not read (misspelled or misplaced).

## What it does
Checks the top level and `dataset_conf` (with its `*_conf` blocks) against
`schemas/wenet/train.schema.json` and suggests the closest known key. When the recipe's WeNet
checkout is found, `dataset_conf` is checked against the keys that checkout's
`wenet/dataset/dataset.py` reads (and the parameters of the processor functions it passes
each block to), read with `ast`; the top level also accepts any key its training code reads.
Model blocks (`encoder_conf`, `decoder_conf`, ...) are open: their keys depend on the
architecture.

## Why is this bad
WeNet reads these blocks with `dict.get(key, default)`: a misspelled `shufle_size` or a
`max_frames_in_batch` under `filter_conf` is silently ignored and the default applies
(`shuffle_size` has none: the pipeline raises KeyError at the first batch).

## Example
```yaml
dataset_conf:
  batch_conf:
    batch_type: dynamic
    max_frame_in_batch: 12000   # ignored: the default 12000 applies, by luck
```

## Fix
Renames the key to the suggestion, when there is one close enough.

## Fix safety
Unsafe: the suggestion is a guess from spelling.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Applicability, Diagnostic, Edit, Fix, Severity
from recipelint.parse.tree import Node
from recipelint.rulekit import closest
from recipelint.toolkits.wenet.rules.config._wenet import SCHEMA_SOURCE, known_keys, wenet_config

CODE = "RL701"
NAME = "unknown-config-key"
SEVERITY = Severity.WARNING
FIXABLE = True
SOURCE = "the checkout's wenet/dataset/dataset.py and processor.py (ast); else schemas/wenet/train.schema.json, from those files at HEAD (wenet.md 3.6, 4)"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    config = wenet_config(ctx)
    if config is None:
        return
    yield from _walk(ctx, config.root, [])


def _walk(ctx: Context, node: Node, path: list[str]) -> Iterator[Diagnostic | None]:
    if node.kind != "map":
        return
    known, source = known_keys(ctx, path)
    for key, key_span, child in node.items:
        if known is not None and key not in known:
            guess = closest(key, known)
            dotted = ".".join(path + [key])
            hint = f"; did you mean '{guess}'?" if guess else ""
            fix = Fix((Edit(key_span, guess),), Applicability.UNSAFE, f"rename to {guess}") if guess else None
            who = "WeNet ignores it" if source == SCHEMA_SOURCE else "the WeNet this recipe runs does not read it"
            yield ctx.diagnostic(
                CODE,
                SEVERITY,
                f"unknown key '{dotted}': {who}{hint}",
                key_span,
                setting=dotted,
                current=key,
                suggested=guess,
                evidence=[f"keys from {source}"],
                fix=fix,
            )
            continue
        if known is not None or not path:
            yield from _walk(ctx, child, path + [key])
