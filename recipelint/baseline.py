"""Only what a change introduces: a baseline file of known findings (`check --write-baseline`,
`check --baseline`) and `check --diff REV`, which compares the run with the same check of the
tree as it was at REV.

Both key findings by their fingerprints (recipelint.fingerprint: the rule, the file relative to
the repository root, the setting, the line's text), so inserting lines above a finding does not
make it new. A known finding is not dropped silently: with a baseline it is counted in the
summary; with `--diff` it is kept as an info that says it was there before, so the reviewer sees
the context of a change without the run failing on it.
"""

from __future__ import annotations

import json
import os
import subprocess
import tarfile
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from recipelint.diagnostics import Diagnostic, Severity
from recipelint.fingerprint import fingerprints, relative_path
from recipelint.parse.files import FileCache, SourceError, read_capped
from recipelint.records import replace

if TYPE_CHECKING:
    from recipelint.engine import Result

FORMAT_VERSION = 1
MAX_BASELINE = 64 * 1024 * 1024  # bytes: a baseline of a million findings is ~100 MiB; refuse past this


def write_baseline(path: Path, result: Result) -> int:
    """Write the run's findings as a baseline; the number written."""
    files = result.sources or FileCache()
    entries = [
        {"fingerprint": fingerprint, "code": d.code, "path": relative_path(d.span.path), "setting": d.setting}
        for d, fingerprint in zip(result.diagnostics, fingerprints(result.diagnostics, files), strict=True)
    ]
    entries.sort(key=lambda entry: (str(entry["path"]), str(entry["code"]), str(entry["fingerprint"])))
    text = json.dumps({"tool": "recipelint", "version": FORMAT_VERSION, "findings": entries}, indent=1) + "\n"
    temporary = path.with_name(f".{path.name}.tmp{os.getpid()}")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)
    return len(entries)


def read_baseline(path: Path) -> Counter[str]:
    """The fingerprints a baseline holds, each with its count. SourceError for a file that is no
    recipelint baseline (one line, with the path)."""
    data = read_capped(path, MAX_BASELINE, "a baseline")
    try:
        document = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise SourceError(path, f"not a recipelint baseline: invalid JSON ({error.__class__.__name__})") from None
    findings = document.get("findings") if isinstance(document, dict) else None
    if not isinstance(findings, list) or document.get("tool") != "recipelint":
        raise SourceError(path, "not a recipelint baseline (write one with `recipelint check --write-baseline FILE`)")
    if document.get("version") != FORMAT_VERSION:
        raise SourceError(path, f"baseline version {document.get('version')!r}: this recipelint reads version {FORMAT_VERSION}")
    return Counter(entry["fingerprint"] for entry in findings if isinstance(entry, dict) and isinstance(entry.get("fingerprint"), str))


def split_known(
    diagnostics: list[Diagnostic], files: FileCache, known: Counter[str], root: Path | None = None
) -> tuple[list[Diagnostic], list[Diagnostic]]:
    """(new, known): each finding matched at most once against the known fingerprints."""
    left = known.copy()
    new: list[Diagnostic] = []
    old: list[Diagnostic] = []
    for diagnostic, fingerprint in zip(diagnostics, fingerprints(diagnostics, files, root), strict=True):
        if left[fingerprint] > 0:
            left[fingerprint] -= 1
            old.append(diagnostic)
        else:
            new.append(diagnostic)
    return new, old


def apply_baseline(result: Result, known: Counter[str], failing: Callable[[Diagnostic], bool]) -> None:
    """Drop the findings the baseline holds from the result (counted in `result.known`)."""
    new, old = split_known(result.diagnostics, result.sources or FileCache(), known)
    result.diagnostics = new
    result.known = len(old)
    result.known_as = "not shown (in the baseline)"
    result.failing = sum(1 for d in new if failing(d))


def apply_diff(result: Result, before: Counter[str], top: Path, rev: str, failing: Callable[[Diagnostic], bool]) -> None:
    """Keep the findings the change introduced as they are; those the tree at `rev` had too
    become infos that say so (context for the reviewer, never failing)."""
    new, old = split_known(result.diagnostics, result.sources or FileCache(), before, top)
    said = [
        replace(d, severity=Severity.INFO, message=f"{d.message} (also at {rev}: not introduced by this change)", fix=None) for d in old
    ]
    result.diagnostics = sorted([*new, *said], key=lambda d: d.sort_key)
    result.known = len(old)
    result.known_as = f"shown as infos (there at {rev} too)"
    result.failing = sum(1 for d in new if failing(d))


def git_top(folder: Path) -> Path:
    """The work tree's top folder, or SourceError (not a git repository, no git)."""
    output = _git(["rev-parse", "--show-toplevel"], folder)
    return Path(output.strip())


def _git(arguments: list[str], folder: Path, binary: bool = False) -> str:
    try:
        done = subprocess.run(["git", *arguments], cwd=folder, capture_output=True, timeout=120, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise SourceError(folder, f"--diff needs git: {error}") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise SourceError(folder, f"git {arguments[0]}: {message[-1] if message else 'failed'}")
    return done.stdout.decode("utf-8", "surrogateescape")


@contextmanager
def tree_at(top: Path, rev: str) -> Iterator[Path]:
    """The repository's files as they were at `rev`, in a temporary folder (git archive: the
    committed files only, no history), removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="recipelint-diff-") as folder:
        archive = Path(folder) / "tree.tar"
        try:
            with archive.open("wb") as out:
                done = subprocess.run(
                    ["git", "archive", "--format=tar", rev], cwd=top, stdout=out, stderr=subprocess.PIPE, timeout=300, check=False
                )
        except (OSError, subprocess.TimeoutExpired) as error:
            raise SourceError(top, f"--diff needs git: {error}") from None
        if done.returncode != 0:
            lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
            raise SourceError(top, f"--diff {rev}: {lines[-1] if lines else 'git archive failed'}")
        tree = Path(folder) / "tree"
        tree.mkdir()
        with tarfile.open(archive) as tar:
            if hasattr(tarfile, "data_filter"):  # Python 3.10.12+, 3.11.4+: no link or path leaves the tree
                tar.extractall(tree, filter="data")
            else:  # git archive of one's own repository writes no member outside it
                tar.extractall(tree)  # noqa: S202
        archive.unlink()
        yield tree


def mapped(paths: list[Path], top: Path, tree: Path) -> list[Path]:
    """The given paths as they lie in the old tree (a path outside the repository: SourceError)."""
    out = []
    for path in paths:
        try:
            relative = path.resolve().relative_to(top.resolve())
        except ValueError:
            raise SourceError(path, f"--diff compares with the repository at {top}: this path is outside it") from None
        out.append(tree / relative)
    return out
