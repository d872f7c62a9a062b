"""How a path is shown: relative to the folder recipelint runs in when it lies under it, else
absolute. Every output format and every message names files this way, however the file was
reached (an absolute argument, `./x`, a config's run script, the repository root)."""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable
from pathlib import Path

# Files that mark the top of a repository: relative paths in its scripts often start there.
ROOT_MARKERS = (".git", "pyproject.toml", "setup.py")
_ROOT_SEARCH = 12


def shown(path: Path) -> Path:
    """`path` relative to the current folder when under it (`.` for the folder itself), else absolute.

    Normalised lexically (`a/../b` is `b`), never resolved: a link keeps the name it was given."""
    if path.name == "<command>":
        return path
    here = os.getcwd()
    full = posixpath.normpath(path.as_posix() if path.is_absolute() else posixpath.join(here, path.as_posix()))
    if full == here:
        return Path(".")
    if full.startswith(here.rstrip("/") + "/"):
        return Path(full[len(here.rstrip("/")) + 1 :])
    return Path(full)


def shown_folder(path: Path) -> str:
    """A folder as messages list it: `bash_script/`, `./`, `/abs/folder/`."""
    text = shown(path).as_posix()
    return "./" if text == "." else text.rstrip("/") + "/"


def has_git(folder: Path) -> bool:
    try:
        return (folder / ".git").exists()
    except OSError:  # a folder this user cannot search: no work tree known there
        return False


def worktree_top(folder: Path) -> Path | None:
    """The top of the git work tree holding `folder` (the nearest folder with `.git`), or None."""
    return upward(folder, has_git)[1]


def upward(folder: Path, stop: Callable[[Path], bool], limit: int | None = None) -> tuple[list[Path], Path | None]:
    """`folder` and the folders above it, up to the first that `stop` accepts or the file
    system's top, at most `limit` of them; and the folder `stop` accepted (None when none did).
    Every walk up from a recipe (to its repository's top, its work tree, its package folders) is
    this one."""
    folders: list[Path] = []
    current = folder
    while limit is None or len(folders) < limit:
        folders.append(current)
        if stop(current):
            return folders, current
        if current.parent == current:
            break
        current = current.parent
    return folders, None


def holds_marker(folder: Path) -> bool:
    return any((folder / marker).exists() for marker in ROOT_MARKERS)


def repo_root(folder: Path) -> Path | None:
    """The nearest folder at or above `folder` with .git, pyproject.toml or setup.py."""
    return upward(folder, holds_marker, _ROOT_SEARCH)[1]


# Folders never walked, for recipes or for a file of a given name: VCS data, environments, tools'
# caches, build output.
SKIP_DIRS = {
    ".git",
    ".hg",
    ".venv",
    "venv",
    "node_modules",
    "__pycache__",
    ".tox",
    ".mypy_cache",
    ".pytest_cache",
    ".recipelint_cache",
    "build",
    "dist",
}
_NAMED: dict[tuple[Path, str], Path | bool | None] = {}


def holds_name(top: Path, name: str, limit: int = 20_000) -> bool | None:
    """Whether a file called `name` is anywhere under `top` (links not followed); None when the
    tree has more than `limit` entries before one is found (too large to say). Once per run and
    (top, name)."""
    found = named(top, name, limit)
    return found if found is None or isinstance(found, bool) else True


def named(top: Path, name: str, limit: int = 20_000) -> Path | bool | None:
    """The first file called `name` under `top` (folders walked in sorted order, links not
    followed), False when there is none, None when the tree is too large to say."""
    key = (top, name)
    if key not in _NAMED:
        _NAMED[key] = _search(top, name, limit)
    return _NAMED[key]


def _search(top: Path, name: str, limit: int) -> Path | bool | None:
    seen = 0
    for folder, dirs, files in os.walk(top, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        if name in files:
            return Path(folder) / name
        seen += len(dirs) + len(files)
        if seen > limit:
            return None
    return False
