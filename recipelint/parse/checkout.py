"""The toolkit code a recipe runs: where it is, which version it is, and how we know.

What identifies one toolkit's code (its package name, release tags, pin files, known-bug
patterns) is the toolkit's own `CodeKind` (toolkits/<name>/): this module reads any of them.
Nothing from the checkout is imported or executed: its location comes from the recipe's
`PYTHONPATH` (a recipe's `path.sh` with `export PYTHONPATH=../../../:$PYTHONPATH`), else the
package folder above the recipe, else an installed distribution
(a virtual environment beside the recipe, then recipelint's own environment; package metadata
only). Its version: the distribution's or `version.py`'s; for a git checkout the commit read
from the `.git` files and that commit's date; else the release whose files it matches.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from recipelint import deps
from recipelint.deps import Memo
from recipelint.parse.files import FileCache, SourceError, read_bytes, read_capped
from recipelint.parse.shell import ShellScript, parse_shell
from recipelint.parse.span import Span
from recipelint.parse.where import has_git, upward
from recipelint.records import dataclass, field, replace
from recipelint.versions import Range, normal

if TYPE_CHECKING:
    from recipelint.knownissues import KnownIssue
    from recipelint.parse.pycode import Compared, PyFile

T = TypeVar("T")
VENV_NAMES = (".venv", "venv", "env", ".env")
OWN_ENVIRONMENT = "installed in recipelint's Python"
REPOSITORY_FILES = 3000  # Python files read for the keys of a config no launch names
SKIPPED_FOLDERS = {*VENV_NAMES, "site-packages", "node_modules", ".git"}
PACKAGE_FILES = 800  # modules read of one package: the largest known (WeNet HEAD) has about 250
UPWARD_LEVELS = 8  # how far above the recipe a package folder or a virtual environment is looked for


def version_key(version: str) -> tuple[int, ...]:
    """'v0.1.20' -> (0, 1, 20, 0, 0, 0); a pre-release sorts before its release ('0.2.0rc0' < '0.2.0')."""
    match = re.match(r"v?(\d+(?:\.\d+)*)(.*)", version.strip())
    if match is None:
        return ()
    numbers = [int(n) for n in match.group(1).split(".")][:4]
    numbers += [0] * (4 - len(numbers))
    rest = match.group(2).split("+")[0]
    pre = re.search(r"\d+", rest)
    return (*numbers, -1 if rest else 0, int(pre.group()) if rest and pre else 0)


# A known-bug pattern: where in the package folder the code has the bug ([]: not there), or
# None when the file it looks in is not there (the version decides then).
Pattern = Callable[[Path], "list[Span] | None"]
# Per file of the package (relative to the checkout's top): git blob id -> (first date, last
# date, the release tags with it) of each version of the file upstream.
Fingerprints = Mapping[str, Mapping[str, tuple[str, str, tuple[str, ...]]]]


@dataclass(frozen=True, eq=False)
class CodeKind:
    """What a toolkit whose code recipelint reads says of that code (the toolkit owns it, in its
    own package): how its package folder is recognised, its releases, its own pin files, and the
    code patterns of its known bugs."""

    package: str  # the import package: the folder's and the distribution's name
    label: str  # as a user names it: in `show` and in findings
    marker: str = ""  # a file below the package folder that marks it besides __init__.py
    tags: tuple[tuple[str, str, str], ...] = ()  # release tags: (name, commit, committer date)
    head: tuple[str, str, str] | None = None  # the upstream HEAD the tables were made at
    fingerprints: Fingerprints = field(default_factory=dict)  # a checkout without .git is dated by its files
    requirements: tuple[str, ...] = ()  # the release's own pin files, relative to the checkout's top
    version_file: str = ""  # a package file assigning __version__, read when no distribution says
    # Only a version a release tag names ("v3.0.1") places the code among the releases (an
    # editable install's metadata version says nothing of the branch it was made from).
    tag_versions: bool = False
    patterns: Mapping[str, Pattern] = field(default_factory=dict)  # known-bug patterns by name (KnownIssue.pattern)


@dataclass
class Checkout:
    """A toolkit's source tree (or installed package) and what identifies its version."""

    kind: CodeKind
    root: Path  # the folder holding the package folder
    found_by: str  # how it was found: "PYTHONPATH in path.sh:8", "package folder above the recipe", ...
    version: str | None = None  # a release version ("0.1.19", "v3.0.1")
    version_source: str = ""
    commit: str | None = None
    commit_source: str = ""
    date: str | None = None  # committer date of the commit; the earliest date its files can be from
    date_source: str = ""
    date_last: str | None = None  # the latest date its files can be from, when they date it (no .git)
    fingerprint: str | None = None  # "wenet/bin/train.py, wenet/utils/executor.py match upstream 2023-12-26 to 2024-01-08"
    _memo: Memo[str, Any] = field(default_factory=Memo, repr=False)

    @property
    def toolkit(self) -> str:
        """The toolkit's package name (its recipes' `Recipe.toolkit`, its known issues')."""
        return self.kind.package

    @property
    def package(self) -> Path:
        return self.root / self.toolkit

    @property
    def in_own_environment(self) -> bool:
        """Found installed where recipelint runs, which is not the training node."""
        return self.found_by.startswith(OWN_ENVIRONMENT)

    @property
    def name(self) -> str:
        return self.kind.label

    def label(self) -> str:
        """'WeNet checkout /x/wenet-src (v3.0.1, commit a93af33, 2024-03-08)'."""
        dates = f"{self.date} to {self.date_last}" if self.date and self.date_last and self.date_last != self.date else self.date
        parts = [p for p in (self.version, f"commit {self.commit[:7]}" if self.commit else None, dates) if p]
        if not parts and self.fingerprint:
            parts.append(self.fingerprint)
        return f"{self.name} checkout {self.root}" + (f" ({', '.join(parts)})" if parts else " (version unknown)")

    def facts(self) -> list[tuple[str, str, str]]:
        """(label, value, source) rows for `recipelint show`: where the code is and its version."""
        rows = [(f"{self.name} code", str(self.root), self.found_by)]
        if self.version:
            rows.append((f"{self.name} version", self.version, self.version_source))
        if self.commit:
            rows.append((f"{self.name} commit", self.commit, self.commit_source))
        if self.date:
            dates = f"{self.date} to {self.date_last}" if self.date_last and self.date_last != self.date else self.date
            rows.append((f"{self.name} code date", dates, self.date_source))
        if self.fingerprint:
            rows.append((f"{self.name} files", self.fingerprint, "git blob ids of known files (recipelint/toolkits/upstream.py)"))
        return rows

    # What the code says, read with ast and kept for the run.
    def cached(self, key: str, compute: Callable[[], T]) -> T:
        """What `compute` reads of this code, once per run for every recipe sharing the checkout."""
        return cast(T, self._memo.get(key, compute))  # the memo holds each key's own type

    def pattern(self, name: str) -> list[Span] | None:
        """Where a known-bug pattern of the toolkit (CodeKind.patterns) is in this code."""
        function = self.kind.patterns[name]
        return self.cached(f"pattern:{name}", lambda: function(self.package))

    def env_default(self, relative: str, variable: str) -> tuple[bool, int | None, Span | None] | None:
        """How the file at package/relative reads an environment variable (pycode.env_default)."""
        from recipelint.parse import pycode

        return self.cached(f"env:{relative}:{variable}", lambda: pycode.env_default(self.package, relative, variable))

    def package_files(self, pattern: str = "**/*.py") -> list[PyFile]:
        """The package's Python files matching `pattern`, parsed once a run (at most
        PACKAGE_FILES: a package is not a whole site-packages)."""
        from recipelint.parse import pycode

        def read() -> list[PyFile]:
            paths = sorted(self.package.glob(pattern))[:PACKAGE_FILES]
            return [f for f in (pycode.parse_python(path) for path in paths) if f is not None]

        return self.cached(f"files:{pattern}", read)

    def module(self, name: str) -> PyFile | None:
        """The package's module `wenet.dataset.x` as a parsed file (None outside the package)."""
        from recipelint.parse import pycode

        parts = name.split(".")
        if len(parts) < 2 or parts[0] != self.package.name or not all(part.isidentifier() for part in parts):
            return None
        return pycode.parse_python(self.package.joinpath(*parts[1:-1], parts[-1] + ".py"))

    def code_files(self) -> list[PyFile]:
        """The package's modules and the modules at the top of the tree that holds it (a fork's
        own train.py and init_model.py beside `wenet/`)."""
        from recipelint.parse import pycode

        def read() -> list[PyFile]:
            beside = [f for f in (pycode.parse_python(path) for path in sorted(self.root.glob("*.py"))[:PACKAGE_FILES]) if f is not None]
            return [*self.package_files(), *beside]

        return self.cached("code_files", read)

    def compared_values(self, key: str) -> Compared | None:
        """The values of a YAML key the code handles (pycode.compared_values over code_files)."""
        from recipelint.parse import pycode

        return self.cached(f"compared:{key}", lambda: pycode.compared_values(self.code_files(), key))

    def entry_files(self, entry: str) -> list[PyFile]:
        """The training script `entry` and the package modules it imports (one level: v3's
        train.py builds its DataLoader and join in utils/train_utils.py); [] when the script is
        not there."""
        from recipelint.parse import pycode

        def read() -> list[PyFile]:
            script = pycode.parse_python(self.package / entry)
            if script is None:
                return []
            modules = [self.module(name) for name in pycode.imported_modules(script, self.toolkit)]
            return [script, *(m for m in modules if m is not None)]

        return self.cached(f"entry_files:{entry}", read)

    def value_read(self, name: str, entry: str) -> Span | None | bool:
        """Where the training script or a module it imports reads the setting `name`
        (pycode.value_read); False when none reads it; None when the script is not there."""
        from recipelint.parse import pycode

        files = self.entry_files(entry)
        if not files:
            return None
        found: Span | None = self.cached(f"read:{entry}:{name}", lambda: pycode.value_read(files, name))
        return False if found is None else found

    def loader_keywords(self, entry: str) -> tuple[set[str], Span | None]:
        """The keywords the DataLoader calls of the training script and its modules pass."""
        from recipelint.parse import pycode

        return self.cached(f"loader_keywords:{entry}", lambda: pycode.loader_keywords(self.entry_files(entry)))

    def read_keys(self, top: bool = False) -> set[str]:
        """Every string key any code of the package (or beside it) reads from a dict
        (pycode.read_keys); `top`: those it may read at the top level of the YAML."""
        from recipelint.parse import pycode

        return self.cached(f"read_keys:{top}", lambda: pycode.read_keys(self.code_files(), top))

    def repository_keys(self, top: Path) -> set[str]:
        """The keys every Python file of the repository at `top` reads or writes (at most
        REPOSITORY_FILES, virtual environments left out): a config no launch names may be read by
        a trainer of the repository outside the package (`local/me/bin/train.py`)."""
        from recipelint.parse import pycode

        def read() -> set[str]:
            paths = [p for p in sorted(top.glob("**/*.py")) if not set(p.relative_to(top).parts) & SKIPPED_FOLDERS]
            return pycode.read_keys([f for f in (pycode.parse_python(p) for p in paths[:REPOSITORY_FILES]) if f is not None], top=True)

        return self.cached(f"repository_keys:{top}", read)

    def config_keys(self) -> set[str]:
        """Top-level YAML keys the code reads: every module of the package (its trainers, model
        builders and recognisers read the same YAML, saved beside the model), and the modules at
        the top of the tree that holds it (a fork's own train.py and init_model.py beside
        `wenet/`)."""
        from recipelint.parse import pycode

        def read() -> set[str]:
            return pycode.config_keys(self.code_files())

        return self.cached("config_keys", read)

    # Where this code sits in upstream history.
    def span_of_dates(self) -> tuple[str, str] | None:
        """(earliest, latest) date the code can be from."""
        return (self.date, self.date_last or self.date) if self.date else None

    def at_least(self, version: str | None = None, date: str | None = None) -> bool | None:
        """Whether this code is at or after a release (`version`) or an upstream commit date; None: unknown."""
        if version and self.version and (not self.kind.tag_versions or self.version.startswith("v")):
            return version_key(self.version) >= version_key(version)
        when = date or (release_date(self.kind, version) if version else None)
        dates = self.span_of_dates()
        if when is None or dates is None:
            return None
        if dates[0] >= when:
            return True
        return False if dates[1] < when else None

    def version_at_least(self, point: str) -> bool | None:
        """`version_at_least("v3.0.0")`, `("0.1.20")` or `("2024-01-02")`; None when it cannot be told."""
        if re.fullmatch(r"\d{4}-\d\d-\d\d", point):
            return self.at_least(date=point)
        return self.at_least(version=point)


