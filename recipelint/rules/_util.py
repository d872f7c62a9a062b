"""Small helpers the rules share."""

from __future__ import annotations

from collections.abc import Iterable

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.model import Setting
from recipelint.rules.meta import unknown_fact


def hardware_unknown(ctx: Context, code: str, fact: str, setting: Setting) -> Diagnostic | None:
    """Say once per fact, as info, that a rule could not run because the fact is unknown.

    Nothing when the host is not the training node: RL004 says that once for every fact."""
    if ctx.hardware.not_node is not None:
        return None
    said = ctx.hardware.reported  # shared by every recipe of the run: one info per fact
    if fact in said:
        return None
    said.add(fact)
    reason = ctx.fact(fact).reason or "unknown"
    return ctx.diagnostic(
        unknown_fact.CODE,
        Severity.INFO,
        f"{fact} is unknown ({reason}); {code} and other rules that need it are skipped (pass --hardware PROFILE)",
        setting.span,
        setting=fact,
    )


def gib(value: float) -> str:
    return f"{value / 1024**3:.1f}"


def closest(name: str, known: Iterable[str]) -> str | None:
    import difflib

    matches = difflib.get_close_matches(name, list(known), n=1, cutoff=0.75)
    return matches[0] if matches else None
