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
from recipelint.parse.files import FileCache, SourceError, Stamp, linted_roots, read_stamped
from recipelint.parse.span import SourceText
from recipelint.records import dataclass, field

MAX_PASSES = 8
CHANGED = "changed since it was checked; run fix again"


@dataclass
class FixOutcome:
    changed: dict[Path, bytes] = field(default_factory=dict)  # new contents
    original: dict[Path, bytes] = field(default_factory=dict)
    applied: list[Diagnostic] = field(default_factory=list)
    errors: list[SourceError] = field(default_factory=list)
    # what each file on disk was when the check whose edits it takes read it
    stamps: dict[Path, Stamp] = field(default_factory=dict)


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


def fix_paths(run_check: Callable[[FileCache], list[Diagnostic]], unsafe: bool, start: dict[Path, bytes] | None = None) -> FixOutcome:
    """Check, apply the chosen fixes in memory, check again, until no fix applies. `start`: texts
    that are not read from disk (stdin, under the name it is checked as)."""
    outcome = FixOutcome()
    # copies by `.copy()`: a caller's mapping (the language server's, which finds a document
    # under any spelling of its path) keeps its kind
    overlay: dict[Path, bytes] = start.copy() if start else {}
    outcome.original.update(overlay)
    refused: set[Path] = set()
    for _ in range(MAX_PASSES):
        files = FileCache(overlay=overlay.copy())
        diagnostics = [d for d in run_check(files) if d.span.path not in refused]
        edits, chosen = choose_edits(diagnostics, unsafe)
        edits = {path: items for path, items in edits.items() if path not in refused}
        if not edits:
            break
        progressed = False
        for path, items in edits.items():
            before = overlay.get(path)
            if before is None:
                before = _checked(path, files, outcome)
                if before is None:
                    refused.add(path)
                    continue
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


def _checked(path: Path, files: FileCache, outcome: FixOutcome) -> bytes | None:
    """The bytes the check read for `path`, which its edits' spans index, recorded with the file's
    identity; a file read anew here may differ from what was checked, so only a file the check
    did not read through the cache is (None, an error recorded, when it cannot be read)."""
    stamp = files.stamps.get(path)
    if stamp is None:
        try:
            stamp = read_stamped(path)[1]
        except SourceError as error:
            outcome.errors.append(error)
            return None
    outcome.original[path] = stamp.data
    outcome.stamps[path] = stamp
    return stamp.data


def unified_diff(path: Path, before: bytes, after: bytes) -> str:
    a = before.decode("utf-8", "replace").splitlines(keepends=True)
    b = after.decode("utf-8", "replace").splitlines(keepends=True)
    name = str(path) if path.is_absolute() else f"/{path}"
    return "".join(difflib.unified_diff(a, b, f"a{name}", f"b{name}"))


def write_roots(targets: list[Path]) -> list[Path]:
    """The folders `fix --write` may write in (parse.files.linted_roots: the same bound as what a
    check reads): a config a launch names by an absolute path, or reached through a link to
    another folder, lies outside them and is not written."""
    return linted_roots(targets)


def refusal(path: Path, roots: list[Path] | None) -> tuple[Path, str | None]:
    """The file a write would really change (a link's target), and why it must not be written,
    or None. Links are followed, never replaced; hard links, read-only files and files outside
    the linted tree are left alone."""
    real = path.resolve()
    if roots is not None and not any(real == root or root in real.parents for root in roots):
        return real, f"is outside the linted tree ({real}); not written"
    try:
        st = os.stat(real)
    except FileNotFoundError:
        return real, f"no such file now; {CHANGED}"
    except OSError as exc:
        return real, f"could not write: {exc.strerror or exc}"
    if st.st_nlink > 1:
        return real, f"has {st.st_nlink} hard links; a new file would break them; not written"
    if not st.st_mode & 0o222 or not os.access(real, os.W_OK):
        return real, "is read-only; not written"
    return real, None


def write_atomic(path: Path, data: bytes, expected: bytes, roots: list[Path] | None = None, stamp: Stamp | None = None) -> None:
    """Replace `path` with `data` only if it still holds `expected` (and, given the `stamp` taken
    when it was checked, is still that file: same size, time, inode and hash); never half-written.

    The new content goes to a temporary file in the same folder as the link's target, is
    flushed and fsynced, takes the old file's mode and owner, and then replaces it with one
    rename. SIGTERM during the write removes the temporary file. `roots`: where writing is
    allowed (write_roots)."""
    real, why = refusal(path, roots)
    if why is not None:
        raise SourceError(path, why)
    try:
        current, now = read_stamped(real)
    except SourceError as error:
        raise SourceError(path, f"{error.reason} now; {CHANGED}") from None
    if current != expected or (stamp is not None and not stamp.same(now)):
        raise SourceError(path, CHANGED)
    st = os.stat(real)
    with _terminate_as_exit():
        try:
            fd, tmp_name = tempfile.mkstemp(prefix=f".{real.name}.", suffix=".recipelint", dir=real.parent)
        except OSError as exc:
            raise SourceError(path, f"could not write: {exc.strerror or exc}") from None
        tmp = Path(tmp_name)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            _keep_owner(tmp, st)
            os.chmod(tmp, st.st_mode & 0o7777)
            if _moved(real, st):
                tmp.unlink(missing_ok=True)
                raise SourceError(path, CHANGED)
            os.replace(tmp, real)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise SourceError(path, f"could not write: {exc.strerror or exc}") from None
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise


def _moved(real: Path, st: os.stat_result) -> bool:
    """Whether the file changed while the new content was written (the last look before the rename)."""
    try:
        now = os.stat(real)
    except OSError:
        return True
    return (now.st_size, now.st_mtime_ns, now.st_ino, now.st_dev) != (st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev)


def _keep_owner(tmp: Path, st: os.stat_result) -> None:
    """The new file keeps the old one's owner and group (a root run must not take the file)."""
    now = os.stat(tmp)
    if (now.st_uid, now.st_gid) != (st.st_uid, st.st_gid):
        os.chown(tmp, st.st_uid, st.st_gid)  # OSError (not permitted): the write is refused


class _terminate_as_exit:  # noqa: N801 - used as a context manager
    """SIGTERM raises SystemExit while a file is being written, so the cleanup above runs."""

    def __enter__(self) -> None:
        import signal
        import threading

        self.previous = None
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGTERM, _exit_on_term)

    def __exit__(self, *exc: object) -> None:
        import signal

        if self.previous is not None:
            signal.signal(signal.SIGTERM, self.previous)


def _exit_on_term(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)
