"""The toolkit code a recipe runs: where it is, which version it is, and how we know.

Nothing from the checkout is imported or executed: its location comes from the recipe's
`PYTHONPATH` (upstream WeNet recipes source `path.sh` with `export PYTHONPATH=../../../:$PYTHONPATH`),
else a `wenet/` or `xtuner/` package folder above the recipe, else an installed distribution
(a virtual environment beside the recipe, then recipelint's own environment; package metadata
only). Its version: the distribution's or `version.py`'s; for a git checkout the commit read
from the `.git` files and that commit's date; else the release whose files it matches.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
    from recipelint.parse.flags import Flag
    from recipelint.parse.pycode import Compared, KeyReads, PyFile

TOOLKITS = {"wenet": "WeNet", "xtuner": "XTuner"}
VENV_NAMES = (".venv", "venv", "env", ".env")
OWN_ENVIRONMENT = "installed in recipelint's Python"
TRAIN_ENTRY = "bin/train.py"  # the training script a WeNet launch runs unless it names another (bin/train_deprecated.py)
REPOSITORY_FILES = 3000  # Python files read for the keys of a config no launch names
SKIPPED_FOLDERS = {*VENV_NAMES, "site-packages", "node_modules", ".git"}
PACKAGE_FILES = 800  # modules read of one package: upstream WeNet HEAD has about 250
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


@dataclass
class Checkout:
    """A WeNet or XTuner source tree (or installed package) and what identifies its version."""

    toolkit: str  # "wenet" or "xtuner"
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
    pcm_source: str = ""  # how batch_carries_pcm was decided
    _memo: Memo[str, Any] = field(default_factory=Memo, repr=False)

    @property
    def package(self) -> Path:
        return self.root / self.toolkit

    @property
    def wenet(self) -> bool:
        """WeNet's code (its data pipeline, train.py's flags), not XTuner's."""
        return self.toolkit == "wenet"

    @property
    def in_own_environment(self) -> bool:
        """Found installed where recipelint runs, which is not the training node."""
        return self.found_by.startswith(OWN_ENVIRONMENT)

    @property
    def name(self) -> str:
        return TOOLKITS.get(self.toolkit, self.toolkit)

    def label(self) -> str:
        """'WeNet checkout /x/wenet-src (v3.0.1, commit a93af33, 2024-03-08)'."""
        dates = f"{self.date} to {self.date_last}" if self.date and self.date_last and self.date_last != self.date else self.date
        parts = [p for p in (self.version, f"commit {self.commit[:7]}" if self.commit else None, dates) if p]
        if not parts and self.fingerprint:
            parts.append(self.fingerprint)
        return f"{self.name} checkout {self.root}" + (f" ({', '.join(parts)})" if parts else " (version unknown)")

    def facts(self, entry: str = TRAIN_ENTRY) -> list[tuple[str, str, str]]:
        """(label, value, source) rows for `recipelint show`; `entry`: the training script the
        launch runs, relative to the package."""
        rows = [(f"{self.name} code", str(self.root), self.found_by)]
        if self.version:
            rows.append((f"{self.name} version", self.version, self.version_source))
        if self.commit:
            rows.append((f"{self.name} commit", self.commit, self.commit_source))
        if self.date:
            dates = f"{self.date} to {self.date_last}" if self.date_last and self.date_last != self.date else self.date
            rows.append((f"{self.name} code date", dates, self.date_source))
        if self.fingerprint:
            rows.append((f"{self.name} files", self.fingerprint, "git blob ids of known files (recipelint/parse/upstream.py)"))
        if self.toolkit == "wenet":
            flags = self.train_flags(entry)
            name = entry.rsplit("/", 1)[-1]
            fallback = "baked-in table (WeNet HEAD)" if entry == "bin/train.py" else "not judged"
            rows.append(
                (
                    f"{name} flags",
                    f"{len(flags)} flags" if flags else fallback,
                    self.flags_source(entry) if flags else f"{name} not readable",
                )
            )
            pcm = self.batch_carries_pcm
            rows.append(("batch carries pcm", "unknown" if pcm is None else "yes" if pcm else "no", self.pcm_source))
            rows.extend(self._code_rows(entry))
        return rows

    def _code_rows(self, entry: str) -> list[tuple[str, str, str]]:
        """What the code does with the train YAML: the keys it requires, the blocks it spreads."""
        rows = []
        required = self.required_keys()
        if required:
            keys = ", ".join(key for key, _, _ in required)
            rows.append(("YAML keys required", keys, f"{required[0][1]}() in wenet/utils/init_tokenizer.py indexes them (read with ast)"))
        reads = self.dataset_keys(entry) or {}
        spread = [
            f"{block or 'dataset_conf'} -> {r.function}()" for block, r in sorted(reads.items()) if r.function is not None and r.strict
        ]
        if spread:
            top = reads.get("")
            where = f"wenet/{entry}" if top is not None and top.module else "wenet/dataset/dataset.py"
            rows.append(("blocks spread as **kwargs", ", ".join(spread), f"{where} (read with ast): other keys are a TypeError"))
        return rows

    # What the code says, read with ast and kept for the run.
    def _cached(self, key: str, compute: Any) -> Any:
        return self._memo.get(key, compute)

    def pattern(self, name: str) -> list[Span] | None:
        """Where a known-bug pattern (a function of recipelint.parse.pycode) is in this code."""
        from recipelint.parse import pycode  # the Python reader, and ast, only when code is read

        function = getattr(pycode, name)
        return self._cached(f"pattern:{name}", lambda: function(self.package))  # type: ignore[no-any-return]

    def env_default(self, relative: str, variable: str) -> tuple[bool, int | None, Span | None] | None:
        """How the file at package/relative reads an environment variable (pycode.env_default)."""
        from recipelint.parse import pycode

        return self._cached(f"env:{relative}:{variable}", lambda: pycode.env_default(self.package, relative, variable))  # type: ignore[no-any-return]

    def train_flags(self, entry: str = TRAIN_ENTRY) -> dict[str, Flag] | None:
        """The flags the training script `entry` (wenet/bin/train.py, train_deprecated.py)
        accepts here (with wenet/utils/train_utils.py from v3 on)."""
        from recipelint.parse import pycode

        def read() -> dict[str, Flag] | None:
            files = [pycode.parse_python(self.package / rel) for rel in (entry, "utils/train_utils.py")]
            if files[0] is None:
                return None
            flags = pycode.argparse_flags([f for f in files if f is not None])
            return flags if len(flags) >= 3 else None  # a train.py that builds its parser elsewhere: not ours to judge

        return self._cached(f"flags:{entry}", read)  # type: ignore[no-any-return]

    def flags_source(self, entry: str = TRAIN_ENTRY) -> str:
        files = [rel for rel in (entry, "utils/train_utils.py") if (self.package / rel).is_file()]
        return ", ".join(f"{self.toolkit}/{rel}" for rel in files) + f" of the {self.label()} (read with ast)"

    def dataset_keys(self, entry: str = TRAIN_ENTRY) -> dict[str, KeyReads] | None:
        """The keys `dataset_conf` and its blocks may hold for the training script `entry`
        (relative to the package): what it spreads `**dataset_conf` into (WeNet 1's train.py and
        WeNet 2's train_deprecated.py build `AudioDataset(path, **dataset_conf)`), else what
        `Dataset(..., conf)` in wenet/dataset/dataset.py reads."""
        from recipelint.parse import pycode

        def read() -> dict[str, KeyReads] | None:
            script = pycode.parse_python(self.package / entry)
            spread = pycode.spread_dataset_conf(script, self._module) if script is not None else None
            if spread is not None:
                return {"": spread}
            dataset = self._module(self.dataset_module(script)) or pycode.parse_python(self.package / "dataset" / "dataset.py")
            if dataset is None:
                return None
            helpers = [f for f in self.package_files("dataset/*.py") if f.source.path != dataset.source.path]
            # The processor module the dataset imports: a fork may move it (ASLP-lab/OSUM's
            # OSUM-EChat: `import wenet.dataset.process.processor as processor`).
            bound = pycode.bound_module(dataset, "processor")
            processor = (self._module(bound) if bound else None) or pycode.parse_python(self.package / "dataset" / "processor.py")
            return pycode.dataset_keys(dataset, processor, helpers)

        return self._cached(f"dataset_keys:{entry}", read)  # type: ignore[no-any-return]

    def dataset_module(self, script: PyFile | None) -> str:
        """The module the training script takes `Dataset` from: a fork's trainer variant may
        import its own (`from wenet.dataset.dataset_dys import Dataset`)."""
        from recipelint.parse import pycode

        found = pycode.imported_from(script, "Dataset") if script is not None else None
        return found if found and found.startswith(f"{self.toolkit}.") else f"{self.toolkit}.dataset.dataset"

    def trainers(self) -> list[str]:
        """The package's training scripts, relative to it: bin/train.py and its variants
        (bin/train_dys.py, bin/train_mlcslm_baseline.py in forks), train.py first."""
        names = sorted(p.name for p in (self.package / "bin").glob("train*.py"))
        return [f"bin/{n}" for n in sorted(names, key=lambda n: n != "train.py")]

    def package_files(self, pattern: str = "**/*.py") -> list[PyFile]:
        """The package's Python files matching `pattern`, parsed once a run (at most
        PACKAGE_FILES: a package is not a whole site-packages)."""
        from recipelint.parse import pycode

        def read() -> list[PyFile]:
            paths = sorted(self.package.glob(pattern))[:PACKAGE_FILES]
            return [f for f in (pycode.parse_python(path) for path in paths) if f is not None]

        return self._cached(f"files:{pattern}", read)  # type: ignore[no-any-return]

    def _module(self, name: str) -> PyFile | None:
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

        return self._cached("code_files", read)  # type: ignore[no-any-return]

    def compared_values(self, key: str) -> Compared | None:
        """The values of a YAML key the code handles (pycode.compared_values over code_files)."""
        from recipelint.parse import pycode

        return self._cached(f"compared:{key}", lambda: pycode.compared_values(self.code_files(), key))  # type: ignore[no-any-return]

    def entry_files(self, entry: str = TRAIN_ENTRY) -> list[PyFile]:
        """The training script `entry` and the package modules it imports (one level: v3's
        train.py builds its DataLoader and join in utils/train_utils.py); [] when the script is
        not there."""
        from recipelint.parse import pycode

        def read() -> list[PyFile]:
            script = pycode.parse_python(self.package / entry)
            if script is None:
                return []
            modules = [self._module(name) for name in pycode.imported_modules(script, self.toolkit)]
            return [script, *(m for m in modules if m is not None)]

        return self._cached(f"entry_files:{entry}", read)  # type: ignore[no-any-return]

    def value_read(self, name: str, entry: str = TRAIN_ENTRY) -> Span | None | bool:
        """Where the training script or a module it imports reads the setting `name`
        (pycode.value_read); False when none reads it; None when the script is not there."""
        from recipelint.parse import pycode

        files = self.entry_files(entry)
        if not files:
            return None
        found: Span | None = self._cached(f"read:{entry}:{name}", lambda: pycode.value_read(files, name))
        return False if found is None else found

    def loader_keywords(self, entry: str = TRAIN_ENTRY) -> tuple[set[str], Span | None]:
        """The keywords the DataLoader calls of the training script and its modules pass."""
        from recipelint.parse import pycode

        return self._cached(f"loader_keywords:{entry}", lambda: pycode.loader_keywords(self.entry_files(entry)))  # type: ignore[no-any-return]

    def read_keys(self, top: bool = False) -> set[str]:
        """Every string key any code of the package (or beside it) reads from a dict
        (pycode.read_keys); `top`: those it may read at the top level of the YAML."""
        from recipelint.parse import pycode

        return self._cached(f"read_keys:{top}", lambda: pycode.read_keys(self.code_files(), top))  # type: ignore[no-any-return]

    def repository_keys(self, top: Path) -> set[str]:
        """The keys every Python file of the repository at `top` reads or writes (at most
        REPOSITORY_FILES, virtual environments left out): a config no launch names may be read by
        a trainer of the repository outside the package (`local/me/bin/train.py`)."""
        from recipelint.parse import pycode

        def read() -> set[str]:
            paths = [p for p in sorted(top.glob("**/*.py")) if not set(p.relative_to(top).parts) & SKIPPED_FOLDERS]
            return pycode.read_keys([f for f in (pycode.parse_python(p) for p in paths[:REPOSITORY_FILES]) if f is not None], top=True)

        return self._cached(f"repository_keys:{top}", read)  # type: ignore[no-any-return]

    def config_keys(self) -> set[str]:
        """Top-level YAML keys the code reads: every module of the package (its trainers, model
        builders and recognisers read the same YAML, saved beside the model), and the modules at
        the top of the tree that holds it (a fork's own train.py and init_model.py beside
        `wenet/`)."""
        from recipelint.parse import pycode

        def read() -> set[str]:
            return pycode.config_keys(self.code_files())

        return self._cached("config_keys", read)  # type: ignore[no-any-return]

    # The first code that takes the loaded YAML; a key it indexes on every path must be there.
    REQUIRED_BY = (("utils/init_tokenizer.py", "init_tokenizer"),)

    def required_keys(self) -> list[tuple[str, str, Span]]:
        """(key, function, where it is indexed) for each top-level YAML key the training code
        indexes on every path before it writes any (`configs['tokenizer_conf']` in WeNet 3's
        init_tokenizer): a config without it stops with KeyError at start-up."""
        from recipelint.parse import pycode

        def read() -> list[tuple[str, str, Span]]:
            found: list[tuple[str, str, Span]] = []
            for relative, function in self.REQUIRED_BY:
                file = pycode.parse_python(self.package / relative)
                keys = pycode.required_keys(file, function) if file is not None else None
                found.extend((key, function, span) for key, span in (keys or {}).items())
            return found

        return self._cached("required_keys", read)  # type: ignore[no-any-return]

    # Where this code sits in upstream history.
    def span_of_dates(self) -> tuple[str, str] | None:
        """(earliest, latest) date the code can be from."""
        return (self.date, self.date_last or self.date) if self.date else None

    def at_least(self, version: str | None = None, date: str | None = None) -> bool | None:
        """Whether this code is at or after a release (`version`) or an upstream commit date; None: unknown."""
        if version and self.version and (self.toolkit != "wenet" or self.version.startswith("v")):
            return version_key(self.version) >= version_key(version)
        when = date or (release_date(self.toolkit, version) if version else None)
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

    @property
    def batch_carries_pcm(self) -> bool | None:
        """Whether WeNet's padded batch also holds the padded waveform ('pcm'), which doubles the
        bytes per frame: processor.padding's keys, else the date of #2268 (2024-01-02, v3.0.0)."""
        if self.toolkit != "wenet":
            return None
        from recipelint.parse import pycode

        keys = self._cached("padding_keys", lambda: pycode.padding_keys(self.package))
        if keys:
            self.pcm_source = "wenet/dataset/processor.py padding() (read with ast)"
            return "pcm" in keys
        self.pcm_source = "code date against #2268 (2024-01-02)"
        return self.at_least(date="2024-01-02")


