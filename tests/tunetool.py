"""A torchtune `tune run` of a distributed recipe without `--nproc_per_node`.

## What it does
Flags `tune run lora_finetune_distributed --config x.yaml` with no `--nproc_per_node`.

## Why is this bad
`tune run` starts one process unless it is told how many: the distributed recipe trains on one GPU.

## Example
```
tune run lora_finetune_distributed --config llama3_1/8B_lora.yaml
```

## Fix
`tune run --nproc_per_node 8 lora_finetune_distributed --config ...`.

## Fix safety
Not fixed: the number of GPUs is the user's.
"""

# A toolkit added from outside the package, as CONTRIBUTING.md shows it: torchtune's `tune run`
# launches, which no built-in toolkit judges (the unjudged toolkit says RL013 of them). It claims
# a command on its own evidence (`tune run`), builds a recipe per launch, names the YAML its launch
# reads, and this module is also its one rule, TOY002. Registered only by the tests that use it
# (recipelint.toolkits.registered): no core module is edited to add it.

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.model import Recipe
from recipelint.parse.shell import Command
from recipelint.parse.span import SourceText
from recipelint.toolkits import Claim, Offer, Toolkit

CODE = "TOY002"
NAME = "toy-tune-one-process"
SEVERITY = Severity.WARNING
FIXABLE = False
SOURCE = "the toy toolkit's own reading of `tune run` (one process without --nproc_per_node)"
VISITS = ("recipe",)  # its payload, a TuneLaunch
TOOLKITS = ("torchtune",)


@dataclass
class TuneLaunch:
    """`Recipe.payload` of a torchtune recipe: the launch and what it names."""

    source: SourceText
    command: Command
    recipe: str | None  # the torchtune recipe it runs (lora_finetune_distributed)
    config: str | None  # the YAML after --config, as written
    processes: str | None  # --nproc_per_node, as written; None: not given


def _words(command: Command) -> list[str]:
    return [word.value if word.value is not None else word.text for word in command.words]


def _option(words: list[str], name: str) -> str | None:
    return words[words.index(name) + 1] if name in words[:-1] else None


def _recipe(words: list[str]) -> str | None:
    """The first word after `tune run` and its options that is no option's value."""
    index = 2
    while index < len(words) and words[index].startswith("--"):
        index += 2
    return words[index] if index < len(words) else None


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    tune = ctx.recipe.payload
    if isinstance(tune, TuneLaunch) and tune.processes is None and (tune.recipe or "").endswith("_distributed"):
        message = f"tune run {tune.recipe} without --nproc_per_node starts one process"
        yield ctx.diagnostic(CODE, SEVERITY, message, tune.command.words[0].span)


class Torchtune(Toolkit):
    name = "torchtune"
    suffixes: tuple[str, ...] = ()
    rules: tuple[str, ...] = (__name__,)
    preload: tuple[str, ...] = ()

    def claim(self, command: Command, offer: Offer) -> Claim | None:
        words = _words(command)
        if words[:2] == ["tune", "run"]:
            return Claim(0.6, "runs `tune run` (torchtune's launcher)")
        return None

    def build(self, command: Command, offer: Offer) -> list[Recipe]:
        words = _words(command)
        tune = TuneLaunch(offer.script.source, command, _recipe(words), _option(words, "--config"), _option(words, "--nproc_per_node"))
        return [Recipe(root=offer.target.root, toolkit=self.name, script=offer.script, payload=tune)]

    def configs_named(self, command: Command, offer: Offer) -> list[str]:
        config = _option(_words(command), "--config")
        return [config] if config else []
