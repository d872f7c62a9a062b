"""The command line: check, fix, show, diagnose, tune, probe, rules, rule. Heavy modules load inside each command."""

from __future__ import annotations

import inspect
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

if TYPE_CHECKING:
    from recipelint.context import Context
    from recipelint.diagnostics import Diagnostic
    from recipelint.engine import Result
    from recipelint.fix import FixOutcome
    from recipelint.model import Recipe
    from recipelint.parse.files import SourceError

from recipelint.checkcmd import Color, Format, hardware_loader, resolver
from recipelint.checkoptions import FLAGS, CheckOptions, as_values
from recipelint.console import echo, fail, print_errors, report_crash

app = typer.Typer(
    add_completion=True,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="Lint and tune deep-learning training recipes (WeNet, DeepSpeed, XTuner) against the hardware they will run on.",
)


def version_text() -> str:
    """The release and the upstream knowledge it carries (the newest releases its tables know)."""
    import recipelint.toolkits  # noqa: F401  (the toolkits register their own packages' releases)
    from recipelint import __version__
    from recipelint.versions import KNOWN, NEWEST

    known = ", ".join(f"{name} {release}" for name, release in sorted(NEWEST.items()))
    lines = [f"recipelint {__version__}", f"knows upstream releases up to: {known}"]
    for name, newest in sorted(NEWEST.items()):
        # each table row is a release where a behaviour recipelint judges changed, with its date or change
        rows = KNOWN.get(name, ())
        note = next((what for release, what in rows if release == newest), "")
        lines.append(f"  {name}: {len(rows)} releases where behaviour it judges changes, newest {newest}" + (f" ({note})" if note else ""))
    return "\n".join(lines)


def _print_version(value: bool) -> None:
    if value:
        echo(version_text())
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Print the version and the releases it knows, and exit."),
    ] = False,
) -> None:
    """Lint and tune deep-learning training recipes (WeNet, DeepSpeed, XTuner) against the hardware they will run on."""


_TYPES: dict[str, Any] = {
    "paths": Optional[list[Path]],
    "path": Optional[Path],
    "text": Optional[str],
    "float": Optional[float],
    "jobs": Optional[int],
    "format": Optional[Format],
    "color": Optional[Color],
    "list": Optional[list[str]],
    "flag": bool,
    "count": int,
}


def _annotated(name: str) -> Any:
    """The typer parameter of CheckOptions' field `name`, from its FLAGS entry: the one definition
    `check` and the other commands that take the same option share."""
    option = FLAGS[name]
    kind = _TYPES[option.kind]
    if option.kind == "paths":
        return Annotated[kind, typer.Argument(help=option.help)]
    extra: dict[str, Any] = {"count": True} if option.kind == "count" else {"min": 1} if option.kind == "jobs" else {}
    if name == "diff":
        extra["metavar"] = "REV"
    return Annotated[kind, typer.Option(*option.names, help=option.help, **extra)]


# The options other commands share with `check`, each as its FLAGS entry defines it (the type
# checker sees the plain type; typer, the Annotated one).
if TYPE_CHECKING:
    PathsArg = Optional[list[Path]]
    HardwareOpt = Optional[Path]
    FormatOpt = Optional[Format]
    ConfigOpt = Optional[Path]
    IsolatedOpt = bool
    NoInlineOpt = bool
    ExitZeroOpt = bool
    SelectOpt = Optional[list[str]]
    ExtendSelectOpt = Optional[list[str]]
    IgnoreOpt = Optional[list[str]]
    StdinNameOpt = Optional[Path]
else:
    PathsArg = _annotated("paths")
    HardwareOpt = _annotated("hardware")
    FormatOpt = _annotated("output_format")
    ConfigOpt = _annotated("config")
    IsolatedOpt = _annotated("isolated")
    NoInlineOpt = _annotated("no_inline_ignores")
    ExitZeroOpt = _annotated("exit_zero")
    SelectOpt = _annotated("select")
    ExtendSelectOpt = _annotated("extend_select")
    IgnoreOpt = _annotated("ignore")
    StdinNameOpt = _annotated("stdin_filename")


_fail = fail
_print_errors = print_errors
_hardware = hardware_loader
_resolver = resolver


def _print_machine(result) -> None:  # type: ignore[no-untyped-def]
    """`Hardware: ...` on stderr: which machine the fixes were derived from, and why."""
    if result is not None:
        from recipelint.hardware.report import summary_line

        echo(summary_line(result.judged, result.hardware), err=True)


