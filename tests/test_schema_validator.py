"""recipelint's schema validator gives jsonschema's verdicts on recipelint's own schemas."""

from __future__ import annotations

import functools
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from recipelint.parse.files import FileCache
from recipelint.parse.yamlfile import parse_yaml
from recipelint.schemas import _validator, load_schema
from tests.helpers import CORPUS, REPO

SCHEMAS = {".yaml": "wenet/train.schema.json", ".json": "deepspeed/ds_config.schema.json"}


def documents() -> list[tuple[str, Any]]:
    docs: list[tuple[str, Any]] = [
        (
            "hardware/profile.schema.json",
            parse_yaml(FileCache().read(REPO / "examples/wenet-4node-v100/hardware-v100-node.yaml")).root.plain(),
        )
    ]
    for path in sorted(CORPUS.rglob("*")):
        if path.suffix == ".json":
            docs.append((SCHEMAS[".json"], json.loads(path.read_text())))
        elif path.suffix == ".yaml":
            docs.append((SCHEMAS[".yaml"], parse_yaml(FileCache().read(path)).root.plain()))
    return docs


@functools.cache
def reference(schema: str) -> Draft202012Validator:
    """jsonschema's validator, built once per schema: building it costs more than a verdict."""
    return Draft202012Validator(load_schema(schema))


def same_verdict(schema: str, data: Any) -> None:
    ours = _validator(schema).iter_errors(data)
    theirs = list(reference(schema).iter_errors(data))
    assert bool(ours) == bool(theirs), (schema, [e.message for e in ours], [e.message for e in theirs])
    assert sorted(tuple(map(str, e.absolute_path)) for e in ours) == sorted(tuple(map(str, e.absolute_path)) for e in theirs)
    assert sorted(e.message for e in ours) == sorted(e.message for e in theirs)


@pytest.mark.parametrize(("schema", "data"), documents())
def test_corpus_verdicts_match_jsonschema(schema: str, data: Any) -> None:
    same_verdict(schema, data)


LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.floats(-2, 2, allow_nan=False),
    st.sampled_from(["auto", "cpu", "CPU", "nvme", "dynamic", "3", "false", "x"]),
)
KEYS = {
    "deepspeed/ds_config.schema.json": [
        "train_batch_size",
        "gradient_clipping",
        "steps_per_print",
        "zero_optimization",
        "stage",
        "offload_param",
        "device",
        "ratio",
        "fp16",
        "enabled",
        "loss_scale",
        "bf16",
        "optimizer",
        "params",
        "compile",
        "gradient_clipp1ng",
    ],
    "wenet/train.schema.json": [
        "dataset_conf",
        "batch_conf",
        "batch_type",
        "batch_size",
        "filter_conf",
        "max_length",
        "accum_grad",
        "cmvn_conf",
        "is_json_cmvn",
        "encoder_conf",
        "grad_clipp",
    ],
}


def trees(keys: list[str]) -> st.SearchStrategy[Any]:
    return st.recursive(
        LEAVES, lambda inner: st.dictionaries(st.sampled_from(keys), inner, max_size=4) | st.lists(inner, max_size=3), max_leaves=12
    )


# Built once per schema: a strategy built inside flatmap is rebuilt for every example.
DOCUMENTS = {schema: st.dictionaries(st.sampled_from(keys), trees(keys), max_size=5) for schema, keys in KEYS.items()}


@pytest.mark.slow  # 300 generated documents
@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(st.sampled_from(sorted(KEYS)).flatmap(lambda schema: st.tuples(st.just(schema), DOCUMENTS[schema])))
def test_generated_verdicts_match_jsonschema(case: tuple[str, Any]) -> None:
    same_verdict(*case)
