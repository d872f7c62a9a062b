"""The WeNet or XTuner code the recipe runs predates upstream fixes of known issues.

## What it does
For the checkout RL901 finds, lists the known issues (`recipelint/knownissues/`) it still has
that this recipe does not meet today (or that recipelint cannot tell it meets): one info
finding per checkout for the whole run (at the first recipe that runs it), with each fix's link
and the first release that has all of them. An issue whose fixed code the recipe never reaches
is left out (a tar-reading fix for a recipe of raw data, which opens no shard).

## Why is this bad
Nothing fails yet, but a change of data or launch can: a checkout that decodes tar members in
place is fine on raw data and hangs on bz2 shards; an XTuner before 0.1.20 is fine until the
job moves to Slurm.

## Example
A WeNet v2.2.1 checkout with a raw-data recipe: the tar-member decoding fixed by #2316
(v3.0.1) is listed.

## Fix
None in the recipe: update the toolkit, or apply the listed fixes to the checkout.

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.parse.checkout import version_key
from recipelint.parse.span import Span
from recipelint.rules.known._common import affected
from recipelint.rules.known._triggers import on_path

CODE = "RL902"
NAME = "toolkit-fixes-available"
SEVERITY = Severity.INFO
VISITS = ("launch",)
FIXABLE = False
SOURCE = "recipelint/knownissues: ranges from WeNet's and XTuner's git history (docs/checkout.md)"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    checkout, launch = ctx.recipe.checkout, ctx.recipe.launch
    if checkout is None or launch is None:
        return
    pending = [
        issue
        for issue, _, hit in affected(ctx)
        if issue.fixed is not None and (issue.rule != "RL901" or hit.met is not True) and on_path(ctx, issue)
    ]
    if not pending:
        return
    releases = [issue.fixed.release for issue in pending if issue.fixed is not None and issue.fixed.release]
    newest = max(releases, key=version_key) if releases else None
    fixes = ", ".join(f"{issue.fixed.pr} ({issue.fixed.release or 'unreleased'})" for issue in pending if issue.fixed is not None)
    target = f"; {newest} has all of them" if newest and len(releases) == len(pending) else ""
    yield ctx.diagnostic(
        CODE,
        SEVERITY,
        f"the {checkout.label()} predates {len(pending)} upstream fix(es) for known issues this recipe does not meet now: {fixes}{target}",
        _first_launch(ctx) or launch.script.span,
        setting="checkout",
        current=checkout.version or checkout.date or checkout.commit,
        suggested=newest,
        evidence=[f"{issue.id}: {issue.headline()}; fix {issue.fixed.cite()}" for issue in pending if issue.fixed is not None],
        once=f"{checkout.toolkit}:{checkout.root}",
    )


def _first_launch(ctx: Context) -> Span | None:
    """The first launch of the recipe's script, so the launches of one file share one finding."""
    script = ctx.recipe.script
    if ctx.recipe.toolkit != "xtuner" or script is None:
        return None
    from recipelint.toolkits.xtuner.frontend import launches

    found = launches(script)
    return found[0][0].words[found[0][1]].span if found else None
