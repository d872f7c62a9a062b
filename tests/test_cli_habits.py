"""The command line's habits, as ruff has them: rule selection on the command line, -q, colour,
progress, stdin, --statistics in every format, completion, configuration errors said as such,
and the same relative paths whatever form the path was given in.

The recipes are unmodified upstream files (tests/data/upstream/*/SOURCE.md): WeNet v3.1.0's
example recipes (RL601, RL701, RL705, RL106 against the A100 profile), WeNet's aishell4 run.sh
at 015469960d (RL103, with a safe fix) and LLaMA-Factory v0.6.3's Accelerate config with the
script that launches it (RL426)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from recipelint.checkoptions import CheckOptions
from tests.helpers import REPO, UPSTREAM, cli

WENET3 = UPSTREAM / "wenet-v3.1.0"
AISHELL4 = UPSTREAM / "wenet" / "examples" / "aishell4" / "s0" / "run.sh"
LLAMA_FACTORY = UPSTREAM / "deepspeed" / "LLaMA-Factory" / "v0.6.3"
A100 = REPO / "tests" / "data" / "profiles" / "a100-8x-96cpu-ib.yaml"
NO_COLOUR_ENV = {"NO_COLOR": "", "FORCE_COLOR": ""}


def codes(stdout: str) -> set[str]:
    return {line.split(": ")[1].split(" ")[0] for line in stdout.splitlines() if ": RL" in line}


def wenet3(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    done = cli("check", str(WENET3), "--isolated", "--hardware", str(A100), "--format", "concise", *args, env=env)
    return done.returncode, done.stdout, done.stderr


# --select / --extend-select / --ignore


def test_select_and_ignore_on_the_command_line() -> None:
    assert codes(wenet3()[1]) == {"RL106", "RL601", "RL701", "RL705"}
    assert codes(wenet3("--select", "RL7")[1]) == {"RL701", "RL705"}
    assert codes(wenet3("--select", "RL7", "--ignore", "rl705")[1]) == {"RL701"}  # case as ruff: codes are upper-cased
    assert codes(wenet3("--select", "RL601,RL106")[1]) == {"RL106", "RL601"}  # comma-separated
    assert codes(wenet3("--ignore", "RL6", "--ignore", "RL7")[1]) == {"RL106"}  # repeated
    code, out, err = wenet3("--select", "RL9999")
    assert (code, out) == (2, "") and err == "recipelint: error: --select: no rule matches 'RL9999' (`recipelint rules` lists them)\n"


def test_the_command_line_selection_goes_over_the_settings_file(tmp_path: Path) -> None:
    config = tmp_path / "recipelint.toml"
    config.write_text('select = ["RL6"]\nignore = ["RL601"]\n')
    on_file = cli("check", str(WENET3), "--config", str(config), "--hardware", str(A100), "--format", "concise")
    assert on_file.returncode == 0 and codes(on_file.stdout) == set()
    extended = cli(
        "check", str(WENET3), "--config", str(config), "--hardware", str(A100), "--format", "concise", "--extend-select", "RL106"
    )
    assert codes(extended.stdout) == {"RL106"}  # the file's ignore of RL601 still holds
    replaced = cli("check", str(WENET3), "--config", str(config), "--hardware", str(A100), "--format", "concise", "--select", "RL601")
    assert codes(replaced.stdout) == {"RL601"}  # --select replaces the file's selection, its ignore included (ruff)


def test_selection_layers() -> None:
    from recipelint.settings import Selection, Settings

    configured = Settings(select=["RL1", "RL6"], ignore=["RL102"])
    assert [configured.enabled(c) for c in ("RL101", "RL102", "RL601", "RL701")] == [True, False, True, False]
    ignoring = Settings(select=["RL1"], ignore=["RL102"], cli=Selection(ignore=["RL10"]))
    assert [ignoring.enabled(c) for c in ("RL101", "RL102", "RL111")] == [False, False, True]
    extending = Settings(select=["RL1"], ignore=["RL102"], cli=Selection(extend_select=["RL102", "RL7"]))
    assert [extending.enabled(c) for c in ("RL101", "RL102", "RL701", "RL601")] == [True, True, True, False]
    replacing = Settings(select=["RL1"], cli=Selection(select=["RL6"], ignore=["RL601"]))
    assert [replacing.enabled(c) for c in ("RL101", "RL601", "RL602")] == [False, False, True]


# -q, -qq, --silent


def test_quiet_prints_the_findings_only_and_qq_nothing() -> None:
    code, out, _ = cli_text()
    assert code == 1 and out.startswith("Hardware: ") and "Found 14 findings" in out
    code, quiet, _ = cli_text("-q")
    assert code == 1 and "Found" not in quiet and "Hardware:" not in quiet
    assert quiet.count(" | ") == 14 and quiet.strip() in out  # the same findings, source lines included
    for args in (["-qq"], ["--silent"], ["-s"], ["-q", "-q"], ["--quiet", "--format", "concise", "-q"]):
        code, out, err = cli_text(*args)
        assert (code, out, err) == (1, "", ""), args


def cli_text(*args: str) -> tuple[int, str, str]:
    done = cli("check", str(WENET3), "--isolated", "--hardware", str(A100), *args, env=NO_COLOUR_ENV)
    return done.returncode, done.stdout, done.stderr


def test_quiet_drops_the_no_recipes_note(tmp_path: Path) -> None:
    assert "no recipes found" in cli("check", str(tmp_path), "--isolated").stderr
    assert cli("check", str(tmp_path), "--isolated", "-q").stderr == ""


# --color


def test_colour_by_the_usual_rules() -> None:
    plain = wenet3(env=NO_COLOUR_ENV)[1]
    assert "\x1b" not in plain  # a pipe is no terminal
    forced = wenet3(env={"NO_COLOR": "", "FORCE_COLOR": "1"})[1]
    first = forced.splitlines()[0]
    assert first.startswith("\x1b[1mtests/data/upstream/wenet-v3.1.0/examples/chime4/s0/conf/train_conformer.yaml\x1b[0m:3:1: ")
    assert "\x1b[1;31mRL705 [error]\x1b[0m the config has no 'tokenizer_conf'" in first
    assert "\x1b[1;36mRL106 [info]\x1b[0m" in forced and "\x1b[1;33mRL701 [warning]\x1b[0m" in forced
    assert _unstyled(forced) == plain  # colour adds styles, nothing else
    assert wenet3(env={"NO_COLOR": "1", "FORCE_COLOR": "1"})[1] == plain  # NO_COLOR wins
    assert wenet3("--color", "always", env={"NO_COLOR": "1"})[1] == forced  # the option wins over both
    assert wenet3("--color", "never", env={"FORCE_COLOR": "1"})[1] == plain
    as_json = cli("check", str(WENET3), "--isolated", "--hardware", str(A100), "--format", "json", "--color", "always")
    assert "\x1b" not in as_json.stdout  # machine formats are never coloured


def _unstyled(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


def test_colour_rules_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from recipelint.checkcmd import Color, use_color

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert use_color(None, Terminal()) and use_color(Color.auto, Terminal()) and not use_color(None, io.StringIO())
    monkeypatch.setenv("TERM", "dumb")
    assert not use_color(None, Terminal())
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("TERM", "xterm")
    assert not use_color(None, Terminal()) and use_color(Color.always, io.StringIO())


def test_colour_never_carries_a_recipe_s_escape_sequences() -> None:
    from recipelint.parse.files import terminal_text
    from recipelint.report.text import colour

    report = "run.sh:1:1: RL102 [warning] value \x1b]8;;http://x\x07link\x1b[0m\n    1 | x\n      ^"
    styled = colour(terminal_text(report))
    assert "\x1b]8" not in styled and "\\x1b]8;;http://x\\x07link\\x1b[0m" in styled
    assert styled.startswith("\x1b[1mrun.sh\x1b[0m:1:1: \x1b[1;33mRL102 [warning]\x1b[0m value ")


# progress


def test_progress_is_one_line_on_a_terminal_after_a_second() -> None:
    import io

    from recipelint.report.progress import Progress

    now = [0.0]
    stream = io.StringIO()
    progress = Progress(stream, clock=lambda: now[0])
    progress(0, 2110)
    now[0] = 0.5
    progress(40, 2110)
    assert stream.getvalue() == ""  # a run under a second shows nothing
    now[0] = 1.2
    progress(700, 2110)
    now[0] = 1.25
    progress(701, 2110)  # rewritten at most every 0.1 s
    now[0] = 1.4
    progress(2110, 2110)
    progress.clear()
    assert stream.getvalue() == (
        "\r\x1b[Krecipelint: checked 700/2110 scripts and lone configs\r\x1b[Krecipelint: checked 2110/2110 scripts and lone configs\r\x1b[K"
    )


def test_no_progress_when_stderr_is_not_a_terminal() -> None:
    from recipelint.checkcmd import _progress

    assert _progress(0) is None  # pytest captures stderr: no terminal
    done = cli("check", str(UPSTREAM / "wenet"), "--isolated", "--no-cache")
    assert "\r" not in done.stderr and "checked" not in done.stderr


# stdin


def test_stdin_is_checked_as_the_file_it_names(tmp_path: Path) -> None:
    named = cli("check", str(AISHELL4), "--isolated", "--hardware", str(A100), "--format", "concise", "--no-cache", cwd=REPO)
    text = AISHELL4.read_text()
    rel = str(AISHELL4.relative_to(REPO))
    piped = cli_stdin(["check", "-", "--stdin-filename", rel, "--isolated", "--hardware", str(A100), "--format", "concise"], text)
    assert piped.returncode == named.returncode == 1
    assert piped.stdout == named.stdout and f"{rel}:147:18: RL103 [warning]" in piped.stdout
    # a name with no file behind it: the text is the recipe, the name says its kind and the path shown
    elsewhere = cli_stdin(["check", "-", "--stdin-filename", "new/run.sh", "--isolated", "--hardware", str(A100), "-q"], text, tmp_path)
    assert elsewhere.returncode == 1 and "new/run.sh:138:16: RL010 [warning] train config conf/train_conformer.yaml" in elsewhere.stdout
    assert all(line.startswith("new/run.sh:") for line in elsewhere.stdout.splitlines() if ": RL" in line)
    missing = cli_stdin(["check", "-", "--isolated"], text)
    assert missing.returncode == 2 and "--stdin-filename" in missing.stderr


def test_fix_on_stdin_prints_the_fixed_text() -> None:
    text = AISHELL4.read_text()
    rel = str(AISHELL4.relative_to(REPO))
    fixed = cli_stdin(["fix", "-", "--stdin-filename", rel, "--isolated", "--hardware", str(A100)], text)
    assert fixed.returncode == 0, fixed.stderr
    # the value the same file's check suggests, read from disk (stdin and the path agree)
    report = json.loads(cli("check", rel, "--isolated", "--hardware", str(A100), "--format", "json", cwd=REPO).stdout)
    suggested = next(d["suggested"] for d in report["diagnostics"] if d["code"] == "RL103")
    assert fixed.stdout == text.replace("\nprefetch=500\n", f"\nprefetch={suggested}\n") != text
    assert "Fixed 1 problem in 1 file; 0 remain." in fixed.stderr and AISHELL4.read_text() == text  # nothing written
    diff = cli_stdin(["fix", "-", "--stdin-filename", rel, "--isolated", "--hardware", str(A100), "--diff"], text)
    assert diff.returncode == 1 and f"-prefetch=500\n+prefetch={suggested}\n" in diff.stdout and AISHELL4.read_text() == text


def cli_stdin(args: list[str], text: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "recipelint", *args],
        input=text,
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(REPO), **NO_COLOUR_ENV},
        timeout=60,
    )


# --statistics


def test_statistics_in_every_format() -> None:
    table = wenet3("--statistics")[1]
    assert table.splitlines()[0] == "    7  RL601      unknown-train-flag"
    data = json.loads(cli("check", str(WENET3), "--isolated", "--hardware", str(A100), "--format", "json", "--statistics").stdout)
    assert data["statistics"]["RL601"] == {"name": "unknown-train-flag", "count": 7, "fixable": 0}
    assert sum(row["count"] for row in data["statistics"].values()) == len(data["diagnostics"]) == 14
    assert "statistics" not in json.loads(cli("check", str(WENET3), "--isolated", "--format", "json").stdout)
    for fmt in ("sarif", "github"):
        refused = cli("check", str(WENET3), "--isolated", "--format", fmt, "--statistics")
        assert refused.returncode == 2 and refused.stdout == ""
        assert refused.stderr.startswith(f"recipelint: error: --statistics applies to the text, concise and json formats, not to {fmt}")
    # the undocumented `--format statistics` is gone: diagnose accepted it and printed text
    assert cli("check", str(WENET3), "--format", "statistics").returncode == 2
    assert cli("diagnose", str(WENET3), "--format", "statistics").returncode == 2


# completion


def test_shell_completion_is_offered() -> None:
    help_text = cli("--help").stdout
    assert "--install-completion" in help_text and "--show-completion" in help_text
    # typer's --show-completion detects the shell from the processes above it (shellingham); under
    # CI no shell is there, so typer's own switch makes it take the shell as a value instead.
    script = cli("--show-completion", "bash", env={"_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"})
    assert script.returncode == 0 and "RECIPELINT_COMPLETE=complete_bash" in script.stdout  # `python -m` names it oddly
    installed = shutil.which("recipelint", path=str(Path(sys.executable).parent))  # completion keys on the program's name
    if installed is None:
        pytest.skip("the recipelint script is not installed beside this Python")
    env = {**os.environ, "_RECIPELINT_COMPLETE": "complete_bash", "COMP_WORDS": "recipelint check --ext", "COMP_CWORD": "2"}
    words = subprocess.run([installed], capture_output=True, text=True, env=env, timeout=60)
    assert words.stdout.split() == ["--extend-select"]


# configuration errors


def test_a_missing_configured_profile_is_a_configuration_error(tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(LLAMA_FACTORY, project)
    (project / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.recipelint]\nselect = ["ALL"]\n  hardware = "cluster/node.yaml"\n'
    )
    for command in ("check", "show", "fix"):
        done = cli(command, "examples", cwd=project)
        assert done.returncode == 2, command
        assert done.stderr == "recipelint: error: pyproject.toml:6:3: setting `hardware` names cluster/node.yaml, which does not exist\n"
        assert "Hardware:" not in done.stdout + done.stderr and "file error" not in done.stdout
    (project / "cluster").mkdir()
    (project / "cluster" / "node.yaml").write_text("cpus: many\n")
    bad = cli("check", "examples", cwd=project)
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr == (
        "recipelint: error: pyproject.toml:6:3: setting `hardware` names cluster/node.yaml, which is not a usable profile: "
        "cluster/node.yaml:1:7: hardware profile: cpus: 'many' is not of type 'integer'\n"
    )
    shutil.copy(A100, project / "cluster" / "node.yaml")
    good = cli("check", "examples", cwd=project)
    assert good.returncode == 1 and "RL426" in good.stdout and good.stderr == ""


def test_a_bad_settings_file_below_the_paths_is_a_configuration_error(tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(LLAMA_FACTORY, project)
    (project / "examples" / "recipelint.toml").write_text('ignore = ["RL4"]\nhardwar = "node.yaml"\n')
    done = cli("check", ".", cwd=project)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == "recipelint: error: examples/recipelint.toml: unknown setting 'hardwar'; did you mean 'hardware'?\n"


# paths


def test_a_config_passed_alone_gives_the_folder_s_sarif_results(tmp_path: Path) -> None:
    """LLaMA-Factory's Accelerate config passed alone (as pre-commit passes a changed file), given
    absolute or relative: the finding on the script that launches it has the relative path the
    folder's run gives, in SARIF (against %SRCROOT%) and in the text and github formats."""
    config = LLAMA_FACTORY / "examples" / "accelerate" / "single_config.yaml"
    runs = [str(LLAMA_FACTORY.relative_to(REPO)), str(config.relative_to(REPO)), str(config)]
    results = []
    for path in runs:
        sarif = json.loads(cli("check", path, "--isolated", "--hardware", str(A100), "--format", "sarif", cwd=REPO).stdout)
        run = sarif["runs"][0]
        assert run["originalUriBaseIds"] == {"%SRCROOT%": {"uri": REPO.as_uri() + "/"}}
        results.append(run["results"])
    assert results[0] == results[1] == results[2] and [r["ruleId"] for r in results[0]] == ["RL426"]
    location = results[0][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {
        "uri": "tests/data/upstream/deepspeed/LLaMA-Factory/v0.6.3/examples/lora_multi_gpu/single_node.sh",
        "uriBaseId": "%SRCROOT%",
    }
    for fmt in ("concise", "github"):
        shown = {cli("check", p, "--isolated", "--hardware", str(A100), "--format", fmt, cwd=REPO).stdout.splitlines()[0] for p in runs}
        assert (
            len(shown) == 1 and "tests/data/upstream/deepspeed/LLaMA-Factory/v0.6.3/examples/lora_multi_gpu/single_node.sh" in shown.pop()
        )


def test_version_says_the_knowledge_it_carries() -> None:
    from recipelint.versions import KNOWN, NEWEST

    lines = cli("--version").stdout.splitlines()
    for name, newest in NEWEST.items():
        assert f"  {name}: {len(KNOWN[name])} releases where behaviour it judges changes, newest {newest}" in "\n".join(lines)


def test_the_order_of_findings_does_not_depend_on_the_path_s_form() -> None:
    """WeNet v3.1.0's chime4 recipe given absolute and relative: its run.sh is read from the folder
    walk, its YAML through the run.sh's link; both runs list the findings in one order."""
    chime4 = WENET3 / "examples" / "chime4"
    given = [str(chime4), str(chime4.relative_to(REPO)), f"./{chime4.relative_to(REPO)}"]
    reports = {cli("check", path, "--isolated", "--hardware", str(A100), "--format", "concise", cwd=REPO).stdout for path in given}
    assert len(reports) == 1
    paths = [line.split(":")[0] for line in reports.pop().splitlines() if ": RL" in line]
    assert paths == sorted(paths) and len(set(paths)) == 2


def test_usage_doc_names_every_option() -> None:
    """docs/usage.md describes the command line: each command's every option (typer's definition)
    is named there, and the root's --version and completion options."""
    import typer

    from recipelint import cli as commands

    usage = (REPO / "docs" / "usage.md").read_text()
    group = typer.main.get_command(commands.app)
    missing = [
        f"{name} {opt}"
        for name, command in group.commands.items()  # type: ignore[attr-defined]
        for param in command.params
        if not getattr(param, "hidden", False)
        for opt in param.opts
        if opt.startswith("-") and opt not in ("--help",) and f"{opt}" not in usage
    ]
    root = [opt for param in group.params for opt in param.opts if opt != "--help" and opt not in usage]
    assert missing == [] and root == []


def test_the_check_run_drives_the_progress_line(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The engine reports each target to the line (here with no delay), which is erased at the end;
    with -q there is none."""
    import io

    from recipelint import checkcmd
    from recipelint.report import progress

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(progress, "DELAY", 0.0)
    monkeypatch.setattr(progress, "INTERVAL", 0.0)
    for quiet in (0, 1):
        terminal = Terminal()
        monkeypatch.setattr(sys, "stderr", terminal)
        code = checkcmd.run_check(
            CheckOptions(paths=[WENET3], hardware=A100, isolated=True, no_cache=True, jobs=1, quiet=quiet, color=checkcmd.Color.never)
        )
        assert code == 1
        written = terminal.getvalue()
        if quiet:
            assert written == ""
            continue
        steps = [part for part in written.split("\r\x1b[K") if part]
        assert (
            steps[0] == "recipelint: checked 0/10 scripts and lone configs"
            and steps[-1] == "recipelint: checked 10/10 scripts and lone configs"
        )
        assert written.endswith("\r\x1b[K")  # erased: the report starts on a clean line
    capsys.readouterr()
