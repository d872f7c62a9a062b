"""Which YAML is a WeNet train config, and the schema's view of a key path."""

from __future__ import annotations

from typing import Any

from recipelint.context import Context
from recipelint.schemas import load_schema
from recipelint.sources.tree import Document

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
