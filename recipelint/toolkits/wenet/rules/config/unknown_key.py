"""A train-YAML key WeNet does not read (misspelled or misplaced).

## What it does
Checks the top level and `dataset_conf` (with its `*_conf` blocks) against
`schemas/wenet/train.schema.json` and suggests the closest known key. When the recipe's WeNet
checkout is found, `dataset_conf` is checked against the keys that checkout's
`wenet/dataset/dataset.py` reads (and the parameters of the processor functions it passes
each block to), read with `ast`; the top level also accepts any key its training code reads.
Model blocks (`encoder_conf`, `decoder_conf`, ...) are open: their keys depend on the
architecture. Where the checkout's code takes a `dataset_conf` block where `ast` does not follow
it (keys it computes, `conf[name]`, `conf.get(name)`, iteration, `**conf` into a call, a helper
not found, a processor taking `**kwargs`), the keys no code was seen to read are one info for the
block naming where the reading went ("not followed: conf[name] at line 40"), not keys called
unread.

The severity follows what the code does with the key. A block the checkout spreads as
`**block` into a function without `**kwargs` (WeNet 2's `Processor(dataset,
processor.spec_aug, **spec_aug_conf)`) rejects it: an error naming the function, its file and
the release (a warning when the YAML turns the step off, so the block is never passed). A key
WeNet 3 reads elsewhere (`dataset_conf.split_with_space` -> `tokenizer_conf.split_with_space`)
is info when the new place holds the same value, else a warning. Any other unknown key is a
warning: ignored.

WeNet 1's `train.py` and WeNet 2.0's `train_deprecated.py` spread `dataset_conf` itself into
`AudioDataset()` (`AudioDataset(path, **dataset_conf, raw_wav=raw_wav)`,
wenet-e2e/wenet@d2c41cb3:wenet/bin/train_deprecated.py): with such a checkout, the keys are that
constructor's parameters, read from the script the launch runs (a config checked alone: the
script its folder's run.sh starts), and any other key is an error raised before the first step.

## Why is this bad
WeNet reads these blocks with `dict.get(key, default)`: a misspelled `shufle_size` or a
`max_frames_in_batch` under `filter_conf` is silently ignored and the default applies
(`shuffle_size` has none: the pipeline raises KeyError at the first batch). A block passed as
keyword arguments is worse: `spec_aug()` called with `warp_for_time=True` raises TypeError in
every loader worker on the first batch (WeNet v2.1.0's librispeech u2++ config).

## Example
```yaml
dataset_conf:
  batch_conf:
    batch_type: dynamic
    max_frame_in_batch: 12000   # ignored: the default 12000 applies, by luck
```

## Fix
Renames the key to the suggestion, when there is one close enough; a key a function rejects
with no close parameter is removed.

## Fix safety
Unsafe: the suggestion is a guess from spelling.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator

from recipelint.context import Context
from recipelint.diagnostics import Applicability, Diagnostic, Edit, Fix, Severity
from recipelint.parse.span import Span
from recipelint.parse.tree import Node
from recipelint.rulekit import closest
from recipelint.toolkits.wenet.rules.config._wenet import MOVED, SCHEMA_SOURCE, Spread, known_keys, spread_block, unfollowed, wenet_config

CODE = "RL701"
NAME = "unknown-config-key"
SEVERITY = Severity.WARNING
VISITS = ("wenet-config",)
FIXABLE = True
SOURCE = "the checkout's wenet/dataset/dataset.py and processor.py (ast); else schemas/wenet/train.schema.json, from wenet-e2e/wenet@01546996:wenet/dataset/dataset.py and wenet-e2e/wenet@01546996:wenet/dataset/processor.py"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    config = wenet_config(ctx)
    if config is None:
        return
    yield from _walk(ctx, config.root, [])


def _walk(ctx: Context, node: Node, path: list[str]) -> Iterator[Diagnostic | None]:
    if node.kind != "map":
        return
    known, source = known_keys(ctx, path)
    if known is None:
        yield _not_followed(ctx, path, node)
    for key, key_span, child in node.items:
        if known is not None and key not in known:
            yield _finding(ctx, path, key, key_span, child, known, source)
            continue
        if known is not None or not path:
            yield from _walk(ctx, child, path + [key])


def _not_followed(ctx: Context, path: list[str], node: Node) -> Diagnostic | None:
    """The keys of a block whose reading the code takes where ast does not follow, that no code
    was seen to read: not judged, once for the block (at its first such key)."""
    seen = unfollowed(ctx, path)
    unjudged = [(key, span) for key, span, _ in node.items if seen is not None and key not in seen[0]]
    if seen is None or not unjudged:
        return None
    block = ".".join(path)
    checkout = ctx.recipe.checkout
    where = f" of the {checkout.label()}" if checkout is not None else ""
    keys = ", ".join(key for key, _ in unjudged)
    message = (
        f"'{block}': {len(unjudged)} key(s) not judged ({keys}): no code seen reads them, and {block} was not followed: {seen[1]}{where}"
    )
    return ctx.diagnostic(CODE, Severity.INFO, message, unjudged[0][1], setting=block, evidence=[f"not followed: {seen[1]}"])


def _finding(
    ctx: Context, path: list[str], key: str, key_span: Span, child: Node, known: Collection[str], source: str
) -> Diagnostic | None:
    guess = closest(key, known)
    dotted = ".".join(path + [key])
    hint = f"; did you mean '{guess}'?" if guess else ""
    fix = Fix((Edit(key_span, guess),), Applicability.UNSAFE, f"rename to {guess}") if guess else None
    severity, who = SEVERITY, "WeNet ignores it" if source == SCHEMA_SOURCE else "the WeNet this recipe runs does not read it"
    evidence = [f"keys from {source}"]
    spread = spread_block(ctx, path, key)
    moved = MOVED.get(key) if path == ["dataset_conf"] else None
    if spread is not None and spread.strict:
        severity, who, evidence = _rejected(ctx, path, key, spread, evidence)
        fix = fix or _removal(ctx, key_span, child)
    elif moved is not None:
        severity, who = _moved(ctx, moved, child)
    return ctx.diagnostic(
        CODE,
        severity,
        f"unknown key '{dotted}': {who}{hint}",
        key_span,
        setting=dotted,
        current=key,
        suggested=guess,
        evidence=evidence,
        fix=fix,
    )


def _rejected(ctx: Context, path: list[str], key: str, spread: Spread, evidence: list[str]) -> tuple[Severity, str, list[str]]:
    """A key of a block spread as keyword arguments into a function that has no such parameter."""
    function = f"{spread.function}() ({spread.file})"
    crash = (
        f"{spread.release} passes {path[-1]} as keyword arguments to {function}, which has no parameter '{key}': TypeError {spread.when}"
    )
    evidence = [*evidence, spread.evidence]
    guard = spread.guard
    if guard is None:
        return Severity.ERROR, crash, evidence
    config = ctx.recipe.config
    value = config.root.get(f"dataset_conf.{guard.key}") if config is not None else None
    if value is None or value.kind == "scalar":
        given = guard.default if value is None else value.value
        if not guard.holds(given):
            off = guard.words().replace(" is ", " is not ", 1)
            return SEVERITY, f"{spread.release} never passes {path[-1]} to {function} while {off}", evidence
        return Severity.ERROR, crash, evidence
    return Severity.ERROR, f"{crash}, when {guard.words()}", evidence


def _moved(ctx: Context, moved: str, child: Node) -> tuple[Severity, str]:
    """dataset_conf.split_with_space after WeNet 3 moved it: harmless when the new place says the same."""
    config = ctx.recipe.config
    there = config.root.get(moved) if config is not None else None
    if there is not None and there.kind == "scalar" and child.kind == "scalar" and there.value == child.value:
        return Severity.INFO, f"the WeNet this recipe runs reads {moved} instead, which this config sets to the same value"
    return SEVERITY, f"the WeNet this recipe runs reads {moved} instead: this value never reaches the tokenizer"


def _removal(ctx: Context, key_span: Span, child: Node) -> Fix | None:
    config = ctx.recipe.config
    lines = config.source.whole_lines(key_span, child.span) if config is not None else None
    return Fix((Edit(lines, ""),), Applicability.UNSAFE, "remove the key") if lines is not None else None
