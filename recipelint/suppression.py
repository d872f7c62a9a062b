"""Inline suppressions: `# recipelint: ignore[CODE] reason` on the line or the line above,
`# recipelint: ignore-file[CODE] reason` in the comments at the top of a file; the run's
filter of findings by settings and suppressions, and the findings about suppressions (RL002, RL003, RL005)."""

from __future__ import annotations

from collections.abc import Callable, Collection
from pathlib import Path
from typing import TYPE_CHECKING

from recipelint.parse.files import SourceError
from recipelint.parse.suppressions import Suppression, read_suppressions
from recipelint.settings import Resolver, Settings

if TYPE_CHECKING:
    from recipelint.diagnostics import Diagnostic

__all__ = ["Suppression", "apply", "read_suppressions", "settings_for", "suppression_findings"]


def settings_for(resolver: Resolver, path: Path) -> Settings:
    """The settings a file is checked under; the defaults when they cannot be read (that error is
    reported with the file)."""
    try:
        return resolver.for_path(path)
    except SourceError:
        return Settings()


def apply(found: list[Diagnostic], resolver: Resolver, suppressions: dict[Path, list[Suppression]]) -> list[Diagnostic]:
    """The findings the settings keep and no suppression covers, at their configured severity;
    each covering suppression notes the code it was used for (RL002 reads that)."""
    kept = []
    for diagnostic in found:
        settings = settings_for(resolver, diagnostic.span.path)
        if not settings.enabled(diagnostic.code) or settings.ignored_in(diagnostic.span.path, diagnostic.code):
            continue
        covering = _covering(diagnostic, suppressions)
        if covering:
            for suppression in covering:
                suppression.used.add(diagnostic.code)
            continue
        diagnostic.severity = settings.severity.get(diagnostic.code, diagnostic.severity)
        kept.append(diagnostic)
    return kept


def _covering(diagnostic: Diagnostic, suppressions: dict[Path, list[Suppression]]) -> list[Suppression]:
    # A suppression sits on the finding's line, or on the line of the value its fix rewrites
    # (`num_workers=4  # recipelint: ignore[RL102] ...` when the flag says ${num_workers}).
    places = {(diagnostic.span.path, diagnostic.span.line)}
    if diagnostic.fix is not None:
        places.update((edit.span.path, edit.span.line) for edit in diagnostic.fix.edits)
    return [s for path, line in places for s in suppressions.get(path, []) if s.covers(diagnostic.code, line)]


def suppression_findings(
    suppressions: dict[Path, list[Suppression]], resolver: Resolver, skipped: Collection[str] = ()
) -> list[Diagnostic]:
    """RL002, RL003 and RL005 over every suppression the run read, once the findings are filtered.
    `skipped`: the hardware rules that judged nothing because this host is not the node (RL004)."""
    if not any(suppressions.values()):
        return []  # the rules stay unimported: a run the cache answers should not pay for them
    from recipelint.rules.meta import suppression_unknown_code, suppression_unused, suppression_without_reason

    codes = _rule_codes(suppressions)
    out: list[Diagnostic] = []
    for path, items in suppressions.items():
        settings = settings_for(resolver, path)
        unjudged = _not_run(items, settings, skipped)
        for rule, extra in (
            (suppression_unused, (codes, unjudged)),
            (suppression_unknown_code, (codes,)),
            (suppression_without_reason, ()),
        ):
            if not settings.enabled(rule.CODE):
                continue
            severity = settings.severity.get(rule.CODE, rule.SEVERITY)
            finding: Callable[..., Diagnostic | None] = rule.finding
            out.extend(d for d in (finding(item, severity, *extra) for item in items) if d is not None)
    return out


def _not_run(items: list[Suppression], settings: Settings, skipped: Collection[str]) -> dict[str, str]:
    """The codes the suppressions name that this run did not run on their file, with why."""
    out: dict[str, str] = {}
    for code in {c for item in items for c in item.codes if c != "ALL"}:
        if not settings.enabled(code):
            out[code] = "is not selected"
        elif code in skipped:
            out[code] = "was skipped (no profile: this host is not the training node, RL004)"
    return out


def _rule_codes(suppressions: dict[Path, list[Suppression]]) -> frozenset[str]:
    """Every rule's code, when some suppression names a code no finding matched (only then may one
    be no rule's; listing the rules imports them all)."""
    if all(any(u.startswith(c) or c == "ALL" for u in item.used) for items in suppressions.values() for item in items for c in item.codes):
        return frozenset()
    from recipelint.rules import all_rules

    return frozenset(all_rules())
