"""An inline suppression that suppresses nothing.

## What it does
Reports `# recipelint: ignore[CODE]` (and `ignore-file[CODE]`) comments that matched no
finding in this run, like ruff's RUF100.

## Why is this bad
A stale suppression hides the next real finding of that code on that line, and tells the
reader a problem exists where none does. An `ignore-file` below the first line of content
is also reported here: it only counts at the top of the file.

## Example
```sh
num_workers=2  # recipelint: ignore[RL102] node has 96 cores
```
after the node was fixed: nothing to suppress.

A code that is no rule's is RL005's finding, not this one's. A code this run did not run (not
selected by the settings or `--select`, or a hardware rule skipped because this host is not the
training node and no profile was given) is not called unused: an info says which and why, with
no fix.

## Fix
Takes the unused codes out of the comment, and the whole comment when none is left (the rest of
the line stays byte for byte), as ruff's RUF100 does.

## Fix safety
Unsafe: whether a suppression is used depends on the run. A rule judging the node's hardware
says nothing without a profile (RL001), and the settings may turn a rule off, so a suppression
unused in this run may be needed on the node; the fix also drops the reason written with it.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from typing import TYPE_CHECKING

from recipelint.diagnostics import Applicability, Diagnostic, Edit, Fix, Severity

if TYPE_CHECKING:
    from recipelint.context import Context
    from recipelint.parse.suppressions import Suppression

CODE = "RL002"
NAME = "suppression-unused"
SEVERITY = Severity.WARNING
VISITS = ()  # none per recipe: the runner produces its findings
FIXABLE = True
SOURCE = (
    "ruff RUF100 (astral-sh/ruff@cff8b559:crates/ruff_linter/src/rules/ruff/rules/unused_noqa.rs); the suppression syntax in docs/usage.md"
)


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    # A suppression is unused only once every recipe of the run has been checked: the runner
    # calls `finding` for each suppression it read (recipelint.suppression.suppression_findings).
    return iter(())


def finding(
    item: Suppression, severity: Severity, codes: Collection[str] = (), unjudged: Mapping[str, str] | None = None
) -> Diagnostic | None:
    """RL002 for a suppression naming rule codes that matched no finding of the run (`codes`:
    every rule code; a code that is none of them is left to RL005). `unjudged`: the codes this
    run did not run, with why ("is not selected", "was skipped (...)"): a suppression of those
    cannot be judged, so it is an info that says so, with no fix (removing it would lose a
    suppression the training node's run needs)."""
    from recipelint.rules.meta.suppression_unknown_code import known_code

    unused = [c for c in item.codes if not any(u.startswith(c) or c == "ALL" for u in item.used)]
    unused = [c for c in unused if not codes or known_code(c, codes)]
    not_run = [c for c in unused if unjudged and c in unjudged]
    unused = [c for c in unused if c not in not_run]
    if not unused and not_run and unjudged:
        reasons = "; ".join(f"{c} {unjudged[c]}" for c in not_run)
        return Diagnostic(CODE, Severity.INFO, f"suppression not judged in this run: {reasons}", item.span, setting=", ".join(not_run))
    if not unused:
        return None
    kind = "ignore-file" if item.whole_file else "ignore"
    message = f"unused suppression: {kind}[{', '.join(unused)}] matches no finding"
    edit = item.without(set(unused))
    fix = None
    if edit is not None:
        whole = all(c in unused for c in item.codes)
        title = "remove the unused suppression" if whole else f"remove {', '.join(unused)} from the suppression"
        fix = Fix((Edit(*edit),), Applicability.UNSAFE, title)
    return Diagnostic(CODE, severity, message, item.span, setting=", ".join(unused), fix=fix)
