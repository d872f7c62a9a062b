"""The generated rule registry (recipelint/rules/registry.py) is what its generator prints, and
what each rule visits is registered and read as declared."""

from __future__ import annotations

import subprocess
import sys
import types
from pathlib import Path

import pytest

from recipelint.rules import _from_module, all_rules
from recipelint.rules.generate import registry_source
from recipelint.rules.registry import RULES
from recipelint.toolkits import subjects

REGISTRY = Path(__file__).parent.parent / "recipelint" / "rules" / "registry.py"


def test_registry_is_current() -> None:
    assert REGISTRY.read_text(encoding="utf-8") == registry_source(), (
        "recipelint/rules/registry.py is stale: run `python -m recipelint.rules.generate > recipelint/rules/registry.py`"
    )


def test_registry_lists_every_rule_once() -> None:
    codes = [entry[0] for entry in RULES]
    assert len(codes) == len(set(codes))
    assert set(codes) == set(all_rules())
    for code, module, _, kinds, visits in RULES:
        rule = all_rules()[code]
        assert (rule.check.__module__, rule.toolkits, rule.visits) == (module, kinds, visits)


def test_generator_runs_as_documented() -> None:
    out = subprocess.run([sys.executable, "-m", "recipelint.rules.generate"], capture_output=True, text=True, check=True)
    assert out.stdout == REGISTRY.read_text(encoding="utf-8")


def test_every_visit_is_a_registered_subject() -> None:
    known = subjects()
    assert {"recipe", "launch", "script", "allocation", "deepspeed-config", "wenet-config", "xtuner-launch"} <= set(known)
    for rule in all_rules().values():
        assert set(rule.visits) <= set(known), rule.code


def _module(**names: object) -> types.ModuleType:
    module = types.ModuleType("recipelint.rules.meta.made_up")
    defaults = {"CODE": "RL099", "NAME": "made-up", "SEVERITY": "info", "FIXABLE": False, "SOURCE": "-", "check": lambda ctx: iter(())}
    for key, value in {**defaults, **names}.items():
        setattr(module, key, value)
    return module


def test_a_misspelt_visit_fails_when_the_rules_load() -> None:
    with pytest.raises(RuntimeError, match="VISITS names 'lanch'"):
        _from_module(_module(VISITS=("lanch",)), "meta", _module())


def test_a_rule_that_does_not_say_what_it_visits_fails() -> None:
    with pytest.raises(RuntimeError, match="says what it visits"):
        _from_module(_module(), "meta", _module())
