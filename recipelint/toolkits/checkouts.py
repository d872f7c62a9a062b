"""What the toolkits whose code recipelint reads from a checkout (WeNet, XTuner) share: the
`code` section `recipelint show` prints of it."""

from __future__ import annotations

from collections.abc import Callable

from recipelint.model import Note, Recipe
from recipelint.parse.checkout import Checkout

Rows = list[tuple[str, str, str]]


def code_notes(recipe: Recipe, label: str, more: Callable[[Checkout, str | None], Rows] | None = None) -> list[Note]:
    """The code a launch runs (found, never imported), as `show`'s code section: where it is and
    its version, then what the toolkit reads of it (`more`, given the training script the launch
    names); nothing for a config without a launch. `label`: the toolkit as a user names it."""
    if recipe.launch is None:
        return []
    script = recipe.launch.script.value
    checkout = recipe.checkout
    if checkout is None:
        rows = [(f"{label} code", "not found", "PYTHONPATH, package folders above the recipe, installed packages")]
    else:
        rows = checkout.facts() + (more(checkout, script if isinstance(script, str) else None) if more is not None else [])
    return [Note("code", name, value, source) for name, value, source in rows]