def release_date(toolkit: str, version: str) -> str | None:
    from recipelint.parse import upstream

    table = upstream.WENET_TAGS if toolkit == "wenet" else upstream.XTUNER_TAGS
    wanted = version if version.startswith("v") else f"v{version}"
    return next((date for name, _, date in table if name == wanted), None)


def known_commits(toolkit: str) -> dict[str, tuple[str, str]]:
    """commit -> (date, what it is): release tags and the commits the known-issue table cites."""
    from recipelint import knownissues
    from recipelint.parse import upstream

    table = upstream.WENET_TAGS if toolkit == "wenet" else upstream.XTUNER_TAGS
    commits = {commit: (date, name) for name, commit, date in table}
    if toolkit == "wenet":
        commits[upstream.WENET_HEAD[1]] = (upstream.WENET_HEAD[2], "upstream HEAD known to recipelint")
    for issue in knownissues.for_toolkit(toolkit):
        for change in (issue.introduced, issue.fixed):
            if change is not None and change.commit:
                commits.setdefault(change.commit, (change.date, change.pr))
    return commits


def _has_package(folder: Path, toolkit: str) -> bool:
    package = folder / toolkit
    if toolkit == "wenet":
        return (package / "bin" / "train.py").is_file() or (package / "__init__.py").is_file()
    return (package / "__init__.py").is_file()


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


