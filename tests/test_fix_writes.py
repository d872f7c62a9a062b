"""`fix --write` changes only the bytes of its edits, in the files it was given: a link is followed
and kept, a hard-linked, read-only or outside file is refused with a reason, the owner and mode
stay, one refused write never stops the others, and SIGTERM leaves no temporary file."""

from __future__ import annotations

import os
import shutil
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from recipelint import fix
from recipelint.parse.files import SourceError, read_stamped
from tests.helpers import REPO, cli

EXAMPLE = REPO / "examples" / "wenet-4node-v100"


def _tree(tmp_path: Path, name: str = "repo") -> Path:
    """A repository holding a copy of the shipped example."""
    top = tmp_path / name
    (top / ".git").mkdir(parents=True)
    shutil.copytree(EXAMPLE, top / "recipe")
    return top


def _fix(top: Path, *paths: Path) -> tuple[int, str]:
    args = [str(p) for p in paths] or [str(top / "recipe")]
    result = cli("fix", "--write", "--isolated", "--hardware", str(top / "recipe" / "hardware-v100-node.yaml"), *args)
    assert "Traceback" not in result.stderr
    return result.returncode, result.stderr


def test_a_plain_write_changes_the_file_and_keeps_mode(tmp_path: Path) -> None:
    top = _tree(tmp_path)
    script = top / "recipe" / "run.sh"
    os.chmod(script, 0o751)
    before = script.read_bytes()
    code, err = _fix(top)
    assert code in (0, 1) and "Fixed 3 problems in 1 file" in err
    assert script.read_bytes() != before and os.stat(script).st_mode & 0o7777 == 0o751


def test_a_read_only_file_is_refused_and_not_counted(tmp_path: Path) -> None:
    top = _tree(tmp_path)
    script = top / "recipe" / "run.sh"
    before = script.read_bytes()
    os.chmod(script, 0o444)
    code, err = _fix(top)
    assert code == 2 and "run.sh: is read-only; not written" in err
    assert "Fixed 0 problems in 0 files" in err and script.read_bytes() == before


def test_a_hard_linked_file_is_refused(tmp_path: Path) -> None:
    top = _tree(tmp_path)
    script = top / "recipe" / "run.sh"
    os.link(script, tmp_path / "elsewhere.sh")
    before = script.read_bytes()
    code, err = _fix(top)
    assert code == 2 and "has 2 hard links" in err
    assert script.read_bytes() == before == (tmp_path / "elsewhere.sh").read_bytes()


def test_a_symlink_is_kept_and_its_target_written(tmp_path: Path) -> None:
    top = _tree(tmp_path)
    script = top / "recipe" / "run.sh"
    real = top / "recipe" / "real_run.sh"
    script.rename(real)
    script.symlink_to("real_run.sh")
    before = real.read_bytes()
    code, err = _fix(top, script)
    assert code in (0, 1), err
    assert script.is_symlink() and os.readlink(script) == "real_run.sh"
    assert real.read_bytes() != before


def test_a_file_outside_the_linted_tree_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside.sh"
    outside.write_bytes(b"x=1\n")
    linted = tmp_path / "repo"
    (linted / ".git").mkdir(parents=True)
    with pytest.raises(SourceError, match="outside the linted tree"):
        fix.write_atomic(outside, b"x=2\n", b"x=1\n", fix.write_roots([linted]))
    assert outside.read_bytes() == b"x=1\n"
    # the same file reached through a link inside the tree is still outside
    (linted / "link.sh").symlink_to(outside)
    with pytest.raises(SourceError, match="outside the linted tree"):
        fix.write_atomic(linted / "link.sh", b"x=2\n", b"x=1\n", fix.write_roots([linted]))
    assert outside.read_bytes() == b"x=1\n"


@pytest.mark.skipif(os.geteuid() != 0, reason="changing a file's owner needs root")
def test_the_owner_is_kept_when_root_writes(tmp_path: Path) -> None:
    path = tmp_path / "run.sh"
    path.write_bytes(b"x=1\n")
    os.chown(path, 1234, 2345)
    fix.write_atomic(path, b"x=2\n", b"x=1\n", [tmp_path])
    st = os.stat(path)
    assert (st.st_uid, st.st_gid) == (1234, 2345) and path.read_bytes() == b"x=2\n"


