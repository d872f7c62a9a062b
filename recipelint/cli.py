"""The command line: check, fix, probe, rules, rule. Heavy modules load inside each command."""

from __future__ import annotations

import os
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="Lint and tune deep-learning training recipes (WeNet, DeepSpeed, XTuner) against the hardware they will run on.",
)


class Format(str, Enum):
    text = "text"
    concise = "concise"
    json = "json"


PathsArg = Annotated[Optional[list[Path]], typer.Argument(help="Recipe folders, run scripts, or configs. Default: the current folder.")]
HardwareOpt = Annotated[Optional[Path], typer.Option("--hardware", help="A hardware profile (from `recipelint probe --output`) instead of probing this machine.")]
FormatOpt = Annotated[Format, typer.Option("--format", help="Output format.")]


def _fail(message: str) -> None:
    typer.echo(f"recipelint: error: {message}", err=True)
    raise typer.Exit(2)


def _hardware_loader(path: Optional[Path]):  # type: ignore[no-untyped-def]
    from recipelint.hardware.profile import Hardware

    cache: dict[str, Hardware] = {}

    def load() -> Hardware:
        if "hw" not in cache:
            if path is not None:
                from recipelint.hardware.profile import load_profile

                cache["hw"] = load_profile(path)
            else:
                from recipelint.hardware.probe import probe

                cache["hw"] = probe()
        return cache["hw"]

    return load, cache


def _print_errors(errors: list) -> None:  # type: ignore[type-arg]
    for error in errors:
        typer.echo(f"{error}", err=True)


@app.command()
def check(
    paths: PathsArg = None,
    hardware: HardwareOpt = None,
    output_format: FormatOpt = Format.text,
) -> None:
    """Check recipes and print what is wrong, why, and the suggested values."""
    from recipelint import engine
    from recipelint.report import jsonout, text
    from recipelint.sources.files import FileCache, SourceError

    if hardware is not None and not hardware.is_file():
        _fail(f"{hardware}: no such hardware profile")
    load, cache = _hardware_loader(hardware)
    files = FileCache()
    try:
        result = engine.check(paths or [Path(".")], load, files)
    except SourceError as error:  # the hardware profile itself is bad
        _fail(str(error))
    hw = cache.get("hw")
    if output_format is Format.json:
        typer.echo(jsonout.render(result.diagnostics, result.errors, hw))
    else:
        _print_errors(result.errors)
        body = text.render(result.diagnostics, files, concise=output_format is Format.concise)
        if body.strip():
            typer.echo(body.rstrip("\n") + ("\n" if output_format is Format.text else ""))
        typer.echo(text.summary(result.diagnostics, len(result.errors)))
    raise typer.Exit(2 if result.errors else (1 if result.diagnostics else 0))


@app.command()
def fix(
    paths: PathsArg = None,
    hardware: HardwareOpt = None,
    write: Annotated[bool, typer.Option("--write", help="Write the fixes to the files.")] = False,
    diff: Annotated[bool, typer.Option("--diff", help="Print a unified diff and write nothing (the default without --write).")] = False,
    unsafe_fixes: Annotated[bool, typer.Option("--unsafe-fixes", help="Also apply fixes marked unsafe.")] = False,
) -> None:
    """Apply fixes: print the diff, or with --write rewrite the values in place."""
    from recipelint import engine
    from recipelint.fix import fix_paths, unified_diff, write_atomic
    from recipelint.report import text
    from recipelint.sources.files import FileCache, SourceError

    if write and diff:
        _fail("--write and --diff exclude each other")
    load, _ = _hardware_loader(hardware)
    targets = paths or [Path(".")]
    last: dict[str, object] = {}

    def run_check(files: FileCache):  # type: ignore[no-untyped-def]
        result = engine.check(targets, load, files)
        last["result"] = result
        return result.diagnostics

    try:
        outcome = fix_paths(run_check, unsafe_fixes)
    except SourceError as error:
        _fail(str(error))
    errors = list(outcome.errors)
    if write:
        for path, data in outcome.changed.items():
            try:
                write_atomic(path, data, outcome.original[path])
                typer.echo(f"fixed {path}")
            except SourceError as error:
                errors.append(error)
    else:
        for path, data in outcome.changed.items():
            typer.echo(unified_diff(path, outcome.original[path], data), nl=False)
    result = last.get("result")
    remaining = result.diagnostics if result is not None else []  # type: ignore[attr-defined]
    errors.extend(result.errors if result is not None else [])  # type: ignore[attr-defined]
    _print_errors(errors)
    verb = "Fixed" if write else "Would fix"
    typer.echo(f"{verb} {len(outcome.applied)} problem{'s' if len(outcome.applied) != 1 else ''} in {len(outcome.changed)} file{'s' if len(outcome.changed) != 1 else ''}; {len(remaining)} remain.", err=not write and bool(outcome.changed))
    if errors:
        raise typer.Exit(2)
    raise typer.Exit(1 if remaining or (outcome.changed and not write) else 0)


@app.command()
def probe(
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Write the profile to this file.")] = None,
    output_format: Annotated[str, typer.Option("--format", help="yaml or json.")] = "yaml",
    profiles: Annotated[Optional[list[Path]], typer.Argument(help="With --merge: the node profiles to merge.")] = None,
    merge: Annotated[bool, typer.Option("--merge", help="Merge the given node profiles into one cluster profile instead of probing.")] = False,
    root: Annotated[Path, typer.Option("--root", hidden=True, help="Read sysfs/procfs/cgroups under this root (tests).")] = Path("/"),
) -> None:
    """Probe this machine (CPUs, memory, /dev/shm, GPUs, network), or merge node profiles; print or save the profile."""
    from recipelint.hardware.profile import dump_profile
    from recipelint.sources.files import SourceError

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
            typer.echo(f"recipelint: nodes differ in {line}", err=True)
    else:
        from recipelint.hardware.probe import probe as run_probe

        hardware = run_probe(root)
    text = dump_profile(hardware, output_format)
    if output is None:
        typer.echo(text, nl=False)
    else:
        output.write_text(text, encoding="utf-8")
        typer.echo(f"wrote {output}", err=True)


@app.command("rules")
def list_rules() -> None:
    """List every rule: code, name, severity, fixable."""
    from recipelint.rules import all_rules

    for rule in all_rules().values():
        typer.echo(f"{rule.code}  {rule.name:<32} {str(rule.severity):<8} {'fixable' if rule.fixable else '-':<8} {rule.summary}")


@app.command("rule")
def show_rule(code: Annotated[str, typer.Argument(help="A rule code (RL102) or name (cpu-oversubscription).")]) -> None:
    """Explain one rule: what it checks, why, an example, its fix and where its numbers come from."""
    from recipelint.rules import all_rules

    rules = all_rules()
    rule = rules.get(code.upper()) or next((r for r in rules.values() if r.name == code), None)
    if rule is None:
        _fail(f"no rule {code!r}; `recipelint rules` lists them")
    assert rule is not None
    typer.echo(f"# {rule.code} {rule.name}\n\nSeverity: {rule.severity}. Fixable: {'yes' if rule.fixable else 'no'}. Source: {rule.source}.\n\n{rule.doc.strip()}")


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)
    except SystemExit:
        raise
    except Exception as exc:  # a bug in recipelint: one line, exit 2, traceback only when asked
        if os.environ.get("RECIPELINT_DEBUG"):
            raise
        print(f"recipelint: internal error: {type(exc).__name__}: {exc} (set RECIPELINT_DEBUG=1 for a traceback)", file=sys.stderr)
        sys.exit(2)
