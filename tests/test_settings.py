"""Configuration files and inline suppressions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from recipelint import engine
from recipelint.parse.files import SourceError
from recipelint.settings import Resolver, load_settings
from tests.helpers import NODE, RecipeSpec, check_with, cli, codes

SMALL = {**NODE, "cpus": 12}  # RL102 fires on the default recipe


def run(root: Path, hardware: dict[str, Any] | None = None, **kwargs: Any) -> engine.Result:
    return check_with(root, hardware or SMALL, **kwargs)


def recipe_with(tmp_path: Path, config: str, name: str = "recipelint.toml", **spec: object) -> Path:
    root = tmp_path / "r"
    RecipeSpec(**spec).write(root)  # type: ignore[arg-type]
    (root / name).write_text(config)
    return root


def test_ignore_and_select(tmp_path: Path) -> None:
    root = recipe_with(tmp_path, 'ignore = ["RL102"]\n')
    assert "RL102" not in codes(run(root).diagnostics)
    (root / "recipelint.toml").write_text('select = ["RL7"]\n')
    assert codes(run(root).diagnostics) == []
    (root / "recipelint.toml").write_text('select = ["RL7"]\nextend-select = ["RL102"]\n')
    assert codes(run(root).diagnostics) == ["RL102"]
    (root / "recipelint.toml").write_text('ignore = ["RL1"]\nextend-select = ["RL102"]\n')
    assert codes(run(root).diagnostics) == ["RL102"]  # the more specific selector wins


def test_pyproject_table_and_nearest_config_wins(tmp_path: Path) -> None:
    root = recipe_with(tmp_path, '[tool.recipelint]\nignore = ["RL102"]\n', name="pyproject.toml")
    assert "RL102" not in codes(run(root).diagnostics)
    (tmp_path / "recipelint.toml").write_text("")  # farther away: not used
    assert "RL102" not in codes(run(root).diagnostics)


def test_per_file_ignores_severity_and_fail_on(tmp_path: Path) -> None:
    root = recipe_with(tmp_path, '[per-file-ignores]\n"run.sh" = ["RL102"]\n')
    assert "RL102" not in codes(run(root).diagnostics)
    (root / "recipelint.toml").write_text('fail-on = "error"\n[severity]\nRL102 = "info"\n')
    result = run(root)
    assert [str(d.severity) for d in result.diagnostics if d.code == "RL102"] == ["info"]
    assert result.failing == 0
    (root / "recipelint.toml").write_text('fail-on = "warning"\n')
    assert run(root).failing == 1


def test_hardware_and_exclude_settings(tmp_path: Path) -> None:
    root = recipe_with(tmp_path, 'hardware = "node.yaml"\n')
    (root / "node.yaml").write_text("".join(f"{k}: {json.dumps(v)}\n" for k, v in SMALL.items()))
    result = engine.check([root])  # no --hardware: the configured profile, not the probe
    assert "RL102" in codes(result.diagnostics)
    assert result.hardware is not None and result.hardware.value("cpus") == 12
    (root / "recipelint.toml").write_text('hardware = "node.yaml"\nexclude = ["run.sh"]\n')
    assert engine.check([root]).diagnostics == []


def test_unknown_setting_is_an_error_with_a_suggestion(tmp_path: Path) -> None:
    path = tmp_path / "recipelint.toml"
    path.write_text('ignores = ["RL102"]\n')
    with pytest.raises(SourceError, match="unknown setting 'ignores'; did you mean 'ignore'"):
        load_settings(path)
    path.write_text('select = ["XX9"]\n')
    with pytest.raises(SourceError, match="no rule matches 'XX9'"):
        load_settings(path)
    root = recipe_with(tmp_path, 'fail_on = "error"\n')
    result = cli("check", str(root))
    assert result.returncode == 2 and "unknown setting 'fail_on'; did you mean 'fail-on'?" in result.stderr


def test_config_isolated_and_show_settings(tmp_path: Path) -> None:
    root = recipe_with(tmp_path, 'ignore = ["RL102"]\n')
    assert "RL102" in codes(run(root, resolver=Resolver(isolated=True)).diagnostics)
    other = tmp_path / "other.toml"
    other.write_text('select = ["RL7"]\n')
    assert codes(run(root, resolver=Resolver(config=other)).diagnostics) == []
    shown = json.loads(cli("check", str(root), "--show-settings").stdout)
    assert shown[str(root)]["ignore"] == ["RL102"] and shown[str(root)]["config"].endswith("recipelint.toml")


def test_inline_ignore_on_the_line_and_the_line_above(tmp_path: Path) -> None:
    root = tmp_path / "r"
    RecipeSpec(variables={"num_workers": "4  # recipelint: ignore[RL102] the job gets 96 cores", "prefetch": "10"}).write(root)
    assert "RL102" not in codes(run(root).diagnostics)
    RecipeSpec(variables={"# recipelint: ignore[RL102] the job gets 96 cores\nnum_workers": "4", "prefetch": "10"}).write(root)
    assert "RL102" not in codes(run(root).diagnostics)
    assert "RL102" in codes(run(root, inline_ignores=False).diagnostics)


def test_ignore_file_in_yaml(tmp_path: Path) -> None:
    root = tmp_path / "r"
    spec = RecipeSpec(yaml_extra="grad_clipp: 5\n")
    spec.write(root)
    config = root / "conf/train.yaml"
    config.write_text("# recipelint: ignore-file[RL701] legacy key kept for our fork\n" + config.read_text())
    assert codes(run(root, hardware=NODE).diagnostics) == []
    config.write_text(config.read_text().replace("ignore-file[RL701]", "ignore-file[RL703]"))
    assert codes(run(root, hardware=NODE).diagnostics) == ["RL002", "RL701"]
