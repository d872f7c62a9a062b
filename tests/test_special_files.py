"""Only regular files are read: a FIFO, a device or a link to one never blocks a run or is read
without bound. Each case is a copy of the shipped example with one file swapped for a special one;
the run must end (the subprocess has a time limit), name the file on one line, and still check the
rest of the recipe."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import REPO, cli

EXAMPLE = REPO / "examples" / "wenet-4node-v100"
PROFILE = "hardware-v100-node.yaml"

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")


def _copy(tmp_path: Path) -> Path:
    recipe = tmp_path / "recipe"
    shutil.copytree(EXAMPLE, recipe)
    return recipe


def _check(recipe: Path, *extra: str) -> tuple[int, str, str]:
    result = cli("check", str(recipe), "--no-cache", "--isolated", "--hardware", str(recipe / PROFILE), *extra)
    assert "Traceback" not in result.stderr
    return result.returncode, result.stdout, result.stderr


def test_fifo_config_in_the_tree_is_named_and_the_rest_checked(tmp_path: Path) -> None:
    recipe = _copy(tmp_path)
    os.mkfifo(recipe / "conf" / "extra.yaml")
    code, out, err = _check(recipe)
    assert code == 2
    assert "extra.yaml: not a regular file (a FIFO): not read" in err
    assert "RL201" in out  # the recipe's own findings are still there


def test_fifo_train_config_is_an_error_of_the_recipe(tmp_path: Path) -> None:
    recipe = _copy(tmp_path)
    (recipe / "conf" / "train.yaml").unlink()
    os.mkfifo(recipe / "conf" / "train.yaml")
    code, out, err = _check(recipe)
    assert code == 2 and "train.yaml: not a regular file (a FIFO)" in err
    assert "RL201" in out


def test_sourced_path_sh_as_fifo_does_not_block(tmp_path: Path) -> None:
    recipe = _copy(tmp_path)
    os.mkfifo(recipe / "path.sh")
    code, out, _ = _check(recipe)
    assert code in (1, 2) and "RL201" in out


def test_fifo_shard_in_data_list_does_not_block(tmp_path: Path) -> None:
    recipe = _copy(tmp_path)
    os.mkfifo(recipe / "shard.tar.gz")
    listed = recipe / "data" / "train" / "data.list"
    listed.write_text(str(recipe / "shard.tar.gz") + "\n" + listed.read_text())
    code, out, _ = _check(recipe)
    assert code == 1 and "RL201" in out


def test_fifo_data_list_is_reported_not_silent(tmp_path: Path) -> None:
    recipe = _copy(tmp_path)
    listed = recipe / "data" / "train" / "data.list"
    listed.unlink()
    os.mkfifo(listed)
    code, _, err = _check(recipe)
    assert code == 2 and "data.list: not a regular file (a FIFO)" in err


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_link_to_dev_zero_is_refused_not_read(tmp_path: Path) -> None:
    recipe = _copy(tmp_path)
    (recipe / "conf" / "zero.yaml").symlink_to("/dev/zero")
    code, out, err = _check(recipe)
    assert code == 2 and "zero.yaml: not a regular file (a character device)" in err
    assert "RL201" in out


def test_fifo_hardware_profile_in_settings(tmp_path: Path) -> None:
    recipe = _copy(tmp_path)
    os.mkfifo(recipe / "node.yaml")
    (recipe / "recipelint.toml").write_text('hardware = "node.yaml"\n')
    result = cli("check", str(recipe), "--no-cache")
    assert "Traceback" not in result.stderr
    assert result.returncode == 2 and "node.yaml: not a regular file (a FIFO)" in result.stderr + result.stdout


def test_fifo_log_given_to_diagnose(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "train.log")
    (tmp_path / "other.log").write_text("RuntimeError: [1] is setting up NCCL communicator and retrieving ncclUniqueId\n")
    result = cli("diagnose", str(tmp_path / "train.log"), str(tmp_path / "other.log"))
    assert "Traceback" not in result.stderr
    assert "train.log: not a regular file (a FIFO)" in result.stderr + result.stdout


def test_text_output_passes_no_control_characters(tmp_path: Path) -> None:
    """A folder name or a recipe value holding an escape sequence, an OSC 8 link or `\\r` is
    shown escaped: nothing from a recipe drives the terminal."""
    recipe = tmp_path / "r\x1b]8;;https:x\x07link\x1b]8;;\x07\r"
    shutil.copytree(EXAMPLE, recipe)
    script = recipe / "run.sh"
    script.write_bytes(script.read_bytes().replace(b"--num_workers ${num_workers}", b"--num_workers ${num_workers}\x1b[2J"))
    for command in ("check", "show"):
        result = cli(command, str(recipe), "--isolated", "--hardware", str(recipe / PROFILE))
        assert "Traceback" not in result.stderr
        said = result.stdout + result.stderr
        assert "RL2" in said or command == "show"
        assert not any(ch in said for ch in "\x1b\x07\r"), said[:400]
        assert "\\x1b]8;;https:x\\x07" in said


def test_a_folder_that_cannot_be_listed_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run as root a chmod 000 folder still lists, so the refusal is simulated where os.walk lists:
    the folder is one error line, and the recipe beside it is still checked."""
    from recipelint import engine
    from recipelint.hardware.profile import load_profile
    from recipelint.settings import Resolver

    recipe = _copy(tmp_path)
    (recipe / "locked").mkdir()
    real = os.scandir

    def refusing(path: Any = ".") -> Any:
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", refusing)
    hardware = load_profile(recipe / PROFILE)
    result = engine.check([recipe], hardware=lambda: hardware, resolver=Resolver(isolated=True))
    assert [str(e) for e in result.errors] == [f"{recipe / 'locked'}: cannot list this folder: Permission denied"]
    assert "RL201" in {d.code for d in result.diagnostics}
