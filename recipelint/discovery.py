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
from typing import TYPE_CHECKING, Any

from recipelint.parse import KINDS, kind_of
from recipelint.parse.files import MAX_FILE_BYTES, FileCache, SourceError, head
from recipelint.parse.where import SKIP_DIRS, repo_root, shown
from recipelint.records import replace
from recipelint.toolkits import Target, suffixes

if TYPE_CHECKING:
    from recipelint.launchindex import Index

YAML_SUFFIXES = (".yaml", ".yml")


SEARCH_LEVELS = 4


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


def _search_files(folder: Path, index: Index) -> list[tuple[str, str]]:
    """The shell and Markdown files that may hold a launch of a config in `folder`: every one
    under its repository root; without a root, every one under the folder recipelint runs in when
    that holds the config within a few levels; else those directly in the config's folder and the
    few folders above it (a tree with no root outside the current folder, like /tmp, is never walked)."""
    root = repo_root(folder)
    here = Path.cwd()
    if root is None and (here == folder or here in list(folder.parents)[:SEARCH_LEVELS]):
        root = here
    if root is not None:  # walked once per run, however many configs pre-commit passes
        return index.launch_files(root)
    found: list[tuple[str, str]] = []
    for level in [folder, *list(folder.parents)[:SEARCH_LEVELS]]:
        found.extend(index.launch_files(level, False))
    return found


def _launches_naming(configs: list[Path], files: FileCache, folders: dict[Path, Path], cache: Any) -> dict[Path, list[Target]]:
    """For each config passed alone, the scripts and READMEs whose launches name it, anywhere in
    its repository (without a repository root, a few folders up), each as a target that checks
    only those launches; one target per launch file, whatever the number of configs it names.

    One index serves them all (recipelint.launchindex): each launch file is read once, and
    loaded once when its text holds the name of a config passed; each launch's paths are
    resolved as when it is checked (its working folder, launchers.working_folder)."""
    from recipelint.launchindex import BROKEN, Index, Store, naming

    index = files.launch_index
    if index is None:
        index = Index(Store(cache) if cache is not None else None)
    try:
        wanted = [(config, _key(config, folders), _search_files(_key(config, folders).parent, index)) for config in configs]
        found = naming(index, wanted, files, partial(_key, folders=folders))
    except BROKEN:  # a kept index this code did not write (a cache folder from elsewhere): made again
        index.reset()
        wanted = [(config, _key(config, folders), _search_files(_key(config, folders).parent, index)) for config in configs]
        found = naming(index, wanted, files, partial(_key, folders=folders))
    index.save()
    by_launch: dict[Path, Target] = {}
    result: dict[Path, list[Target]] = {}
    for config, identity, _ in wanted:
        for kind, path, lines in found[identity]:
            target = by_launch.get(path)
            if target is None:
                target = by_launch[path] = Target(kind, shown(path), config=shown(config), launches=lines)
                result.setdefault(config, []).append(target)
            elif shown(config) != target.config and shown(config) not in target.also:
                target.also = (*target.also, shown(config))
                target.launches = tuple(dict.fromkeys((*target.launches, *lines)))
    return result


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
    its file, is checked once). The configs passed alone are placed together, with one index
    (`_launches_naming`), after the scripts and folders passed: a config a passed script or
    folder's run script names is checked with it, as `check .` does."""
    folders: dict[Path, Path] = {}
    targets: dict[tuple[Path, Path | None], Target] = {}
    claimed: set[Path] = set()

    def add(target: Target) -> None:
        _add(targets, folders, target)

    plan: list[Target | Path] = []
    for path in paths:
        if path.is_dir():
            _discover_folder(path, files, cache, folders, lambda kind, found: plan.append(Target(kind, found)), claimed)
        elif is_script(path):
            plan.append(Target("script", path))
            claimed.update(_config_paths(path, files, cache))
        else:
            plan.extend(_named(path, files))
    alone = [p for p in plan if isinstance(p, Path) and _key(p, folders) not in claimed and p.is_file()]
    naming = _launches_naming(alone, files, folders, cache) if alone else {}
    for item in plan:
        if isinstance(item, Target):
            add(item)
        elif _key(item, folders) not in claimed:
            for target in naming.get(item) or _alone(item, files):
                add(target)
    whole = {path for path, config in targets if config is None}
    return [target for (path, config), target in targets.items() if config is None or path not in whole]


def _add(targets: dict[tuple[Path, Path | None], Target], folders: dict[Path, Path], target: Target) -> None:
    """Keep a target once: a script checked whole covers the launches a config needs; a file named
    after a folder that holds it is read as named, whatever the order."""
    path = _key(target.path, folders)
    key = (path, _key(target.config, folders) if target.config is not None else None)
    if key in targets or (path, None) in targets:
        if target.explicit:
            for known in (key, (path, None)):
                if known in targets:
                    targets[known] = replace(targets[known], explicit=True)
        return
    targets[key] = target


