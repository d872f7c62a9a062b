"""The rules: one module per rule, grouped in one package per family.

A rule module defines CODE, NAME, SEVERITY, FIXABLE, SOURCE and `check(ctx)`, and its
docstring is the rule's documentation (sections: What it does, Why is this bad, Example,
Fix, Fix safety). TOOLKITS (in the module or its family's `__init__`) limits the rule to
recipes of those toolkits. FACTS names the training node's hardware facts the rule judges the
recipe against (`cpus`, `memory_gib`, ...): a rule with FACTS is hardware-derived, and when the
machine recipelint runs on is not the training node it sees those facts as unknown and is named
in RL004. A rule that reads a fact only as one reason among several (RL301: Ethernet beside
remote shards) leaves it out of FACTS and sees it unknown all the same. Adding a rule means
adding a file: the registry finds it.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING

from recipelint.diagnostics import Diagnostic, Severity

if TYPE_CHECKING:
    from recipelint.context import Context


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    family: str
    severity: Severity
    fixable: bool
    source: str  # the fact or document the rule's numbers come from
    doc: str
    check: Callable[[Context], Iterable[Diagnostic]]
    toolkits: tuple[str, ...] | None = None  # None: every toolkit
    facts: tuple[str, ...] = ()  # the node's hardware facts the rule judges against

    @property
    def hardware_derived(self) -> bool:
        return bool(self.facts)

    def applies_to(self, toolkit: str) -> bool:
        return self.toolkits is None or toolkit in self.toolkits

    @property
    def summary(self) -> str:
        return self.doc.strip().splitlines()[0] if self.doc.strip() else self.name


def _from_module(module: ModuleType, family: str, package: ModuleType) -> Rule:
    return Rule(
        code=module.CODE,
        name=module.NAME,
        family=family,
        severity=module.SEVERITY,
        fixable=module.FIXABLE,
        source=module.SOURCE,
        doc=module.__doc__ or "",
        check=module.check,
        toolkits=getattr(module, "TOOLKITS", getattr(package, "TOOLKITS", None)),
        facts=tuple(getattr(module, "FACTS", ())),
    )


_RULES: dict[str, Rule] | None = None


def all_rules() -> dict[str, Rule]:
    global _RULES
    if _RULES is None:
        found: dict[str, Rule] = {}
        for family in pkgutil.iter_modules(__path__):
            if not family.ispkg:
                continue
            package = importlib.import_module(f"{__name__}.{family.name}")
            for info in pkgutil.iter_modules(package.__path__):
                if info.name.startswith("_"):
                    continue
                module = importlib.import_module(f"{package.__name__}.{info.name}")
                rule = _from_module(module, family.name, package)
                if rule.code in found:
                    raise RuntimeError(f"rule code {rule.code} is defined twice")
                found[rule.code] = rule
        _RULES = dict(sorted(found.items()))
    return _RULES
