"""Which YAML is a WeNet train config, and the schema's view of a key path."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from recipelint.context import Context
from recipelint.parse.tree import Document
from recipelint.schemas import load_schema

SCHEMA = "wenet/train.schema.json"


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
        reads = checkout.dataset_keys()
        if reads is not None:
            block = reads.get("" if len(path) == 1 else path[1])
            if block is None or block.open:
                return None, ""
            return block.keys, f"the keys wenet/dataset/dataset.py reads in the {checkout.label()} (ast)"
    if not path and schema is not None:
        return {*schema, *checkout.config_keys()}, f"{SCHEMA_SOURCE}, and the keys the training code of the {checkout.label()} reads"
    return schema, SCHEMA_SOURCE
