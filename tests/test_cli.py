"""The command line: exit codes, output shapes, and one clear line for bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import NODE, REPO, RecipeSpec, cli


def profile(tmp_path: Path, **changes: object) -> Path:
    path = tmp_path / "node.yaml"
    path.write_text("".join(f"{k}: {json.dumps(v)}\n" for k, v in {**NODE, **changes}.items()))
    return path


def test_clean_recipe_exits_0(tmp_path: Path) -> None:
    RecipeSpec().write(tmp_path / "r")
    result = cli("check", str(tmp_path / "r"), "--hardware", str(profile(tmp_path)))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "No problems found." in result.stdout


def test_findings_exit_1_with_location_and_evidence(tmp_path: Path) -> None:
    RecipeSpec().write(tmp_path / "r")
    result = cli("check", str(tmp_path / "r" / "conf" / "train.yaml"), "--hardware", str(profile(tmp_path, cpus=12)))
    assert result.returncode == 1
    head, first = result.stdout.splitlines()[:3:2]
    assert head == f"Hardware: profile node.yaml (--hardware {tmp_path / 'node.yaml'})"
    assert first.startswith(f"{tmp_path / 'r' / 'run.sh'}:") and " RL102 [warning] " in first  # the YAML led to its run.sh
    assert "because cpus 12 from profile node.yaml" in result.stdout


def test_json_output_shape(tmp_path: Path) -> None:
    RecipeSpec().write(tmp_path / "r")
    result = cli("check", str(tmp_path / "r"), "--hardware", str(profile(tmp_path, cpus=12)), "--format", "json")
    data = json.loads(result.stdout)
    diagnostic = next(d for d in data["diagnostics"] if d["code"] == "RL102")
    assert {
        "code",
        "severity",
        "message",
        "path",
        "line",
        "column",
        "end_line",
        "end_column",
        "setting",
        "current",
        "suggested",
        "fix",
    } <= set(diagnostic)
    assert (diagnostic["setting"], diagnostic["current"], diagnostic["suggested"]) == ("num_workers", 4, 3)
    assert diagnostic["fix"]["applicability"] == "safe"
    assert [e["content"] for e in diagnostic["fix"]["edits"]] == ["3"]  # prefetch 10 stays: below the sort burst
    assert data["hardware"]["source"] == {
        "machine": "profile",
        "label": "profile node.yaml",
        "why": f"--hardware {tmp_path / 'node.yaml'}",
        "recipes": {"profile": 1},
    }
    assert data["hardware"]["cpus"] == 12


def test_bad_files_get_one_line_and_the_others_are_still_checked(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text(
        "encoder: conformer\naccum_grad: 1\ndataset_conf: [unclosed\n"
    )  # WeNet's keys: a WeNet config, broken
    (tmp_path / "bad.json").write_text('{"train_batch_size": 1,, }')  # a DeepSpeed config: a data JSON is no recipe
    (tmp_path / "bin.yaml").write_bytes(b"\x00\x01\x02")
    (tmp_path / "latin.yaml").write_bytes(b"encoder: caf\xe9\n")
    (tmp_path / "good.yaml").write_text("encoder: conformer\ngrad_clipp: 5\ndataset_conf: {}\nmax_epoch: 1\n")
    result = cli("check", str(tmp_path), "--hardware", str(profile(tmp_path)))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr + result.stdout
    errors = result.stderr.strip().splitlines()
    assert len(errors) == 4
    assert any(
        line.startswith(f"{tmp_path / 'bad.yaml'}:4:1: invalid YAML") or line.startswith(f"{tmp_path / 'bad.yaml'}:3:") for line in errors
    )
    assert any(line.startswith(f"{tmp_path / 'bad.json'}:1:24: invalid JSON") for line in errors)
    assert any("latin.yaml:1:13: not valid UTF-8" in line for line in errors)
    assert "RL701" in result.stdout  # good.yaml was still checked


def test_missing_path_and_bad_profile_exit_2(tmp_path: Path) -> None:
    result = cli("check", str(tmp_path / "nope"))
    assert result.returncode == 2 and "no such file or directory" in result.stderr
    bad = tmp_path / "p.yaml"
    bad.write_text("cpus: many\n")
    RecipeSpec().write(tmp_path / "r")
    result = cli("check", str(tmp_path / "r"), "--hardware", str(bad))
    assert result.returncode == 2 and result.stderr.startswith(
        f"recipelint: error: {bad}:1:7: hardware profile: cpus: 'many' is not of type 'integer'"
    )


def test_fix_diff_then_write(tmp_path: Path) -> None:
    RecipeSpec().write(tmp_path / "r")
    node = str(profile(tmp_path, cpus=12))
    script = tmp_path / "r" / "run.sh"
    before = script.read_bytes()
    diff = cli("fix", str(tmp_path / "r"), "--hardware", node)
    assert diff.returncode == 1 and "\n-num_workers=4\n" in diff.stdout and "\n+num_workers=3\n" in diff.stdout
    assert "\n prefetch=10\n" in diff.stdout and diff.stdout.startswith(f"--- a{script}")  # prefetch stays: below the sort burst
    assert script.read_bytes() == before
    assert cli("fix", str(tmp_path / "r"), "--hardware", node, "--write").returncode == 0
    assert cli("check", str(tmp_path / "r"), "--hardware", node).returncode == 0


def test_rules_and_rule(tmp_path: Path) -> None:
    listing = cli("rules")
    assert listing.returncode == 0 and "RL201  shards-idle-workers" in listing.stdout
    doc = cli("rule", "RL201")
    assert "## Why is this bad" in doc.stdout and "Source:" in doc.stdout
    assert cli("rule", "NOPE").returncode == 2


def test_probe_without_gpu_exits_0_and_says_why(tmp_path: Path) -> None:
    out = tmp_path / "node.yaml"
    result = cli("probe", "--output", str(out))
    assert result.returncode == 0
    text = out.read_text()
    assert "cpus:" in text and "sources:" in text
    try:
        import pynvml

        pynvml.nvmlInit()
        pytest.skip("this machine has a working NVML")
    except Exception:
        assert "gpus: " in text.split("unknown:")[1]  # listed as unknown, with the reason
    # The saved profile round-trips through --hardware.
    RecipeSpec().write(tmp_path / "r")
    assert cli("check", str(tmp_path / "r"), "--hardware", str(out)).returncode in (0, 1)


def test_internal_errors_are_one_line(tmp_path: Path) -> None:
    env = {"PYTHONPATH": str(REPO)}
    code = (
        "import recipelint.engine as e\ndef boom(*a, **k): raise ValueError('x')\ne.check = boom\nfrom recipelint.cli import main\nmain()"
    )
    result = subprocess.run([sys.executable, "-c", code, "check", str(tmp_path)], capture_output=True, text=True, env={**os.environ, **env})
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip() == "recipelint: internal error: ValueError: x (set RECIPELINT_DEBUG=1 for a traceback)"


def test_data_json_in_a_folder_is_no_recipe_and_no_error() -> None:
    """BELLE's JSON-lines prompts and axolotl's SNR results (with `Infinity`) are data: walking
    the folder checks the DeepSpeed config beside them and reports no file error; named on the
    command line (pre-commit names every JSON), the broken one is data too: no recipe, no error
    (issue 38: exit 2 whatever the findings). A DeepSpeed-named broken JSON is still reported
    (tests/test_robustness.py)."""
    data = REPO / "tests" / "data" / "upstream" / "data-json"
    result = cli("check", str(data), "--isolated", "--format", "json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["errors"] == [] and {Path(d["path"]).name for d in report["diagnostics"]} <= {"deepspeed_config.json"}
    named = cli("check", str(data / "axolotl" / "snr_results_Qwen-Qwen2.5-1.5B.json"), "--isolated")
    assert named.returncode == 0 and "invalid JSON" not in named.stderr and "no recipes found" in named.stderr


def test_version_names_the_releases_it_knows() -> None:
    from recipelint import __version__
    from recipelint.versions import NEWEST

    result = cli("--version")
    assert result.returncode == 0 and result.stdout.startswith(f"recipelint {__version__}\n")
    assert all(f"{name} {release}" in result.stdout for name, release in NEWEST.items())


def test_only_top_level_config_assignments_make_a_python_config() -> None:
    """Megatron-DeepSpeed's megatron/training.py mentions train_dataloader inside functions: it is
    training code, not an mmengine config; an XTuner config assigns it at the top."""
    from recipelint.discovery import discover
    from recipelint.parse.files import FileCache

    megatron = discover([REPO / "tests/data/upstream/deepspeed/Megatron-DeepSpeed"], FileCache())
    assert [t.path.name for t in megatron if t.kind == "python"] == []
    xtuner = discover([REPO / "tests/data/diagnose/xtuner-multinode"], FileCache())
    assert "llava_pretrain.py" in [t.path.name for t in xtuner if t.kind == "python"]


def test_nothing_to_lint_is_said_on_stderr(tmp_path: Path) -> None:
    """A folder with no recipe is not an all clear: exit 0, and one line on stderr says so (as
    ruff's "No Python files found"); a folder with a recipe says nothing of the kind."""
    (tmp_path / "notes.txt").write_text("nothing here\n")
    result = cli("check", str(tmp_path), "--isolated")
    assert result.returncode == 0 and f"recipelint: no recipes found in {tmp_path}" in result.stderr
    example = cli("check", str(REPO / "examples" / "wenet-4node-v100"), "--isolated")
    assert "no recipes found" not in example.stderr
