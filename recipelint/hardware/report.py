"""Which machine each recipe was judged against, and why: the report's first line, JSON's
`hardware.source`, and RL004 when the probed host is not the training node."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from recipelint.diagnostics import Diagnostic, Severity
from recipelint.records import dataclass

if TYPE_CHECKING:
    from recipelint.allocation import Allocation
    from recipelint.hardware.host import Verdict
    from recipelint.hardware.profile import Hardware
    from recipelint.model import Recipe
    from recipelint.parse.span import Span

NOT_THE_NODE = "RL004"
HOW_TO_GIVE_THE_NODE = (
    "on the training node: `recipelint probe --output node.yaml`; then `--hardware node.yaml`, "
    'or `hardware = "node.yaml"` in recipelint.toml (relative to that file)'
)


@dataclass(frozen=True)
class Judged:
    # "profile", "host" (the probe, taken as the node), "allocation" (a job file's, no profile
    # given) or "none" (the host is not the node)
    kind: str
    label: str  # "profile node.yaml", "this host", "none"
    why: str
    where: Span | None = None
    toolkit: str = ""  # the recipe's, when the probe judged it (a named machine judges every toolkit alike)
    # "allocation" on a host that is not the node: the facts the job file states; the others are
    # hidden as for "none", and RL004 names the rules that judge them.
    stated: tuple[str, ...] | None = None

    @classmethod
    def chosen(cls, hardware: Hardware) -> Judged:
        """A machine the user named: a profile (--hardware, the settings) or `--hardware host`."""
        why = hardware.chosen_by or "given by the caller"
        if hardware.origin == "probe":
            return cls("host", "this host", why)
        return cls("profile", hardware.label or "a profile", why)

    @classmethod
    def granted(cls, allocation: Allocation, recipe: Recipe, verdict: Verdict) -> Judged:
        """No profile given, and the recipe runs inside a job file that states its allocation."""
        why = f"no profile given: read from {allocation.what}; a profile (--hardware) wins"
        if verdict.node:
            return cls("allocation", allocation.label, why, allocation.path, recipe.toolkit)
        stated = tuple(allocation.facts())
        why = f"this host is not the training node: {verdict.why}; {allocation.label} states {', '.join(stated) or 'no node fact'} only"
        return cls("allocation", allocation.label, why, verdict.where or allocation.path, recipe.toolkit, stated)

    @classmethod
    def probed(cls, verdict: Verdict, recipe: Recipe) -> Judged:
        where = verdict.where or _first_span(recipe)
        if verdict.node:
            return cls("host", "this host", f"taken as the training node: {verdict.why}", where, recipe.toolkit)
        return cls("none", "none judged", f"this host is not the training node: {verdict.why}", where, recipe.toolkit)


def _first_span(recipe: Recipe) -> Span | None:
    for doc in (recipe.ds_config, recipe.config):
        if doc is not None:
            span: Span = doc.root.span
            return span
    for part in recipe.read_parts():
        first: Span = part.source.span(0, 0)
        return first
    return None


def not_the_node_finding(judged: Judged, derived: list[tuple[str, tuple[str, ...]]]) -> Diagnostic | None:
    """The one RL004 info of a run: why the host is not the node, and the rules that judged nothing."""
    if judged.where is None:
        return None
    codes = ", ".join(code for code, _ in derived)
    message = f"{judged.why}; the rules that judge the node's hardware are skipped ({codes or 'none selected'})"
    judged_facts = "; ".join(f"{code} {', '.join(facts)}" for code, facts in derived)
    evidence = [f"the facts they judge: {judged_facts}"] if derived else []
    evidence += [HOW_TO_GIVE_THE_NODE, "`--hardware host` judges this machine anyway"]
    return Diagnostic(NOT_THE_NODE, Severity.INFO, message, judged.where, setting="hardware", evidence=evidence)


def _groups(judged: list[Judged]) -> list[tuple[Judged, int]]:
    groups: dict[tuple[str, str], tuple[Judged, int]] = {}
    for item in judged:
        first, count = groups.get((item.kind, item.label), (item, 0))
        groups[(item.kind, item.label)] = (first, count + 1)
    return list(groups.values())


def summary_line(judged: list[Judged], fallback: Hardware | None = None) -> str:
    """`Hardware: ...`: the machine the findings were judged against, and why."""
    groups = _groups(judged)
    if not groups:
        if fallback is not None:
            return f"Hardware: {Judged.chosen(fallback).label} ({Judged.chosen(fallback).why}); no rule needed a fact of it"
        return "Hardware: none needed (no rule asked for a hardware fact)"
    parts = []
    for first, count in groups:
        recipes = f" for {count} of {len(judged)} recipes" if len(groups) > 1 else ""
        parts.append(f"{first.label}{recipes} ({first.why})")
    return "Hardware: " + "; ".join(parts)


def summary_json(judged: list[Judged], fallback: Hardware | None = None) -> dict[str, Any]:
    """`hardware.source`: the machine (profile, host, none or mixed), why, and the count by kind."""
    groups = _groups(judged)
    if not groups:
        if fallback is None:
            return {"machine": "none", "label": "none needed", "why": "no rule asked for a hardware fact", "recipes": {}}
        chosen = Judged.chosen(fallback)
        return {"machine": chosen.kind, "label": chosen.label, "why": chosen.why, "recipes": {}}
    first = groups[0][0]
    kinds = {item.kind for item in judged}
    counts: dict[str, int] = {}
    for item in judged:
        counts[item.kind] = counts.get(item.kind, 0) + 1
    return {
        "machine": first.kind if len(kinds) == 1 else "mixed",
        "label": first.label,
        "why": first.why if len(groups) == 1 else summary_line(judged)[len("Hardware: ") :],
        "recipes": counts,
    }
