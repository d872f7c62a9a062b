"""`recipelint check` itself, without the CLI framework: the typer command (recipelint.cli) and
the lean entry point (recipelint.main) both call `run_check`, so their output is the same.

Nothing heavy is imported here at module level: start-up matters (pre-commit runs the hook on
every commit)."""

from __future__ import annotations

import os
import sys
from collections import Counter
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from recipelint.checkoptions import CheckOptions
from recipelint.console import echo, fail, print_errors
from recipelint.records import replace
from recipelint.report import REPORTERS

if TYPE_CHECKING:
    from recipelint import engine
    from recipelint.cache import ResultCache
    from recipelint.hardware.machines import ProfileLoader
    from recipelint.parse.files import FileCache, SourceError
    from recipelint.report.progress import Progress
    from recipelint.settings import Resolver, Selection, Settings


if TYPE_CHECKING:

    class Format(str, Enum):
        """`--format`: one member per registered reporter."""

else:
    Format = Enum("Format", {name: name for name in REPORTERS}, type=str, module=__name__)
    Format.__doc__ = "`--format`: one member per registered reporter."


def hardware_loader(path: Optional[Path]) -> ProfileLoader | None:
    """A loader for --hardware (a profile, or `host`: this machine, judged as the node), or None
    to let each file's settings (or the probe, compared with each recipe) decide."""
    if path is None:
        return None
    if str(path) != "host" and not path.is_file():
        fail(f"{path}: no such hardware profile (`--hardware host` judges this machine)")
    from recipelint.hardware.machines import ProfileLoader

    return ProfileLoader(path)


def resolver(config: Optional[Path], isolated: bool, selection: Optional[Selection] = None) -> Resolver:
    from recipelint.settings import Resolver

    if config is not None and not config.is_file():
        fail(f"{config}: no such config file")
    return Resolver(config=config, isolated=isolated, selection=selection)


def preflight(settings: Resolver, paths: list[Path]) -> None:
    """The settings of the paths given and of the working folder, read before the run: a bad
    configuration is a usage error (exit 2) said with its file and line, not a file error in a
    report of nothing."""
    from recipelint.parse.files import SourceError
    from recipelint.settings import configuration_error

    for path in [Path("."), *paths]:
        try:
            settings.for_path(path)
        except SourceError as error:
            fail(configuration_error(settings, error) or str(error))


def unused_profiles(settings: Resolver) -> list[SourceError]:
    """Why each configured profile cannot be loaded, read when no recipe of the run asked for the
    hardware: a bad profile is a bad configuration even on a run that did not need it."""
    from recipelint.hardware.profile import load_profile
    from recipelint.parse.files import SourceError

    errors = []
    for path in dict.fromkeys(loaded.hardware for loaded in settings.loaded() if loaded.hardware is not None):
        try:
            load_profile(path)
        except SourceError as error:
            errors.append(error)
    return errors


def config_errors(settings: Resolver, errors: list[SourceError]) -> None:
    """Errors of the run that are the configuration's (a settings file, or the profile its
    `hardware` names, found under a folder): said as configuration errors, exit 2, no report."""
    from recipelint.settings import configuration_error

    said = [message for message in (configuration_error(settings, error) for error in errors) if message is not None]
    if said:
        for message in dict.fromkeys(said):
            echo(f"recipelint: error: {message}", err=True)
        raise SystemExit(2)


class Color(str, Enum):
    """`--color`: when the text formats are coloured."""

    auto = "auto"
    always = "always"
    never = "never"


def use_color(choice: Optional[Color], stream: object = None) -> bool:
    """Colour by the usual rules (as ruff): --color always/never decides; else NO_COLOR (any
    value but empty) turns it off, FORCE_COLOR (any value but empty) on, and otherwise only a
    terminal (not TERM=dumb) gets it. NO_COLOR wins when both are set."""
    if choice is not None and choice is not Color.auto:
        return choice is Color.always
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    isatty = getattr(stream if stream is not None else sys.stdout, "isatty", None)
    return bool(isatty is not None and isatty()) and os.environ.get("TERM") != "dumb"


