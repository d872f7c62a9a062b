"""A Slurm job's launches, read by the toolkits that claim them, with the job's allocation."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from recipelint.allocation import Allocation
from recipelint.model import Launch, Recipe, Setting
from recipelint.parse.files import FileCache, head
from recipelint.parse.shell import Command, ShellScript, Word
from recipelint.records import replace
from recipelint.toolkits import Target, script_recipes
from recipelint.toolkits.slurm.directives import READ, SHORT, SLURM_VARS, allocation, sbatch_directives, sbatch_lines, srun_directives

if TYPE_CHECKING:
    from recipelint.toolkits import Toolkit

STARTERS = ("srun", "salloc")
_VAR = re.compile(r"\bSLURM_[A-Z_]+\b")
_HEAD = 65536
PROGRAMS = frozenset({"torchrun", "deepspeed", "accelerate", "xtuner", "bash", "sh", "env"})


def is_job(target: Target, script: ShellScript | None) -> bool:
    """A batch script (`#SBATCH` lines), or a script whose srun/salloc asks for resources."""
    data = script.source.data if script is not None else head(target.path, _HEAD)
    if data is not None and sbatch_lines(data[:_HEAD]):
        return True
    return script is not None and any(_asks(command) for command in script.commands)


def _asks(command: Command) -> bool:
    if not command.words or _word(command.words[0]).rsplit("/", 1)[-1] not in STARTERS:
        return False
    for word in command.words[1:]:
        option = word.option[0] if word.option is not None else _word(word).partition("=")[0]
        if option in SHORT or option.startswith("--") and option[2:].replace("-", "_") in READ:
            return True
    return False


def _word(word: Word) -> str:
    return word.value if word.value is not None else word.text


def load_job(me: Toolkit, target: Target, files: FileCache, script: ShellScript | None) -> list[Recipe]:
    """The recipes of the launches inside the job, each with the allocation its step runs in."""
    if script is None:
        from recipelint.parse.shell import parse_shell

        script = parse_shell(files.read(target.path), files.read)
    inner = replace(target, kind="script")
    recipes = script_recipes(inner, files, script, me)
    batch = sbatch_directives(script.source)
    for recipe in recipes:
        launch = recipe.launch
        if launch is None:
            if batch:  # a launch not read (a server, a trainer not judged): the job's allocation still shows
                recipe.allocation = allocation(batch, batch[0].span)
            continue
        # `srun torchrun ...`: the front end's launch is the inner torchrun; srun's words are the script's command
        outer = next((c for c in script.commands if c.span == launch.command.span and c.words), launch.command)
        words = outer.words
        starter = _word(words[0]).rsplit("/", 1)[-1] in STARTERS
        program = _program(words, launch.script) if starter else 0
        step = srun_directives(words, program) if starter else []
        if not batch and not step:
            continue
        job = allocation([*batch, *step], launch.command.span)
        job.starter = "srun" if starter else None
        recipe.allocation = job
        _resolve(launch, job, starter and launch.launcher == "srun")
    return recipes


def _program(words: list[Word], script: Word) -> int:
    """Where srun's own options stop: the program it runs (a launcher, an interpreter, the
    training script)."""
    for index, word in enumerate(words[1:], 1):
        name = _word(word).rsplit("/", 1)[-1]
        if word is script or name in PROGRAMS or name.startswith("python"):
            return index
    return len(words)


def _resolve(launch: Launch, job: Allocation, srun_ranks: bool) -> None:
    """Nodes and ranks per node the launch leaves to Slurm's variables (`--nnodes $SLURM_NNODES`)
    or, for ranks srun itself starts, to the allocation."""
    for name in ("nnodes", "nproc_per_node"):
        setting: Setting = getattr(launch, name)
        # srun starts the ranks itself: its nodes and tasks are the launch's; a launcher srun runs
        # (torchrun without --nnodes) keeps its own default, whatever the allocation.
        fact = ("nodes" if name == "nnodes" else "tasks_per_node") if srun_ranks else None
        if setting.value is not None and setting.given:
            continue
        variable = _slurm_variable(setting)
        if variable is not None:
            fact = SLURM_VARS.get(variable)
        grant = job.get(fact) if fact is not None else None
        if grant is None or (variable is None and setting.given):
            continue
        how = f"{variable or 'srun'} from {grant.said} at line {grant.span.line}"
        setattr(launch, name, replace(setting, value=grant.value, origin=how))
    per_node, nodes = launch.nproc_per_node, launch.nnodes
    if srun_ranks and per_node.name == "--ntasks" and per_node.value is None and isinstance(nodes.value, int) and nodes.value > 0:
        # `srun --ntasks=32` in a 4-node allocation: 8 tasks a node (srun spreads them over its nodes)
        total = per_node.word.value if per_node.word is not None else None
        count = int(total) if total is not None and total.isdigit() else None
        if count is not None:
            how = f"--ntasks {count} over the {nodes.value} nodes of the allocation"
            launch.nproc_per_node = replace(per_node, value=count // nodes.value, origin=how)


def _slurm_variable(setting: Setting) -> str | None:
    """The Slurm variable a launch's value comes from: `$SLURM_NNODES`, or `$NNODES` set from it."""
    word = setting.word
    if word is None:
        return None
    texts = [word.text, word.reason or ""]
    binding = word.binding
    if binding is not None and binding.origin is not None:
        texts.append(binding.origin.value.text)
    for text in texts:
        match = _VAR.search(text)
        if match is not None and match.group() in SLURM_VARS:
            return match.group()
    return None