def release_date(kind: CodeKind, version: str) -> str | None:
    wanted = version if version.startswith("v") else f"v{version}"
    return next((date for name, _, date in kind.tags if name == wanted), None)


def known_commits(kind: CodeKind) -> dict[str, tuple[str, str]]:
    """commit -> (date, what it is): release tags and the commits the known-issue table cites."""
    from recipelint import knownissues

    commits = {commit: (date, name) for name, commit, date in kind.tags}
    if kind.head is not None:
        commits[kind.head[1]] = (kind.head[2], "upstream HEAD known to recipelint")
    for issue in knownissues.for_toolkit(kind.package):
        for change in (issue.introduced, issue.fixed):
            if change is not None and change.commit:
                commits.setdefault(change.commit, (change.date, change.pr))
    return commits


def _has_package(folder: Path, kind: CodeKind) -> bool:
    package = folder / kind.package
    return (package / "__init__.py").is_file() or (bool(kind.marker) and (package / kind.marker).is_file())


# -- finding the checkout ---------------------------------------------------------------------


def _sourced(script: ShellScript, root: Path, files: FileCache) -> Iterator[tuple[int, ShellScript]]:
    """The files `. ./path.sh` / `source x` bring in, with the byte offset of the command."""
    for command in script.commands:
        if command.name in (".", "source") and len(command.words) > 1 and command.words[1].value:
            path = root / command.words[1].value
            if path.is_file():
                try:
                    yield command.span.start, parse_shell(files.read(path))
                except SourceError:
                    continue


