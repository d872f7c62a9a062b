"""A hardware fact a rule needs is unknown, so that rule was skipped.

## What it does
Reported once per fact and run, as info, by any rule that needs a fact the probe or the
profile could not give (no GPU, no NVML, no permission, a profile without the key).

## Why is this bad
It is not: it says which checks did not run, and why, instead of guessing or staying silent.

## Example
`gpus is unknown (NVML init failed: NVML Shared Library Not Found)` when linting on a laptop.

## Fix
None. Lint against the training node's profile: `recipelint probe --output node.yaml` on
that node, then `recipelint check --hardware node.yaml`.

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from recipelint.diagnostics import Diagnostic, Severity

if TYPE_CHECKING:  # the runner imports this module on every run, the cache's too: keep it light
    from recipelint.context import Context
    from recipelint.model import Setting

CODE = "RL001"
NAME = "hardware-fact-unknown"
SEVERITY = Severity.INFO
VISITS = ()  # none per recipe: the runner produces its findings
FIXABLE = False
SOURCE = "the probe's or profile's own record of what it could not establish (recipelint/hardware/probe.py, docs/hardware.md)"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    # Produced where a rule finds its fact unknown (hardware_unknown below), so it sits on the
    # setting whose check was skipped; the runner keeps one per fact and machine for the run.
    return iter(())


def hardware_unknown(ctx: Context, code: str, fact: str, setting: Setting) -> Diagnostic | None:
    """Say once per fact, as info, that a rule could not run because the fact is unknown.

    Nothing when the host is not the training node: RL004 says that once for every fact."""
    if ctx.hardware.not_node is not None:
        return None
    said = ctx.said  # shared by the recipes of one target; the runner keeps one per fact and machine
    if fact in said:
        return None
    said.add(fact)
    reason = ctx.fact(fact).reason or "unknown"
    return ctx.diagnostic(
        CODE,
        Severity.INFO,
        f"{fact} is unknown ({reason}); {code} and other rules that need it are skipped (pass --hardware PROFILE)",
        setting.span,
        setting=fact,
    )


def once_per_run(found: Iterable[Diagnostic], machine: str, said: set[tuple[str, str | None]]) -> list[Diagnostic]:
    """The findings of one recipe with RL001 kept once per fact and machine for the whole run, and
    a finding that says it is once (`Diagnostic.once`) once per code and key: each target says
    it as if it were the first (`said` holds what the run kept so far)."""
    kept = []
    for diagnostic in found:
        key = (machine, diagnostic.setting) if diagnostic.code == CODE else None
        if diagnostic.once is not None:
            key = (diagnostic.code, diagnostic.once)
        if key is not None:
            if key in said:
                continue
            said.add(key)
        kept.append(diagnostic)
    return kept