def test_sigterm_during_a_write_leaves_no_temporary_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "run.sh"
    path.write_bytes(b"x=1\n")

    def terminated(fd: int) -> None:
        os.kill(os.getpid(), signal.SIGTERM)

    monkeypatch.setattr(os, "fsync", terminated)
    with pytest.raises(SystemExit):
        fix.write_atomic(path, b"x=2\n", b"x=1\n", [tmp_path])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.sh"] and path.read_bytes() == b"x=1\n"
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL or callable(signal.getsignal(signal.SIGTERM))


def test_one_refused_write_does_not_stop_the_others(tmp_path: Path) -> None:
    top = _tree(tmp_path)
    shutil.copytree(top / "recipe", top / "second")
    first, second = top / "recipe" / "run.sh", top / "second" / "run.sh"
    os.chmod(first, 0o444)
    before = second.read_bytes()
    code, err = _fix(top, top / "recipe", top / "second")
    assert code == 2 and "read-only" in err and second.read_bytes() != before
    assert "in 1 file;" in err


def _fix_with_changes(top: Path, monkeypatch: pytest.MonkeyPatch, change: Callable[[], None]) -> tuple[int, str]:
    """`fix --write` in this process, with `change` run once right after the first check read the
    files and before anything is written: the moment a user's editor saves during a run."""
    from typer.testing import CliRunner

    from recipelint import cli as cli_module
    from recipelint import engine

    real_check = engine.check
    calls: list[int] = []

    def check_then_change(*args: Any, **kwargs: Any) -> engine.Result:
        result = real_check(*args, **kwargs)
        if not calls:
            change()
        calls.append(1)
        return result

    monkeypatch.setattr(engine, "check", check_then_change)
    hardware = str(top / "r0" / "hardware-v100-node.yaml")
    folders = sorted(str(p) for p in top.iterdir() if p.name.startswith("r"))
    result = CliRunner().invoke(cli_module.app, ["fix", "--write", "--isolated", "--hardware", hardware, *folders])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stderr


def _recipes(tmp_path: Path, count: int) -> Path:
    top = tmp_path / "repo"
    (top / ".git").mkdir(parents=True)
    for i in range(count):
        shutil.copytree(EXAMPLE, top / f"r{i}")
    return top


def test_a_file_changed_between_check_and_write_is_refused_never_patched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    top = _recipes(tmp_path, 3)
    edited, renamed, untouched = (top / f"r{i}" / "run.sh" for i in range(3))
    before = untouched.read_bytes()
    # a line added at the top shifts every byte span the check recorded
    user_edit = b"# a line the user added\n" + edited.read_bytes()
    # an editor's save: a new file renamed over the old one (same bytes, another inode)
    saved = renamed.read_bytes()

    def change() -> None:
        edited.write_bytes(user_edit)
        (renamed.parent / "run.sh.new").write_bytes(saved)
        os.replace(renamed.parent / "run.sh.new", renamed)

    code, err = _fix_with_changes(top, monkeypatch, change)
    assert code == 2, err
    assert edited.read_bytes() == user_edit and renamed.read_bytes() == saved
    assert f"{edited}: changed since it was checked; run fix again" in err.splitlines()
    assert f"{renamed}: changed since it was checked; run fix again" in err.splitlines()
    assert untouched.read_bytes() != before and f"fixed {untouched}" in err


def test_a_file_deleted_mid_run_stops_no_other_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    top = _recipes(tmp_path, 4)
    gone = top / "r1" / "run.sh"
    others = [top / f"r{i}" / "run.sh" for i in (0, 2, 3)]
    before = {p: p.read_bytes() for p in others}
    code, err = _fix_with_changes(top, monkeypatch, gone.unlink)
    assert code == 2, err
    assert not gone.exists()
    assert all(p.read_bytes() != before[p] for p in others), err
    assert [line for line in err.splitlines() if line.startswith(str(gone))] == [
        f"{gone}: no such file now; changed since it was checked; run fix again"
    ]
    assert "in 3 files;" in err


def test_write_atomic_compares_the_identity_it_was_given(tmp_path: Path) -> None:
    path = tmp_path / "run.sh"
    path.write_bytes(b"x=1\n")
    stamp = read_stamped(path)[1]
    os.utime(path, ns=(stamp.mtime_ns + 10**9, stamp.mtime_ns + 10**9))  # same bytes, touched
    with pytest.raises(SourceError, match="changed since it was checked"):
        fix.write_atomic(path, b"x=2\n", b"x=1\n", [tmp_path], stamp)
    assert path.read_bytes() == b"x=1\n"
    fix.write_atomic(path, b"x=2\n", b"x=1\n", [tmp_path], read_stamped(path)[1])
    assert path.read_bytes() == b"x=2\n"