SuggestionsOpt = Annotated[
    Optional[Path],
    typer.Option(
        "--suggestions",
        help="Write the fixes to FILE as GitHub pull-request review comments with suggestion blocks (JSON; `-`: stdout); nothing else is written.",
    ),
]


def check(**values: Any) -> None:
    """Check recipes and print what is wrong, why, and the suggested values. `-` reads one from stdin."""
    from recipelint import checkcmd

    raise typer.Exit(checkcmd.run_check(CheckOptions.of(values)))


# Its parameters are CheckOptions' fields, each as FLAGS defines it: an option added there is
# an option of `check` here, with nothing to write twice.
_PARAMETERS = [
    inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=_annotated(name))
    for name, default in as_values(CheckOptions()).items()
]
check.__signature__ = inspect.Signature(_PARAMETERS)  # type: ignore[attr-defined]
check.__annotations__ = {parameter.name: parameter.annotation for parameter in _PARAMETERS} | {"return": None}
app.command()(check)


@app.command()
def fix(
    paths: PathsArg = None,
    hardware: HardwareOpt = None,
    write: Annotated[bool, typer.Option("--write", help="Write the fixes to the files.")] = False,
    diff: Annotated[bool, typer.Option("--diff", help="Print a unified diff and write nothing (the default without --write).")] = False,
    unsafe_fixes: Annotated[bool, typer.Option("--unsafe-fixes", help="Also apply fixes marked unsafe.")] = False,
    show_fixes: Annotated[bool, typer.Option("--show-fixes", help="List the fixes applied.")] = False,
    suggestions: SuggestionsOpt = None,
    config: ConfigOpt = None,
    isolated: IsolatedOpt = False,
    no_inline_ignores: NoInlineOpt = False,
    exit_zero: ExitZeroOpt = False,
    select: SelectOpt = None,
    extend_select: ExtendSelectOpt = None,
    ignore: IgnoreOpt = None,
    stdin_filename: StdinNameOpt = None,
) -> None:
    """Apply fixes: print the diff, or with --write rewrite the values in place. `-` fixes the text on stdin and prints it."""
    from recipelint import checkcmd, engine
    from recipelint.fix import fix_paths
    from recipelint.parse.files import FileCache, SourceError

    if write and diff:
        _fail("--write and --diff exclude each other")
    if suggestions is not None and (write or diff):
        _fail("--suggestions writes review comments instead of the files: leave out --write and --diff")
    loader = _hardware(hardware)
    resolver = _resolver(config, isolated, checkcmd.selection(select, extend_select, ignore))
    stdin = FileCache()
    targets = checkcmd.read_stdin(paths or [Path(".")], stdin_filename, stdin)
    checkcmd.preflight(resolver, targets)
    last: dict[str, engine.Result] = {}

    def run_check(files: FileCache):  # type: ignore[no-untyped-def]
        result = engine.check(targets, CheckOptions(no_inline_ignores=no_inline_ignores), hardware=loader, files=files, resolver=resolver)
        last["result"] = result
        return result.diagnostics

    try:
        outcome = fix_paths(run_check, unsafe_fixes, stdin.overlay)
    except SourceError as error:
        _fail(str(error))
    result = last.get("result")
    if result is not None:
        checkcmd.config_errors(resolver, result.errors if result.judged else [*result.errors, *checkcmd.unused_profiles(resolver)])
    write_errors: list[SourceError] = []
    if suggestions is not None:
        written = _write_suggestions(outcome, suggestions)
    elif stdin.overlay and not diff:
        written = _print_fixed(outcome, stdin.overlay)
    else:
        written, write_errors = _write_or_diff(outcome, write, targets)
    raise typer.Exit(
        _fix_summary(outcome, result, write or bool(stdin.overlay and not diff), write_errors, written, show_fixes, unsafe_fixes, exit_zero)
    )


def _write_suggestions(outcome: FixOutcome, target: Path) -> int:
    """`fix --suggestions FILE`: the fixes as review comments (recipelint.report.review.suggestions)."""
    import json

    from recipelint.report.review import suggestions

    text = json.dumps(suggestions(outcome.original, outcome.changed), indent=2) + "\n"
    if str(target) == "-":
        echo(text, nl=False, raw=True)
    else:
        target.write_text(text, encoding="utf-8")
    return 0


