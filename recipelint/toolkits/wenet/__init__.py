"""WeNet: run.sh launching wenet/bin/train.py, the train YAML, data.list, train.py's flags."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from recipelint.subjects import Subject
from recipelint.toolkits import Claim, Offer, RunFacts, Target, Toolkit

if TYPE_CHECKING:
    from recipelint.context import Context
    from recipelint.model import Consumer, Note, Recipe
    from recipelint.parse.files import FileCache
    from recipelint.parse.shell import Command, ShellScript
    from recipelint.parse.tree import Document


# WeNet's evidence in a YAML, at its top: `dataset_conf` (WeNet's data pipeline; every train
# YAML of wenet-e2e/wenet v2.2.1 and v3 has it, tests/data/corpus/wenet), or `encoder` with a key
# only WeNet's configs have (v3's `tokenizer` and `cmvn`, v2's `is_json_cmvn`, a dumped config's
# `input_dim`). `encoder` alone is no evidence: an ESPnet train YAML has `encoder: conformer`,
# `encoder_conf`, `decoder`, `model_conf` and `optim` as WeNet's do (tests/data/nonrecipe/espnet).
WENET_ONLY = frozenset({"tokenizer", "cmvn", "is_json_cmvn", "input_dim"})
# `dataset_conf` alone is no evidence either: WeNet's sister toolkits share the data pipeline
# (wenet-e2e/wekws's train YAMLs are `dataset_conf`, `model: {...}`, `optim`, `training_config`,
# read by wekws/bin/train.py). A WeNet train YAML also describes its ASR model: every one in
# tests/data and examples/ (165, v2.1.0 to HEAD) has one of these.
ASR_MODEL_KEYS = frozenset(
    {"encoder", "encoder_conf", "decoder", "ctc_conf", "model_conf", "tokenizer", "tokenizer_conf", "cmvn", "input_dim", "output_dim"}
)
# Neither are the two together: modelscope/FunASR's train YAMLs have `dataset_conf`, `encoder`,
# `decoder`, `model_conf`, `ctc_conf`, `tokenizer` (read by funasr/bin/train.py through Hydra) and
# put their trainer's settings under `train_conf`. WeNet's own trainer reads its settings at the
# top (wenet/bin/train.py: `configs.get('max_epoch', 100)`; wenet/utils/train_utils.py:
# `accum_grad`, `grad_clip`, `log_interval`, `save_interval`, at wenet-e2e/wenet@0154699): every
# WeNet train YAML the tests carry (165, v2.1.0 to HEAD) has them; no FunASR one does.
TRAINER_KEYS = frozenset({"accum_grad", "max_epoch", "grad_clip", "log_interval", "save_interval"})
# A key at column 0 of block-style YAML is a top-level key: found without parsing the file.
_TOP_KEY = re.compile(rb"^(?:\xef\xbb\xbf)?([A-Za-z_][\w.-]*)[ \t]*:", re.MULTILINE)  # a BOM may open the file
_PEEK_BYTES = 1 << 20  # a train YAML is a few KiB; its top-level keys are in the first MiB


def is_train_config(keys: set[str]) -> bool:
    """Whether top-level keys are a WeNet train YAML's."""
    model = ("dataset_conf" in keys and bool(ASR_MODEL_KEYS & keys)) or ("encoder" in keys and bool(WENET_ONLY & keys))
    return model and bool(TRAINER_KEYS & keys)


def named_train_config(document: Document) -> bool:
    """Whether a YAML a launch passes as `--config` is a train config: a mapping with one key of
    a WeNet train YAML (or none at all). `train_config=/etc/shadow` in the tree is not: none of
    its lines may reach a report."""
    root = document.root
    if root.kind != "map":
        return root.kind == "scalar" and root.value is None  # an empty YAML
    keys = set(root.entries)
    return not keys or bool(keys & (ASR_MODEL_KEYS | TRAINER_KEYS | WENET_ONLY | {"dataset_conf"}))


def has_evidence(target: Target) -> bool:
    """A YAML with WeNet's keys at its top: a profile, a CI workflow, another trainer's YAML
    (LLaMA-Factory's `model_name_or_path`/`stage`, ESPnet's) is not a WeNet train config."""
    from recipelint.parse.files import head

    start = head(target.path, _PEEK_BYTES)
    return start is not None and is_train_config({key.decode() for key in _TOP_KEY.findall(start)})


def _has_config(ctx: Context) -> bool:
    from recipelint.toolkits.wenet.rules.config._wenet import wenet_config

    return wenet_config(ctx) is not None


