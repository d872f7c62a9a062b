"""What a recipe names is read only inside the linted tree, only when it is the config it is
passed as, and quoted no further than the key and value a finding is about (docs/reliability.md,
"Nothing a recipe names is echoed")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from recipelint.report.text import _key_and_value
from tests.helpers import RecipeSpec, assert_snapshot, cli, codes, lint

TOKEN = "c2VjcmV0OnRva2VuLTQ3"  # base64 of a registry password: must never reach a report
SHADOW = "".join(f"user{i}:$6$SALT{i}${TOKEN}{i}:20228:0:99999:7:::\n" for i in range(24))
DOCKER = json.dumps({"auths": {"registry.example.com": {"auth": TOKEN}}})
DS_FLAGS = ["--num_workers ${num_workers}", "--prefetch ${prefetch}", "--train_engine deepspeed", "--deepspeed_config $ds"]


def _repo(tmp_path: Path, train_config: str = "conf/train.yaml", ds: str | None = None) -> Path:
    """A WeNet recipe in a repository, whose run.sh names `train_config` (and `ds` as its DeepSpeed JSON)."""
    top = tmp_path / "repo"
    (top / ".git").mkdir(parents=True)
    spec = RecipeSpec(ds={"train_micro_batch_size_per_gpu": 1}, flags=DS_FLAGS if ds else RecipeSpec().flags)
    script = spec.write(top / "recipe")
    text = script.read_text().replace("train_config=conf/train.yaml", f"train_config={train_config}\nds={ds or 'conf/ds.json'}")
    script.write_text(text)
    return script


def _every_format(target: Path) -> str:
    said = ""
    for fmt in ("text", "json", "sarif", "github", "concise"):
        result = cli("check", str(target), "--isolated", "--no-cache", "--format", fmt)
        assert result.returncode in (0, 1), result.stderr
        said += result.stdout + result.stderr
    return said


def test_a_config_outside_the_tree_is_named_never_read(tmp_path: Path) -> None:
    secret = tmp_path / "shadow"
    secret.write_text(SHADOW)
    script = _repo(tmp_path, train_config=str(secret))
    found = lint(script)
    assert_snapshot("RL020", found, tmp_path)
    assert "RL701" not in codes(found)  # 24 unknown keys, each quoting a line, before
    said = _every_format(script)
    assert "RL020" in said and TOKEN not in said and "SALT" not in said


def test_a_relative_path_that_climbs_out_is_outside_too(tmp_path: Path) -> None:
    (tmp_path / "shadow.yaml").write_text(SHADOW)
    script = _repo(tmp_path, train_config="../../shadow.yaml")
    said = _every_format(script)
    assert "RL020" in said and TOKEN not in said


def test_a_config_inside_the_tree_is_read(tmp_path: Path) -> None:
    found = lint(_repo(tmp_path))
    assert not {"RL020", "RL021"} & set(codes(found))


@pytest.mark.parametrize("role", ["train", "deepspeed"])
def test_a_file_that_is_not_the_config_it_is_passed_as_shows_nothing(tmp_path: Path, role: str) -> None:
    if role == "train":
        script = _repo(tmp_path, train_config="conf/shadow.yaml")
        (script.parent / "conf/shadow.yaml").write_text(SHADOW)
    else:
        script = _repo(tmp_path, ds="conf/config.json")
        (script.parent / "conf/config.json").write_text(DOCKER)
    found = lint(script)
    if role == "deepspeed":
        assert_snapshot("RL021", found, tmp_path)
    assert "RL021" in codes(found) and "RL701" not in codes(found)
    said = _every_format(script)
    assert TOKEN not in said and "SALT" not in said


def test_a_real_deepspeed_json_is_no_foreign_file(tmp_path: Path) -> None:
    found = lint(_repo(tmp_path, ds="conf/ds.json"))
    assert "RL021" not in codes(found)


def test_a_frame_quotes_the_key_and_value_not_their_neighbours() -> None:
    line = f'{{"auths": {{"r": {{"auth": "{TOKEN}"}}}}, "train_micro_batch_size_per_gpu": 4, "fp16": {{"enabled": true, "loss_scale": 0}}}}'
    start = line.index("4,")
    shown, begin, end = _key_and_value(line, start, start + 1, "train_micro_batch_size_per_gpu")
    assert shown == '... "train_micro_batch_size_per_gpu": 4 ...' and shown[begin:end] == "4"
    block = line.index('{"enabled"')
    shown, begin, end = _key_and_value(line, block, len(line), "fp16")
    assert shown == '... "fp16": { ...' and shown[begin:end] == "{"
    # a YAML line is its own key and value: kept whole
    assert _key_and_value("  batch_size: 16  # per GPU", 14, 16, "dataset_conf.batch_conf.batch_size") == (
        "  batch_size: 16  # per GPU",
        14,
        16,
    )
