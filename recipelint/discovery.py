"""Discovery: which files of the given paths are checked, and as what.

A folder is walked once; each run script is a target, then each config no run script names
(a config a run script names is checked with it). A config named on the command line (what
pre-commit passes) is checked with the launches that name it: every shell script and README
under its repository root whose launches resolve to it, each judged as when it is named.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import Any

from recipelint.parse import KINDS, kind_of
from recipelint.parse.files import FileCache, SourceError, head
from recipelint.parse.where import SKIP_DIRS, repo_root, shown
from recipelint.records import replace
from recipelint.toolkits import Target, suffixes

YAML_SUFFIXES = (".yaml", ".yml")


SEARCH_LEVELS = 4
MAX_LAUNCH_FILES = 5000  # shell and Markdown files read to find the launches of a config passed alone
MAX_WALKED = 50_000  # files looked at in that search, whatever their kind


# Files that configure the tools around a repository, never a training recipe. pre-commit passes
# them to the hook like any changed YAML (issue 28), so they are not targets, named or walked.
_TOOL_FILES = {
    ".pre-commit-config.yaml": "pre-commit's configuration",
    ".pre-commit-hooks.yaml": "pre-commit's hook list",
    "mkdocs.yml": "MkDocs' configuration",
    "mkdocs.yaml": "MkDocs' configuration",
    ".readthedocs.yaml": "Read the Docs' configuration",
    ".readthedocs.yml": "Read the Docs' configuration",
    ".gitlab-ci.yml": "GitLab CI's configuration",
    "compose.yaml": "a Docker Compose file",
    "compose.yml": "a Docker Compose file",
}
_PROFILE_PEEK = 65536  # a profile is a few hundred bytes (`recipelint probe --output`)


def not_a_recipe(path: Path) -> str | None:
    """What a config file is when it is known to be no training recipe of any toolkit (None: it
    may be one): a tool's configuration, a GitHub workflow, a Docker Compose file, a recipelint
    hardware profile. Another trainer's config (a LLaMA-Factory train YAML) is left to the
    toolkits: none claims it without its evidence, and a toolkit added for it will."""
    name = path.name
    if name in _TOOL_FILES:
        return _TOOL_FILES[name]
    if name.startswith("docker-compose"):
        return "a Docker Compose file"
    if ".github" in path.parts:
        return "a GitHub workflow or configuration"
    if kind_of(path) not in ("yaml", "json"):
        return None
    start = head(path, _PROFILE_PEEK)
    return "a recipelint hardware profile" if start is not None and _profile(path, start) else None


def _profile(path: Path, start: bytes) -> bool:
    """A file that validates as a hardware profile (hardware.profile.load_profile), tried only when
    its text names two of a profile's facts: the validation imports the schema checker."""
    if sum(1 for key in (b"gpus", b"cpus", b"memory_gib", b"gpu_model", b"nodes") if key in start) < 2:
        return False
    from recipelint.hardware.profile import load_profile

    try:
        load_profile(path)
    except (SourceError, RecursionError, ValueError):
        return False
    return True


def is_script(path: Path) -> bool:
    return kind_of(path) == "script"


_CONFIG_ASSIGNMENT = re.compile(rb"^(?:train_dataloader|dataloader_num_workers)\s*=", re.MULTILINE)


def _mmengine_config(path: Path) -> bool:
    """A Python file worth reading as a training config (read, never imported): an mmengine config
    assigns `train_dataloader` or `dataloader_num_workers` at its top level; training code that
    only mentions them inside functions (Megatron's training.py) is not one."""
    start = head(path, 200_000)
    return start is not None and _CONFIG_ASSIGNMENT.search(start) is not None


def _key(path: Path, folders: dict[Path, Path] | None = None) -> Path:
    """A path's identity for de-duplication; a symlink loop or a dangling link is itself.

    With `folders`, each folder is resolved once: a file that is no link is its real folder's
    entry (a corpus of 2,000 configs costs one walk per folder, not per file)."""
    if folders is not None and path.name not in ("", ".", ".."):
        try:
            link = stat.S_ISLNK(os.lstat(path).st_mode)
        except (OSError, ValueError):
            link = True
        if not link:
            real = folders.get(path.parent)
            if real is None:
                real = folders[path.parent] = _key(path.parent, folders)
            return real / path.name
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path.absolute()


