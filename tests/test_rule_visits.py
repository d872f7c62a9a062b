"""The engine calls a rule only on recipes that have what it visits (VISITS): on the real files
the tests carry, a rule skipped for want of its subject finds nothing there when run anyway, so
the declaration loses no finding."""

from __future__ import annotations

from pathlib import Path

import pytest

from recipelint import engine
from recipelint.context import Context
from recipelint.diagnostics import Diagnostic
from recipelint.hardware.profile import load_profile
from recipelint.rules import rules_for
from recipelint.toolkits import subjects

DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).parent.parent
TREES = [ROOT / "examples", DATA / "upstream", DATA / "field", DATA / "claims"]
PROFILE = DATA / "profiles" / "a100-8x-96cpu-ib.yaml"


@pytest.mark.slow
def test_a_skipped_rule_finds_nothing_where_its_subject_is_missing() -> None:
    contexts: list[Context] = []

    def observe(ctx: Context, found: list[Diagnostic]) -> None:
        contexts.append(ctx)

    hardware = load_profile(PROFILE)
    engine.check([tree for tree in TREES if tree.exists()], hardware=lambda: hardware, observe=observe)
    known = subjects()
    skipped = lost = 0
    kinds: set[str] = set()
    for ctx in contexts:
        for rule in rules_for(ctx.recipe.toolkit).values():
            missing = [name for name in rule.visits if not known[name].present(ctx)]
            if not missing:
                continue
            skipped += 1
            kinds.add(ctx.recipe.toolkit)
            found = [d for d in rule.check(ctx) if d is not None]
            lost += len(found)
            assert not found, f"{rule.code} visits {missing} and finds {found[0].message!r} on {ctx.recipe.root} without it"
    assert len(contexts) > 50 and skipped > 100 and {"wenet", "deepspeed", "xtuner"} <= kinds
