"""XTuner 0.x launches: `xtuner train`, `srun ... xtuner train`, torchrun or
`torch.distributed.launch` on `xtuner/tools/train.py` (or `-m xtuner.tools.train`), and the
`deepspeed` launcher.

Each becomes the same Launch model the WeNet front end builds (nodes, processes per node,
rendezvous, environment), with the XTuner arguments as settings. Facts: xtuner/entry_point.py
and xtuner/tools/train.py at v0.2.0 (shared/reference/xtuner.md section 1).
"""

from __future__ import annotations

import re
from pathlib import Path

from recipelint.model import Launch, Recipe, Setting
from recipelint.parse.checkout import find_checkout
from recipelint.parse.files import FileCache
from recipelint.parse.jsonfile import parse_json
from recipelint.parse.pyconfig import parse_pyconfig
from recipelint.parse.shell import Command, ShellScript, Word
from recipelint.toolkits.deepspeed.knowledge import named_deepspeed
from recipelint.toolkits.launchers import (
    SRUN_SHORT,
    launch_env,
    parse_deepspeed_launcher,
    parse_srun,
    parse_torchrun,
    scan_options,
    set_places,
    setting_from_word,
    to_int,
    word_text,
)
from recipelint.toolkits.xtuner import XTUNER
from recipelint.toolkits.xtuner.checkout import XTUNER_CODE
from recipelint.toolkits.xtuner.part import keep_config

TRAIN_PY = re.compile(r"(^|/)xtuner/tools/train\.py$")
TRAIN_V1 = re.compile(r"(^|/)xtuner/v1/train/cli/\w+\.py$")  # XTuner v1: no --launcher, no mmengine config
# Environment variables the CLI reads (entry_point.py) and others the rules look at.
ENV = (
    "NPROC_PER_NODE",
    "NNODES",
    "NODE_RANK",
    "ADDR",
    "PORT",
    "MASTER_ADDR",
    "MASTER_PORT",
    "XTUNER_DATASET_TIMEOUT",
    "DEEPSPEED_TIMEOUT",
    "HF_DATASETS_CACHE",
    "HF_HOME",
)
PRESETS = {"deepspeed_zero1", "deepspeed_zero2", "deepspeed_zero2_offload", "deepspeed_zero3", "deepspeed_zero3_offload"}
_ARGS_WITH_VALUE = {"--work-dir", "--deepspeed", "--resume", "--seed", "--launcher", "--local_rank", "--local-rank"}


def _train_args(recipe: Recipe, script: ShellScript, command: Command, start: int) -> None:
    """The arguments of xtuner/tools/train.py: CONFIG [--deepspeed X] [--launcher L] ..."""
    words = command.words[start:]
    i = 0
    while i < len(words):
        word = words[i]
        text = word_text(word)
        i += 1
        if word.option is not None:
            name, value = word.option
            setting = setting_from_word(name.lstrip("-"), value, script, command.span.start)
            setting.span = setting.flag = word.span
            recipe.args[name.lstrip("-")] = setting
        elif text == "--cfg-options":
            while i < len(words) and not word_text(words[i]).startswith("--"):
                key, _, text_value = word_text(words[i]).partition("=")
                recipe.args[f"cfg-options.{key}"] = Setting(key, text_value, True, words[i].span)
                i += 1
        elif text in _ARGS_WITH_VALUE:
            if i < len(words):
                setting = setting_from_word(text.lstrip("-"), words[i], script, command.span.start)
                setting.word = words[i]
                setting.flag = word.span
                recipe.args[text.lstrip("-")] = setting
                i += 1
        elif not text.startswith("-") and "config" not in recipe.args:
            recipe.args["config"] = setting_from_word("config", word, script, command.span.start)


def _xtuner_cli(script: ShellScript, command: Command, index: int, srun: dict[str, Word] | None) -> Launch:
    env = launch_env(script, command)

    def envto_int(name: str) -> Setting:
        setting = env.get(name)
        if setting is None:
            return Setting(name, 1, False, command.words[0].span)
        return Setting(name, to_int(setting.value), True, setting.span, setting.edit_span, name, setting.word)

    if srun is not None:
        return parse_srun(script, command, index, program=index - 1)
    address, port = env.get("ADDR"), env.get("PORT")
    value = f"{address.value if address else '127.0.0.1'}:{port.value if port else '(random)'}"
    rendezvous = Setting(
        "ADDR", value, address is not None, (address or Setting("", None, False, command.words[0].span)).span, None, "ADDR"
    )
    return Launch(
        "xtuner",
        command,
        command.words[index],
        envto_int("NNODES"),
        envto_int("NPROC_PER_NODE"),
        rendezvous,
        env,
    )


