"""What a rule visits: a launch, an allocation, a DeepSpeed document, a WeNet config, ... A rule
module says which in VISITS (every one of them must exist), and the engine calls its `check` only
on the recipes that have them. The core's subjects are here; a toolkit adds its own
(`Toolkit.subjects`), whose presence only it can tell. A VISITS naming a subject nobody registered
fails when the rules load, as a misspelt TOOLKITS does."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from recipelint.records import dataclass

if TYPE_CHECKING:
    from recipelint.context import Context


@dataclass(frozen=True)
class Subject:
    name: str  # what VISITS names
    what: str  # in words, for the rule registry and the rules page
    present: Callable[[Context], bool]  # whether the recipe of `ctx` has it


def _always(ctx: Context) -> bool:
    return True


def _launch(ctx: Context) -> bool:
    return ctx.recipe.launch is not None


def _script(ctx: Context) -> bool:
    return ctx.recipe.script is not None


def _allocation(ctx: Context) -> bool:
    return ctx.recipe.allocation is not None


CORE = (
    Subject("recipe", "every recipe (the rule looks at what any recipe may have: links, settings, files)", _always),
    Subject("launch", "a launch command (torchrun, deepspeed, accelerate, python, a toolkit's own launcher)", _launch),
    Subject("script", "the shell the launch is read from (a run script, a README's fence, --command)", _script),
    Subject("allocation", "a scheduler's allocation (a Slurm job, a Kubernetes workload)", _allocation),
)