def _named(path: Path, files: FileCache) -> list[Target | Path]:
    """A file named on the command line, as the targets it is checked through, or itself when it
    is a config to check with the launches that name it (when any do). Its kind is its content's
    as well as its name's: pre-commit passes every file its `types` match (a `gradlew` is shell)."""
    if not_a_recipe(path) is not None:
        return []
    kind = _KINDS.get(path.suffix)
    if kind == "markdown":
        why = _not_text(path)
        if why is not None:
            files.skipped.append((path, why))
            return []
        return [Target(kind, path)]
    if kind == "python":
        return [Target(kind, path)]
    if kind is not None:
        return [path]
    if path.suffix in suffixes():
        return [Target("file", path, explicit=True)]
    start = head(path, 256) or b""
    if start.startswith(b"#!"):
        interpreter = _interpreter(start)
        if interpreter in _SHELLS:
            return [Target("script", path)]
        files.skipped.append((path, f"a {interpreter or 'program'} script (its #! line), no config"))
        return []
    return [Target("json" if _json_text(path) else "yaml", path, explicit=True)]


_SHELLS = {"sh", "bash", "dash", "ksh", "zsh"}


def _interpreter(start: bytes) -> str:
    """The program a `#!` line runs (`#!/usr/bin/env bash` runs bash)."""
    words = start[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()
    if words and os.path.basename(words[0]) == "env":
        words = [w for w in words[1:] if not w.startswith("-")]
    return os.path.basename(words[0]) if words else ""


def _not_text(path: Path) -> str | None:
    """Why a Markdown file is no text recipelint reads (a README in UTF-16, a generated page over
    the size a config can be): skipped, not a file error. None: it is read."""
    try:
        size = os.stat(path).st_size
    except (OSError, ValueError):
        return None  # reading it says why
    if size > MAX_FILE_BYTES:
        return f"a Markdown file of {size / (1 << 20):.3g} MiB, over the {MAX_FILE_BYTES >> 20} MiB recipelint reads"
    start = head(path, MAX_FILE_BYTES) or b""
    if start.startswith((b"\xff\xfe", b"\xfe\xff")) or b"\x00" in start[:8192]:
        return "a Markdown file in UTF-16 or with binary bytes, not UTF-8 text"
    try:
        start.decode("utf-8")
    except UnicodeDecodeError:
        return "a Markdown file that is not UTF-8 text"
    return None


def _alone(path: Path, files: FileCache) -> list[Target]:
    """A config passed alone that no launch names, checked by itself, unless it is data: an empty
    JSON, a JSON larger than any config (a result file), are skipped (`files.skipped`: said by
    `show` and when a run finds nothing). A JSON whose name does not say it is a config is read
    as one found in a folder, on its toolkit's evidence (a DeepSpeed key): a data JSON is no
    recipe and gets no RL011. A YAML of several documents is read document by document (a
    Kubernetes manifest: recipelint.parse.yamlfile.parse_documents), so it is named as any YAML:
    one with no training document is an info (RL555), a broken one an error."""
    kind = _KINDS.get(path.suffix) or "yaml"
    try:
        size = os.stat(path).st_size
    except (OSError, ValueError):
        return [Target(kind, path, explicit=True)]  # reading it says why
    if kind == "json":
        start = head(path, 4096) or b""
        if size > MAX_FILE_BYTES:
            files.skipped.append((path, f"a data file of {size / (1 << 20):.3g} MiB (a config is under {MAX_FILE_BYTES >> 20} MiB)"))
            return []
        if not start.strip(b"\xef\xbb\xbf \t\r\n"):
            files.skipped.append((path, "an empty file"))
            return []
        return [Target(kind, path, explicit=_meant_as_config(path))]
    return [Target(kind, path, explicit=True)]


# A JSON name that says "a training config": DeepSpeed's and Accelerate's usual names
# (ds_config.json, zero3.json, ds_z2_offload_config.json, deepspeed_stage2.json, fsdp.json).
_CONFIG_NAME = re.compile(r"(?:^|[^a-z])(?:ds|deepspeed|zero\d?|z[0-3]|stage[0-3]?|accelerate|fsdp|offload)(?:[^a-z]|$)", re.IGNORECASE)


def _meant_as_config(path: Path) -> bool:
    """Whether a JSON named alone plausibly was meant as a config (RL011 says when it is none):
    its name, or its folder's, says DeepSpeed or Accelerate."""
    return any(_CONFIG_NAME.search(name) for name in (path.stem, path.parent.name))


def _discover_folder(
    folder: Path, files: FileCache, cache: Any, folders: dict[Path, Path], add: Callable[[str, Path], None], claimed: set[Path]
) -> None:
    """Every shell script under the folder, then the configs none of them names (`claimed`: those
    it names, added to)."""
    found = [(parent, name, os.path.splitext(name)[1]) for parent, name in _walk(folder, files.unlisted)]
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
        if kind == "markdown" and (why := _not_text(candidate)) is not None:
            files.skipped.append((candidate, why))
        elif kind != "python" or _mmengine_config(candidate):
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
