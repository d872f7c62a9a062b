"""The `recipelint` command's entry point.

`recipelint check ...`, the command pre-commit runs on every commit, is parsed here by a small
parser that accepts exactly what the typer definition in recipelint.cli accepts for it, and
runs without importing typer (half the start-up time). Anything else (another command, --help,
an unknown or malformed option) goes to the typer application, which also prints every usage
error: the fast path never decides what is an error.
"""

from __future__ import annotations

import gc
import os
import sys
from pathlib import Path
from typing import Any

from recipelint.checkoptions import FLAGS, CheckOptions

# The options of `check`, from CheckOptions' FLAGS: --option: (parameter, converter) for those that
# take a value, parameter for the flags and for those counted each time they are given (-q, -qq).
CHECK_VALUES: dict[str, tuple[str, str]] = {
    flag: (name, option.kind) for name, option in FLAGS.items() if option.kind not in ("flag", "count", "paths") for flag in option.names
}
CHECK_FLAGS: dict[str, str] = {flag: name for name, option in FLAGS.items() if option.kind == "flag" for flag in option.names}
CHECK_COUNTS: dict[str, str] = {flag: name for name, option in FLAGS.items() if option.kind == "count" for flag in option.names}


def _convert(kind: str, value: str) -> Any:
    """The value as typer hands it to the command; ValueError where typer would refuse it."""
    if kind == "path":
        return Path(value)
    if kind == "float":
        return float(value)
    if kind == "jobs":
        jobs = int(value)
        if jobs < 1:
            raise ValueError(value)
        return jobs
    if kind == "format":
        from recipelint.checkcmd import Format

        return Format(value).value
    if kind == "color":
        from recipelint.checkcmd import Color

        return Color(value).value
    return value


def parse_check(args: list[str]) -> CheckOptions | None:
    """The options of `recipelint check ARGS`, or None when typer should handle them (help, or
    anything it might answer with a usage error)."""
    params: dict[str, Any] = {name: None for name, _ in CHECK_VALUES.values()}
    params.update((name, False) for name in CHECK_FLAGS.values())
    params.update((name, 0) for name in CHECK_COUNTS.values())
    paths: list[Path] = []
    position = 0
    while position < len(args):
        arg = args[position]
        position += 1
        if arg == "--":
            paths.extend(Path(a) for a in args[position:])
            break
        if not arg.startswith("-") or arg == "-":
            paths.append(Path(arg))
            continue
        name, equals, value = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        if name in CHECK_FLAGS and not equals:
            params[CHECK_FLAGS[name]] = True
            continue
        if not equals and (name in CHECK_COUNTS or name.strip("q") == "-"):  # -q, --quiet, -qq (short flags clustered)
            params["quiet"] += 1 if name in CHECK_COUNTS else len(name) - 1
            continue
        if name not in CHECK_VALUES:
            return None
        if not equals:
            if position >= len(args) or args[position].startswith("-"):
                return None
            value = args[position]
            position += 1
        parameter, kind = CHECK_VALUES[name]
        if kind == "list":  # repeatable: typer gives the values in order, None when never given
            params[parameter] = [*(params[parameter] or []), value]
            continue
        try:
            params[parameter] = _convert(kind, value)
        except ValueError:
            return None
    params["paths"] = paths or None
    return CheckOptions.of(params)


def main() -> None:
    args = sys.argv[1:]
    parsed = parse_check(args[1:]) if args[:1] == ["check"] and "_RECIPELINT_COMPLETE" not in os.environ else None
    if parsed is None:
        from recipelint.cli import main as typer_main

        typer_main()
        return
    code = run(parsed)
    # The interpreter's last collection at exit walks every object the run made, for memory the
    # process gives back anyway: frozen, they are skipped (7 ms of a one-recipe check).
    gc.freeze()
    sys.exit(code)


def run(parsed: CheckOptions) -> int:
    """checkcmd.run_check with what typer and recipelint.cli.main do around a command: one line
    for bad input and for a bug, 130 on Ctrl-C, 1 quietly on a closed pipe."""
    try:
        from recipelint.checkcmd import run_check

        return run_check(parsed)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)  # nothing more can be written: stop flushing at exit
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else 1
    except Exception as exc:
        from recipelint.console import report_crash

        return report_crash(exc)
