"""The `diagnose` command: split the paths into logs and recipe, diagnose, print, fix."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from recipelint.hardware.profile import Hardware
from recipelint.parse.files import FileCache, SourceError, terminal_text
from recipelint.settings import Resolver


def run(
    paths: list[Path],
    hardware: Callable[[], Hardware] | None,
    resolver: Resolver,
    fmt: str,
    output_file: Path | None,
    fix: bool,
    write: bool,
    unsafe: bool,
    write_or_diff: Callable[[Any, bool, list[Path]], tuple[int, list[SourceError]]],
) -> int:
    """Exit code: 0 no known signature, 1 a signature found, 2 an unreadable log or recipe."""
    from recipelint.diagnose import diagnose, is_log
    from recipelint.diagnose.render import render
    from recipelint.toolkits import not_offered

    logs = [p for p in paths if is_log(p)]
    recipes = [p for p in paths if not is_log(p)]
    if not logs:
        print("recipelint: error: no log among the paths (logs: .log, .out, .err, .txt, .gz, torchelastic error .json)", file=sys.stderr)
        return 2
    report = diagnose(logs, recipes, hardware, resolver)
    errors = list(report.errors)
    output = render(report, fmt, FileCache())
    if output_file is not None:
        output_file.write_text(output + "\n", encoding="utf-8")
    elif output:
        print(terminal_text(output), flush=True)
    if fix:
        errors += _fix(report.fix_codes, recipes, hardware, resolver, unsafe, write, write_or_diff)
    if fmt != "json" or fix:
        for error in errors:
            print(terminal_text(str(error)), file=sys.stderr)
        for line in not_offered("diagnose", [ctx.recipe for ctx in report.scene.contexts], "not read for the diagnosis"):
            print(terminal_text(line), file=sys.stderr)
    if errors:
        return 2
    return 1 if report.findings else 0


def _fix(
    codes: set[str],
    recipes: list[Path],
    hardware: Callable[[], Hardware] | None,
    resolver: Resolver,
    unsafe: bool,
    write: bool,
    write_or_diff: Callable[[Any, bool, list[Path]], tuple[int, list[SourceError]]],
) -> list[SourceError]:
    """Apply the fixes of the diagnostics behind the diagnosis, through `fix`'s own path."""
    from recipelint import engine
    from recipelint.fix import fix_paths

    if not codes:
        print("No recipe fix for this diagnosis.", file=sys.stderr)
        return []

    def run_check(files: FileCache) -> list[Any]:
        return [d for d in engine.check(recipes, hardware=hardware, files=files, resolver=resolver).diagnostics if d.code in codes]

    try:
        outcome = fix_paths(run_check, unsafe)
    except SourceError as error:
        return [error]
    written, write_errors = write_or_diff(outcome, write, recipes)
    errors = list(outcome.errors) + write_errors
    verb = "Fixed" if write else "Would fix"
    refused = {error.path for error in write_errors}
    applied = [d for d in outcome.applied if not write or d.span.path not in refused]
    files = written if write else len(outcome.changed)
    print(f"{verb} {len(applied)} problem(s) in {files} file(s) for the diagnosis.", file=sys.stderr)
    return errors
