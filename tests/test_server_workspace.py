"""The language server's state without the protocol: positions in every encoding, which checks
a change re-runs, configs covered by their run script, and settings read again when they change."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from recipelint.server.positions import changed_range, offset, position
from recipelint.server.workspace import Overlay, Workspace, normal
from tests.helpers import REPO

EXAMPLE = REPO / "examples" / "wenet-4node-v100"


@pytest.mark.parametrize(("encoding", "column"), [("utf-16", 7), ("utf-8", 10), ("utf-32", 6)])
def test_positions_count_the_agreed_units(encoding: str, column: int) -> None:
    data = "x=1\n# é 😀 ab=2\n".encode()
    at = data.index(b"ab")
    assert position(data, at, encoding) == (1, column)
    assert offset(data, 1, column, encoding) == at
    assert offset(data, 1, 999, encoding) == data.index(b"\n", at)  # past the end: the line's end
    assert offset(data, 9, 0, encoding) == len(data)


def test_changed_range_keeps_utf8_characters_whole() -> None:
    before, after = "a é b".encode(), "a è b".encode()
    start, end, content = changed_range(before, after)
    assert before[:start] + content + before[end:] == after
    assert content.decode() == "è"
    assert changed_range(b"same", b"same") == (4, 4, b"")


def test_the_overlay_finds_a_document_under_another_spelling(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    overlay = Overlay({normal(Path("conf/train.yaml")): b"x: 1\n"})
    assert overlay.get(Path("conf/train.yaml")) == b"x: 1\n"
    assert Path("conf/../conf/train.yaml") in overlay
    assert isinstance(overlay.copy(), Overlay)
    assert overlay.get(Path("other.yaml")) is None


@pytest.fixture
def example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "recipe"
    shutil.copytree(EXAMPLE, root)
    monkeypatch.chdir(root)
    return root


def _codes(workspace: Workspace, path: Path) -> list[str]:
    return [d.code for d, _ in workspace.findings(path)[0]]


def test_a_config_is_checked_with_its_script_and_alone_once_the_script_closes(example: Path) -> None:
    workspace = Workspace(Path("hardware-v100-node.yaml"))
    run_sh, train = normal(example / "run.sh"), normal(example / "conf" / "train.yaml")
    workspace.open(run_sh, run_sh.read_text(), 1)
    workspace.open(train, train.read_text(), 1)
    published = workspace.recheck({run_sh, train})
    assert set(workspace.checked) == {run_sh}, "the YAML is read by run.sh's check, not checked alone"
    assert {run_sh, train} <= published
    assert "RL201" in _codes(workspace, run_sh)

    workspace.change(train, train.read_text().replace("max_frames_in_batch: 24000", "max_frames_in_batch: 2400000"), 2)
    assert workspace.readers({train}) == {run_sh}
    workspace.recheck({train})
    assert "RL103" in _codes(workspace, run_sh)

    workspace.close(run_sh)
    published = workspace.recheck({run_sh})
    assert set(workspace.checked) == {train}, "alone now, as `recipelint check conf/train.yaml`"
    assert run_sh in published


def test_settings_are_read_again_when_their_file_changes(example: Path) -> None:
    settings = example / "recipelint.toml"
    settings.write_text("ignore = []\n")
    workspace = Workspace()
    run_sh = normal(example / "run.sh")
    workspace.open(run_sh, run_sh.read_text(), 1)
    workspace.recheck({run_sh})
    assert "RL201" in _codes(workspace, run_sh)
    settings.write_text('ignore = ["RL201"]\n')
    stat = settings.stat()
    os.utime(settings, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))  # a coarse clock must not hide the change
    workspace.recheck({run_sh})
    assert "RL201" not in _codes(workspace, run_sh)
    assert workspace.config.concerns(normal(settings))
