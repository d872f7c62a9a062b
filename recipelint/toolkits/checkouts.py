"""What the toolkits whose code recipelint reads from a checkout (WeNet, XTuner) share: the
`code` section `recipelint show` prints of it."""

from __future__ import annotations

from recipelint.model import Note, Recipe
from recipelint.parse.checkout import recipe_facts


def code_notes(recipe: Recipe, label: str) -> list[Note]:
    """The code a launch runs (found, never imported) and DeepSpeed beside it, as `show`'s code
    section; nothing for a config without a launch. `label`: the toolkit as a user names it."""
    if recipe.launch is None:
        return []
    script = recipe.launch.script.value
    rows = recipe_facts(label, recipe.checkout, recipe.root, script if isinstance(script, str) else None)
    return [Note("code", label_, value, source) for label_, value, source in rows]
