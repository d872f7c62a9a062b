"""WeNet: run.sh launching wenet/bin/train.py, the train YAML, data.list, train.py's flags."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from recipelint.model import Recipe
    from recipelint.parse.files import FileCache
    from recipelint.parse.shell import ShellScript
    from recipelint.toolkits import Target


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


def named_train_config(document: Any) -> bool:
    """Whether a YAML a launch passes as `--config` is a train config: a mapping with one key of
    a WeNet train YAML (or none at all). `train_config=/etc/shadow` in the tree is not: none of
    its lines may reach a report."""
    root = getattr(document, "root", None)
    if root is None or root.kind != "map":
        return root is not None and root.kind == "scalar" and root.value is None  # an empty YAML
    keys = set(root.entries)
    return not keys or bool(keys & (ASR_MODEL_KEYS | TRAINER_KEYS | WENET_ONLY | {"dataset_conf"}))


def has_evidence(target: Target) -> bool:
    """A YAML with WeNet's keys at its top: a profile, a CI workflow, another trainer's YAML
    (LLaMA-Factory's `model_name_or_path`/`stage`, ESPnet's) is not a WeNet train config."""
    from recipelint.parse.files import head

    start = head(target.path, _PEEK_BYTES)
    return start is not None and is_train_config({key.decode() for key in _TOP_KEY.findall(start)})


class WeNet:
    name = "wenet"
    suffixes: tuple[str, ...] = ()
    rules: tuple[str, ...] = ("recipelint.toolkits.wenet.rules",)
    preload: tuple[str, ...] = ("recipelint.toolkits.wenet.frontend",)

    def claims(self, target: Target, script: ShellScript | None) -> float:
        if target.kind == "yaml":
            return 1.0 if has_evidence(target) else 0.0
        if target.kind != "script" or script is None:
            return 0.0
        from recipelint.toolkits.wenet.frontend import find_launch

        # A train.py launch 0.9: 1.0 is left to a job file around launches (a scheduler's), which
        # hands them on. A run.sh that only calls other scripts is WeNet's last: any launch goes first.
        return 0.9 if find_launch(script) is not None else 0.1

    def load(self, target: Target, files: FileCache, script: ShellScript | None) -> list[Recipe]:
        if target.kind == "yaml":
            from recipelint.model import Recipe
            from recipelint.parse.checkout import find_checkout
            from recipelint.parse.yamlfile import parse_yaml

            document = parse_yaml(files.read(target.path))
            if document.root.kind != "map" or not is_train_config(set(document.root.entries)):
                return []  # the peek saw the keys somewhere the parse does not put at the top
            recipe = Recipe(root=target.root, toolkit=self.name, explicit=target.explicit, config=document)
            # A train config no launch names is still read by the WeNet code of its repository.
            recipe.checkout = find_checkout("wenet", target.path.parent, None, files)
            from recipelint.toolkits.wenet.frontend import folder_entry

            folder_entry(recipe, target.path, files)
            return [recipe]
        assert script is not None
        from recipelint.toolkits.wenet.frontend import find_launch, load_called, load_recipe

        if find_launch(script) is not None:
            return [load_recipe(target.path, files, script)]
        return load_called(script, files)

    def configs_named(self, script: ShellScript) -> list[str]:
        from recipelint.toolkits.wenet.frontend import names_config

        return names_config(script)


WENET = WeNet()