def _installed(toolkit: str, root: Path) -> tuple[Path, str, str, str] | None:
    """(source folder, version, how found, version source) of an installed distribution: a virtual
    environment beside the recipe first, then the environment recipelint runs in. Only the
    `NAME-VERSION.dist-info` folders are read (what importlib.metadata reads, without its imports)."""
    for folder in _upward(root):
        for venv in (folder / name for name in VENV_NAMES):
            for site in _site_packages(venv) if (venv / "pyvenv.cfg").is_file() else []:
                hit = _dist_in(site, toolkit)
                if hit is not None:
                    return hit[0], hit[1], f"installed in {venv}", hit[2]

    def own() -> tuple[Path, str, str, str] | None:
        import sys

        for entry in sys.path:
            hit = _dist_in(Path(entry or "."), toolkit)
            if hit is not None:
                return hit[0], hit[1], f"{OWN_ENVIRONMENT} ({entry})", hit[2]
        return None

    return _OWN.get(toolkit, own)


def find_checkout(toolkit: str, root: Path, script: ShellScript | None, files: FileCache) -> Checkout | None:
    """The code a recipe at `root` runs, or None when none is found (once per folder and PYTHONPATH in a run)."""
    from_path = _pythonpath(root, script, files) if script is not None else []
    key = (toolkit, _resolve(root), tuple(folder for folder, _ in from_path))

    def find() -> Checkout | None:
        found = _find(toolkit, root, from_path)
        if found is not None:
            # Recipes that share a checkout share what was read from it (flags, keys, patterns).
            first = files.checkout_code.setdefault((toolkit, _resolve(found.root)), found)
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


