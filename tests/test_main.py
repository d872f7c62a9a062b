"""The lean entry point: `recipelint check` parsed without typer must mean what typer means."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from recipelint import checkcmd, cli
from recipelint.checkoptions import CheckOptions, as_values
from recipelint.main import CHECK_COUNTS, CHECK_FLAGS, CHECK_VALUES, parse_check
from tests.helpers import NODE, REPO, RecipeSpec


def typer_params(args: list[str], monkeypatch: pytest.MonkeyPatch) -> dict[str, Any] | None:
    """What the typer command passes to run_check for `check ARGS`, field by field; None on a
    usage error or help."""
    seen: list[dict[str, Any]] = []

    def capture(options: CheckOptions) -> int:
        seen.append(as_values(options))
        return 0

    monkeypatch.setattr(checkcmd, "run_check", capture)
    result = CliRunner().invoke(cli.app, ["check", *args])
    return seen[0] if seen and result.exit_code == 0 else None


def test_the_option_table_is_the_typer_definition() -> None:
    command = typer.main.get_command(cli.app).commands["check"]  # type: ignore[attr-defined]
    flags: dict[str, str] = {}
    values: dict[str, str] = {}
    counts: dict[str, str] = {}
    arguments: list[str] = []
    for param in command.params:
        if param.param_type_name == "argument":
            arguments.append(param.name)
            continue
        for opt in param.opts:
            (counts if getattr(param, "count", False) else flags if param.is_flag else values)[opt] = param.name
    assert arguments == ["paths"]
    assert flags == CHECK_FLAGS
    assert counts == CHECK_COUNTS
    assert values == {opt: name for opt, (name, _) in CHECK_VALUES.items()}


COMMON = [
    [],
    ["."],
    ["a.yaml", "b.json", "--hardware", "node.yaml", "--format", "concise", "--exit-zero"],
    ["--isolated", "--format=json", "-o", "out.json", "r/", "--jobs", "2", "--no-cache"],
    ["--config", "pyproject.toml", "--statistics", "--model-params", "7e9", "--", "--odd-name.yaml"],
    ["--command", "NNODES=2 xtuner train cfg.py", "--show-settings", "--no-inline-ignores"],
    ["--select", "RL1,RL4", "--select=RL201", "--ignore", "RL102", "--extend-select", "RL0", "-q", "--color", "always"],
    ["-qq", "--silent", "--color=never", "-", "--stdin-filename", "run.sh"],
    ["--quiet", "-q", "x.json"],
]


@pytest.mark.parametrize("args", COMMON)
def test_common_invocations_take_the_fast_path_with_typer_s_values(args: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    fast = parse_check(args)
    assert fast is not None
    assert as_values(fast) == typer_params(args, monkeypatch)


TOKENS = [
    "a.yaml",
    "dir/",
    "",
    "-",
    "--",
    "--hardware",
    "--hardware=p.yaml",
    "p.yaml",
    "--format",
    "json",
    "JSON",
    "--format=concise",
    "--format=",
    "-o",
    "out.txt",
    "-oout.txt",
    "--output-file",
    "--statistics",
    "--statistics=1",
    "--isolated",
    "--show-settings",
    "--no-inline-ignores",
    "--exit-zero",
    "--model-params",
    "7e9",
    "nan",
    "-1",
    "1_000",
    "--command",
    "xtuner train c.py",
    "--jobs",
    "0",
    "2",
    " 3",
    "--jobs=4",
    "--no-cache",
    "--select",
    "--select=RL1",
    "RL102,RL4",
    "--ignore",
    "--extend-select=RL0",
    "-q",
    "-qq",
    "--quiet",
    "--silent",
    "--color",
    "always",
    "--color=auto",
    "--stdin-filename",
    "--help",
    "-h",
    "--unknown",
    "--hard",
]


@pytest.mark.slow  # 300 generated command lines through typer
@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=7))
def test_the_fast_parser_never_disagrees_with_typer(args: list[str]) -> None:
    fast = parse_check(args)
    if fast is None:
        return  # typer handles it, usage errors and help included
    with pytest.MonkeyPatch.context() as monkeypatch:
        typed = typer_params(args, monkeypatch)
        assert typed is not None and _nan_free(as_values(fast)) == _nan_free(typed)


def _nan_free(params: dict[str, Any]) -> dict[str, Any]:
    """NaN equals nothing, itself included: `--model-params nan` is compared as text."""
    return {k: "nan" if isinstance(v, float) and v != v else v for k, v in params.items()}


def run(entry: str, args: list[str], cwd: Path) -> tuple[int, str, str]:
    code = f"import sys; sys.argv = ['recipelint', *{args!r}]; from {entry} import main; main()"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd, env=env, timeout=120)
    return done.returncode, done.stdout, done.stderr


def test_output_is_byte_identical_to_the_typer_command(tmp_path: Path) -> None:
    RecipeSpec(variables={"num_workers": "32", "prefetch": "10"}).write(tmp_path / "r")
    node = tmp_path / "node.yaml"
    node.write_text("".join(f"{k}: {json.dumps(v)}\n" for k, v in NODE.items()))
    bad = tmp_path / "bad.yaml"
    bad.write_text("cpus: many\n")
    (tmp_path / "r" / "broken.json").write_text('{"train_batch_size": ')
    cases = [
        ["check", "r", "--hardware", str(node)],
        ["check", "r", "--hardware", str(node), "--format", "json", "--no-cache"],
        ["check", "r", "--hardware", str(node), "--format", "concise", "--statistics", "--jobs", "1"],
        ["check", "r", "--hardware", str(bad)],
        ["check", "missing", "--isolated"],
        ["check", "r", "--show-settings"],
        ["check", "r", "--hardware", str(node), "--format", "sarif", "--exit-zero"],
        ["check", "r", "--hardware", str(node), "-q", "--select", "RL1,RL2", "--ignore", "RL201", "--color", "always"],
        ["check", "r", "--hardware", str(node), "--format", "json", "--statistics", "--extend-select", "RL0"],
    ]
    fast, slow = run_all("recipelint.main", cases, tmp_path), run_all("recipelint.cli", cases, tmp_path)
    for args, fast_result, slow_result in zip(cases, fast, slow, strict=True):
        assert fast_result == slow_result, args
        assert fast_result[0] in (1, 2) or "--show-settings" in args or "--exit-zero" in args


RUN_ALL = """
import contextlib, io, json, sys
from {entry} import main
results = []
for args in {cases!r}:
    sys.argv = ["recipelint", *args]
    out, err, code = io.StringIO(), io.StringIO(), 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main()
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else int(exit_.code is not None)
    results.append([code, out.getvalue(), err.getvalue()])
print(json.dumps(results))
"""


def run_all(entry: str, cases: list[list[str]], cwd: Path) -> list[tuple[int, str, str]]:
    """`run` for several argument lists in one process: one interpreter start instead of one per case."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    code = RUN_ALL.format(entry=entry, cases=cases)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    return [(result[0], result[1], result[2]) for result in json.loads(done.stdout)]


def test_the_fast_path_imports_neither_typer_nor_readers_it_does_not_need(tmp_path: Path) -> None:
    code = (
        "import sys; sys.argv = ['recipelint', 'check', '--isolated', '.']\n"
        "from recipelint.main import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('typer', 'click', 'ruamel.yaml', 'tree_sitter', 'recipelint.rules', 'recipelint.context') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(REPO)}
    )
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_help_and_other_commands_still_go_to_typer(tmp_path: Path) -> None:
    fast = run("recipelint.main", ["check", "--help"], tmp_path)
    slow = run("recipelint.cli", ["check", "--help"], tmp_path)
    assert fast == slow and "--jobs" in fast[1] and "--no-cache" in fast[1]
    assert run("recipelint.main", ["rules"], tmp_path)[1].startswith("RL001")