def _print_fixed(outcome: FixOutcome, stdin: dict[Path, bytes]) -> int:
    """`fix -`: the text read from stdin, fixed, on stdout (as ruff's `--fix -`); nothing is written."""
    for path, data in stdin.items():
        sys.stdout.buffer.write(outcome.changed.get(path, data))
        sys.stdout.flush()
    return len(outcome.changed)


def _fix_summary(
    outcome: FixOutcome,
    result: Result | None,
    write: bool,
    write_errors: list[SourceError],
    written: int,
    show_fixes: bool,
    unsafe_fixes: bool,
    exit_zero: bool,
) -> int:
    """The errors, the machine, the fixes listed, the counts on stderr; the exit code."""
    from recipelint.diagnostics import Applicability

    errors = list(outcome.errors) + write_errors
    remaining = result.diagnostics if result is not None else []
    errors.extend(result.errors if result is not None else [])
    _print_errors(errors)
    _print_machine(result)
    if show_fixes:
        for d in outcome.applied:
            assert d.fix is not None
            echo(f"{d.span}: {d.code} {d.fix.title}", err=True)
    verb = "Fixed" if write else "Would fix"
    files = written if write else len(outcome.changed)
    # with --write, only the problems of files that were written count as fixed
    applied = [d for d in outcome.applied if not write or d.span.path not in {e.path for e in write_errors}]
    plural = "s" if len(applied) != 1 else ""
    echo(f"{verb} {len(applied)} problem{plural} in {files} file{'s' if files != 1 else ''}; {len(remaining)} remain.", err=True)
    hidden = sum(1 for d in remaining if d.fix is not None and d.fix.applicability is Applicability.UNSAFE)
    if hidden and not unsafe_fixes:
        echo(f"{hidden} more fixable with --unsafe-fixes.", err=True)
    if errors:
        return 2
    failing = result.failing if result is not None else 0
    return 0 if exit_zero else (1 if failing or (outcome.changed and not write) else 0)


def _write_or_diff(outcome, write: bool, targets: list[Path]) -> tuple[int, list]:  # type: ignore[no-untyped-def, type-arg]
    """Write the fixed files (atomically, inside the linted tree), or print their diff; how many
    files were written, and the write errors (one refused write never stops the others)."""
    from recipelint.fix import unified_diff, write_atomic, write_roots
    from recipelint.parse.files import SourceError

    errors = []
    written = 0
    roots = write_roots(targets)
    for path, data in outcome.changed.items():
        if not write:
            echo(unified_diff(path, outcome.original[path], data), nl=False, raw=True)
            continue
        try:
            write_atomic(path, data, outcome.original[path], roots, outcome.stamps.get(path))
            written += 1
            echo(f"fixed {path}", err=True)
        except SourceError as error:
            errors.append(error)
    return written, errors


@app.command()
def diagnose(
    paths: Annotated[
        list[Path],
        typer.Argument(help="Training logs (plain or .gz, several ranks' at once), then the recipe's folders, scripts or configs."),
    ],
    hardware: HardwareOpt = None,
    output_format: FormatOpt = None,
    output_file: Annotated[Optional[Path], typer.Option("--output-file", "-o", help="Write the report to this file.")] = None,
    fix: Annotated[
        bool, typer.Option("--fix", help="Apply the recipe fixes behind the diagnosis: print the diff, or write with --write.")
    ] = False,
    write: Annotated[bool, typer.Option("--write", help="With --fix: write the fixes to the files.")] = False,
    unsafe_fixes: Annotated[bool, typer.Option("--unsafe-fixes", help="With --fix: also apply fixes marked unsafe.")] = False,
    config: ConfigOpt = None,
    isolated: IsolatedOpt = False,
) -> None:
    """Read training logs, find known failure signatures, and trace each to its likely causes in the recipe."""
    from recipelint.diagnose.command import run

    if write and not fix:
        _fail("--write applies fixes: use it with --fix")
    fmt = output_format or Format("github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text")
    code = run(paths, _hardware(hardware), _resolver(config, isolated), fmt.value, output_file, fix, write, unsafe_fixes, _write_or_diff)
    raise typer.Exit(code)


