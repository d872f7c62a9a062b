"""Trainers recipelint does not judge (LLaMA-Factory's `llamafactory-cli train`, Axolotl,
torchtune's `tune run`, ms-swift's `swift sft`): each launch of one is a recipe of its own, so
that `check` says the launch was seen and not judged (RL013) instead of "No problems found".
Inference servers (SGLang, vLLM, TGI, Triton; toolkits/launchers.py `server`) alike: no training
launch, no rendezvous of torch's, said as such (RL556), under Slurm or in a pod too.

A script or README that also launches something another toolkit reads is that toolkit's: this
one claims a target last, and only when it holds such a launch.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from recipelint.toolkits import SHELL_KINDS

if TYPE_CHECKING:
    from recipelint.model import Recipe
    from recipelint.parse.files import FileCache
    from recipelint.parse.shell import Command, ShellScript
    from recipelint.toolkits import Target

# Below every toolkit that reads a launch (XTuner and DeepSpeed claim any shell at 0.5, WeNet a
# script that only calls others at 0.1): a launch another toolkit reads is judged by it.
CLAIM = 0.05
_PYTHON = re.compile(r"python(\d+(\.\d+)?)?")
# Console commands and their subcommands that start a training run (not chat, export, webui...).
_CLI = {
    ("llamafactory-cli", "train"): "LLaMA-Factory",
    ("lmf", "train"): "LLaMA-Factory",
    ("axolotl", "train"): "Axolotl",
    ("tune", "run"): "torchtune",
    ("swift", "sft"): "ms-swift",
    ("swift", "pt"): "ms-swift",
    ("swift", "rlhf"): "ms-swift",
}
# `python -m MODULE`: the training modules of those trainers.
_MODULES = {"axolotl.cli.train": "Axolotl", "llamafactory.launcher": "LLaMA-Factory", "swift.cli.sft": "ms-swift"}


def started(command: Command) -> tuple[str, bool] | None:
    """What the command starts that recipelint does not judge: a trainer (`llamafactory-cli
    train`), or an inference server (True: SGLang, vLLM, TGI, Triton), with how it is started."""
    from recipelint.toolkits.launchers import server

    found = trainer(command)
    if found is not None:
        return found, False
    serving = server(command.words)
    return (serving, True) if serving is not None else None


def trainer(command: Command) -> str | None:
    """`llamafactory-cli train` (the trainer and how it is started) when the command launches a
    trainer recipelint does not judge; else None."""
    words = [w.value if w.value is not None else w.text for w in command.words]
    if not words:
        return None
    program = words[0].rsplit("/", 1)[-1]
    if len(words) > 1 and (program, words[1]) in _CLI:
        return f"{_CLI[program, words[1]]} (`{program} {words[1]}`)"
    if _PYTHON.fullmatch(program) and "-m" in words[:-1]:
        module = words[words.index("-m") + 1]
        if module in _MODULES:
            return f"{_MODULES[module]} (`python -m {module}`)"
    return None


class Unjudged:
    name = "unjudged"
    suffixes: tuple[str, ...] = ()
    rules: tuple[str, ...] = ("recipelint.toolkits.unjudged.rules",)
    preload: tuple[str, ...] = ("recipelint.toolkits.unjudged.frontend",)

    def claims(self, target: Target, script: ShellScript | None) -> float:
        if target.kind not in SHELL_KINDS or script is None:
            return 0.0
        return CLAIM if any(started(command) for command in script.commands) else 0.0

    def load(self, target: Target, files: FileCache, script: ShellScript | None) -> list[Recipe]:
        from recipelint.toolkits.unjudged.frontend import load_launches

        return load_launches(script, target) if script is not None else []

    def configs_named(self, script: ShellScript) -> list[str]:
        return []  # the trainer's own YAML is not read: a config it names is checked alone, as before


UNJUDGED = Unjudged()
