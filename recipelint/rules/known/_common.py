"""What RL901 and RL902 share: which known issues the recipe's code has, and where to point."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from recipelint import knownissues
from recipelint.context import Context
from recipelint.knownissues import KnownIssue
from recipelint.parse.checkout import Status, issue_status, repository_top
from recipelint.parse.span import Span
from recipelint.rules.known._triggers import Hit, evaluate


def affected(ctx: Context) -> Iterator[tuple[KnownIssue, Status, Hit]]:
    """The known issues the recipe's checkout has, each with whether the recipe meets it."""
    checkout = ctx.recipe.checkout
    if checkout is None or checkout.toolkit != ctx.recipe.toolkit:
        return
    for issue in knownissues.for_toolkit(checkout.toolkit):
        status = issue_status(issue, checkout)
        if status.affected is True:  # another rule (RL203) judges the recipe side of its own entries
            yield issue, status, evaluate(ctx, issue) if issue.rule == "RL901" else Hit(None)


def anchor(ctx: Context, status: Status, hit: Hit) -> Span | None:
    """The code itself when it lies in the recipe's repository (not an installed package); else
    the recipe's setting or launch."""
    top = repository_top(ctx.recipe.root)
    checkout = ctx.recipe.checkout
    installed = checkout is not None and checkout.found_by.startswith("installed")
    for span in status.where if not installed else ():
        if Path(span.path).resolve().is_relative_to(top):
            return span
    launch = ctx.recipe.launch
    return hit.span or (launch.script.span if launch is not None else None)
