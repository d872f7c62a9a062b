"""Which YAML is a WeNet train config, and the schema's view of a key path."""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from recipelint.context import Context
from recipelint.parse.checkout import Checkout
from recipelint.parse.flags import Guard
from recipelint.parse.tree import Document
from recipelint.records import dataclass
from recipelint.schemas import load_schema
from recipelint.toolkits.wenet.checkout import dataset_keys, trainers
from recipelint.toolkits.wenet.frontend import entry_of
from recipelint.toolkits.wenet.part import lone_entry

if TYPE_CHECKING:  # the Python reader is imported only where a checkout is read (start-up)
    from recipelint.parse.pycode import KeyReads

SCHEMA = "wenet/train.schema.json"

# Keys WeNet 3 moved out of dataset_conf (wenet-e2e/wenet#2165 `3ab67184`, 2023-11-28, first in
# v3.0.0: the tokenizer left the data pipeline): dataset_conf.KEY is then ignored, and only the
# new place reaches the code.
MOVED = {"split_with_space": "tokenizer_conf.split_with_space"}


def wenet_config(ctx: Context) -> Document | None:
    """The recipe's train YAML, or a lone YAML that looks like one (dataset_conf or encoder at the top)."""
    config = ctx.recipe.config
    if config is None or config.root.kind != "map":
        return None
    if ctx.recipe.launch is not None or {"dataset_conf", "encoder"} & set(config.root.entries):
        return config
    return None


def closed_properties(path: list[str]) -> dict[str, Any] | None:
    """The properties of the schema object at `path`, if that object forbids other keys."""
    node: dict[str, Any] = load_schema(SCHEMA)
    for part in path:
        node = node.get("properties", {}).get(part) or {}
    if node.get("additionalProperties") is False:
        properties: dict[str, Any] = node.get("properties", {})
        return properties
    return None


SCHEMA_SOURCE = "schemas/wenet/train.schema.json (WeNet HEAD)"


def known_keys(ctx: Context, path: list[str]) -> tuple[Collection[str] | None, str]:
    """The keys the block at `path` may hold (None: open), and where that list comes from.

    With a WeNet checkout beside the recipe, `dataset_conf` and its blocks are what that
    checkout's `Dataset()` reads; the top level also accepts the keys its training code reads
    (the scan there is partial, so it only adds). Otherwise the schema decides."""
    schema = closed_properties(path)
    checkout = ctx.recipe.checkout
    if checkout is None or checkout.toolkit != "wenet":
        return schema, SCHEMA_SOURCE
    if path and path[0] == "dataset_conf" and len(path) <= 2:
        entries = _entries(ctx, checkout)
        blocks = [_block(dataset_keys(checkout, entry), path) for entry in entries]
        if blocks and all(b is not False for b in blocks):
            if any(b is None or b.open for b in blocks if not isinstance(b, bool)):
                return None, ""
            found = [b for b in blocks if b is not None and not isinstance(b, bool)]
            block = found[0]
            keys = set().union(*(b.keys for b in found))
            if block.module is not None:
                return keys, f"the parameters of {block.function}() in {block.module} of the {checkout.label()} (ast)"
            if len(entries) == 1:
                return keys, f"the keys wenet/dataset/dataset.py reads in the {checkout.label()} (ast)"
            trainers = ", ".join(e.rsplit("/", 1)[-1] for e in entries)
            return keys, f"the keys the Dataset of any of its trainers ({trainers}) reads in the {checkout.label()} (ast)"
    if not path and schema is not None:
        keys = {*schema, *checkout.config_keys(), *checkout.read_keys(top=True)}
        if ctx.recipe.launch is None and lone_entry(ctx.recipe) is None:  # no launch says which code reads it
            # The tree that holds the package (a fork's repository), never above it: a trainer of
            # the fork outside wenet/ (`local/me/bin/train.py`) may be the one that reads it.
            top = checkout.root
            return keys | checkout.repository_keys(top), f"{SCHEMA_SOURCE}, and the keys the Python code under {top} reads"
        return keys, f"{SCHEMA_SOURCE}, and the keys the code of the {checkout.label()} reads"
    if schema is not None:  # another block (tokenizer_conf, ...): a key any of its code reads is the code's
        return {*schema, *checkout.read_keys()}, f"{SCHEMA_SOURCE}, and the keys the code of the {checkout.label()} reads"
    return schema, SCHEMA_SOURCE


def unfollowed(ctx: Context, path: list[str]) -> tuple[set[str], str] | None:
    """For a dataset_conf block whose reading was not followed to the end (known_keys: open):
    the keys the code was seen to read, and where the rest of it went ("**conf into build() at
    line 40", "conf[name] at line 12"). None when nothing says (no checkout, a block read whole)."""
    checkout = ctx.recipe.checkout
    if checkout is None or checkout.toolkit != "wenet" or not path or path[0] != "dataset_conf" or len(path) > 2:
        return None
    blocks = [_block(dataset_keys(checkout, entry), path) for entry in _entries(ctx, checkout)]
    found = [b for b in blocks if b is not None and not isinstance(b, bool)]
    if len(found) < len(blocks):
        return None
    why = next((b.unfollowed for b in found if b.open and b.unfollowed), None)
    return (set().union(*(b.keys for b in found)), why) if why is not None else None


