"""`check`'s options are defined once (recipelint.checkoptions): every field of CheckOptions is an
option of the typer command and of the fast parser, under the flags FLAGS gives it, and either a
settings file sets it (the key is read into Settings) or FLAGS says why none does. A field added
without its flag, or without a settings key or a reason, fails here."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer

from recipelint import cli
from recipelint.checkoptions import FLAGS, CheckOptions, as_values, names
from recipelint.main import CHECK_COUNTS, CHECK_FLAGS, CHECK_VALUES, parse_check
from recipelint.settings import KNOWN_KEYS, Settings, load_settings

PROFILE = Path(__file__).parent / "data" / "profiles" / "a100-8x-96cpu-ib.yaml"

# A value of each settings key a field names, and the Settings attribute it must change.
SAMPLES = {
    "hardware": f'"{PROFILE}"',
    "model-params": "7e9",
    "jobs": "2",
    "select": '["RL1"]',
    "extend-select": '["RL4"]',
    "ignore": '["RL102"]',
}


def test_every_field_has_its_flags_entry_and_no_more() -> None:
    assert list(FLAGS) == list(names())


def _typer_options() -> dict[str, list[str]]:
    command = typer.main.get_command(cli.app).commands["check"]  # type: ignore[attr-defined]
    return {param.name: list(param.opts) for param in command.params}


@pytest.mark.parametrize("name", names())
def test_every_field_is_an_option_of_check(name: str) -> None:
    option = FLAGS[name]
    typed = _typer_options()
    assert name in typed, f"CheckOptions.{name} is no parameter of `recipelint check`"
    if option.kind == "paths":
        return
    assert option.names and sorted(typed[name]) == sorted(option.names)
    fast = {**{f: n for f, (n, _) in CHECK_VALUES.items()}, **CHECK_FLAGS, **CHECK_COUNTS}
    assert all(fast.get(flag) == name for flag in option.names), f"the fast parser does not read {option.names} into {name}"


@pytest.mark.parametrize("name", names())
def test_every_field_is_a_setting_or_says_why_not(name: str, tmp_path: Path) -> None:
    option = FLAGS[name]
    assert bool(option.setting) != bool(option.no_setting), f"{name}: a settings key, or why none, and not both"
    if not option.setting:
        return
    assert option.setting in KNOWN_KEYS
    (tmp_path / "recipelint.toml").write_text(f"{option.setting} = {SAMPLES[option.setting]}\n")
    read = load_settings(tmp_path / "recipelint.toml")
    attribute = option.setting.replace("-", "_")
    assert getattr(read, attribute) != getattr(Settings(), attribute), f"`{option.setting}` in a settings file does not reach Settings"


VALUES = {"path": "x.yaml", "text": "HEAD", "float": "7e9", "jobs": "2", "format": "json", "color": "never", "list": "RL1"}


def test_a_flag_fills_its_field_on_both_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each value-taking flag given once reaches the same field through the fast parser and typer."""
    from tests.test_main import typer_params

    for name, option in FLAGS.items():
        if option.kind in ("paths", "flag", "count"):
            continue
        value = VALUES[option.kind]
        args = [option.names[0], value]
        fast = parse_check(args)
        assert fast is not None and getattr(fast, name) != getattr(CheckOptions(), name), name
        assert as_values(fast) == typer_params(args, monkeypatch), name