def _pythonpath(root: Path, script: ShellScript, files: FileCache) -> list[tuple[Path, str]]:
    """PYTHONPATH's entries as the launch sees them, each with the assignment that put it there."""
    events: list[tuple[int, ShellScript | None, Any]] = [(a.order, None, a) for a in script.assignments if a.name == "PYTHONPATH"]
    for offset, sourced in _sourced(script, root, files):
        events.extend((offset, sourced, a) for a in sourced.assignments if a.name == "PYTHONPATH")
    entries: list[tuple[Path, str]] = []
    for _, origin, assignment in sorted(events, key=lambda e: e[0]):
        source = (origin or script).source
        where = f"PYTHONPATH={assignment.value.text} in {source.path.name}:{assignment.span.line}"
        new: list[tuple[Path, str]] = []
        for part in assignment.value.text.strip("\"'").split(":"):
            if part in ("$PYTHONPATH", "${PYTHONPATH}"):
                new.extend(entries)
                continue
            part = re.sub(r"\$\{?PWD\}?|\$\(pwd\)", str(root), part)
            if part and "$" not in part:
                new.append((root / part, where))
        entries = new
    return entries


_UPWARD: Memo[Path, tuple[Path, ...]] = Memo(module=True)


def _upward(root: Path) -> tuple[Path, ...]:
    """The recipe's folder and those above it, up to the repository's top (the folder with .git)."""

    def search() -> tuple[Path, ...]:
        return tuple(upward(_resolve(root), has_git, UPWARD_LEVELS)[0])

    return _UPWARD.get(root, search)


