"""Where a launch runs from, and which launch judges a config passed alone, on unmodified upstream
files: DeepSpeedExamples' compression/gpt2 copied out of its repository (no root marker), the
Baichuan2 README (`git clone ...; cd Baichuan2/fine-tune`), WeNet's aishell recipes (a JSON one
recipe borrows from another's folder) and the batch-triple field case. Each runs from a chosen
folder (monkeypatch.chdir): paths in the output are relative to it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from recipelint import engine
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.hardware.profile import load_profile
from recipelint.parse.files import FileCache
from recipelint.parse.where import shown, shown_folder
from recipelint.report import github, jsonout, sarif, text
from recipelint.report import show as show_report
from recipelint.settings import Resolver
from tests.helpers import A100, DATA, UPSTREAM, clone, describe, item, items

GPT2 = UPSTREAM / "deepspeed" / "DeepSpeedExamples" / "compression" / "gpt2"
SCRIPT = Path("bash_script/run_zero_quant.sh")
CONFIG = Path("config/ds_config_W8A8_Qgroup64_fp32.json")


def _gpt2_alone(tmp_path: Path) -> Path:
    """compression/gpt2 copied out of its repository: no .git, pyproject.toml or setup.py above it."""
    folder = tmp_path / "gpt2"
    shutil.copytree(GPT2, folder)
    return folder


def _check(paths: list[Path], profile: Path = A100) -> engine.Result:
    hardware = load_profile(profile)
    return engine.check(paths, hardware=lambda: hardware, files=FileCache(), resolver=Resolver(isolated=True))


def _codes(found: list[Diagnostic], code: str) -> list[Diagnostic]:
    return [d for d in found if d.code == code]


def test_no_root_marker_the_folder_recipelint_runs_in_holds_the_training_script(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(_gpt2_alone(tmp_path))
    (description,), result = describe([SCRIPT])
    assert _codes(result.diagnostics, "RL010") == []
    assert item(description, "configs", "DeepSpeed config").source == f"found at {CONFIG}"
    run = {label: entries[0] for label, entries in items(description, "run").items()}
    assert (run["working folder"].value, run["working folder"].source) == (
        "./",
        "the folder recipelint runs in; run_clm_no_trainer.py is there",
    )
    assert run["repository root"].value == "none"
    assert run["repository root"].source == "no .git, pyproject.toml or setup.py above the script: searched up to ./"
    assert run["folders tried"].value.startswith("./, bash_script/")


def test_no_root_marker_a_folder_above_the_script_holds_the_training_script(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _gpt2_alone(tmp_path)
    monkeypatch.chdir(tmp_path)
    (description,), result = describe([Path("gpt2") / SCRIPT])
    assert _codes(result.diagnostics, "RL010") == []
    working = item(description, "run", "working folder")
    assert (working.value, working.source) == ("gpt2/", "a folder above the script; run_clm_no_trainer.py is there")


def test_no_root_marker_rl010_lists_the_folders_and_says_why_it_stopped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "gpt2"
    (folder / "bash_script").mkdir(parents=True)
    shutil.copy(GPT2 / SCRIPT, folder / SCRIPT)  # the script alone: its config and training script are not here
    monkeypatch.chdir(folder)
    (finding,) = _codes(_check([SCRIPT]).diagnostics, "RL010")
    assert finding.message == (
        f"DeepSpeed config {CONFIG} is not in any folder this launch may run from (tried bash_script/, ./); "
        "no repository root (.git, pyproject.toml, setup.py) above the script: searched up to ./"
    )
    assert (
        "working folder undecided: run_clm_no_trainer.py is in none of the folders tried; relative paths are looked up in each"
        in finding.evidence
    )
    (folder / ".git").mkdir()  # a root, and the training script nowhere in it: another checkout's launch
    assert _codes(_check([SCRIPT]).diagnostics, "RL010") == []
    shutil.copy(GPT2 / "run_clm_no_trainer.py", folder)  # the launch is this repository's: the search ends at its root
    (finding,) = _codes(_check([SCRIPT]).diagnostics, "RL010")
    assert "no repository root" not in finding.message
    assert str(finding.severity) == "error" and finding.evidence[-1].startswith("no file named ds_config_W8A8_Qgroup64_fp32.json anywhere")


def test_readme_clone_then_cd_runs_in_the_clone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = clone("deepspeed/Baichuan2", tmp_path)
    monkeypatch.chdir(root)
    descriptions, result = describe([Path("README.md")])
    assert _codes(result.diagnostics, "RL010") == []
    assert [d.line for d in descriptions] == [483, 521]  # one launch per fence, both after `cd Baichuan2/fine-tune`
    for description in descriptions:
        assert item(description, "configs", "DeepSpeed config").source == "found at fine-tune/ds_config.json"
        working = item(description, "run", "working folder")
        assert working.value == "fine-tune/"
        assert working.source == "`cd Baichuan2/fine-tune` into the clone Baichuan2, this checkout's top; fine-tune.py is there"


def test_readme_clone_kept_inside_another_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's folder is named after the clone, below another repository's top: `cd
    Baichuan2/fine-tune` is that folder's fine-tune/, not one at the top."""
    (tmp_path / ".git").mkdir()
    shutil.copytree(UPSTREAM / "deepspeed" / "Baichuan2", tmp_path / "vendor" / "Baichuan2")
    monkeypatch.chdir(tmp_path)
    descriptions, result = describe([Path("vendor/Baichuan2/README.md")])
    assert _codes(result.diagnostics, "RL010") == []
    assert {item(d, "run", "working folder").value for d in descriptions} == {"vendor/Baichuan2/fine-tune/"}


