"""recipelint in CI and code review (issue 45): a baseline and `--diff REV` that fail only on
what a change introduces, file errors as results in every format, review suggestions that give
the bytes `fix --write` writes, and the formats CI services read."""

from __future__ import annotations

import json
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from recipelint.report.review import apply_suggestions
from tests.helpers import REPO, cli

EXAMPLE = REPO / "examples" / "wenet-4node-v100"
PROFILE = "hardware-v100-node.yaml"


def _repository(tmp_path: Path) -> Path:
    """The shipped example as a git repository of its own, committed."""
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo)
    for args in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"]):
        subprocess.run(["git", *args], cwd=repo, check=True)
    return repo


def _check(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return cli("check", "--isolated", "--no-cache", "--hardware", PROFILE, "--format", "concise", *args, ".", cwd=repo)


def test_a_baseline_hides_known_findings_and_survives_lines_inserted_above(tmp_path: Path) -> None:
    repo = _repository(tmp_path)
    first = _check(repo, "--write-baseline", "baseline.json")
    assert first.returncode == 1 and "RL201" in first.stdout
    known = json.loads((repo / "baseline.json").read_text())["findings"]
    assert known and all(len(entry["fingerprint"]) == 40 for entry in known)
    run_sh = repo / "run.sh"
    run_sh.write_text("# two lines above every finding\n#\n" + run_sh.read_text())
    again = _check(repo, "--baseline", "baseline.json")
    assert again.returncode == 0, again.stdout
    assert "RL201" not in again.stdout and f"{len(known)} known findings not shown" in again.stdout
    # a new finding still fails: a timeout the recipe did not have
    run_sh.write_text(run_sh.read_text().replace("      --pin_memory \\\n", "      --pin_memory \\\n      --timeout 5 \\\n"))
    changed = _check(repo, "--baseline", "baseline.json")
    assert changed.returncode == 1 and "RL301" in changed.stdout and "RL201" not in changed.stdout


def test_a_bad_baseline_is_one_line(tmp_path: Path) -> None:
    repo = _repository(tmp_path)
    (repo / "baseline.json").write_text('{"findings": 3}')
    result = _check(repo, "--baseline", "baseline.json")
    assert result.returncode == 2 and "not a recipelint baseline" in result.stderr and "Traceback" not in result.stderr


def test_diff_fails_only_on_what_the_change_introduces(tmp_path: Path) -> None:
    repo = _repository(tmp_path)
    untouched = _check(repo, "--diff", "HEAD")
    assert untouched.returncode == 0, untouched.stdout
    assert "[info]" in untouched.stdout and "there at HEAD too" in untouched.stdout
    # a DeepSpeed-free change that adds a finding: a timeout too short for 4 Ethernet nodes
    run_sh = repo / "run.sh"
    run_sh.write_text(run_sh.read_text().replace("      --pin_memory \\\n", "      --pin_memory \\\n      --timeout 5 \\\n"))
    introduced = _check(repo, "--diff", "HEAD")
    assert introduced.returncode == 1
    failing = [line for line in introduced.stdout.splitlines() if "[warning]" in line or "[error]" in line]
    assert failing and all("RL3" in line for line in failing), failing


def test_diff_outside_a_repository_is_one_line(tmp_path: Path) -> None:
    shutil.copytree(EXAMPLE, tmp_path / "plain")
    result = cli("check", "--isolated", "--no-cache", "--diff", "HEAD", ".", cwd=tmp_path / "plain")
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr


def test_suggestions_give_the_bytes_fix_write_writes(tmp_path: Path) -> None:
    repo = _repository(tmp_path)
    original = {path: path.read_bytes() for path in repo.rglob("*") if path.is_file() and ".git" not in path.parts}
    made = cli("fix", "--isolated", "--hardware", PROFILE, "--suggestions", "review.json", ".", cwd=repo)
    assert made.returncode in (0, 1), made.stderr
    comments = json.loads((repo / "review.json").read_text())
    assert comments and all(c["body"].startswith("```suggestion\n") for c in comments)
    (repo / "review.json").unlink()
    assert {p: p.read_bytes() for p in original} == original  # --suggestions writes no recipe file
    relative = {Path(p.relative_to(repo)): data for p, data in original.items()}
    import os

    here = Path.cwd()
    os.chdir(repo)
    try:
        accepted = apply_suggestions(relative, comments)
    finally:
        os.chdir(here)
    written = cli("fix", "--isolated", "--hardware", PROFILE, "--write", ".", cwd=repo)
    assert written.returncode in (0, 1), written.stderr
    after = {Path(p.relative_to(repo)): p.read_bytes() for p in original}
    assert accepted == after and accepted != relative


@pytest.mark.parametrize("fmt", ["github", "sarif", "json", "concise", "rdjson", "rdjsonl", "junit", "gitlab"])
def test_a_file_error_is_a_result_in_every_machine_format(tmp_path: Path, fmt: str) -> None:
    (tmp_path / "ds_config.json").write_text('{"train_batch_size": 8,, }')
    result = cli("check", "--isolated", "--no-cache", "--format", fmt, "ds_config.json", cwd=tmp_path)
    assert result.returncode == 2
    out = result.stdout
    assert "ds_config.json" in out, out
    if fmt == "github":
        assert out.startswith("::error file=ds_config.json")
    if fmt == "sarif":
        run = json.loads(out)["runs"][0]
        assert [r["ruleId"] for r in run["results"]] == ["file-error"]
        assert run["invocations"][0]["executionSuccessful"] is False
        assert run["invocations"][0]["toolExecutionNotifications"]
    if fmt == "junit":
        suite = ET.fromstring(out).find("testsuite")
        assert suite is not None and suite.get("errors") == "1"
    if fmt == "gitlab":
        assert json.loads(out)[0]["check_name"] == "file-error"


def test_a_run_that_read_nothing_never_says_no_problems(tmp_path: Path) -> None:
    missing = cli("check", "--isolated", str(tmp_path / "nowhere"))
    assert missing.returncode == 2 and "No problems found" not in missing.stdout
    assert "1 file error; nothing checked in" in missing.stdout
    (tmp_path / "notes.txt").write_text("nothing here\n")
    empty = cli("check", "--isolated", str(tmp_path))
    assert empty.returncode == 0 and "No problems found" not in empty.stdout
    assert f"Nothing checked: no recipes found in {tmp_path}" in empty.stdout
    example = cli("check", "--isolated", "--hardware", str(EXAMPLE / PROFILE), str(EXAMPLE))
    assert "Nothing checked" not in example.stdout


def test_review_formats_carry_findings_and_fixes(tmp_path: Path) -> None:
    rd = cli("check", "--isolated", "--no-cache", "--hardware", PROFILE, "--format", "rdjson", ".", cwd=EXAMPLE)
    diagnostics = json.loads(rd.stdout)["diagnostics"]
    rl201 = next(d for d in diagnostics if d["code"]["value"] == "RL201")
    assert rl201["severity"] == "WARNING" and rl201["suggestions"] and rl201["code"]["url"].startswith("file://")
    lines = cli("check", "--isolated", "--no-cache", "--hardware", PROFILE, "--format", "rdjsonl", ".", cwd=EXAMPLE)
    assert len(lines.stdout.splitlines()) == len(diagnostics)
    gitlab = json.loads(cli("check", "--isolated", "--no-cache", "--hardware", PROFILE, "--format", "gitlab", ".", cwd=EXAMPLE).stdout)
    assert len({issue["fingerprint"] for issue in gitlab}) == len(gitlab) == len(diagnostics)
    sarif = json.loads(cli("check", "--isolated", "--no-cache", "--hardware", PROFILE, "--format", "sarif", ".", cwd=EXAMPLE).stdout)
    results = sarif["runs"][0]["results"]
    assert all("recipelint/v1" in r["partialFingerprints"] for r in results)
    assert any("fixes" in r for r in results)


def test_a_changed_config_is_not_blocked_by_old_findings_of_its_launch(tmp_path: Path) -> None:
    """What pre-commit passes when only the DeepSpeed JSON changed: the launch that names it has
    five old warnings. Alone they block the commit; with `--diff HEAD` they are context (infos)
    and the run passes, until the change itself introduces a finding."""
    repo = _repository(tmp_path)
    ds = repo / "conf" / "ds_stage2.json"
    ds.write_text(ds.read_text().replace('"hysteresis": 2', '"hysteresis": 3'))
    plain = cli("check", "--isolated", "--no-cache", "--hardware", PROFILE, "--format", "concise", "conf/ds_stage2.json", cwd=repo)
    assert plain.returncode == 1 and "RL201" in plain.stdout
    diff = cli(
        "check", "--isolated", "--no-cache", "--hardware", PROFILE, "--format", "concise", "--diff", "HEAD", "conf/ds_stage2.json", cwd=repo
    )
    assert diff.returncode == 0, diff.stdout
    assert "RL201 [info]" in diff.stdout and "there at HEAD too" in diff.stdout
    # a change that breaks the JSON's batch arithmetic fails, and only that is a warning or error
    ds.write_text(ds.read_text().replace('"gradient_accumulation_steps": 4', '"gradient_accumulation_steps": 4, "train_batch_size": 7'))
    broken = cli(
        "check", "--isolated", "--no-cache", "--hardware", PROFILE, "--format", "concise", "--diff", "HEAD", "conf/ds_stage2.json", cwd=repo
    )
    assert broken.returncode == 1
    failing = [line for line in broken.stdout.splitlines() if "[error]" in line or "[warning]" in line]
    assert failing and all("ds_stage2.json" in line for line in failing), failing
