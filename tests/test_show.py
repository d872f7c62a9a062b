"""`recipelint show` and the rules about what a launch names (RL010-RL012), on upstream files."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from recipelint.diagnostics import Diagnostic
from tests.helpers import A100, assert_snapshot, cli, clone, describe


def _findings(path: Path) -> list[Diagnostic]:
    descriptions, result = describe([path])
    assert not result.errors
    return [f for d in descriptions for f in d.findings]


def _in(repo: str, relative: str) -> Callable[[Path], Path]:
    return lambda tmp: clone(f"deepspeed/{repo}", tmp) / relative


# code -> (a real file that makes it fire, one that keeps it quiet)
CASES: dict[str, tuple[Callable[[Path], Path], Callable[[Path], Path]]] = {
    "RL010": (_in("LMFlow", "scripts/archive/run_finetune.sh"), _in("LMFlow", "scripts/archive/run_chatbot.sh")),
    "RL011": (_in("ms-swift", "examples/yaml/deepspeed/sft.json"), _in("Qwen", "finetune/ds_config_zero3.json")),
    "RL012": (_in("FastChat", "scripts/train_lora.sh"), _in("Qwen", "finetune/finetune_ds.sh")),
    "RL014": (_in("Qwen3-VL", "qwen-vl-finetune/scripts/sft_30a3b_lora.sh"), _in("Qwen3-VL", "qwen-vl-finetune/scripts/sft_30a3b.sh")),
}


def test_cases_fire_and_stay_quiet(tmp_path: Path) -> None:
    for code, (fire, quiet) in CASES.items():
        fired = [f for f in _findings(fire(tmp_path / code / "fire")) if f.code == code]
        assert len(fired) == 1, code
        assert_snapshot(code, fired, tmp_path)
        assert [f.code for f in _findings(quiet(tmp_path / code / "quiet")) if f.code == code] == [], code


def test_show_text_and_json(tmp_path: Path) -> None:
    root = clone("wenet", tmp_path)
    recipe = root / "examples/aishell4/s0"
    (recipe / "data/aishell4_train").mkdir(parents=True)
    (recipe / "data/aishell4_train/data.list").write_text("".join(f"/shards/{i}.tar\n" for i in range(60)))
    text = cli("show", str(recipe / "run.sh"), "--hardware", str(A100), "--isolated")
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    assert lines[0] == f"{recipe / 'run.sh'}:134 (wenet)"
    assert "    world size         8" in lines
    assert f"                         <- {recipe / 'data/aishell4_train/data.list'}: 60 lines (file 60)" in lines
    assert "    count              2" in lines and "                         <- RL103, RL201" in lines
    as_json = cli("show", str(recipe / "run.sh"), "--hardware", str(A100), "--isolated", "--format", "json")
    data = json.loads(as_json.stdout)
    (described,) = data["recipes"]
    sections = {s["title"]: {i["label"]: i for i in s["items"]} for s in described["sections"]}
    assert list(sections) == ["launch", "settings", "configs", "data", "script", "code", "run", "hardware", "unknown", "findings"]
    # No checkout, no pins beside the copied recipe, no settings: the newest releases known.
    assert sections["run"]["deepspeed version"] == {"label": "deepspeed version", "value": "0.19.8", "source": "newest known"}
    assert sections["run"]["wenet version"]["value"] == "v3.1.0"
    # no wenet/bin/train.py in this checkout: no folder is picked silently, each is tried in order
    assert sections["run"]["working folder"]["value"] == "undecided"
    assert sections["run"]["repository root"]["value"] == f"{root}/"
    assert sections["launch"]["ranks per node"]["value"] == "8"
    assert sections["launch"]["ranks per node"]["source"].startswith(
        "gpus 8 from profile a100-8x-96cpu-ib.yaml: the script leaves the GPU count"
    )
    assert sections["hardware"]["cpus"] == {"label": "cpus", "value": "96", "source": "profile a100-8x-96cpu-ib.yaml"}
    assert [f["code"] for f in described["findings"]] == ["RL103", "RL201"]
    # path.sh's PYTHONPATH=../../../ names a WeNet checkout that is not beside the copied recipe
    assert sections["code"]["WeNet code"]["value"] == "not found"
    assert data["hardware"]["gpus"] == 8


def test_show_bad_format_and_nothing_found(tmp_path: Path) -> None:
    assert cli("show", str(tmp_path), "--format", "yaml").returncode == 2
    empty = cli("show", str(tmp_path), "--hardware", str(A100))
    assert empty.returncode == 0 and empty.stdout.strip() == "No recipes found."


def test_a_plain_launch_shows_the_deepspeed_release_only_when_the_run_shows_deepspeed(tmp_path: Path) -> None:
    (tmp_path / "run.sh").write_text("#!/bin/bash\ntorchrun --nproc_per_node 8 train.py --lr 1e-4\n")
    (tmp_path / "train.py").write_text("import torch\n")

    def run_rows() -> dict[str, str]:
        out = cli("show", str(tmp_path / "run.sh"), "--isolated", "--format", "json")
        (described,) = json.loads(out.stdout)["recipes"]
        (run,) = [s for s in described["sections"] if s["title"] == "run"]
        return {item["label"]: item["value"] for item in run["items"]}

    plain = run_rows()
    assert "torch version" in plain and "deepspeed version" not in plain
    (tmp_path / "requirements.txt").write_text("deepspeed==0.14.0\n")
    assert run_rows()["deepspeed version"] == "0.14.0"


def test_an_accelerate_launch_shows_the_deepspeed_release_when_its_config_runs_deepspeed(tmp_path: Path) -> None:
    """alignment-handbook's zephyr-7b-beta README: `accelerate launch --config_file
    recipes/accelerate_configs/zero3.yaml` (distributed_type DEEPSPEED: the run imports deepspeed)
    at line 18, `.../ddp.yaml` (MULTI_GPU) at line 29. The DDP launch shows deepspeed too: the
    repository's setup.py installs it (`deps["deepspeed"]` from its `_deps` table, >=0.17.2);
    without that pin it would not."""
    root = clone("deepspeed/alignment-handbook", tmp_path)
    descriptions, _ = describe([root / "recipes" / "zephyr-7b-beta" / "README.md"])
    rows = {d.line: {i.label for s in d.sections if s.title == "run" for i in s.items} for d in descriptions}
    assert "deepspeed version" in rows[18] and "accelerate version" in rows[18]
    assert "deepspeed version" in rows[29] and "accelerate version" in rows[29]
    (root / "setup.py").unlink()
    descriptions, _ = describe([root / "recipes" / "zephyr-7b-beta" / "README.md"])
    rows = {d.line: {i.label for s in d.sections if s.title == "run" for i in s.items} for d in descriptions}
    assert "deepspeed version" in rows[18] and "deepspeed version" not in rows[29]
