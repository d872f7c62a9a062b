"""`recipelint check`'s options, defined once: `CheckOptions` is the record the command line (the
typer command in recipelint.cli and the fast parser in recipelint.main, both built from `FLAGS`),
the settings files (`Option.setting`: the key that sets it under `[tool.recipelint]`) and the
language server fill, and `engine.check(paths, options)` and `checkcmd.run_check(options)` read.
Adding an option is a field here and its `FLAGS` entry; tests/test_check_options.py fails when a
field has no flag, or neither a settings key nor the reason it has none.

Nothing is imported here that the command line's start-up does not already need."""

from __future__ import annotations

from pathlib import Path

from recipelint.records import dataclass, fields


@dataclass(frozen=True)
class CheckOptions:
    paths: list[Path] | None = None  # None: the current folder (or only --command)
    hardware: Path | None = None  # a profile, or `host`
    output_format: str | None = None  # a reporter's name (recipelint.report.REPORTERS)
    output_file: Path | None = None
    statistics: bool = False
    config: Path | None = None
    isolated: bool = False
    show_settings: bool = False
    no_inline_ignores: bool = False
    exit_zero: bool = False
    model_params: float | None = None
    command: str | None = None
    jobs: int | None = None  # None: the settings' or the run's measured cost decides
    no_cache: bool = False
    add_ignore: bool = False
    select: list[str] | None = None
    extend_select: list[str] | None = None
    ignore: list[str] | None = None
    quiet: int = 0
    silent: bool = False
    color: str | None = None  # auto, always, never
    stdin_filename: Path | None = None
    baseline: Path | None = None
    write_baseline: Path | None = None
    diff: str | None = None

    @classmethod
    def of(cls, values: dict[str, object]) -> CheckOptions:
        """The options from keyword values (the typer command's, the fast parser's), each field
        not given at its default."""
        return cls(**{name: value for name, value in values.items() if name in names()})  # type: ignore[arg-type]


@dataclass(frozen=True)
class Option:
    """How a field of CheckOptions is given on the command line, and whether a settings file sets it."""

    names: tuple[str, ...]  # the flags (`--output-file`, `-o`); () for the paths argument
    kind: str  # how its words are read: path, text, float, jobs, format, color, list, flag, count, paths
    help: str
    setting: str = ""  # the `[tool.recipelint]` key that sets it for the files under that config
    no_setting: str = ""  # else why no settings file sets it


_RUN = "an action of this run, not a property of the files"
_REPORT = "how this run's report is shown, which the files do not decide"

FLAGS: dict[str, Option] = {
    "paths": Option((), "paths", "Recipe folders, run scripts, or configs. Default: the current folder.", no_setting="what to check"),
    "hardware": Option(
        ("--hardware",),
        "path",
        "The training node's profile (from `recipelint probe --output` on the node), or `host` to judge this machine even when it is not the node.",
        setting="hardware",
    ),
    "output_format": Option(
        ("--format",), "format", "Output format (github is the default when GITHUB_ACTIONS is set).", no_setting=_REPORT
    ),
    "output_file": Option(("--output-file", "-o"), "path", "Write the report to this file.", no_setting=_REPORT),
    "statistics": Option(("--statistics",), "flag", "Print the number of findings per rule.", no_setting=_REPORT),
    "config": Option(
        ("--config",), "path", "Use this recipelint.toml or pyproject.toml for every file.", no_setting="it names the settings file"
    ),
    "isolated": Option(("--isolated",), "flag", "Ignore every configuration file.", no_setting="it turns the settings files off"),
    "show_settings": Option(("--show-settings",), "flag", "Print the settings in force for each path and exit.", no_setting=_RUN),
    "no_inline_ignores": Option(
        ("--no-inline-ignores",),
        "flag",
        "Ignore `# recipelint: ignore[...]` comments.",
        no_setting="the comments are the files' own settings",
    ),
    "exit_zero": Option(
        ("--exit-zero",),
        "flag",
        "Exit 0 even when there are findings (2 still means an error).",
        no_setting="`fail-on` sets what fails, per file",
    ),
    "model_params": Option(
        ("--model-params",), "float", "Model parameter count (e.g. 7e9), for the DeepSpeed offload memory check.", setting="model-params"
    ),
    "command": Option(
        ("--command",),
        "text",
        "Lint one launch command line, e.g. 'NNODES=2 NPROC_PER_NODE=8 xtuner train cfg.py'.",
        no_setting="what to check",
    ),
    "jobs": Option(("--jobs",), "jobs", "Use at most N processes (default: the CPUs, when the work pays for them).", setting="jobs"),
    "no_cache": Option(
        ("--no-cache",),
        "flag",
        "Neither read nor write the result cache (.recipelint_cache).",
        no_setting="`cache-dir` says where the cache is",
    ),
    "add_ignore": Option(
        ("--add-ignore",), "flag", "Write `# recipelint: ignore[CODE] TODO: ...` on the line of every current finding.", no_setting=_RUN
    ),
    "select": Option(
        ("--select",),
        "list",
        "Check only these rule codes or prefixes (RL102, RL4, ALL; comma-separated or repeated), instead of the settings' select.",
        setting="select",
    ),
    "extend_select": Option(
        ("--extend-select",), "list", "Check these rule codes or prefixes as well as the settings' selection.", setting="extend-select"
    ),
    "ignore": Option(("--ignore",), "list", "Do not check these rule codes or prefixes (over the settings).", setting="ignore"),
    "quiet": Option(
        ("--quiet", "-q"), "count", "Print the findings only, no summary; -qq prints nothing (the exit code says).", no_setting=_REPORT
    ),
    "silent": Option(("--silent", "-s"), "flag", "Print no report (as -qq); errors still go to stderr.", no_setting=_REPORT),
    "color": Option(
        ("--color",),
        "color",
        "Colour the text formats: auto (a terminal, unless NO_COLOR; FORCE_COLOR forces), always, never.",
        no_setting=_REPORT,
    ),
    "stdin_filename": Option(
        ("--stdin-filename",),
        "path",
        "With `-` as the path: the name of the file read from stdin (its kind, and the path shown).",
        no_setting="it names the text this run reads",
    ),
    "baseline": Option(
        ("--baseline",),
        "path",
        "Report only findings this baseline (from --write-baseline) does not hold.",
        no_setting="a run's comparison",
    ),
    "write_baseline": Option(("--write-baseline",), "path", "Write the findings of this run to FILE as a baseline.", no_setting=_RUN),
    "diff": Option(
        ("--diff",),
        "text",
        "Fail only on findings the tree at git revision REV did not have; those it had are infos.",
        no_setting="a run's comparison",
    ),
}


def names() -> tuple[str, ...]:
    """CheckOptions' fields, in order."""
    return tuple(item.name for item in fields(CheckOptions))


def as_values(options: CheckOptions) -> dict[str, object]:
    """The options as keyword values, every field."""
    return {name: getattr(options, name) for name in names()}