def test_readme_clone_without_its_files_reports_the_folders_tried(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".git").mkdir()
    shutil.copy(UPSTREAM / "deepspeed" / "Baichuan2" / "README.md", tmp_path / "README.md")
    monkeypatch.chdir(tmp_path)
    # fine-tune/ is not here at all: the launch's own script is nowhere, so it is not this tree's to judge
    assert _codes(_check([Path("README.md")]).diagnostics, "RL010") == []
    (tmp_path / "fine-tune").mkdir()
    shutil.copy(UPSTREAM / "deepspeed" / "Baichuan2" / "fine-tune" / "fine-tune.py", tmp_path / "fine-tune")  # its JSON is not
    found = _codes(_check([Path("README.md")]).diagnostics, "RL010")
    assert [d.span.line for d in found] == [503, 541]
    assert found[0].message == "DeepSpeed config ds_config.json is not in any folder this launch may run from (tried fine-tune/, ./)"


def test_a_config_passed_alone_is_judged_with_the_launch_that_names_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(_gpt2_alone(tmp_path))
    alone = _check([CONFIG]).diagnostics
    named = _check([SCRIPT]).diagnostics
    assert [(d.code, str(d.span), d.message) for d in alone] == [(d.code, str(d.span), d.message) for d in named]
    # RL412 (a removed key) and RL421 (the script passes its own optimizer: the block is ignored)
    assert sorted(d.code for d in alone if d.span.path == CONFIG) == ["RL412", "RL421"]
    (removed,) = [d for d in alone if d.span.path == CONFIG and d.code == "RL412"]
    assert removed.evidence[-1] == f"judged with the launch at {SCRIPT}:7 (the config was passed alone)"
    (direct,) = [d for d in named if d.span.path == CONFIG and d.code == "RL412"]
    assert not any(line.startswith("judged with") for line in direct.evidence)  # the launch named: nothing to say
    (description,), _ = describe([CONFIG])
    judged = item(description, "configs", "judged with")
    assert (judged.value, judged.source) == (f"the launch at {SCRIPT}:7", f"{CONFIG} was passed alone; this launch names it")


def test_a_json_borrowed_from_another_recipe_s_folder_is_judged_with_its_launch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """aishell/rnnt/run_npu.sh passes ../whisper/conf/ds_stage2.json: gradient_clipping 5 against
    the rnnt YAML's grad_clip 4. Passed alone (pre-commit), the JSON is judged with that launch."""
    root = clone("wenet", tmp_path)
    monkeypatch.chdir(root / "examples" / "aishell")
    found = _check([Path("whisper/conf/ds_stage2.json")]).diagnostics
    (clip,) = _codes(found, "RL402")
    assert clip.message == "gradient_clipping is 5 but WeNet asserts it equals 4 (grad_clip: 4 in conformer_u2pp_rnnt.yaml)"
    assert clip.span.path == Path("whisper/conf/ds_stage2.json")
    assert clip.evidence[-1] == "judged with the launch at rnnt/run_npu.sh:148 (the config was passed alone)"
    # whisper/run.sh passes conf/ds_stage1.json with its own YAML: the same check, quiet
    assert _codes(_check([Path("whisper/conf/ds_stage1.json")]).diagnostics, "RL402") == []


def test_a_batch_triple_is_judged_at_the_launch_s_world_size(monkeypatch: pytest.MonkeyPatch) -> None:
    case = DATA / "field" / "batch-triple-7-gpus"
    monkeypatch.chdir(case)
    (triple,) = _codes(_check([Path("bad/ds_config.json")], case / "node.yaml").diagnostics, "RL415")
    assert triple.message.startswith("train_batch_size 256 != micro batch 2 x accumulation 18 x data-parallel size 7 = 252")
    assert triple.evidence[-1] == "judged with the launch at bad/train.sh:2 (the config was passed alone)"
    assert _codes(_check([Path("good/ds_config.json")], case / "node.yaml").diagnostics, "RL415") == []


