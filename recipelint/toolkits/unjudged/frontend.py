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
    server: bool = False  # an inference server, not a trainer (RL556, not RL013)


def load_launches(script: ShellScript, target: Target, commands: list[Command] | None = None) -> list[Recipe]:
    from recipelint.toolkits.unjudged import UNJUDGED, started

    recipes = []
    for command in script.commands if commands is None else commands:
        found = started(command)
        if found is not None:
            what, serving = found
            payload = TrainerLaunch(script.source, command, what, serving)
            recipe = Recipe(root=target.root, toolkit=UNJUDGED.name, explicit=target.explicit, script=script, payload=payload)
            where = f"line {command.span.line}"
            said = "an inference server, not judged as training (RL556)" if serving else "not judged by recipelint (RL013)"
            recipe.notes.append(Note("launch", "server" if serving else "trainer", what, f"{where}: {said}"))
            recipes.append(recipe)
    return recipes
