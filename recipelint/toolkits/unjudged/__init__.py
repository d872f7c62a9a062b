"""Trainers recipelint does not judge (LLaMA-Factory's `llamafactory-cli train`, Axolotl,
torchtune's `tune run`, ms-swift's `swift sft`): each launch of one is a recipe of its own, so
that `check` says the launch was seen and not judged (RL013) instead of "No problems found".
Inference servers (SGLang, vLLM, TGI, Triton; toolkits/launchers.py `server`) alike: no training
launch, no rendezvous of torch's, said as such (RL556), under Slurm or in a pod too.

It claims such a command last, below every toolkit that reads a launch: a command another
toolkit reads is judged by it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from recipelint.toolkits import Claim, Offer, Toolkit

if TYPE_CHECKING:
    from recipelint.model import Recipe
    from recipelint.parse.shell import Command

# Below every toolkit that reads a launch (XTuner's 0.5, DeepSpeed's 0.4, WeNet's 0.1 for a
# command that calls a script): a launch another toolkit reads is judged by it.
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


class Unjudged(Toolkit):
    name = "unjudged"
    suffixes: tuple[str, ...] = ()
    rules: tuple[str, ...] = ("recipelint.toolkits.unjudged.rules",)
    offers: tuple[str, ...] = ("show",)  # what it found is shown; a diagnosis has no launch of it to read
    preload: tuple[str, ...] = ("recipelint.toolkits.unjudged.frontend",)
    packages: Mapping[str, tuple[str, ...]] = {
        "unjudged": ()
    }  # a trainer recipelint does not judge (RL013): no verdict depends on a release

    def claim(self, command: Command, offer: Offer) -> Claim | None:
        found = started(command)
        if found is None:
            return None
        what, serving = found
        return Claim(CLAIM, f"starts {what}, {'inference' if serving else 'a trainer'} recipelint does not judge")

    def build(self, command: Command, offer: Offer) -> list[Recipe]:
        from recipelint.toolkits.unjudged.frontend import load_launches

        return load_launches(offer.script, offer.target, [command])

    # the trainer's own YAML is not read: a config it names is checked alone, as before


UNJUDGED = Unjudged()
