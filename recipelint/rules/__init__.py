"""The rules: one module per rule, grouped in one package per family: the
families shared by several toolkits here (launch, known, meta), each toolkit's in its package
(`recipelint.toolkits.<name>`, listed in `Toolkit.rules`).

A rule module defines CODE, NAME, SEVERITY, FIXABLE, SOURCE, VISITS and `check(ctx)`, and its
docstring is the rule's documentation (sections: What it does, Why is this bad, Example,
Fix, Fix safety). TOOLKITS (in the module or its family's `__init__`) limits the rule to
recipes of those toolkits. VISITS names what the rule looks at (recipelint.subjects: "launch",
"allocation", "deepspeed-config", "wenet-config", ...; "recipe" for any recipe, empty for a rule
whose findings the runner produces): the engine calls `check` only on recipes that have every
one, and a name no one registered fails when the rules load. FACTS names the training node's hardware facts the rule judges the
recipe against (`cpus`, `memory_gib`, ...): a rule with FACTS is hardware-derived, and when the
machine recipelint runs on is not the training node it sees those facts as unknown and is named
in RL004. A rule that reads a fact only as one reason among several (RL301: Ethernet beside
remote shards) leaves it out of FACTS and sees it unknown all the same. Adding a rule means
adding a file and regenerating the registry (`python -m recipelint.rules.generate`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from recipelint.diagnostics import Diagnostic, Severity
from recipelint.packages import submodules
from recipelint.records import dataclass

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
    visits: tuple[str, ...] = ("recipe",)  # what the rule looks at (recipelint.subjects); all must exist

    @property
    def hardware_derived(self) -> bool:
        return bool(self.facts)

    def applies_to(self, toolkit: str) -> bool:
        return self.toolkits is None or toolkit in self.toolkits

    @property
    def summary(self) -> str:
        """The docstring's first paragraph on one line: a summary wrapped over two lines is one
        sentence, and showing its first line alone cuts it mid-sentence."""
        first = self.doc.strip().split("\n\n", 1)[0]
        return " ".join(first.split()) or self.name


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
        visits=_visits(module),
    )


def _visits(module: ModuleType) -> tuple[str, ...]:
    """The module's VISITS, each a registered subject: a rule that does not say what it visits,
    or names what nobody registered, fails when the rules load."""
    from recipelint.toolkits import subjects

    visits = getattr(module, "VISITS", None)
    if visits is None:
        raise RuntimeError(f'{module.__name__}: a rule module says what it visits (VISITS = ("launch",), ...)')
    known = subjects()
    for name in visits:
        if name not in known:
            raise RuntimeError(f"{module.__name__}: VISITS names {name!r}, which nobody registered (known: {', '.join(sorted(known))})")
    return tuple(visits)


def rules_page() -> Path:
    """docs/rules.md as this install has it: shipped in the wheel (`recipelint/pages/rules.md`),
    else the source tree's. Rule links point here, a page every user has, not a web address."""
    installed = Path(__file__).parent.parent / "pages" / "rules.md"
    return installed if installed.is_file() else Path(__file__).parent.parent.parent / "docs" / "rules.md"


def rule_url(code: str) -> str:
    """A link to a rule's section of the rules page (`#rl201-name`, the heading's anchor); the
    page alone for a code that is no rule (a file error, a log signature)."""
    page = rules_page().resolve().as_uri()
    rule = all_rules().get(code)
    return f"{page}#{code.lower()}-{rule.name}" if rule is not None else page


# The rules found, by the toolkit asked for (None: all), with the registry as it was then (a
# toolkit registered later is seen).
_RULES: dict[str | None, tuple[tuple[int, ...], dict[str, Rule]]] = {}


