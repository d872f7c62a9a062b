"""Inline suppressions on real upstream recipes: a code that is no rule's (RL005), the fixes that
take a code or a whole comment out (RL005, RL002), and `check --add-ignore`.

The recipes are WeNet's unmodified `examples/hkust/s0` (tests/data/upstream/wenet, SOURCE.md
there) and the unmodified DeepSpeed JSON of tests/data/field/batch-triple-7-gpus; a test adds
only the comment a user would write.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from recipelint import engine
from recipelint.diagnostics import Applicability, Diagnostic
from recipelint.hardware.profile import load_profile
from tests.helpers import DATA, cli, clone

HKUST = "examples/hkust/s0"


def _recipe(tmp_path: Path) -> Path:
    return clone("wenet", tmp_path) / HKUST


def _with_comment(run_sh: Path, line: int, comment: str) -> bytes:
    """Write `comment` at the end of `line` of the script; the upstream bytes, returned."""
    original = run_sh.read_bytes()
    lines = original.split(b"\n")
    lines[line - 1] += comment.encode()
    run_sh.write_bytes(b"\n".join(lines))
    return original


def _found(path: Path) -> list[Diagnostic]:
    return engine.check([path]).diagnostics


def test_a_code_no_rule_has_is_its_own_finding_and_its_fix_takes_it_out(tmp_path: Path) -> None:
    recipe = _recipe(tmp_path)
    run_sh = recipe / "run.sh"
    unused = [d for d in _found(recipe) if d.code == "RL603"]
    assert [d.span.line for d in unused] == [38]  # num_workers=2, assigned and never passed
    original = _with_comment(run_sh, 38, "  # recipelint: ignore[RL603, RL9999] kept from the old recipe")
    found = _found(recipe)
    (unknown,) = [d for d in found if d.code == "RL005"]
    assert unknown.message == "ignore[RL9999] names no rule: the code suppresses nothing"
    assert not any(d.code in ("RL002", "RL603") for d in found)  # RL603 suppressed; RL9999 is not called "unused"
    assert unknown.fix is not None and unknown.fix.applicability is Applicability.SAFE
    result = cli("fix", "--write", str(recipe), cwd=tmp_path)
    assert result.returncode in (0, 1), result.stderr
    fixed = run_sh.read_bytes().split(b"\n")
    assert fixed[37] == b"num_workers=2  # recipelint: ignore[RL603] kept from the old recipe"
    assert fixed[:37] + fixed[38:] == original.split(b"\n")[:37] + original.split(b"\n")[38:]


def test_a_known_code_in_any_case_or_a_prefix_is_no_finding(tmp_path: Path) -> None:
    recipe = _recipe(tmp_path)
    _with_comment(recipe / "run.sh", 38, "  # recipelint: ignore[rl603, RL6] kept from the old recipe")
    found = _found(recipe)
    assert not any(d.code in ("RL005", "RL603") for d in found), [d.message for d in found]


def test_a_typo_close_to_one_code_is_fixed_to_it_as_a_guess(tmp_path: Path) -> None:
    recipe = _recipe(tmp_path)
    _with_comment(recipe / "run.sh", 38, "  # recipelint: ignore[RL6O3] kept from the old recipe")
    (unknown,) = [d for d in _found(recipe) if d.code == "RL005"]
    assert unknown.fix is not None and unknown.fix.applicability is Applicability.UNSAFE
    assert unknown.fix.title == "write RL603 for RL6O3" and [e.content for e in unknown.fix.edits] == ["RL603"]


def test_removing_an_unused_suppression_gives_back_the_upstream_bytes(tmp_path: Path) -> None:
    recipe = _recipe(tmp_path)
    run_sh = recipe / "run.sh"
    original = _with_comment(run_sh, 36, "  # recipelint: ignore[RL102] the node has 96 cores")
    lines = run_sh.read_bytes().split(b"\n")
    lines.insert(38, b"# recipelint: ignore-file[RL104] shm is raised on the cluster")  # below content: matches nothing
    run_sh.write_bytes(b"\n".join(lines))
    a100 = load_profile(DATA / "profiles" / "a100-8x-96cpu-ib.yaml")
    unused = [d for d in engine.check([recipe], hardware=lambda: a100).diagnostics if d.code == "RL002"]
    assert [d.span.line for d in unused] == [36, 39]
    assert all(d.fix is not None and d.fix.applicability is Applicability.UNSAFE for d in unused)
    profile = ["--hardware", str(DATA / "profiles" / "a100-8x-96cpu-ib.yaml")]
    assert cli("fix", "--write", *profile, str(recipe), cwd=tmp_path).stderr.count("RL002") == 0  # unsafe: not by default
    cli("fix", "--write", "--unsafe-fixes", *profile, str(recipe), cwd=tmp_path)
    assert run_sh.read_bytes() == original


def test_a_suppression_of_a_rule_the_run_did_not_run_is_not_called_unused(tmp_path: Path) -> None:
    """Without a profile on a host that is not the node, RL102 judges nothing: its suppression is
    an info that says so, with no fix, and `fix --unsafe-fixes` keeps it; a rule the settings do
    not select is said the same way."""
    recipe = _recipe(tmp_path)
    run_sh = recipe / "run.sh"
    _with_comment(run_sh, 36, "  # recipelint: ignore[RL102] the node has 96 cores")
    commented = run_sh.read_bytes()
    (skipped,) = [d for d in _found(recipe) if d.code == "RL002"]
    assert skipped.severity.name == "INFO" and skipped.fix is None
    assert (
        skipped.message == "suppression not judged in this run: RL102 was skipped (no profile: this host is not the training node, RL004)"
    )
    cli("fix", "--write", "--unsafe-fixes", str(recipe), cwd=tmp_path)
    assert run_sh.read_bytes() == commented
    profile = str(DATA / "profiles" / "a100-8x-96cpu-ib.yaml")
    ignored = cli("check", "--hardware", profile, "--ignore", "RL102", "--format", "concise", str(recipe), cwd=tmp_path)
    assert "RL002 [info] suppression not judged in this run: RL102 is not selected" in ignored.stdout


def test_add_ignore_covers_every_finding_of_an_upstream_recipe(tmp_path: Path) -> None:
    recipe = _recipe(tmp_path)
    before = {path: path.read_bytes() for path in recipe.rglob("*") if path.is_file()}
    found = [d for d in _found(recipe) if d.span.path.suffix in (".sh", ".yaml")]
    assert {d.span.path.suffix for d in found} == {".sh", ".yaml"}
    lines_inside_a_command = [d for d in found if d.code == "RL601" and d.span.line > 150]
    assert lines_inside_a_command  # flags of the torchrun command, on lines continued with `\`
    result = cli("check", "--add-ignore", str(recipe), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    files = len({d.span.path for d in found})
    assert f"Added {len(found)} suppressions in {files} files." in result.stderr
    assert _found(recipe) == []
    for path, old in before.items():
        new = path.read_bytes()
        old_lines, new_lines = old.split(b"\n"), new.split(b"\n")
        assert len(old_lines) == len(new_lines)
        for a, b in zip(old_lines, new_lines, strict=True):
            assert b == a or (b.startswith(a + b"  # recipelint: ignore[") and b.endswith(b"TODO: say why this finding does not apply"))


def _snapshot(folder: Path) -> dict[Path, bytes]:
    return {path: path.read_bytes() for path in folder.rglob("*") if path.is_file()}


def test_add_ignore_leaves_json_alone_and_says_so(tmp_path: Path) -> None:
    field = DATA / "field" / "batch-triple-7-gpus"
    folder = tmp_path / "bad"
    shutil.copytree(field / "bad", folder)
    before = _snapshot(folder)
    result = engine.check([folder], hardware=lambda: load_profile(field / "node.yaml"))
    json_findings = [d for d in result.diagnostics if d.span.path.suffix == ".json"]
    assert json_findings and len(json_findings) == len(result.diagnostics)
    added = cli("check", "--add-ignore", "--hardware", str(field / "node.yaml"), str(folder), cwd=tmp_path)
    assert added.returncode == 0, added.stderr
    count = len(json_findings)
    assert f"{count} finding{'s' if count != 1 else ''} left without one: JSON has no comments" in added.stderr
    assert "Added 0 suppressions in 0 files." in added.stderr
    assert _snapshot(folder) == before


def test_add_ignore_on_a_clean_recipe_writes_nothing(tmp_path: Path) -> None:
    field = DATA / "field" / "batch-triple-7-gpus"
    folder = tmp_path / "good"
    shutil.copytree(field / "good", folder)
    before = _snapshot(folder)
    assert engine.check([folder], hardware=lambda: load_profile(field / "node.yaml")).diagnostics == []
    added = cli("check", "--add-ignore", "--hardware", str(field / "node.yaml"), str(folder), cwd=tmp_path)
    assert added.returncode == 0 and "Added 0 suppressions in 0 files." in added.stderr
    assert _snapshot(folder) == before


def test_a_typo_one_edit_from_two_codes_is_not_guessed() -> None:
    """RL1002 is one edit from RL102 and from RL002: which was meant is not known, so no code is
    written; look-alike letters read as digits decide (RL6O3, RL4l3)."""
    from recipelint.rules.meta.suppression_unknown_code import meant_code

    codes = {"RL002", "RL102", "RL413", "RL603", "RL963"}
    assert meant_code("RL1002", codes) is None
    assert meant_code("RL6O3", codes) == "RL603" and meant_code("RL4l3", codes) == "RL413"
    assert meant_code("rl102", codes) == "RL102"
    assert meant_code("RL9999", codes) is None