def repository_top(root: Path) -> Path:
    """The top of the recipe's repository (the folder with .git), or the highest folder searched."""
    return _upward(root)[-1]


def _site_packages(venv: Path) -> list[Path]:
    return sorted(venv.glob("lib/python3*/site-packages")) + sorted(venv.glob("Lib/site-packages"))


def _dist_infos(site: Path) -> Iterator[tuple[str, str, Path]]:
    """(normalised name, version, path) of each NAME-VERSION.dist-info in a site-packages folder."""
    for name in deps.listing(str(site), ("*.dist-info",)):
        if name.endswith(".dist-info"):
            dist, _, version = name[: -len(".dist-info")].rpartition("-")
            yield re.sub(r"[-_.]+", "_", dist).lower(), version, site / name


def _editable_root(dist_info: Path) -> Path | None:
    """The source folder of an editable install (direct_url.json), when it is on this machine."""
    import json

    try:
        data = json.loads(read_capped(dist_info / "direct_url.json", 65536))
    except (OSError, ValueError, SourceError):
        return None
    url = data.get("url", "") if isinstance(data, dict) else ""
    if isinstance(url, str) and url.startswith("file://") and data.get("dir_info", {}).get("editable"):
        return Path(url[len("file://") :])
    return None


def _dist_in(site: Path, toolkit: str) -> tuple[Path, str, str] | None:
    """(source folder, version, dist-info name) when `site` holds the toolkit's distribution."""
    for dist, version, info in _dist_infos(site):
        if dist == toolkit:
            return _editable_root(info) or site, version, info.name
    return None


