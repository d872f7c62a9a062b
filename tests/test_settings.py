"""Configuration files and inline suppressions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from recipelint import engine
from recipelint.checkoptions import CheckOptions
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
    assert "RL102" in codes(run(root, options=CheckOptions(no_inline_ignores=True)).diagnostics)


def test_ignore_file_in_yaml(tmp_path: Path) -> None:
    root = tmp_path / "r"
    spec = RecipeSpec(yaml_extra="grad_clipp: 5\n")
    spec.write(root)
    config = root / "conf/train.yaml"
    config.write_text("# recipelint: ignore-file[RL701] legacy key kept for our fork\n" + config.read_text())
    assert codes(run(root, hardware=NODE).diagnostics) == []
    config.write_text(config.read_text().replace("ignore-file[RL701]", "ignore-file[RL703]"))
    assert codes(run(root, hardware=NODE).diagnostics) == ["RL002", "RL701"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # a string was iterated per character: every rule off and "No problems found"
        ('per-file-ignores = {"run.sh" = "RL504"}\n', "'per-file-ignores.\"run.sh\"' is a list of rule codes"),
        ('per-file-ignores = {"run.sh" = ["RL9999"]}\n', "no rule matches 'RL9999'"),
        ('exclude = "*"\n', "'exclude' is a list of glob patterns"),
        ("exclude = [1]\n", "'exclude' is a list of glob patterns"),
        ('severity = "error"\n', "'severity' maps rule codes"),
        ("severity = {RL102 = 3}\n", "'severity.RL102': '3' is not one of"),
        ("fail-on = [1]\n", "'fail-on': '[1]' is not one of"),
        ("hardware = 5\n", "'hardware' is the path of a node profile"),
        ("model-params = nan\n", "'model-params' is the parameter count"),
        ("model-params = inf\n", "'model-params' is the parameter count"),
    ],
)
def test_wrong_typed_settings_name_the_setting(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "recipelint.toml"
    path.write_text(text)
    with pytest.raises(SourceError, match="recipelint.toml") as raised:
        load_settings(path)
    assert message in str(raised.value)


def test_a_settings_file_that_is_not_utf8_is_one_line(tmp_path: Path) -> None:
    root = recipe_with(tmp_path, "")
    (root / "recipelint.toml").write_bytes(b'select = ["RL1\xff"]\n')
    result = cli("check", str(root))
    assert result.returncode == 2 and "recipelint.toml: invalid TOML: not UTF-8 text" in result.stderr
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr


def test_errors_quote_no_control_characters(tmp_path: Path) -> None:
    """A settings key holding `\\n::error ...` must not become a GitHub workflow command."""
    root = recipe_with(tmp_path, '"x\\n::error file=a::forged\\u001b[31m" = 1\n')
    result = cli("check", str(root), "--format", "github")
    assert result.returncode == 2
    assert "\n::error file=a::forged" not in result.stderr and "\x1b" not in result.stderr
    assert "x\\n::error file=a::forged\\x1b[31m" in result.stderr


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("memory_gib: 1e308\n", "is greater than the maximum"),
        ("memory_gib: .inf\n", "is greater than the maximum"),
        ("memory_gib: .nan\n", "memory_gib: nan is not a finite number"),
        ("cpus: 100000000\n", "is greater than the maximum"),
    ],
)
def test_profile_numbers_are_finite_and_bounded(tmp_path: Path, line: str, message: str) -> None:
    from recipelint.hardware.profile import load_profile

    path = tmp_path / "node.yaml"
    path.write_text("".join(f"{k}: {json.dumps(v)}\n" for k, v in SMALL.items() if k not in ("memory_gib", "cpus")) + line)
    with pytest.raises(SourceError, match="hardware profile") as raised:
        load_profile(path)
    assert message in str(raised.value)


def test_a_profile_error_does_not_echo_the_file(tmp_path: Path) -> None:
    """hardware = "/etc/shadow" run as root printed every line of it in the schema error."""
    secret = tmp_path / "shadow"
    secret.write_text("".join(f"secret{i}: $6$hash{i}\n" for i in range(50)))
    root = recipe_with(tmp_path, f'hardware = "{secret}"\n')
    result = cli("check", str(root), "--format", "json")
    said = result.stdout + result.stderr
    assert result.returncode == 2 and f"{secret}:1:1: not a hardware profile" in said
    assert "secret0" not in said and "$6$" not in said  # the file is named, nothing of it quoted
