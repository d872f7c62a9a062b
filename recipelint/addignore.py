"""`recipelint check --add-ignore`: a suppression with a reason to fill in on the line of every
current finding, as ruff's `--add-noqa`, so a tree with many findings adopts recipelint at once
and each later finding is new.

The comment is appended to the finding's line (`x=1  # recipelint: ignore[RL102] TODO: ...`),
or its codes join the suppression already there; a line continued with `\\` takes it at the end
of the command's last line, which covers the whole command. JSON has
no comments (per-file-ignores serve it) and Markdown is documentation: both are left and counted.
Files are written as fixes are (recipelint.fix: re-parsed, atomically, inside the linted tree),
and only when a second check with the comments in place reports none of those findings and
nothing new.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from recipelint.console import echo, print_errors

if TYPE_CHECKING:
    from recipelint.checkoptions import CheckOptions
    from recipelint.diagnostics import Diagnostic, Edit
    from recipelint.hardware.profile import Hardware
    from recipelint.parse.files import FileCache, SourceError
    from recipelint.parse.span import SourceText
    from recipelint.parse.suppressions import Suppression
    from recipelint.settings import Resolver

    Key = tuple[Path, str, str]  # a finding: its file, code and message

REASON = "TODO: say why this finding does not apply"
# Findings about suppressions themselves: a suppression of those would hide its own problem.
META = frozenset({"RL002", "RL003", "RL005"})
COMMENTED = ("script", "yaml", "python")


def add_ignores(
    targets: list[Path],
    hardware: Callable[[], Hardware] | None,
    resolver: Resolver,
    options: CheckOptions | None = None,
) -> int:
    """Check, write the suppressions, say how many were added; the exit code (2 on a file error).
    Of `options`, the launch (`--command`) and the model size count: every finding is written
    down, whatever the comments already say, in one process."""
    from recipelint import engine
    from recipelint.checkoptions import CheckOptions
    from recipelint.parse.files import FileCache

    given = options or CheckOptions()
    checked = CheckOptions(command=given.command, model_params=given.model_params)

    def run(files: FileCache) -> tuple[list[Diagnostic], list[SourceError]]:
        result = engine.check(targets, checked, hardware=hardware, files=files, resolver=resolver, keep_recipes=False)
        return result.diagnostics, result.errors

    files = FileCache()
    before, errors = run(files)
    planned, left, covered = plan(before, files)
    if planned:
        after, after_errors = run(FileCache(overlay={path: new for path, (_, new, _) in planned.items()}))
        refused = _refused(covered, {_key(d) for d in before}, after, {(e.path, e.reason) for e in errors}, after_errors, set(planned))
    else:
        refused = {}
    added, written = _write(planned, refused, targets, errors)
    print_errors(errors)
    echo(f"Added {added} suppression{'s' if added != 1 else ''} in {written} file{'s' if written != 1 else ''}.", err=True)
    for why, count in sorted(left.items()):
        echo(f"{count} finding{'s' if count != 1 else ''} left without one: {why}", err=True)
    return 2 if errors else 0


def _write(
    planned: dict[Path, tuple[bytes, bytes, int]], refused: dict[Path, str], targets: list[Path], errors: list[SourceError]
) -> tuple[int, int]:
    """Write each planned file as a fix is written; the suppressions added and the files written."""
    from recipelint.fix import write_atomic, write_roots
    from recipelint.parse.files import SourceError

    added = written = 0
    roots = write_roots(targets) if targets else [Path(".").resolve()]
    for path, (old, new, count) in planned.items():
        if path in refused:
            errors.append(SourceError(path, f"suppressions not added: with them in place, {refused[path]}"))
            continue
        try:
            write_atomic(path, new, old, roots)
        except SourceError as error:
            errors.append(error)
            continue
        added += count
        written += 1
    return added, written


def plan(diagnostics: list[Diagnostic], files: FileCache) -> tuple[dict[Path, tuple[bytes, bytes, int]], dict[str, int], set[Key]]:
    """Per file: its bytes, the bytes with the suppressions, and how many findings they cover;
    the findings left without one, by reason; and those the suppressions are to cover."""
    from recipelint.parse import kind_of

    lines: dict[Path, dict[int, list[Diagnostic]]] = {}
    left: dict[str, int] = {}
    for diagnostic in diagnostics:
        if diagnostic.code in META:
            continue
        path = diagnostic.span.path
        kind = kind_of(path)
        if kind not in COMMENTED:
            why = "JSON has no comments; use per-file-ignores" if kind == "json" else f"not written in {kind or 'this kind of'} files"
            left[why] = left.get(why, 0) + 1
            continue
        line = _line_for(diagnostic, files)
        if line is None:
            left["its line cannot end with a comment"] = left.get("its line cannot end with a comment", 0) + 1
            continue
        lines.setdefault(path, {}).setdefault(line, []).append(diagnostic)
    planned: dict[Path, tuple[bytes, bytes, int]] = {}
    covered: set[Key] = set()
    for path, by_line in lines.items():
        found = [d for items in by_line.values() for d in items]
        edited = _edited(path, {line: [d.code for d in items] for line, items in by_line.items()}, files)
        if edited is None:
            left["the file would no longer parse"] = left.get("the file would no longer parse", 0) + len(found)
            continue
        planned[path] = (*edited, len(found))
        covered.update(_key(d) for d in found)
    return planned, left, covered


def _line_for(diagnostic: Diagnostic, files: FileCache) -> int | None:
    """The line the comment goes on: the finding's, or the last of the command it is part of when
    its line continues with a backslash (a comment there would end the command; one at the command's end
    covers all of it: recipelint.parse.suppressions)."""
    from recipelint.parse.files import SourceError

    try:
        source = files.read(diagnostic.span.path)
    except SourceError:
        return None
    line = diagnostic.span.line
    total = source.text.count("\n") + 1
    while line < total and source.line_text(line).rstrip().endswith("\\"):
        line += 1
    return line if not source.line_text(line).rstrip().endswith("\\") else None


def _edited(path: Path, by_line: dict[int, list[str]], files: FileCache) -> tuple[bytes, bytes] | None:
    """The file's bytes before and after the suppressions; None when the result does not parse."""
    from recipelint.fix import apply_edits, reparse
    from recipelint.parse.files import SourceError
    from recipelint.parse.suppressions import read_suppressions

    try:
        source = files.read(path)
    except SourceError:
        return None
    existing = {s.span.line: s for s in read_suppressions(path, files) if not s.standalone and not s.whole_file}
    edits = [_edit(source, line, sorted(set(codes)), existing.get(line)) for line, codes in by_line.items()]
    after = apply_edits(source.data, edits)
    try:
        reparse(path, after, source.data)
    except SourceError:
        return None
    return source.data, after


