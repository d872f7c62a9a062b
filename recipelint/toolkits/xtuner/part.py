"""XTuner's own part of a recipe (`Recipe.part(XtunerPart)`): the mmengine Python config its
launch reads (or the config checked alone), read with `ast`, never run."""

from __future__ import annotations

from typing import TYPE_CHECKING

from recipelint.records import dataclass

if TYPE_CHECKING:
    from recipelint.model import Recipe
    from recipelint.parse.pyconfig import PyConfig
    from recipelint.parse.span import SourceText


@dataclass
class XtunerPart:
    """The config an XTuner 0.x launch trains with (`xtuner train CONFIG`, a file or a name
    looked up in the package's configs)."""

    config: PyConfig
    # What `show` and the node check call the file (`ReadPart.kind`).
    kind: str = "an XTuner config"

    @property
    def source(self) -> SourceText:
        return self.config.source


def mmengine_config(recipe: Recipe) -> PyConfig | None:
    """The recipe's XTuner/mmengine config; None when it read none (or is another toolkit's)."""
    part = recipe.part(XtunerPart)
    return part.config if part is not None else None


def keep_config(recipe: Recipe, config: PyConfig | None) -> None:
    """Makes a config read for the recipe its part (nothing when it could not be read)."""
    if config is not None:
        recipe.parts[XtunerPart] = XtunerPart(config)
