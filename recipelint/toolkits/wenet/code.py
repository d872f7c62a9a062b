"""What the WeNet code a recipe runs does with a flag: the rules ask here before they judge a
value by what upstream WeNet does with it. A fork may have dropped the code that reads a flag
(the join group and `wenet_join` commented out: `--timeout` reaches nothing) or the keyword
that makes a value fatal (`prefetch_factor` left out of its DataLoader: 0 workers start)."""

from __future__ import annotations

from recipelint.context import Context
from recipelint.toolkits.wenet.checkout import WENET_CODE
from recipelint.toolkits.wenet.frontend import entry_of


def _script(ctx: Context) -> str:
    return entry_of(ctx.recipe)


def flag_unread(ctx: Context, dest: str) -> str | None:
    """Why the flag `--dest` has no effect in the recipe's checkout: no code of the training
    script or the package modules it imports reads `args.<dest>` (or the config key it is
    copied to); None when it is read, or when there is no code to tell."""
    checkout = ctx.recipe.checkout
    if checkout is None or checkout.kind is not WENET_CODE:
        return None
    entry = _script(ctx)
    if checkout.value_read(dest, entry) is not False:
        return None
    return f"no code of wenet/{entry} or the package modules it imports reads {dest} in the {checkout.label()} (read with ast)"


def loader_lacks(ctx: Context, keywords: tuple[str, ...]) -> str | None:
    """Why the training DataLoader gets none of `keywords`: the checkout's DataLoader calls
    (in the training script and the modules it imports) pass none of them; None when one is
    passed, or when no DataLoader call is found there."""
    checkout = ctx.recipe.checkout
    if checkout is None or checkout.kind is not WENET_CODE:
        return None
    passed, where = checkout.loader_keywords(_script(ctx))
    if where is None or passed & set(keywords):
        return None
    return f"the DataLoader at {where.path.name}:{where.line} of the {checkout.label()} is given no {' or '.join(keywords)} (read with ast)"