def _entries(ctx: Context, checkout: Checkout) -> list[str]:
    """The training scripts whose reading of dataset_conf decides: the one the launch (or the
    folder's run script) names; for a config no launch names, every trainer of the package
    (`wenet/bin/train_dys.py` beside train.py in a fork), since any of them may read it."""
    recipe = ctx.recipe
    if recipe.launch is not None or lone_entry(recipe) is not None:
        return [entry_of(recipe)]
    return trainers(checkout) or [entry_of(recipe)]


def _block(reads: dict[str, KeyReads] | None, path: list[str]) -> KeyReads | None | bool:
    """The reads of dataset_conf (or its block at `path`); False: the code was not readable."""
    if reads is None:
        return False
    return reads.get("" if len(path) == 1 else path[1])


@dataclass(frozen=True)
class Spread:
    """A `dataset_conf` block the WeNet code spreads as `**block` into a processor function."""

    function: str
    strict: bool  # the function takes no **kwargs: an unknown key is a TypeError
    line: int  # in wenet/dataset/dataset.py
    guard: Guard | None
    release: str  # who does it, as a message says it: "WeNet v2.1.0", "every WeNet release (v2.0.0 to HEAD)"
    evidence: str
    file: str = "wenet/dataset/processor.py"  # where `function` is defined
    when: str = "in every loader worker on the first batch"  # where the TypeError is raised


def spread_block(ctx: Context, path: list[str], key: str) -> Spread | None:
    """How the recipe's WeNet uses the block `dataset_conf.<name>` (or `dataset_conf` itself) when
    it spreads it into a function: its checkout's code, else recipelint's table of the releases."""
    if not path or len(path) > 2 or path[0] != "dataset_conf":
        return None
    checkout = ctx.recipe.checkout
    if checkout is not None and checkout.toolkit == "wenet":
        entry = entry_of(ctx.recipe)
        reads = dataset_keys(checkout, entry)
        block = reads.get("" if len(path) == 1 else path[1]) if reads is not None else None
        if block is None or block.function is None:
            return None
        release = f"WeNet {checkout.version}" if checkout.version else "the WeNet this recipe runs"
        if block.module is not None:  # dataset_conf itself, spread by the training script
            file = block.module.replace(".", "/") + ".py"
            evidence = f"wenet/{entry}:{block.line} of the {checkout.label()} spreads dataset_conf into {block.function}() ({file})"
            when = f"when {entry.rsplit('/', 1)[-1]} builds its datasets, before the first step"
            return Spread(block.function, block.strict, block.line, None, release, evidence, file, when)
        evidence = f"wenet/dataset/dataset.py:{block.line} of the {checkout.label()} spreads {path[1]} into {block.function}()"
        return Spread(block.function, block.strict, block.line, block.guard, release, evidence)
    return _from_table(ctx, path[1], key) if len(path) == 2 else None


def _from_table(ctx: Context, block: str, key: str) -> Spread | None:
    """No checkout: which releases reject the key, over the releases the run may import (every
    one, judged as HEAD, when nothing says), so the message says what the verdict depends on."""
    from recipelint.toolkits.wenet import codetable

    releases, declared = table_releases(ctx)
    rejecting = [r for r in releases if _rejects(codetable.SPREAD[r].get(block), key)]
    if not rejecting or (declared is None and "HEAD" not in rejecting):
        return None  # the releases in question (HEAD, which recipelint assumes) take the key
    using = [r for r in releases if block in codetable.SPREAD[r]]
    span = f"{rejecting[0]} to {rejecting[-1]}" if len(rejecting) > 1 else rejecting[0]
    if declared is not None:
        release = f"WeNet {span} ({declared})"
    elif rejecting == using:
        release = f"every WeNet release ({span})"
    else:
        release = f"WeNet HEAD (no checkout found beside the recipe; {', '.join(rejecting)} reject it, the other releases do not)"
    function, _, strict, line, guard = codetable.SPREAD[rejecting[-1]][block]
    evidence = f"recipelint/toolkits/wenet/codetable.py (generated from the tagged sources): wenet/dataset/dataset.py:{line} at {rejecting[-1]} spreads {block} into {function}()"
    guard_row = Guard(*guard) if isinstance(guard, tuple) else None
    return Spread(str(function), bool(strict), int(str(line)), guard_row, release, evidence)


def _rejects(row: tuple[object, ...] | None, key: str) -> bool:
    if row is None:
        return False
    parameters, strict = row[1], row[2]
    return bool(strict) and isinstance(parameters, tuple) and key not in parameters


def table_releases(ctx: Context) -> tuple[list[str], str | None]:
    """The releases of recipelint's code table the run may import and where that was read; None
    when nothing beside the recipe or in the settings says (then every release, judged as HEAD)."""
    from recipelint import versions
    from recipelint.toolkits.wenet import codetable

    declared = ctx.version_range("wenet")
    if declared.kind == "newest":
        return list(codetable.RELEASES), None
    admitted = [r for r in codetable.RELEASES if r != "HEAD" and declared.admits(versions.parse(r.lstrip("v")))]
    return admitted, declared.allows()