_OWN: Memo[str, tuple[Path, str, str, str] | None] = Memo(module=True)


def _installed(kind: CodeKind, root: Path) -> tuple[Path, str, str, str] | None:
    """(source folder, version, how found, version source) of an installed distribution: a virtual
    environment beside the recipe first, then the environment recipelint runs in. Only the
    `NAME-VERSION.dist-info` folders are read (what importlib.metadata reads, without its imports)."""
    for folder in _upward(root):
        for venv in (folder / name for name in VENV_NAMES):
            for site in _site_packages(venv) if (venv / "pyvenv.cfg").is_file() else []:
                hit = _dist_in(site, kind.package)
                if hit is not None:
                    return hit[0], hit[1], f"installed in {venv}", hit[2]

    def own() -> tuple[Path, str, str, str] | None:
        import sys

        for entry in sys.path:
            hit = _dist_in(Path(entry or "."), kind.package)
            if hit is not None:
                return hit[0], hit[1], f"{OWN_ENVIRONMENT} ({entry})", hit[2]
        return None

    return _OWN.get(kind.package, own)


def find_checkout(kind: CodeKind, root: Path, script: ShellScript | None, files: FileCache) -> Checkout | None:
    """The code of this kind a recipe at `root` runs, or None when none is found (once per folder
    and PYTHONPATH in a run)."""
    from_path = _pythonpath(root, script, files) if script is not None else []
    key = (kind.package, _resolve(root), tuple(folder for folder, _ in from_path))

    def find() -> Checkout | None:
        found = _find(kind, root, from_path)
        if found is not None:
            # Recipes that share a checkout share what was read from it (flags, keys, patterns).
            first = files.checkout_code.setdefault((kind.package, _resolve(found.root)), found)
            found = found if first is found else replace(first, found_by=found.found_by)
        return found

    checkout: Checkout | None = files.checkouts.get(key, find)
    return checkout


