"""A finding's identity across edits: what a baseline, `check --diff`, SARIF's
`partialFingerprints` and GitLab's Code Quality `fingerprint` key on.

A line number moves whenever a line is inserted above the finding, so it is no part of the
identity. The identity is the rule, the file (relative to the repository root, so a clone in
another folder matches), the setting the finding is about, and the text of the line it points at
with its blanks removed (a re-indented line is the same line); two findings that agree on all of
that are told apart by their order in the file. As SARIF's `primaryLocationLineHash`, it is a
hash: the baseline file never holds a line of the recipe.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from recipelint.diagnostics import Diagnostic
from recipelint.parse.files import FileCache, SourceError
from recipelint.parse.where import repo_root, shown


def relative_path(path: Path, root: Path | None = None) -> str:
    """The path a fingerprint names: relative to `root` (default: the file's repository root, else
    the folder shown), in POSIX form."""
    try:
        absolute = path.resolve()
    except (OSError, RuntimeError):
        absolute = path.absolute()
    base = root if root is not None else repo_root(absolute.parent)
    if base is not None:
        try:
            return absolute.relative_to(base.resolve()).as_posix()
        except (OSError, RuntimeError, ValueError):
            pass
    return shown(path).as_posix()


def _line_text(files: FileCache, diagnostic: Diagnostic) -> str:
    try:
        text = files.read(diagnostic.span.path)
    except SourceError:
        return ""
    try:
        line = text.line_text(diagnostic.span.line) if diagnostic.span.line >= 1 else ""
    except IndexError:  # a span past the file's end (a file that changed since the check)
        line = ""
    return "".join(line.split())


def fingerprints(diagnostics: Iterable[Diagnostic], files: FileCache, root: Path | None = None) -> list[str]:
    """One fingerprint per finding, in the order given (40 hex digits each)."""
    seen: Counter[str] = Counter()
    result: list[str] = []
    for diagnostic in diagnostics:
        parts = (diagnostic.code, relative_path(diagnostic.span.path, root), diagnostic.setting or "", _line_text(files, diagnostic))
        key = "\x1f".join(parts)
        seen[key] += 1
        digest = hashlib.sha256(f"{key}\x1f{seen[key]}".encode("utf-8", "surrogateescape")).hexdigest()
        result.append(digest[:40])
    return result
