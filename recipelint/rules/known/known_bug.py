"""The WeNet or XTuner code the recipe runs has a known bug this recipe meets.

## What it does
Finds the checkout the recipe runs (the `PYTHONPATH` its `path.sh` sets, a `wenet/` or
`xtuner/` package folder above it, or an installed distribution) and its version (the
release, or the git commit and its date read from `.git`), and checks it against
recipelint's known-issue tables (`recipelint/knownissues/`). An issue counts when the
checkout's code has its pattern (read with `ast`, e.g. `torchaudio.load(file_obj)` on a tar
member in `wenet/dataset/*.py`), or, when the file is not there, when the version falls in the
issue's range; and when the recipe meets its condition (shard data, several ranks, srun with
`--launcher slurm`, ...). Each finding cites the upstream fix and the first release with it.

## Why is this bad
These are the hangs users report that no setting explains: a WeNet snapshot whose executor
runs CV and a checkpoint save inside the loop every 10000 steps (8 x 2080 Ti hanging in
stage 4, #2294, fixed by #2286), a customised processor that decodes tar members in place
(bz2 shards, one GPU at 0 %, #2338), an XTuner before 0.1.20 that starts torchrun inside every
srun task (#728).

## Example
```sh
# path.sh: export PYTHONPATH=../../../:$PYTHONPATH   -> a WeNet checkout at 2023-12-20
torchrun --nproc_per_node=8 wenet/bin/train.py --config conf/train_conformer.yaml ...
```

## Fix
None in the recipe: update the toolkit to the release named in the message, or apply the fix
to the customised file the finding points at.

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.knownissues import KnownIssue
from recipelint.rules.known._common import affected, anchor

CODE = "RL901"
NAME = "known-toolkit-bug"
SEVERITY = Severity.WARNING
VISITS = ("recipe",)
FIXABLE = False
SOURCE = "recipelint/knownissues: ranges from WeNet's and XTuner's git history, patterns checked at every release (docs/checkout.md)"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    checkout = ctx.recipe.checkout
    for issue, status, hit in affected(ctx):
        if issue.rule != CODE or hit.met is not True or checkout is None:
            continue
        recipe = _recipe_name(ctx)
        fixed, suggested = _fixed(issue, recipe)
        span = anchor(ctx, status, hit)
        evidence = [f"code: {checkout.label()}, found by {checkout.found_by}; {status.how}"]
        evidence += [f"at {where}" for where in status.where if where != span]
        evidence += [f"recipe: {hit.evidence}"] if hit.evidence else []
        evidence += [
            f"reported: {issue.symptom} ({', '.join(issue.reports)})",
            f"fix: {issue.fixed.cite() if issue.fixed else 'none upstream'}",
            f"do: {issue.advice}",
        ]
        what = f"known {checkout.name} bug in the code this recipe runs"
        if issue.recipes:  # the example recipe's own setting, not the shared code
            what = f"known problem of {checkout.name}'s example recipes"
        title = issue.headline(recipe or "this recipe")
        yield ctx.diagnostic(
            CODE,
            SEVERITY,
            f"{what}: {title}; {fixed}",
            span,
            setting=issue.id,
            current=checkout.version or checkout.date or checkout.commit,
            suggested=suggested,
            evidence=evidence,
        )


def _recipe_name(ctx: Context) -> str | None:
    """The recipe's folder in the checkout (`examples/aishell4/s0`), None when it lies outside."""
    script = ctx.recipe.script
    checkout = ctx.recipe.checkout
    if script is None or checkout is None:
        return None
    try:
        return script.source.path.resolve().parent.relative_to(checkout.root.resolve()).as_posix()
    except ValueError:
        return None


def _fixed(issue: KnownIssue, recipe: str | None) -> tuple[str, str | None]:
    """What upstream fixed, and the release to suggest; for an issue of some example recipes, a
    release helps only a recipe the fix changed (WeNet #2486 left aishell4/s0 at prefetch=500)."""
    if issue.fixed is None:
        return "not fixed upstream", None
    text = f"fixed upstream by {issue.fixed.pr} ({issue.fixed.link}), first in {issue.fixed.release or 'no release yet'}"
    if not issue.recipes or recipe in issue.recipes:
        return (f"{text} for this recipe" if issue.recipes else text), issue.fixed.release
    changed = ", ".join(issue.recipes)
    return f"{issue.fixed.pr} ({issue.fixed.link}) changed only {changed}: updating WeNet does not change {recipe or 'this recipe'}", None