class WeNet(Toolkit):
    name = "wenet"
    suffixes: tuple[str, ...] = ()
    rules: tuple[str, ...] = ("recipelint.toolkits.wenet.rules",)
    preload: tuple[str, ...] = ("recipelint.toolkits.wenet.frontend",)
    offers: tuple[str, ...] = ("show", "diagnose", "tune")  # tune: the loader plan of its recipes (recipelint.tune)
    subjects: tuple[Subject, ...] = (
        Subject("wenet-config", "a WeNet train YAML (named by a launch, or alone and looking like one)", _has_config),
    )
    packages: Mapping[str, tuple[str, ...]] = {"wenet": ("wenet", "deepspeed", "torch")}
    # WeNet's tags where behaviour recipelint judges changes (wenet.md 5).
    releases: Mapping[str, tuple[tuple[str, str], ...]] = {
        "wenet": (
            ("v2.2.1", "tag 2023-05-25"),
            ("v3.0.0", "tag"),
            ("v3.0.1", "tag 2024-03-08; requirements.txt pins deepspeed<0.13.0"),
            ("v3.1.0", "tag 2024-05-17; requirements.txt allows deepspeed>=0.14.0"),
        ),
    }

    def claims(self, target: Target, script: ShellScript | None) -> float:
        return 1.0 if target.kind == "yaml" and has_evidence(target) else 0.0

    def load(self, target: Target, files: FileCache, script: ShellScript | None) -> list[Recipe]:
        from recipelint.model import Recipe
        from recipelint.parse.checkout import find_checkout
        from recipelint.parse.yamlfile import parse_yaml
        from recipelint.toolkits.wenet.checkout import WENET_CODE

        document = parse_yaml(files.read(target.path))
        if document.root.kind != "map" or not is_train_config(set(document.root.entries)):
            return []  # the peek saw the keys somewhere the parse does not put at the top
        recipe = Recipe(root=target.root, toolkit=self.name, explicit=target.explicit, config=document)
        # A train config no launch names is still read by the WeNet code of its repository.
        recipe.checkout = find_checkout(WENET_CODE, target.path.parent, None, files)
        from recipelint.toolkits.wenet.frontend import folder_entry

        folder_entry(recipe, target.path, files)
        return [recipe]

    def claim(self, command: Command, offer: Offer) -> Claim | None:
        if offer.target.kind != "script":
            return None  # a recipe folder's run script: a README's or a command line's launch is read as a plain one
        from recipelint.toolkits.wenet.frontend import calls_a_launch, launch_evidence

        found = launch_evidence(command, offer)
        if found is not None:
            # 0.9: 1.0 is left to a job file around launches (a scheduler's), which hands them on.
            return Claim(0.9, found[1])
        called = calls_a_launch(command, offer.script)
        # A command that only calls another script is WeNet's last: any launch goes first.
        return Claim(0.1, called) if called is not None else None

    def build(self, command: Command, offer: Offer) -> list[Recipe]:
        from recipelint.toolkits.wenet.frontend import launch_evidence, load_called, load_recipe

        found = launch_evidence(command, offer)
        if found is not None:
            return [load_recipe(offer.script.source.path, offer.files, offer.script, (command, found[0]))]
        return load_called(offer.script, offer.files, [command])

    def configs_named(self, command: Command, offer: Offer) -> list[str]:
        from recipelint.toolkits.wenet.frontend import launch_evidence, names_config

        found = launch_evidence(command, offer)
        return names_config(command, found[0]) if found is not None else []

    def describe(self, ctx: Context) -> list[Note]:
        from recipelint.toolkits.checkouts import code_notes
        from recipelint.toolkits.wenet.checkout import code_rows, package_entry
        from recipelint.toolkits.wenet.part import data_notes

        return data_notes(ctx) + code_notes(ctx.recipe, "WeNet", lambda checkout, script: code_rows(checkout, package_entry(script)))

    def run_facts(self, ctx: Context) -> RunFacts:
        """WeNet's --train_engine (its default torch_ddp when not given), --timeout (train.py's
        default 30) and its train data lists."""
        from recipelint.toolkits.wenet.loader import loader
        from recipelint.toolkits.wenet.part import shard_kinds

        engine = join_timeout = None
        if ctx.recipe.launch is not None:
            value = ctx.recipe.arg("train_engine").value
            engine = str(value) if value is not None else "torch_ddp"
            setting = ctx.recipe.arg("timeout")
            join_timeout = setting.as_int() if setting.given else 30
        remote, compressed = shard_kinds(ctx.recipe)
        return RunFacts(engine, join_timeout, loader(ctx).shards, remote, compressed)

    def plan(self, ctx: Context) -> list[str]:
        from recipelint.toolkits.wenet.loader import plan_lines

        return plan_lines(ctx)

    def json_consumer(self, seen: str = "") -> Consumer | None:
        """WeNet's wenet/utils/train_utils.py init_optimizer_and_scheduler passes optimizer=None and
        lr_scheduler=None to deepspeed.initialize when the JSON has those blocks (DeepSpeed builds
        them), and nothing fills "auto" before DeepSpeed reads the JSON."""
        from recipelint.model import Consumer

        where = "wenet/utils/train_utils.py: deepspeed.initialize gets optimizer=None, lr_scheduler=None when the JSON has those blocks"
        return Consumer(self.name, False, False, [seen, where] if seen else [where], named="WeNet", filler="none")


WENET = WeNet()
