"""No rule divides by, or compares with, a recipe value it has not checked: every numeric key of
the DeepSpeed schema, set to 0, -1, 1.5, null, "8" and true in a real config (DeepSpeed's own
examples/sdma_allgather/ds_config_zero3.json, unmodified in tests/data/corpus), is judged by every
rule under an 8-GPU `deepspeed` launch and with no launch, and no rule raises (the engine would
report "internal error in a rule" and drop the file's findings)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from recipelint.context import Context, Options
from recipelint.hardware.profile import from_mapping
from recipelint.model import Recipe
from recipelint.parse.files import FileCache
from recipelint.parse.jsonfile import parse_json
from recipelint.rules import all_rules
from recipelint.schemas import load_schema
from tests.helpers import CORPUS, deepspeed_launch

BASE = CORPUS / "deepspeed" / "deepspeedai__DeepSpeed" / "examples" / "sdma_allgather" / "ds_config_zero3.json"
ODD_VALUES: tuple[Any, ...] = (0, -1, 1.5, None, "8", True)
NODE = {"gpus": 8, "nodes": 1, "cpus": 64, "memory_gib": 512, "gpu_compute_capability": "9.0"}


def _numeric(node: dict[str, Any], defs: dict[str, Any]) -> bool:
    branches = [node, *node.get("anyOf", []), *node.get("oneOf", [])]
    kinds: list[Any] = []
    for branch in branches:
        if "$ref" in branch:
            branch = defs.get(branch["$ref"].rsplit("/", 1)[-1], {})
        kind = branch.get("type")
        kinds += kind if isinstance(kind, list) else [kind]
    return "integer" in kinds or "number" in kinds


def numeric_keys(node: dict[str, Any], defs: dict[str, Any], prefix: str = "") -> Iterator[str]:
    for key, child in (node.get("properties") or {}).items():
        if not isinstance(child, dict):
            continue
        path = f"{prefix}{key}"
        if _numeric(child, defs):
            yield path
        yield from numeric_keys(child, defs, f"{path}.")
        for branch in child.get("anyOf", []):
            yield from numeric_keys(branch, defs, f"{path}.")


SCHEMA = load_schema("deepspeed/ds_config.schema.json")
# Enums of numbers the walk above does not see as numbers.
ENUMS = ("zero_optimization.stage",)
KEYS = sorted(set(numeric_keys(SCHEMA, SCHEMA.get("$defs", {}))) | set(ENUMS))


def _config(key: str, value: Any, total: bool) -> dict[str, Any]:
    config: dict[str, Any] = json.loads(BASE.read_text(encoding="utf-8"))
    if total:  # all three batch keys: the batch rule then does its arithmetic (issue 26's crash)
        config["train_batch_size"] = 8
    node = config
    *parents, leaf = key.split(".")
    for part in parents:
        child = node.get(part)
        node[part] = child = child if isinstance(child, dict) else {}
        node = child
    node[leaf] = value
    return config


def test_schema_has_numeric_keys() -> None:
    assert {
        "train_batch_size",
        "zero_optimization.reduce_bucket_size",
        "fp16.loss_scale_window",
        "scheduler.params.warmup_num_steps",
    } <= set(KEYS)


@pytest.mark.parametrize("total", [False, True], ids=["micro-batch", "all-three"])
@pytest.mark.parametrize("value", ODD_VALUES, ids=repr)
def test_no_rule_raises_on_odd_numbers(value: Any, total: bool, tmp_path: Path) -> None:
    rules = all_rules()
    profile = from_mapping(dict(NODE), "values test")
    failures = []
    for key in KEYS:
        path = tmp_path / "ds_config.json"
        path.write_text(json.dumps(_config(key, value, total), indent=2))
        for launch in (deepspeed_launch(8), None):
            recipe = Recipe(root=tmp_path, toolkit="deepspeed", ds_config=parse_json(FileCache().read(path)), ds_filler="none")
            recipe.launch = launch
            ctx = Context(recipe, lambda: profile, Options.from_keys({"model-params": 7e9}))
            for code, rule in rules.items():
                try:
                    list(rule.check(ctx))
                except Exception as exc:  # noqa: BLE001 - the point: any exception is a finding lost
                    failures.append(f"{code} on {key}={value!r} ({'launch' if launch else 'alone'}): {type(exc).__name__}: {exc}")
    assert failures == []