@app.command()
def show(
    paths: PathsArg = None,
    hardware: HardwareOpt = None,
    output_format: Annotated[str, typer.Option("--format", help="text or json.")] = "text",
    config: ConfigOpt = None,
    isolated: IsolatedOpt = False,
) -> None:
    """Show each recipe as recipelint reads it: launches, world size, configs, data, and where each value came from."""
    from recipelint import checkcmd, engine
    from recipelint.parse.files import FileCache, printable
    from recipelint.report import show as report

    if output_format not in ("text", "json"):
        _fail("--format is text or json")
    from recipelint.toolkits import not_offered

    descriptions: list[report.Description] = []
    recipes: list[Recipe] = []

    def observe(ctx: Context, found: list[Diagnostic]) -> None:
        descriptions.append(report.describe(ctx, found))
        recipes.append(ctx.recipe)

    settings = _resolver(config, isolated)
    checkcmd.preflight(settings, paths or [Path(".")])
    result = engine.check(
        paths or [Path(".")], hardware=_hardware(hardware), files=FileCache(), resolver=settings, keep_recipes=False, observe=observe
    )
    checkcmd.config_errors(settings, result.errors if result.judged else [*result.errors, *checkcmd.unused_profiles(settings)])
    if output_format == "json":
        used = result.hardware.to_dict() if result.hardware is not None else None
        echo(report.render_json(descriptions, result.errors, used))
    else:
        _print_errors(result.errors)
        echo(report.render_text(descriptions))
        for path, why in result.skipped:  # not recipes, not read: said, never an error of the run
            echo(printable(f"skipped {path}: {why}"))
        for line in not_offered("show", recipes, "described by what every recipe has, nothing of their own"):
            echo(printable(line))
    raise typer.Exit(2 if result.errors else 0)


@app.command()
def probe(
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Write the profile to this file.")] = None,
    output_format: Annotated[str, typer.Option("--format", help="yaml or json.")] = "yaml",
    profiles: Annotated[Optional[list[Path]], typer.Argument(help="With --merge: the node profiles to merge.")] = None,
    merge: Annotated[
        bool, typer.Option("--merge", help="Merge the given node profiles into one cluster profile instead of probing.")
    ] = False,
    root: Annotated[Path, typer.Option("--root", hidden=True, help="Read sysfs/procfs/cgroups under this root (tests).")] = Path("/"),
) -> None:
    """Probe this machine (CPUs, memory, /dev/shm, GPUs, network), or merge node profiles; print or save the profile."""
    from recipelint.hardware.profile import dump_profile
    from recipelint.parse.files import SourceError

    if output_format not in ("yaml", "json"):
        _fail("--format is yaml or json")
    if profiles and not merge:
        _fail("profiles are only read with --merge")
    if merge:
        if not profiles:
            _fail("--merge needs the node profiles: recipelint probe --merge a.yaml b.yaml --output cluster.yaml")
        from recipelint.hardware.merge import merge as merge_profiles
        from recipelint.hardware.profile import load_profile

        try:
            hardware = merge_profiles([(path, load_profile(path)) for path in profiles or []])
        except SourceError as error:
            _fail(str(error))
        for line in hardware.differs:
            echo(f"recipelint: nodes differ in {line}", err=True)
    else:
        from recipelint.hardware.probe import probe as run_probe

        hardware = run_probe(root)
    text = dump_profile(hardware, output_format)
    if output is None:
        echo(text, nl=False)
    else:
        output.write_text(text, encoding="utf-8")
        echo(f"wrote {output}", err=True)


@app.command()
def tune(
    paths: PathsArg = None,
    hardware: HardwareOpt = None,
    measure: Annotated[
        bool,
        typer.Option(
            "--measure",
            help="Run the recipe's own dataset pipeline (needs torch and the WeNet checkout) and save what it measures in the --hardware profile.",
        ),
    ] = False,
    checkout: Annotated[
        Optional[Path], typer.Option("--checkout", help="The WeNet checkout to measure with (default: path.sh's PYTHONPATH).")
    ] = None,
    batches: Annotated[int, typer.Option("--batches", min=10, help="Batches timed per num_workers candidate.")] = 200,
    time_limit: Annotated[
        float, typer.Option("--time-limit", min=10, help="Seconds before the measurement is stopped (nothing is written then).")
    ] = 900,
    config: ConfigOpt = None,
    isolated: IsolatedOpt = False,
) -> None:
    """Print the loader plan (num_workers, prefetch, memory) of each WeNet recipe; --measure first measures it."""
    from recipelint import tune as tuning

    targets = paths or [Path(".")]
    resolver = _resolver(config, isolated)
    if measure and hardware is None:
        _fail("--measure writes its results into a profile: pass --hardware node.yaml (made by `recipelint probe --output`)")
    given = _hardware(hardware)
    found, errors, skipped = tuning.recipes(targets, given, resolver)
    for line in [*errors, *skipped]:
        echo(line, err=True)
    if measure:
        assert hardware is not None and given is not None
        _measure(tuning, found, given, resolver, hardware, checkout, batches, time_limit)
        given = _hardware(hardware)
    from recipelint.hardware.machines import Machines

    machines = Machines(given)
    for recipe in found:
        loader, refused = tuning.judged_machine(machines, recipe, resolver)
        if refused is not None:
            where = recipe.script.source.path if recipe.script else recipe.root
            echo(
                f"{where}: not tuned: {refused}; on the training node run `recipelint probe --output node.yaml`, "
                "then pass --hardware node.yaml (or set hardware in recipelint.toml)"
            )
            continue
        echo("\n".join(tuning.describe(tuning.context(recipe, loader, resolver))))
    raise typer.Exit(2 if errors else 0)


