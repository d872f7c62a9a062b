"""A recipe per launch of a trainer recipelint does not judge: the command, and which trainer."""

from __future__ import annotations

from typing import TYPE_CHECKING

from recipelint.model import Note, Recipe
from recipelint.records import dataclass

if TYPE_CHECKING:
    from recipelint.parse.shell import Command, ShellScript
    from recipelint.parse.span import SourceText
    from recipelint.toolkits import Target


@dataclass
class TrainerLaunch:
    """`Recipe.payload` of such a recipe: the launch as written, and the trainer it starts."""

    source: SourceText
    command: Command
    trainer: str


def load_launches(script: ShellScript, target: Target, commands: list[Command] | None = None) -> list[Recipe]:
    from recipelint.toolkits.unjudged import UNJUDGED, trainer

    recipes = []
    for command in script.commands if commands is None else commands:
        started = trainer(command)
        if started is not None:
            payload = TrainerLaunch(script.source, command, started)
            recipe = Recipe(root=target.root, toolkit=UNJUDGED.name, explicit=target.explicit, script=script, payload=payload)
            where = f"line {command.span.line}"
            recipe.notes.append(Note("launch", "trainer", started, f"{where}: not judged by recipelint (RL013)"))
            recipes.append(recipe)
    return recipes