def _edit(source: SourceText, line: int, codes: list[str], existing: Suppression | None) -> Edit:
    """The codes added to the suppression already on the line, or a new comment at its end."""
    from recipelint.diagnostics import Edit

    if existing is not None and existing.bracket is not None:
        return Edit(existing.bracket, ", ".join([*existing.written, *(c for c in codes if c not in existing.codes)]))
    text = source.line_text(line)
    if line == 1:
        text = text.removeprefix("\ufeff")  # a byte order mark is not a column (SourceText.offset)
    end = source.offset(line - 1, len(text))
    return Edit(source.span(end, end), f"  # recipelint: ignore[{', '.join(codes)}] {REASON}")


def _key(diagnostic: Diagnostic) -> Key:
    return (diagnostic.span.path, diagnostic.code, diagnostic.message)


def _refused(
    covered: set[Key],
    before: set[Key],
    after: list[Diagnostic],
    errors: set[tuple[Path, str]],
    after_errors: list[SourceError],
    planned: set[Path],
) -> dict[Path, str]:
    """Files whose comments did not do what they should: a finding meant to be covered is still
    reported, or the check says something new there (a comment read as data, not as a comment)."""
    refused: dict[Path, str] = {}
    for error in after_errors:
        if error.path in planned and (error.path, error.reason) not in errors:
            refused[error.path] = f"the file no longer reads: {error.reason}"
    for d in after:
        if d.span.path in planned and _key(d) in covered:
            refused[d.span.path] = f"{d.code} at line {d.span.line} is still reported"
        elif d.span.path in planned and d.code not in META and _key(d) not in before:
            refused[d.span.path] = f"the check reports {d.code} at line {d.span.line}, which it did not before"
    return refused
