"""Rule documentation: complete for every rule, and docs/rules.md up to date."""

from __future__ import annotations

import functools

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


@functools.cache
def _rules_listing() -> str:
    from typer.testing import CliRunner

    from recipelint.cli import app

    return CliRunner().invoke(app, ["rules"]).output


@pytest.mark.parametrize("code", sorted(all_rules()))
def test_rules_listing_shows_the_whole_first_sentence(code: str) -> None:
    """`recipelint rules` shows the docstring's whole first paragraph: a summary wrapped over two
    lines (RL104's) was cut mid-sentence."""
    rule = all_rules()[code]
    first = " ".join(rule.doc.strip().split("\n\n", 1)[0].split())
    assert rule.summary == first and first.endswith((".", ")", "?")), rule.summary
    row = next(line for line in _rules_listing().splitlines() if line.startswith(f"{code} "))
    assert row.endswith(rule.summary)
