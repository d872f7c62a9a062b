"""Apply fixes as byte-range edits, re-parse the result, and write files atomically.

A file is never re-serialised: every byte outside an edit stays as it was. Fixes whose
edits overlap a fix already taken wait for the next pass, after the file is checked again;
passes repeat until nothing changes (like ruff).
"""

from __future__ import annotations

import difflib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from recipelint.diagnostics import Applicability, Diagnostic, Edit
from recipelint.parse import kind_of
from recipelint.parse.files import FileCache, SourceError, read_bytes
from recipelint.parse.span import SourceText
from recipelint.records import dataclass, field

MAX_PASSES = 8


@dataclass
class FixOutcome:
    changed: dict[Path, bytes] = field(default_factory=dict)  # new contents
    original: dict[Path, bytes] = field(default_factory=dict)
    applied: list[Diagnostic] = field(default_factory=list)
    errors: list[SourceError] = field(default_factory=list)


def wanted(diagnostic: Diagnostic, unsafe: bool) -> bool:
    fix = diagnostic.fix
    return fix is not None and (unsafe or fix.applicability is Applicability.SAFE)


def choose_edits(diagnostics: list[Diagnostic], unsafe: bool) -> tuple[dict[Path, list[Edit]], list[Diagnostic]]:
    """Edits per file from fixes that do not overlap each other; the rest wait a pass."""
    taken: dict[Path, list[Edit]] = {}
    chosen: list[Diagnostic] = []
    for diagnostic in diagnostics:
        if not wanted(diagnostic, unsafe):
            continue
        assert diagnostic.fix is not None
        new = [e for e in diagnostic.fix.edits if e not in taken.get(e.span.path, [])]
        if any(_overlaps(e, other) for e in new for other in taken.get(e.span.path, [])):
            continue
        for edit in new:
            taken.setdefault(edit.span.path, []).append(edit)
        chosen.append(diagnostic)
    return taken, chosen


def _overlaps(a: Edit, b: Edit) -> bool:
    if a.span.start == a.span.end == b.span.start == b.span.end:
        return True  # two insertions at one point: order would be arbitrary
    return a.span.start < b.span.end and b.span.start < a.span.end


def apply_edits(data: bytes, edits: list[Edit]) -> bytes:
    out = data
    for edit in sorted(edits, key=lambda e: (e.span.start, e.span.end), reverse=True):
        out = out[: edit.span.start] + edit.content.encode("utf-8") + out[edit.span.end :]
    return out


def reparse(path: Path, data: bytes, before: bytes) -> None:
    """Raise SourceError if the edited file no longer parses (or, for shell, parses worse)."""
    from recipelint.parse.jsonfile import parse_json
    from recipelint.parse.shell import parse_shell
    from recipelint.parse.yamlfile import parse_yaml

    text = SourceText(path, data)
    kind = kind_of(path)
    if kind == "yaml":
        parse_yaml(text)
    elif kind == "json":
        parse_json(text)
    elif kind == "python":
        from recipelint.parse.pyconfig import parse_pyconfig

        parse_pyconfig(text)
    elif kind == "script":
        if parse_shell(text).error_count > parse_shell(SourceText(path, before)).error_count:
            raise SourceError(path, "the fix would leave a shell syntax error; nothing written")


def fix_paths(run_check: Callable[[FileCache], list[Diagnostic]], unsafe: bool) -> FixOutcome:
    """Check, apply the chosen fixes in memory, check again, until no fix applies."""
    outcome = FixOutcome()
    overlay: dict[Path, bytes] = {}
    refused: set[Path] = set()
    for _ in range(MAX_PASSES):
        diagnostics = [d for d in run_check(FileCache(overlay=dict(overlay))) if d.span.path not in refused]
        edits, chosen = choose_edits(diagnostics, unsafe)
        edits = {path: items for path, items in edits.items() if path not in refused}
        if not edits:
            break
        progressed = False
        for path, items in edits.items():
            before = overlay.get(path)
            if before is None:
                before = read_bytes(path)
                outcome.original[path] = before
            after = apply_edits(before, items)
            if after == before:
                continue
            try:
                reparse(path, after, before)
            except SourceError as error:
                outcome.errors.append(
                    SourceError(path, f"fix not applied, the result does not parse: {error.reason}", error.line, error.column)
                )
                refused.add(path)
                continue
            overlay[path] = after
            progressed = True
        outcome.applied.extend(d for d in chosen if d.span.path not in refused)
        if not progressed:
            break
    outcome.changed = {path: data for path, data in overlay.items() if data != outcome.original.get(path)}
    return outcome


def unified_diff(path: Path, before: bytes, after: bytes) -> str:
    a = before.decode("utf-8", "replace").splitlines(keepends=True)
    b = after.decode("utf-8", "replace").splitlines(keepends=True)
    name = str(path) if path.is_absolute() else f"/{path}"
    return "".join(difflib.unified_diff(a, b, f"a{name}", f"b{name}"))


def write_atomic(path: Path, data: bytes, expected: bytes) -> None:
    """Replace `path` with `data` only if it still holds `expected`; never half-written.

    The new content goes to a temporary file in the same folder, is flushed and fsynced,
    takes the old file's mode, and then replaces it with one rename.
    """
    current = read_bytes(path)
    if current != expected:
        raise SourceError(path, "changed on disk while recipelint was fixing it; not written")
    mode = os.stat(path).st_mode & 0o7777
    directory = path.parent
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".recipelint", dir=directory)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise SourceError(path, f"could not write: {exc.strerror or exc}") from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