def selection(select: Optional[list[str]], extend_select: Optional[list[str]], ignore: Optional[list[str]]) -> Optional[Selection]:
    """The command line's --select/--extend-select/--ignore, checked (a selector no rule matches
    is a usage error, exit 2)."""
    if select is None and not extend_select and not ignore:
        return None
    from recipelint.settings import command_line_selection

    try:
        return command_line_selection(select, extend_select or [], ignore or [])
    except ValueError as error:
        fail(str(error))


def read_stdin(paths: list[Path], stdin_filename: Optional[Path], files: FileCache) -> list[Path]:
    """`-` among the paths: the text on stdin, checked as the file `--stdin-filename` names (its
    suffix says the kind, its path is the one shown; the file need not exist). The file cache
    holds the text, so nothing reads the file on disk."""
    if Path("-") not in paths:
        if stdin_filename is not None:
            fail("--stdin-filename names the text read from stdin: pass `-` as the path")
        return paths
    if stdin_filename is None:
        fail("`-` reads a recipe from stdin: say what it is with --stdin-filename NAME (run.sh, conf/train.yaml, ds_config.json, ...)")
    if paths.count(Path("-")) > 1:
        fail("stdin can be read once: pass `-` once")
    assert stdin_filename is not None
    from recipelint.parse.files import MAX_FILE_BYTES, SourceError, read_stream

    try:  # the same cap as a file's: `- < /dev/zero` is refused after 1 MiB, never read whole
        files.overlay[stdin_filename] = read_stream(sys.stdin.buffer, Path("<stdin>"), MAX_FILE_BYTES)
    except SourceError as error:
        fail(str(error))
    return [stdin_filename if path == Path("-") else path for path in paths]


def run_check(options: CheckOptions) -> int:
    """Check recipes and print the report; the exit code."""
    from recipelint.parse.files import FileCache

    files = FileCache()
    command = options.command
    targets = read_stdin(options.paths or ([] if command is not None else [Path(".")]), options.stdin_filename, files)
    settings = resolver(options.config, options.isolated, selection(options.select, options.extend_select, options.ignore))
    if options.show_settings:
        return _show_settings(settings, targets)
    if options.add_ignore:
        from recipelint.addignore import add_ignores

        return add_ignores(targets, hardware_loader(options.hardware), settings, options)
    fmt = _format(options.output_format, options.statistics)
    preflight(settings, targets)
    known = _read_baseline(options.baseline) if options.baseline is not None else None
    progress = _progress(options.quiet or options.silent)

    def run(paths: list[Path], run_files: FileCache, cached: bool = True) -> engine.Result:
        return _engine_check(settings, paths, run_files, options if cached else replace(options, no_cache=True), progress)

    try:
        result = run(targets, files)
        if options.diff is not None:
            _compare_with(result, run, targets, options.diff, settings)
    finally:
        if progress is not None:
            progress.clear()
    _known(settings, result, known, options.write_baseline)
    level = 2 if options.silent else min(options.quiet, 2)
    color = Color(options.color) if options.color is not None else None
    _report(settings, result, targets, level, fmt.value, options.output_file, options.statistics, color)
    return 2 if result.errors else (0 if options.exit_zero or not result.failing else 1)


def _engine_check(
    settings: Resolver, targets: list[Path], files: FileCache, options: CheckOptions, progress: Progress | None
) -> engine.Result:
    from recipelint import engine

    return engine.check(
        targets,
        replace(options, jobs=1 if files.overlay else _jobs(settings, options.jobs)),
        hardware=hardware_loader(options.hardware),
        files=files,
        resolver=settings,
        keep_recipes=False,
        cache=None if options.no_cache or files.overlay else _cache(settings),
        progress=progress,
    )


def _format(output_format: Optional[str], statistics: bool) -> Format:
    """The report's format: GitHub's annotations in a GitHub Actions run unless one is asked for."""
    fmt = Format(output_format or ("github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"))
    if statistics and fmt.value in ("sarif", "github"):
        fail(f"--statistics applies to the text, concise and json formats, not to {fmt.value}, whose readers take one result per finding")
    return fmt


