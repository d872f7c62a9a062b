"""`recipelint check` itself, without the CLI framework: the typer command (recipelint.cli) and
the lean entry point (recipelint.main) both call `run_check`, so their output is the same.

Nothing heavy is imported here at module level: start-up matters (pre-commit runs the hook on
every commit)."""

from __future__ import annotations

import os
import sys
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, Optional

from recipelint.report import REPORTERS

if TYPE_CHECKING:
    from recipelint.cache import ResultCache
    from recipelint.hardware.machines import ProfileLoader
    from recipelint.parse.files import SourceError
    from recipelint.settings import Resolver, Settings


if TYPE_CHECKING:

    class Format(str, Enum):
        """`--format`: one member per registered reporter."""

else:
    Format = Enum("Format", {name: name for name in REPORTERS}, type=str, module=__name__)
    Format.__doc__ = "`--format`: one member per registered reporter."


def echo(message: str = "", err: bool = False, nl: bool = True, raw: bool = False) -> None:
    """What typer.echo does with text (a newline, a flush), with every control character escaped
    (recipelint writes no styles; a recipe's bytes must not drive the terminal). `raw`: a diff of
    the files themselves, shown as `git diff` shows it."""
    from recipelint.parse.files import terminal_text

    stream = sys.stderr if err else sys.stdout
    out = message + "\n" if nl else message
    if not raw:
        out = terminal_text(out)
    if out:
        stream.write(out)
    stream.flush()


def fail(message: str) -> NoReturn:
    echo(f"recipelint: error: {message}", err=True)
    raise SystemExit(2)


def report_crash(exc: Exception) -> int:
    """One line for an exception that escaped a command, and the exit code (2); the traceback
    only with RECIPELINT_DEBUG set."""
    from recipelint.parse.files import SourceError

    if isinstance(exc, SourceError):  # bad input found late (a lazily loaded profile): still one line
        print(f"recipelint: error: {exc}", file=sys.stderr)
        return 2
    if os.environ.get("RECIPELINT_DEBUG"):
        raise exc
    print(f"recipelint: internal error: {type(exc).__name__}: {exc} (set RECIPELINT_DEBUG=1 for a traceback)", file=sys.stderr)
    return 2


def print_errors(errors: list[SourceError]) -> None:
    for error in errors:
        echo(f"{error}", err=True)


def hardware_loader(path: Optional[Path]) -> ProfileLoader | None:
    """A loader for --hardware (a profile, or `host`: this machine, judged as the node), or None
    to let each file's settings (or the probe, compared with each recipe) decide."""
    if path is None:
        return None
    if str(path) != "host" and not path.is_file():
        fail(f"{path}: no such hardware profile (`--hardware host` judges this machine)")
    from recipelint.hardware.machines import ProfileLoader

    return ProfileLoader(path)


def resolver(config: Optional[Path], isolated: bool) -> Resolver:
    from recipelint.settings import Resolver

    if config is not None and not config.is_file():
        fail(f"{config}: no such config file")
    return Resolver(config=config, isolated=isolated)


def run_check(
    paths: Optional[list[Path]] = None,
    hardware: Optional[Path] = None,
    output_format: Optional[Format] = None,
    output_file: Optional[Path] = None,
    statistics: bool = False,
    config: Optional[Path] = None,
    isolated: bool = False,
    show_settings: bool = False,
    no_inline_ignores: bool = False,
    exit_zero: bool = False,
    model_params: Optional[float] = None,
    command: Optional[str] = None,
    jobs: Optional[int] = None,
    no_cache: bool = False,
    add_ignore: bool = False,
) -> int:
    """Check recipes and print the report; the exit code."""
    from recipelint import engine
    from recipelint.parse.files import FileCache, SourceError

    targets = paths or ([] if command is not None else [Path(".")])
    settings = resolver(config, isolated)
    if show_settings:
        import json

        try:
            shown = {str(path): settings.for_path(path).as_dict() for path in targets}
        except SourceError as error:
            fail(str(error))
        echo(json.dumps(shown, indent=2))
        return 0
    if add_ignore:
        from recipelint.addignore import add_ignores

        return add_ignores(targets, hardware_loader(hardware), settings, command=command, model_params=model_params)
    fmt = output_format or Format("github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text")
    if statistics and fmt.value in ("text", "concise"):
        fmt = Format("statistics")
    files = FileCache()
    result = engine.check(
        targets,
        hardware_loader(hardware),
        files,
        resolver=settings,
        inline_ignores=not no_inline_ignores,
        model_params=model_params,
        command=command,
        keep_recipes=False,
        jobs=_jobs(settings, jobs),
        cache=None if no_cache else _cache(settings),
    )
    from recipelint.report import reporter

    report = reporter(fmt.value)(result)
    if fmt.value != "json":
        print_errors(result.errors)
    if output_file is not None:
        output_file.write_text(report + "\n", encoding="utf-8")
    elif report:
        echo(report)
    if not result.parsed and not result.errors:
        # as ruff's "No Python files found": a clean report of nothing is not an all clear
        named = ", ".join(str(path) for path in targets) if targets else "the command line"
        echo(
            f"recipelint: no recipes found in {named} (no launch, WeNet/DeepSpeed/Accelerate config or XTuner config recipelint reads)",
            err=True,
        )
    if result.errors:
        return 2
    return 0 if exit_zero or not result.failing else 1


def _run_settings(settings: Resolver) -> Settings:
    """The settings of the run itself (jobs, cache-dir): those in force for the working folder."""
    from recipelint.parse.files import SourceError
    from recipelint.settings import Settings

    try:
        return settings.for_path(Path("."))
    except SourceError:  # reported with the files it applies to
        return Settings()


def _jobs(settings: Resolver, jobs: Optional[int]) -> int:
    if jobs is not None:
        return jobs
    configured = _run_settings(settings).jobs
    return configured if configured is not None else 0


def _cache(settings: Resolver) -> ResultCache:
    from recipelint.cache import ResultCache, default_folder

    return ResultCache(default_folder(_run_settings(settings)))