def _find(toolkit: str, root: Path, from_path: list[tuple[Path, str]]) -> Checkout | None:
    upward = _upward(root)
    candidates = from_path + [(folder, "package folder above the recipe") for folder in upward]
    # A repository that vendors the toolkit's own repository as a folder (`xtuner/` holding
    # setup.py and the package `xtuner/xtuner/`, installed with `cd xtuner; pip install -e .`).
    candidates += [(folder / toolkit, f"{toolkit}/ repository vendored in {_display(folder)}") for folder in upward]
    for folder, how in candidates:
        if _has_package(folder, toolkit):
            return identify(Checkout(toolkit, _display(folder), how))
    found = _installed(toolkit, root)
    if found is None or not _has_package(found[0], toolkit):
        return None
    return identify(Checkout(toolkit, _display(found[0]), found[2], version=found[1], version_source=found[3]))


def identify(checkout: Checkout) -> Checkout:
    """Fill the version facts: version.py, the git commit and its date, else file fingerprints."""
    from recipelint.parse import gitdir, pycode  # only when a checkout is found: start-up matters

    if checkout.toolkit == "xtuner" and checkout.version is None:
        version = pycode.version_assignment(checkout.package / "version.py")
        if version:
            checkout.version, checkout.version_source = version, "xtuner/version.py"
    head = gitdir.read_head(checkout.root)
    if head is not None:
        checkout.commit, checkout.commit_source = head.commit, head.source + (f" (branch {head.branch})" if head.branch else "")
        known = known_commits(checkout.toolkit).get(head.commit)
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
    if checkout.date is None and checkout.toolkit == "wenet":
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
    WeNet's main line narrows the dates; a release is named when every match is that release's file."""
    from recipelint.parse import upstream

    lo, hi, matched, tags = "", "9999", [], None
    for path, blobs in upstream.WENET_FINGERPRINTS.items():
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
    checkout.date_source = f"git blob ids of {', '.join(matched)} (recipelint/parse/upstream.py)"
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
    """The toolkit release's own requirements: WeNet's requirements.txt at the checkout's top,
    XTuner's requirements/runtime.txt and requirements/deepspeed.txt."""
    if checkout is None or checkout.in_own_environment:
        return []
    names = ("requirements.txt",) if checkout.toolkit == "wenet" else ("requirements/runtime.txt", "requirements/deepspeed.txt")
    return [checkout.root / name for name in names if (checkout.root / name).is_file()]


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


_ENTRY = re.compile(r"(?:^|/)(bin/\w+\.py)$")


def package_entry(script: str | None) -> str:
    """The launched training script relative to the package (`wenet/bin/train_deprecated.py` ->
    `bin/train_deprecated.py`); `bin/train.py` when the launch names no such file."""
    match = _ENTRY.search(script) if script else None
    return match.group(1) if match else TRAIN_ENTRY


def recipe_facts(toolkit: str, checkout: Checkout | None, root: Path, script: str | None = None) -> list[tuple[str, str, str]]:
    """What `recipelint show` prints about the code a recipe runs (the releases it imports are in
    the run section: recipelint.runcontext.version_rows); `script`: the training script the launch names."""
    rows = (
        checkout.facts(package_entry(script))
        if checkout is not None
        else [(f"{TOOLKITS.get(toolkit, toolkit)} code", "not found", "PYTHONPATH, package folders above the recipe, installed packages")]
    )
    return rows


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