def _resolve(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # a symlink loop
        return path.absolute()


def _display(folder: Path) -> Path:
    """A folder as findings print it: relative to the working directory when it is below it."""
    resolved = _resolve(folder)
    try:
        return resolved.relative_to(Path.cwd())
    except ValueError:
        return resolved


def _find(kind: CodeKind, root: Path, from_path: list[tuple[Path, str]]) -> Checkout | None:
    upward = _upward(root)
    candidates = from_path + [(folder, "package folder above the recipe") for folder in upward]
    # A repository that vendors the toolkit's own repository as a folder (`xtuner/` holding
    # setup.py and the package `xtuner/xtuner/`, installed with `cd xtuner; pip install -e .`).
    candidates += [(folder / kind.package, f"{kind.package}/ repository vendored in {_display(folder)}") for folder in upward]
    for folder, how in candidates:
        if _has_package(folder, kind):
            return identify(Checkout(kind, _display(folder), how))
    found = _installed(kind, root)
    if found is None or not _has_package(found[0], kind):
        return None
    return identify(Checkout(kind, _display(found[0]), found[2], version=found[1], version_source=found[3]))


def identify(checkout: Checkout) -> Checkout:
    """Fill the version facts: version.py, the git commit and its date, else file fingerprints."""
    from recipelint.parse import gitdir, pycode  # only when a checkout is found: start-up matters

    if checkout.kind.version_file and checkout.version is None:
        version = pycode.version_assignment(checkout.package / checkout.kind.version_file)
        if version:
            checkout.version, checkout.version_source = version, f"{checkout.toolkit}/{checkout.kind.version_file}"
    head = gitdir.read_head(checkout.root)
    if head is not None:
        checkout.commit, checkout.commit_source = head.commit, head.source + (f" (branch {head.branch})" if head.branch else "")
        known = known_commits(checkout.kind).get(head.commit)
        if known is not None:
            checkout.date, checkout.date_source = known[0], f"upstream commit table ({known[1]})"
        else:
            date = gitdir.commit_date(head.common_dir, head.commit)
            if date:
                checkout.date, checkout.date_source = date, "commit object in .git"
        tags = [t for t in gitdir.tags_at(head.common_dir, head.commit) if t.startswith("v")]
        if known is not None and known[1].startswith("v"):
            tags.append(known[1])
        if tags and checkout.version is None:
            checkout.version, checkout.version_source = tags[0], "git tag at the checked-out commit"
    if checkout.date is None and checkout.kind.fingerprints:
        _fingerprint(checkout)
    return checkout


def _blob_id(path: Path) -> str | None:
    import hashlib

    try:
        data = read_bytes(path)
    except SourceError:
        return None
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _fingerprint(checkout: Checkout) -> None:
    """Date a checkout without .git by its files: each known file byte-identical to a version on
    the toolkit's main line narrows the dates; a release is named when every match is that release's file."""
    lo, hi, matched, tags = "", "9999", [], None
    for path, blobs in checkout.kind.fingerprints.items():
        found = blobs.get(_blob_id(checkout.root / path) or "")
        if found is None or max(lo, found[0]) > min(hi, found[1]):
            continue  # not an upstream version, or from another time than the files already matched
        lo, hi = max(lo, found[0]), min(hi, found[1])
        matched.append(path)
        tags = set(found[2]) if tags is None else tags & set(found[2])
    if not matched:
        return
    checkout.date, checkout.date_last = lo, hi
    checkout.fingerprint = f"{', '.join(matched)} match upstream {lo}" + (f" to {hi}" if hi != lo else "")
    checkout.date_source = f"git blob ids of {', '.join(matched)} (recipelint/toolkits/upstream.py)"
    if tags and len(tags) == 1 and checkout.version is None:
        checkout.version = next(iter(tags))
        checkout.version_source = f"{', '.join(matched)} identical to {checkout.version}'s"


# -- the releases the run imports: an activated or nearby environment, the repository's pins ---

_FOLDER_RANGES: Memo[Path, dict[str, Range]] = Memo(module=True)


def _venv_ranges(venv: Path) -> dict[str, Range]:
    """The exact releases a virtual environment holds (its NAME-VERSION.dist-info folders)."""
    found: dict[str, Range] = {}
    for site in _site_packages(venv) if (venv / "pyvenv.cfg").is_file() else []:
        for dist, version, info in _dist_infos(site):
            name = normal(dist)
            if name not in found:
                found[name] = Range(name, f"=={version}", str(info), "installed")
    return found


def _folder_ranges(folder: Path) -> dict[str, Range]:
    """What one folder declares: a virtual environment in it, then its pin files (requirements*.txt,
    setup.py, setup.cfg, pyproject.toml, environment.yml), first file first; a name given without
    a version says nothing about the release and is passed over (one listing per folder per run)."""
    from recipelint.parse import pins

    def read() -> dict[str, Range]:
        names = deps.listing(str(folder), (*pins.PIN_FILES, *VENV_NAMES))
        found: dict[str, Range] = {}
        for venv in (folder / name for name in VENV_NAMES if name in names):
            for name, rng in _venv_ranges(venv).items():
                found.setdefault(name, rng)
        files = sorted(n for n in names if n not in VENV_NAMES)
        for pin in (p for name in files for p in pins.read(folder / name)):
            if pin.specifier:
                found.setdefault(pin.name, Range(pin.name, pin.specifier, pin.where))
        return found

    return _FOLDER_RANGES.get(folder, read)


def activated_venvs(script: ShellScript | None, root: Path) -> list[Path]:
    """The virtual environments the script activates (`source venv/bin/activate`), when here."""
    found = []
    for sourced in script.sourced if script is not None else []:
        path = Path(sourced.path)
        if path.name != "activate" or path.parent.name not in ("bin", "Scripts"):
            continue
        venv = path.parent.parent if path.is_absolute() else root / path.parent.parent
        if (venv / "pyvenv.cfg").is_file():
            found.append(venv)
    return found


def checkout_pin_files(checkout: Checkout | None) -> list[Path]:
    """The toolkit release's own requirements (CodeKind.requirements) at the checkout's top."""
    if checkout is None or checkout.in_own_environment:
        return []
    return [checkout.root / name for name in checkout.kind.requirements if (checkout.root / name).is_file()]


def ranges_beside(
    root: Path, script: ShellScript | None = None, checkout: Checkout | None = None, near: tuple[Path, ...] = ()
) -> dict[str, Range]:
    """name -> Range, nearest first: the environment the script activates, the pin files of the
    `near` folders (the launched training script's: a `finetune/requirements.txt` beside the
    training code wins over the repository's), a virtual
    environment or pin file in the recipe's folder or one above it (to the repository's top), the
    toolkit checkout's own requirements."""
    from recipelint.parse import pins

    found: dict[str, Range] = {}
    for venv in activated_venvs(script, root):
        for name, rng in _venv_ranges(venv).items():
            found.setdefault(name, replace(rng, source=f"{rng.source} (activated by the script)"))
    for folder in (*dict.fromkeys(near), *_upward(root)):
        for name, rng in _folder_ranges(folder).items():
            found.setdefault(name, rng)
    for pin in (p for path in checkout_pin_files(checkout) for p in pins.read(path)):
        if pin.specifier:
            found.setdefault(
                pin.name, Range(pin.name, pin.specifier, f"{pin.where} ({checkout.name if checkout else ''} release's requirements)")
            )
    return found


# -- a checkout against the known-issue table ---------------------------------------------------


def _and(a: bool | None, b: bool | None) -> bool | None:
    if a is False or b is False:
        return False
    return None if a is None or b is None else True


@dataclass(frozen=True)
class Status:
    affected: bool | None  # None: the checkout cannot be placed against this issue
    how: str  # "code pattern ... in wenet/dataset/processor.py" or "commit date 2023-12-20"
    where: tuple[Span, ...] = ()  # the pattern's places in the checkout


def issue_status(issue: KnownIssue, checkout: Checkout) -> Status:
    """Whether the checkout has the bug: its code when the pattern's file is there, else its version."""
    if issue.pattern:
        hits = checkout.pattern(issue.pattern)
        if hits is not None:
            words = issue.pattern_text or issue.pattern
            return Status(bool(hits), f"{'found' if hits else 'not found'} in the code: {words}", tuple(hits))
    since = True if issue.introduced is None else checkout.at_least(issue.introduced.release, issue.introduced.date)
    fixed = False if issue.fixed is None else checkout.at_least(issue.fixed.release, issue.fixed.date)
    affected = _and(since, None if fixed is None else not fixed)
    placed = checkout.version or checkout.date or "unknown version"
    return Status(affected, f"by version: {checkout.name} {placed} ({checkout.version_source or checkout.date_source})")