@pytest.mark.parametrize("given", ["absolute", "dot", "config"])
def test_paths_are_relative_to_the_current_folder_in_every_format(given: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _gpt2_alone(tmp_path)
    monkeypatch.chdir(folder)
    path = {"absolute": folder / SCRIPT, "dot": Path("./bash_script/run_zero_quant.sh"), "config": folder / CONFIG}[given]
    result = _check([path])
    assert {str(d.span.path) for d in result.diagnostics} <= {str(SCRIPT), str(CONFIG)}
    assert f"\n{CONFIG}:32:1: RL412" in "\n" + text.render_concise(result)
    assert {d["path"] for d in json.loads(jsonout.render(result))["diagnostics"]} <= {str(SCRIPT), str(CONFIG)}
    (run,) = json.loads(sarif.render(result))["runs"]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == folder.as_uri() + "/"
    locations = [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in run["results"]]
    assert {"uri": str(CONFIG), "uriBaseId": "%SRCROOT%"} in locations
    assert f"file={CONFIG}," in github.render(result)


def test_paths_outside_the_current_folder_stay_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _gpt2_alone(tmp_path)
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    result = _check([folder / SCRIPT])
    assert f"{folder / CONFIG}:32:1: RL412" in text.render_concise(result)
    (run,) = json.loads(sarif.render(result))["runs"]
    assert {"uri": (folder / CONFIG).as_uri()} in [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in run["results"]]
    (description,), _ = describe([folder / SCRIPT])
    assert show_report.render_text([description]).startswith(f"{folder / SCRIPT}:7 (deepspeed)")


def test_a_placeholder_path_is_not_a_missing_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """BELLE's run_dpo.sh is a template: `deepspeed_config=...` is for the user to fill in. RL010
    says so as an info, not as a missing file."""
    root = clone("deepspeed/BELLE", tmp_path)
    monkeypatch.chdir(root)
    (finding,) = _codes(_check([Path("train/scripts/run_dpo.sh")]).diagnostics, "RL010")
    assert (
        str(finding.severity) == "info"
        and finding.message == "DeepSpeed config ... is a placeholder to fill in before the run: not checked"
    )


def test_every_walk_up_stops_at_its_marker_or_its_limit(tmp_path: Path) -> None:
    from recipelint.parse.where import repo_root, upward, worktree_top

    deep = tmp_path / "repo" / "a" / "b" / "c"
    deep.mkdir(parents=True)
    (tmp_path / "repo" / ".git").mkdir()
    assert worktree_top(deep) == repo_root(deep) == tmp_path / "repo"
    folders, top = upward(deep, lambda folder: folder.name == "repo", limit=2)
    assert folders == [deep, deep.parent] and top is None
    (deep.parent / "pyproject.toml").write_text("")
    assert repo_root(deep) == deep.parent and worktree_top(deep) == tmp_path / "repo"


def test_a_guide_runs_from_the_folder_below_it_that_holds_its_training_script(tmp_path: Path) -> None:
    """OpenBMB/MiniCPM's minicpm_sala/finetune/README.md starts `finetune.py`, which sits in
    finetune/trainer/ with the configs its commands name: the Accelerate config is found there (it
    was reported missing), and the DeepSpeed config the README misspells is reported with the
    file of its name the folder holds."""
    root = clone("deepspeed/MiniCPM", tmp_path)
    guide = root / "minicpm_sala" / "finetune" / "README.md"
    found = _codes(_check([guide]).diagnostics, "RL010")
    assert [(d.span.line, d.severity) for d in found] == [(92, Severity.WARNING)]
    assert found[0].message.endswith(
        "a file of that name is at " + shown(guide.parent / "trainer/configs/deepspeed/ds_config_zero3.json").as_posix()
    )
    descriptions, _ = describe([guide])
    folders = {item(d, "run", "working folder").value for d in descriptions if d.line in (72, 103)}
    assert folders == {shown_folder(guide.parent / "trainer")}


def test_a_guide_with_two_folders_below_holding_its_script_stays_undecided(tmp_path: Path) -> None:
    root = clone("deepspeed/MiniCPM", tmp_path)
    trainer = root / "minicpm_sala" / "finetune" / "trainer"
    shutil.copytree(trainer, trainer.parent / "trainer2")
    guide = root / "minicpm_sala" / "finetune" / "README.md"
    found = _codes(_check([guide]).diagnostics, "RL010")
    # two folders hold finetune.py: none is picked, and both configs are looked for where the guide is
    assert [d.span.line for d in found] == [92, 106]
