"""DeepSpeed: its JSON config (alone or named by a launch) and plain `deepspeed`/torchrun launches."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from recipelint.subjects import Subject
from recipelint.toolkits import Claim, Offer, Toolkit

if TYPE_CHECKING:
    from recipelint.context import Context
    from recipelint.model import Note, Recipe
    from recipelint.parse.files import FileCache
    from recipelint.parse.shell import Command, ShellScript
    from recipelint.toolkits import Target


def _has_document(ctx: Context) -> bool:
    from recipelint.toolkits.deepspeed.rules._ds import ds_document

    return ds_document(ctx, versioned=False) is not None


class DeepSpeed(Toolkit):
    name = "deepspeed"
    suffixes: tuple[str, ...] = ()
    rules: tuple[str, ...] = ("recipelint.toolkits.deepspeed.rules",)
    # its launches and JSON described; a diagnosis reads the launch and the JSON; tune: its launches' DataLoader plan (recipelint.rulekit.workers)
    offers: tuple[str, ...] = ("show", "diagnose", "tune")
    preload: tuple[str, ...] = ("recipelint.toolkits.deepspeed.frontend",)
    kinds: tuple[str, ...] = ("torch",)  # a distributed launch with no DeepSpeed config: the launch rules still apply
    subjects: tuple[Subject, ...] = (
        Subject("deepspeed-config", "a DeepSpeed JSON config (named by a launch, or alone and looking like one)", _has_document),
    )
    # A plain launch (torchrun, srun, a Job): torch's defaults decide; deepspeed only when the run
    # shows it (a DeepSpeed JSON it reads, a pin of deepspeed): runcontext.version_rows.
    packages: Mapping[str, tuple[str, ...]] = {"deepspeed": ("deepspeed", "torch", "transformers", "accelerate"), "torch": ("torch",)}

    def describe(self, ctx: Context) -> list[Note]:
        """The launch's DataLoader plan (`show`'s "plan" section; recipelint.rulekit.workers)."""
        from recipelint.rulekit.workers import plan

        return plan(ctx).notes()

    def plan(self, ctx: Context) -> list[str]:
        """The launch's DataLoader plan (recipelint.rulekit.workers)."""
        from recipelint.rulekit.workers import plan

        return plan(ctx).lines()

    def claims(self, target: Target, script: ShellScript | None) -> float:
        if target.kind == "json":
            return 1.0
        if target.kind == "yaml":  # an Accelerate config, on its own key (load reads the rest)
            return 1.0 if _accelerate_evidence(target) else 0.0
        return 0.0

    def claim(self, command: Command, offer: Offer) -> Claim | None:
        from recipelint.toolkits.deepspeed.frontend import launch_evidence

        evidence = launch_evidence(offer.script, command)
        # below XTuner's 0.5: a launch of XTuner's train.py with --deepspeed is XTuner's
        return Claim(0.4, evidence) if evidence is not None else None

    def build(self, command: Command, offer: Offer) -> list[Recipe]:
        from recipelint.toolkits.deepspeed.frontend import load_ds_launches

        return load_ds_launches(offer.script, offer.files, offer.target.root, [command])

    def configs_named(self, command: Command, offer: Offer) -> list[str]:
        from recipelint.toolkits.deepspeed.frontend import named_json

        return named_json(command)

    def load(self, target: Target, files: FileCache, script: ShellScript | None) -> list[Recipe]:
        if target.kind == "json":
            from recipelint.model import Recipe
            from recipelint.parse.files import SourceError
            from recipelint.parse.jsonfile import parse_json
            from recipelint.toolkits.deepspeed.knowledge import WALKED_JSON_BYTES, looks_like_deepspeed, may_be_deepspeed

            if not target.explicit and not _small(target, WALKED_JSON_BYTES):
                return []
            source = files.read(target.path)
            if not target.explicit and not may_be_deepspeed(source.data[:65536]):
                return []  # a JSON found in a folder is claimed on DeepSpeed's evidence only
            try:
                document = parse_json(source)
            except SourceError as error:
                from recipelint.toolkits.deepspeed.frontend import load_template

                return load_template(target, files, source, error)
            if not target.explicit and not looks_like_deepspeed(document.root):
                return []
            return [Recipe(root=target.root, explicit=target.explicit, ds_config=document, toolkit=self.name)]
        from recipelint.toolkits.deepspeed.frontend import load_accelerate_config

        return load_accelerate_config(target, files)


def _accelerate_evidence(target: Target) -> bool:
    """`distributed_type` at the top of a YAML: the key every `accelerate config` file has
    (toolkits/accelerate.py: is_config). Peeked, not parsed: the load parses it."""
    import re

    from recipelint.parse.files import head

    start = head(target.path, 1 << 20)
    return start is not None and re.search(rb"^(?:\xef\xbb\xbf)?distributed_type[ \t]*:", start, re.MULTILINE) is not None


def _small(target: Target, limit: int) -> bool:
    import os

    try:
        return os.stat(target.path).st_size <= limit
    except OSError:
        return True  # let the read say what is wrong


DEEPSPEED = DeepSpeed()
