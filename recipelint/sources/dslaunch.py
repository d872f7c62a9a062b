"""Other launches that hand DeepSpeed a JSON: `deepspeed`, `torchrun` or `accelerate launch`
running any training script with `--deepspeed_config x.json` (DeepSpeed's own argument: the
JSON reaches DeepSpeed as is) or `--deepspeed x.json` (Hugging Face TrainingArguments: the
trainer fills "auto"). The launch gives the world size the batch triple is checked against.
"""

from __future__ import annotations

from pathlib import Path

from recipelint.model import Recipe
from recipelint.sources.files import FileCache
from recipelint.sources.jsonfile import parse_json
from recipelint.sources.launchers import parse_deepspeed_launcher, parse_torchrun, scan_options, setting_from_word
from recipelint.sources.shell import Command, ShellScript

LAUNCHERS = {"deepspeed", "torchrun", "python", "python3", "accelerate"}


def _script_index(command: Command) -> int | None:
    """The word naming the training script (the first *.py after the launcher's options)."""
    for index, word in enumerate(command.words[1:], start=1):
        if (word.value or word.text).endswith(".py"):
            return index
    return None


def load_ds_launches(script: ShellScript, files: FileCache, root: Path) -> list[Recipe]:
    recipes = []
    for command in script.commands:
        first = Path(command.words[0].value or command.words[0].text).name
        if first not in LAUNCHERS:
            continue
        index = _script_index(command)
        if index is None:
            continue
        words = command.words[index + 1 :]
        for position, word in enumerate(words):
            name, value = (
                word.option if word.option else (word.value or word.text, words[position + 1] if position + 1 < len(words) else None)
            )
            if name not in ("--deepspeed_config", "--deepspeed") or value is None or not (value.value or "").endswith(".json"):
                continue
            hf = name == "--deepspeed"
            filler = "accelerate" if first == "accelerate" else ("hf" if hf else "none")
            recipe = Recipe(root=root, toolkit="deepspeed", script=script, ds_filler=filler)
            recipe.launch = (
                parse_deepspeed_launcher(script, command, index) if first == "deepspeed" else parse_torchrun(script, command, index)
            )
            if first == "accelerate":
                _accelerate_sizes(recipe, script, command, index)
            recipe.args["deepspeed"] = setting_from_word("deepspeed", value, script, command.span.start)
            recipe.ds_config = recipe.read_config(value.value, parse_json, files)
            recipes.append(recipe)
            break
    return recipes


def _accelerate_sizes(recipe: Recipe, script: ShellScript, command: Command, index: int) -> None:
    """`accelerate launch --num_processes N [--num_machines M]`: N counts every machine's processes."""
    assert recipe.launch is not None
    options = scan_options(command.words, 1, index)
    machines = options.get("num_machines")
    processes = options.get("num_processes")
    if machines is not None:
        recipe.launch.nnodes = setting_from_word("num_machines", machines, script, command.span.start)
    if processes is not None:
        total = setting_from_word("num_processes", processes, script, command.span.start)
        nodes = recipe.launch.nnodes.as_int() or 1
        count = total.as_int()
        total.value = count // nodes if count is not None else None
        recipe.launch.nproc_per_node = total