def _report(
    settings: Resolver,
    result: engine.Result,
    targets: list[Path],
    level: int,
    fmt: str,
    output_file: Optional[Path],
    statistics: bool,
    color: Optional[Color],
) -> None:
    """The configuration's errors, the report, and a word when nothing was a recipe."""
    config_errors(settings, result.errors if result.judged else [*result.errors, *unused_profiles(settings)])
    _print_report(result, fmt, output_file, statistics, level, color)
    if not result.parsed and not result.errors and level == 0:
        # as ruff's "No Python files found": a clean report of nothing is not an all clear
        named = ", ".join(str(path) for path in targets) if targets else "the command line"
        echo(
            f"recipelint: no recipes found in {named} (no launch, WeNet/DeepSpeed/Accelerate config or XTuner config recipelint reads)",
            err=True,
        )
        from recipelint.parse.files import printable

        for path, why in result.skipped[:10]:
            echo(printable(f"recipelint: skipped {path}: {why}"), err=True)


def _known(settings: Resolver, result: engine.Result, known: Counter[str] | None, write_baseline: Optional[Path]) -> None:
    """--baseline: drop the findings the baseline holds; --write-baseline: write this run's."""
    from recipelint import engine

    if known is not None:
        from recipelint.baseline import apply_baseline

        apply_baseline(result, known, lambda d: engine.fails(settings, d))
    if write_baseline is not None:
        from recipelint.baseline import write_baseline as write

        echo(f"recipelint: wrote {write(write_baseline, result)} findings to {write_baseline}", err=True)


def _read_baseline(path: Path) -> Counter[str]:
    from recipelint.baseline import read_baseline
    from recipelint.parse.files import SourceError

    try:
        return read_baseline(path)
    except SourceError as error:
        fail(str(error))


def _compare_with(result: engine.Result, run: Callable[..., engine.Result], targets: list[Path], rev: str, settings: Resolver) -> None:
    """`--diff REV`: the same check of the repository as it was at REV, and the findings it had
    too turned into infos (recipelint.baseline.apply_diff)."""
    from recipelint import engine
    from recipelint.baseline import apply_diff, git_top, mapped, tree_at
    from recipelint.fingerprint import fingerprints
    from recipelint.parse.files import FileCache, SourceError

    try:
        top = git_top(Path.cwd())
        with tree_at(top, rev) as tree:
            old_files = FileCache()
            before = run(mapped(targets, top, tree), old_files, cached=False)
            known = Counter(fingerprints(before.diagnostics, old_files, tree))
    except SourceError as error:
        fail(str(error))
    apply_diff(result, known, top, rev, lambda d: engine.fails(settings, d))


def _show_settings(settings: Resolver, targets: list[Path]) -> int:
    import json

    from recipelint.parse.files import SourceError

    try:
        shown = {str(path): settings.for_path(path).as_dict() for path in targets}
    except SourceError as error:
        fail(str(error))
    echo(json.dumps(shown, indent=2))
    return 0


def _progress(quiet: int | bool) -> Progress | None:
    """The progress line, only on a terminal's stderr (never in a log or a pipe) and not with -q."""
    if quiet or not sys.stderr.isatty():
        return None
    from recipelint.report.progress import Progress

    return Progress(sys.stderr)


def render(result: engine.Result, fmt: str, statistics: bool, quiet: int) -> str:
    """The report in a format: with --statistics, the table (text formats) or the json with its
    `statistics` object; with -q, the text formats' findings without the machine line and summary."""
    from recipelint.report import reporter

    if statistics and fmt in ("text", "concise"):
        from recipelint.report.statistics import table

        return table(result.diagnostics)
    if statistics and fmt == "json":
        from recipelint.report.jsonout import render_with_statistics

        return render_with_statistics(result)
    if quiet and fmt in ("text", "concise"):
        from recipelint.report.text import render_quiet

        return render_quiet(result, concise=fmt == "concise")
    return reporter(fmt)(result)


def _print_report(
    result: engine.Result, fmt: str, output_file: Optional[Path], statistics: bool, quiet: int, color: Optional[Color]
) -> None:
    """The report on stdout (coloured by the usual rules in the text formats) or in the file;
    the file errors on stderr. `quiet` 2 (-qq, --silent) prints no report."""
    report = render(result, fmt, statistics, quiet)
    if fmt not in ("json", "concise"):  # those two carry the file errors in the report itself
        print_errors(result.errors)
    if output_file is not None:
        output_file.write_text(report + "\n", encoding="utf-8")
    elif report and quiet < 2:
        if fmt in ("text", "concise") and use_color(color):
            from recipelint.parse.files import terminal_text
            from recipelint.report.text import colour

            echo(colour(terminal_text(report)), raw=True)
        else:
            echo(report)


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
