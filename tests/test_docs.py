"""Rule documentation: complete for every rule, and docs/rules.md up to date."""

from __future__ import annotations

import pytest

from recipelint.docs import rules_markdown
from recipelint.rules import all_rules
from tests.helpers import REPO

SECTIONS = ("## What it does", "## Why is this bad", "## Example", "## Fix", "## Fix safety")


@pytest.mark.parametrize("code", sorted(all_rules()))
def test_rule_doc_has_every_section(code: str) -> None:
    rule = all_rules()[code]
    for section in SECTIONS:
        assert section in rule.doc, f"{code} lacks {section}"
    assert rule.source and rule.name == rule.name.lower()


def test_generated_rules_doc_is_current() -> None:
    assert (REPO / "docs" / "rules.md").read_text() == rules_markdown(), "run: python -m recipelint.docs > docs/rules.md"


@pytest.mark.parametrize(
    "name",
    [
        "wenet/train.schema.json",
        "hardware/profile.schema.json",
        "deepspeed/ds_config.schema.json",
        "xtuner/launch.schema.json",
        "xtuner/config.schema.json",
    ],
)
def test_every_schema_is_valid_2020_12_with_id_and_title(name: str) -> None:
    from jsonschema import Draft202012Validator

    from recipelint.schemas import load_schema

    schema = load_schema(name)
    Draft202012Validator.check_schema(schema)
    assert schema["$id"].endswith(name) and schema["title"] and schema["description"]