def launch_of(command: Command) -> tuple[int, str, str] | None:
    """(index of the train word, form, the words that name the launch) when the command is an
    XTuner training launch."""
    words = [word_text(w) for w in command.words]
    for index, text in enumerate(words):
        if text == "xtuner" or text.endswith("/xtuner"):
            if index + 1 < len(words) and words[index + 1] == "train":
                form = "srun" if Path(words[0]).name == "srun" else "cli"
                return index + 1, form, "xtuner train"
            return None
        if TRAIN_PY.search(text) or (text == "xtuner.tools.train" and index > 0 and words[index - 1] == "-m"):
            return index, "direct", text  # `torchrun -m xtuner.tools.train` runs the same file
        if TRAIN_V1.search(text):
            return index, "v1", text
    return None


def launches(script: ShellScript, commands: list[Command] | None = None) -> list[tuple[Command, int, str]]:
    """(command, index of the train word, form) for every XTuner training launch in a script."""
    found = []
    for command in script.commands if commands is None else commands:
        launch = launch_of(command)
        if launch is not None:
            found.append((command, launch[0], launch[1]))
    return found


def load_xtuner(script: ShellScript, files: FileCache, root: Path, commands: list[Command] | None = None) -> list[Recipe]:
    recipes = []
    found = launches(script, commands)
    checkout = find_checkout(XTUNER_CODE, root, script, files) if found else None
    for command, index, form in found:
        recipe = Recipe(root=root, toolkit="xtuner", script=script, ds_filler="xtuner", checkout=checkout, consumer=XTUNER.json_consumer())
        if script.source.path.name != "<command>":
            set_places(recipe, script, command)
        if form == "v1":  # no CLI, no --launcher, no mmengine config: the 0.x rules do not apply
            recipe.toolkit = "xtuner-v1"
            recipe.launch = parse_torchrun(script, command, index)
            recipes.append(recipe)
            continue
        if form == "direct":
            first = Path(word_text(command.words[0])).name
            if first == "deepspeed":
                recipe.launch = parse_deepspeed_launcher(script, command, index)
            else:
                recipe.launch = parse_torchrun(script, command, index)
        else:
            srun = scan_options(command.words, 1, index - 1, short=SRUN_SHORT) if form == "srun" else None
            recipe.launch = _xtuner_cli(script, command, index, srun)
        _train_args(recipe, script, command, index + 1)
        _load_configs(recipe, files, root)
        recipes.append(recipe)
    return recipes


def _load_configs(recipe: Recipe, files: FileCache, root: Path) -> None:
    """The config and DeepSpeed JSON paths (RL809 reports missing ones; presets and names are not files)."""
    config = recipe.arg("config")
    if isinstance(config.value, str) and config.value.endswith(".py"):  # otherwise a registered name
        keep_config(recipe, recipe.read_config(config.value, parse_pyconfig, files, "mmengine config", config, report_missing=False))
    elif isinstance(config.value, str) and "/" not in config.value and recipe.checkout is not None:
        _named_config(recipe, config, files)
    ds = recipe.arg("deepspeed")
    if isinstance(ds.value, str) and ds.value.endswith(".json"):  # otherwise a preset name
        recipe.ds_config = recipe.read_config(
            ds.value, parse_json, files, "DeepSpeed config", ds, report_missing=False, accept=named_deepspeed
        )


def _named_config(recipe: Recipe, config: Setting, files: FileCache) -> None:
    """`xtuner train NAME`: XTuner's train.py looks NAME up in `cfgs_name_path`, every
    `xtuner/configs/**/NAME.py` (or .json) of the package it imports (xtuner/configs/__init__.py at
    v0.1.23), so the config is that file of the checkout or installed xtuner the launch runs."""
    assert recipe.checkout is not None
    path = config_names(recipe.checkout.package / "configs").get(str(config.value))
    if path is None or path.suffix != ".py":
        return
    from recipelint.model import Link
    from recipelint.parse.files import SourceError

    recipe.links.append(Link("mmengine config", config, path, [], report_missing=False))
    try:
        keep_config(recipe, parse_pyconfig(files.read(path)))
    except SourceError as error:
        recipe.errors.append(error)


_NAMES: dict[Path, dict[str, Path]] = {}


def config_names(folder: Path) -> dict[str, Path]:
    """XTuner's `get_cfgs_name_path()`: each config file's name without its suffix, the last found
    winning, as the walk of os.walk goes (once per folder in a run)."""
    import os

    if folder not in _NAMES:
        mapping: dict[str, Path] = {}
        for root, _, names in os.walk(folder):
            for name in names:
                if name.endswith((".py", ".json")) and not name.startswith((".", "_")):
                    mapping[os.path.splitext(name)[0]] = Path(root) / name
        _NAMES[folder] = mapping
    return _NAMES[folder]