def _walk(directory: Path, unlisted: list[SourceError] | None = None) -> Iterable[tuple[str, str]]:
    """(folder, name) of each file under the directory, in a stable order; a folder that cannot be
    listed goes to `unlisted` (one error line), and the rest is still walked."""

    def failed(error: OSError) -> None:
        if unlisted is not None:
            unlisted.append(SourceError(Path(error.filename or directory), f"cannot list this folder: {error.strerror or error}"))

    for current, dirs, names in os.walk(directory, onerror=failed, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        for name in sorted(names):
            yield current, name


_KINDS = {suffix: kind for suffix, kind in KINDS.items() if kind != "script"}  # run scripts are found first


def _launches_naming(config: Path, files: FileCache, folders: dict[Path, Path]) -> list[Target]:
    """The scripts and READMEs whose launches name `config`, anywhere in its repository (without
    a repository root, a few folders up), each as a target that checks only those launches.

    A file is read as a launch only when its text holds the config's file name; each launch's
    paths are then resolved as when it is checked (its working folder, launchers.working_folder).
    The list of shell and Markdown files under a top is made once per run (files.named)."""
    target = _key(config, folders)
    found: list[Target] = []
    needle = config.name.encode()
    for kind, path in _search_files(target.parent, files):
        try:
            if needle not in files.read(path).data:
                files.forget(path)  # memory stays flat however large the tree
                continue
        except SourceError:
            continue
        lines = files.named.get(("names", path, target), partial(_lines_naming, kind, path, target, files, folders))
        if lines:
            found.append(Target(kind, shown(path), config=shown(config), launches=lines))
    return found


def _search_files(folder: Path, files: FileCache) -> list[tuple[str, Path]]:
    """The shell and Markdown files that may hold a launch of a config in `folder`: every one
    under its repository root; without a root, every one under the folder recipelint runs in when
    that holds the config within a few levels; else those directly in the config's folder and the
    few folders above it (a tree with no root outside the current folder, like /tmp, is never walked)."""
    root = repo_root(folder)
    here = Path.cwd()
    if root is None and (here == folder or here in list(folder.parents)[:SEARCH_LEVELS]):
        root = here
    if root is not None:  # walked once per run, however many configs pre-commit passes
        return files.named.get(("launch files", root), partial(_launch_files, root))  # type: ignore[no-any-return]
    found: list[tuple[str, Path]] = []
    for level in [folder, *list(folder.parents)[:SEARCH_LEVELS]]:
        found.extend(files.named.get(("launch files here", level), partial(_launch_files, level, False)))
    return found


def _launch_files(top: Path, recursive: bool = True) -> list[tuple[str, Path]]:
    """The shell scripts and Markdown files under `top` (or directly in it): at most
    MAX_LAUNCH_FILES of them, among the first MAX_WALKED files."""
    found: list[tuple[str, Path]] = []
    walked = _walk(top) if recursive else ((str(top), name) for name in _names(top))
    for seen, (parent, name) in enumerate(walked):
        if seen >= MAX_WALKED:
            break
        suffix = os.path.splitext(name)[1]
        kind = "script" if suffix == ".sh" else ("markdown" if KINDS.get(suffix) == "markdown" else None)
        if kind is not None and _regular(Path(parent, name)):
            found.append((kind, Path(parent, name)))
            if len(found) >= MAX_LAUNCH_FILES:
                break
    return found


def _names(folder: Path) -> list[str]:
    try:
        with os.scandir(folder) as entries:
            return sorted(entry.name for entry in entries)
    except OSError:
        return []


def _regular(path: Path) -> bool:
    """A plain file (reading a FIFO someone left in the tree would wait forever)."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def _lines_naming(kind: str, path: Path, config: Path, files: FileCache, folders: dict[Path, Path]) -> tuple[int, ...]:
    """The lines of the launches in `path` that name `config` (as the toolkit that reads it resolves them)."""
    from recipelint.toolkits import load_target

    try:
        recipes = load_target(Target(kind, path), files)
    except (SourceError, RecursionError):
        return ()
    lines = []
    for recipe in recipes:
        if recipe.launch is not None and any(link.path is not None and _key(link.path, folders) == config for link in recipe.links):
            lines.append(recipe.launch.command.span.line)
    return tuple(dict.fromkeys(lines))


def _config_paths(script: Path, files: FileCache, cache: Any = None) -> list[Path]:
    """The configs a run script names (each toolkit says which its launches name); with the result
    cache, kept until the script (or what it sources) changes, so a second run parses no script
    to find its targets."""
    from recipelint.toolkits import configs_named as config_paths

    if cache is None:
        return config_paths(script, files)
    return cache.remember(  # type: ignore[no-any-return]
        ["config_paths", str(script)],
        partial(config_paths, script, files),
        lambda paths: [str(p) for p in paths],
        lambda data: [Path(p) for p in data],
    )


def _json_text(path: Path) -> bool:
    """A file of another suffix holding JSON (open-instruct's DeepSpeed `.conf` files)."""
    start = head(path, 4096)
    return start is not None and start.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] in (b"{", b"[")


def discover(paths: list[Path], files: FileCache, cache: Any = None) -> list[Target]:
    """The targets under the paths, each once (a file reached twice, by a link or a folder and
    its file, is checked once)."""
    targets: list[Target] = []
    seen: set[tuple[Path, Path | None]] = set()
    folders: dict[Path, Path] = {}

    def add(target: Target) -> None:
        path = _key(target.path, folders)
        key = (path, _key(target.config, folders) if target.config is not None else None)
        if key in seen or (path, None) in seen:  # a script checked whole covers the launches a config needs
            if target.explicit:  # named after a folder that holds it: read as named, whatever the order
                targets[:] = [
                    replace(t, explicit=True) if (_key(t.path, folders), t.config) == (path, target.config) else t for t in targets
                ]
            return
        if target.config is None:
            targets[:] = [t for t in targets if t.config is None or _key(t.path, folders) != path]
        seen.add(key)
        targets.append(target)

    for path in paths:
        if path.is_dir():
            _discover_folder(path, files, cache, folders, lambda kind, found: add(Target(kind, found)))
        else:
            for target in _named(path, files, folders):
                add(target)
    return targets


def _named(path: Path, files: FileCache, folders: dict[Path, Path]) -> list[Target]:
    """A file named on the command line, as the targets it is checked through: a config passed
    alone through the launches that name it (when any do), else the file itself."""
    if is_script(path):
        return [Target("script", path)]
    if not_a_recipe(path) is not None:
        return []
    kind = _KINDS.get(path.suffix)
    if kind in ("markdown", "python"):
        return [Target(kind, path)]
    if kind is not None:
        naming = _launches_naming(path, files, folders) if path.is_file() else []
        return naming or [Target(kind, path, explicit=True)]
    if path.suffix in suffixes():
        return [Target("file", path, explicit=True)]
    return [Target("json" if _json_text(path) else "yaml", path, explicit=True)]


def _discover_folder(folder: Path, files: FileCache, cache: Any, folders: dict[Path, Path], add: Callable[[str, Path], None]) -> None:
    """Every shell script under the folder, then the configs none of them names."""
    found = [(parent, name, os.path.splitext(name)[1]) for parent, name in _walk(folder, files.unlisted)]
    claimed: set[Path] = set()
    for parent, name, suffix in found:
        if suffix == ".sh":
            script = Path(parent, name)
            add("script", script)
            claimed.update(_config_paths(script, files, cache))
    extra = suffixes()
    for parent, name, suffix in found:
        kind = _KINDS.get(suffix) or ("file" if suffix in extra else None)
        if kind is None or kind == "json" and name.startswith("package"):
            continue
        candidate = Path(parent, name)
        if claimed and _key(candidate, folders) in claimed or name in _TOOL_FILES:
            continue
        if kind != "python" or _mmengine_config(candidate):
            add(kind, candidate)


def missing(paths: list[Path]) -> list[SourceError]:
    """The paths that are not there, each as one error line."""
    errors = []
    for path in paths:
        if path.is_symlink() and not path.exists():
            errors.append(SourceError(path, "a symlink loop or a link to nothing"))
        elif not path.exists():
            errors.append(SourceError(path, "no such file or directory"))
    return errors