def _rule_modules(name: str, family: str, toolkit: str | None) -> Iterator[tuple[ModuleType, str, ModuleType]]:
    """(module, family, its package) of each rule under a dotted name: a rule module, a family
    (a package of rule modules) or a package of families (each named after its package). A
    package whose TOOLKITS leaves out `toolkit` is not looked into: its rules never apply."""
    module = importlib.import_module(name)
    if hasattr(module, "CODE"):
        yield module, family, module
        return
    limited = getattr(module, "TOOLKITS", None)
    _known_kinds(limited, name)
    if toolkit is not None and limited is not None and toolkit not in limited:
        return
    for sub, is_package in submodules(module.__path__):
        if sub.startswith("_"):
            continue
        if is_package:
            yield from _rule_modules(f"{name}.{sub}", sub, toolkit)
        else:
            yield importlib.import_module(f"{name}.{sub}"), family, module


def _known_kinds(names: tuple[str, ...] | None, where: str) -> None:
    """A TOOLKITS naming a recipe kind no registered toolkit builds fails when the rules load: a
    typo would switch the rule off unnoticed."""
    from recipelint.toolkits import kinds

    known = kinds()
    for kind in names or ():
        if kind not in known:
            raise RuntimeError(f"{where}: TOOLKITS names {kind!r}, which no registered toolkit builds (known: {', '.join(sorted(known))})")


def _sources() -> Iterator[tuple[str, str]]:
    """(dotted name, family) of the shared families and of each registered toolkit's rules."""
    from recipelint.toolkits import REGISTRY

    for family, is_package in submodules(__path__):
        if is_package:
            yield f"{__name__}.{family}", family
    yield "recipelint.rulekit.unknown_fact", "meta"  # RL001 sits below the toolkits, whose rules produce it
    for toolkit in REGISTRY:
        for name in toolkit.rules:
            yield name, toolkit.name


def walk_rules() -> Iterator[tuple[str, Rule]]:
    """(module name, rule) of every rule the built-in sources hold, found by walking their
    packages: what the generated registry lists (recipelint.rules.generate)."""
    for name, family in _sources():
        for module, module_family, package in _rule_modules(name, family, None):
            yield module.__name__, _from_module(module, module_family, package)


def _listed(source: str, toolkit: str | None) -> Iterator[tuple[ModuleType, str, ModuleType]] | None:
    """The rule modules the generated registry lists under a source that apply to `toolkit`, each
    imported (None: the registry lists nothing there, a toolkit registered at run time)."""
    from recipelint.rules.registry import RULES

    under = [entry for entry in RULES if entry[1] == source or entry[1].startswith(source + ".")]
    if not under:
        return None
    wanted = [entry for entry in under if toolkit is None or entry[3] is None or toolkit in entry[3]]
    return ((importlib.import_module(module), family, _package(module)) for _, module, family, _, _ in wanted)


def _package(module: str) -> ModuleType:
    return importlib.import_module(module.rpartition(".")[0])


def all_rules() -> dict[str, Rule]:
    """Every rule, by code: the shared families here and the registered toolkits' rules."""
    return rules_for(None)


def rules_for(toolkit: str | None) -> dict[str, Rule]:
    """The rules that apply to recipes of `toolkit` (None: every rule), by code. Only their
    modules are imported: a WeNet recipe's check loads no XTuner rule. The built-in rules come
    from the generated registry; a toolkit registered at run time has its packages walked."""
    from recipelint.toolkits import REGISTRY

    key = tuple(id(registered) for registered in REGISTRY)
    known = _RULES.get(toolkit)
    if known is None or known[0] != key:
        found: dict[str, Rule] = {}
        for name, family in _sources():
            listed = _listed(name, toolkit)
            for module, module_family, package in listed if listed is not None else _rule_modules(name, family, toolkit):
                rule = _from_module(module, module_family, package)
                _known_kinds(rule.toolkits, module.__name__)
                if rule.code in found:
                    raise RuntimeError(f"rule code {rule.code} is defined twice")
                if toolkit is None or rule.applies_to(toolkit):
                    found[rule.code] = rule
        known = _RULES[toolkit] = key, dict(sorted(found.items()))
    return known[1]