def _measure(tuning, found, loader, resolver, profile: Path, checkout: Optional[Path], batches: int, limit: float) -> None:  # type: ignore[no-untyped-def]
    from recipelint.measure import MeasureError

    for recipe in found:
        with typer.progressbar(length=1, label=f"measuring {recipe.root}", file=sys.stderr) as bar:

            def progress(done: int, total: int) -> None:
                bar.length = total
                bar.update(done - bar.pos)

            try:
                summary = tuning.measure_recipe(tuning.context(recipe, loader, resolver), profile, checkout, batches, limit, progress)
            except MeasureError as error:
                _fail(str(error))
        echo(f"measured {summary}; wrote {profile}", err=True)


@app.command()
def server(
    hardware: HardwareOpt = None,
    stdio: Annotated[
        bool, typer.Option("--stdio", help="Talk over stdin/stdout (the only transport; accepted for clients that pass it).")
    ] = False,
) -> None:
    """Run the language server (LSP over stdio) for editors: findings as you type, fixes, hover."""
    try:
        import pygls  # noqa: F401 - the optional extra: say how to get it, not a traceback
    except ImportError:
        _fail(
            "the language server needs pygls: install recipelint with its server extra (pip install '/path/to/recipelint[server]' from a checkout or a wheel, or pip install 'pygls>=2.1,<3')"
        )
    from recipelint.server.app import main as serve
    from recipelint.server.app import server as language_server

    language_server.state.config.hardware = hardware
    serve()


@app.command("rules")
def list_rules() -> None:
    """List every rule: code, name, severity, fixable."""
    from recipelint.rules import all_rules

    for rule in all_rules().values():
        echo(f"{rule.code}  {rule.name:<32} {str(rule.severity):<8} {'fixable' if rule.fixable else '-':<8} {rule.summary}")


@app.command("rule")
def show_rule(
    code: Annotated[str, typer.Argument(help="A rule code (RL102) or name (cpu-oversubscription).")],
    output_format: Annotated[str, typer.Option("--format", help="markdown or json.")] = "markdown",
) -> None:
    """Explain one rule: what it checks, why, an example, its fix and where its numbers come from."""
    from recipelint.rules import all_rules

    rules = all_rules()
    rule = rules.get(code.upper()) or next((r for r in rules.values() if r.name == code), None)
    if rule is None:
        _fail(f"no rule {code!r}; `recipelint rules` lists them")
    assert rule is not None
    if output_format == "json":
        import json

        data = {
            "code": rule.code,
            "name": rule.name,
            "family": rule.family,
            "severity": str(rule.severity),
            "fixable": rule.fixable,
            "source": rule.source,
            "summary": rule.summary,
            "facts": list(rule.facts),
            "explanation": rule.doc.strip(),
        }
        echo(json.dumps(data, indent=2))
        return
    if output_format != "markdown":
        _fail("--format is markdown or json")
    facts = f" Judges the training node's {', '.join(rule.facts)}." if rule.facts else ""
    echo(
        f"# {rule.code} {rule.name}\n\nSeverity: {rule.severity}. Fixable: {'yes' if rule.fixable else 'no'}. Source: {rule.source}.{facts}\n\n{rule.doc.strip()}"
    )


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)
    except SystemExit:
        raise
    except Exception as exc:
        sys.exit(report_crash(exc))
