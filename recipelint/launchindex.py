"""The repository index: which launch files (shell scripts, READMEs) name which configs.

A config passed alone (pre-commit passes each changed file) is checked with the launches that
name it anywhere in its repository. The index answers that for every config of a run at once,
in one pass: the launch files under the search top are listed once, each is read once and the
file names its text holds are kept (its tokens); a launch file whose tokens hold a passed
config's name is loaded once (toolkits.load_target), and the paths its launches resolve to are
kept with the lines of those launches. The cost is O(files + configs), never one pass over the
repository per config (issue 38: that was 31.7 µs per config and launch file, quadratic under
`pre-commit run --all-files`).

With the result cache, the index is kept between runs in the cache folder (`Store`), keyed by
the files' identities: each folder walked by its modification time (a folder whose entries
changed is listed again, the others are not), each launch file by its size, modification time
and inode, compared by the SHA-1 of its content only when those moved; a loaded launch file's
names also by the files its loading read (sourced scripts, what it calls), the configs it
names excepted: a changed train.yaml leaves the index as it is, so a commit that changes one
config in a repository of 5,000 recipes loads one launch, not 5,000.

The kept index has two files, each signed with the user's cache key (ResultCache.write_side):
the whole index (`launch-index`), read only when something changed, and its quick form
(`launch-index-quick`, `Quick`): the folders each walk listed with their times, the launch
files with their identities, which of them hold a name (by name), what each names (by the
config's base name) and the inputs those names were made from, in a few long strings that
decode at the speed of a copy. A run whose every folder and launch file is as the quick form
says (one stat each, nothing decoded per file) answers from it; anything else (a folder or
launch file that moved, one never loaded, an input that changed) falls back to the whole
index, which is then written again with a new quick form. The answer is the same either way:
the quick form holds nothing the whole index does not, and is used only when every stat the
whole index would compare matches.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import time
from array import array
from pathlib import Path
from typing import TYPE_CHECKING, Any

from recipelint import deps
from recipelint.parse import KINDS
from recipelint.parse.files import FileCache, SourceError
from recipelint.parse.where import SKIP_DIRS, shown

if TYPE_CHECKING:
    from recipelint.model import Recipe

MAX_LAUNCH_FILES = 20_000  # shell and Markdown files read to find the launches of configs passed alone
MAX_WALKED = 50_000  # files looked at in that search, whatever their kind
FORMAT = 2
QUICK_FORMAT = 1
RACY_NS = 2_000_000_000  # a folder or file changed this close to the run is listed or read again next run

# The words of a launch file that may be a file name: what lies between shell and Markdown
# punctuation. A config is looked for among them by its base name (`conf/train.yaml` holds
# `train.yaml`); a trailing full stop ends a sentence in a README.
_TOKEN = re.compile(rb"[^\s/\\\"'=:$(){}\[\],;|&<>`*?!#]*\.[^\s/\\\"'=:$(){}\[\],;|&<>`*?!#]+")

Launch = tuple[str, Path, tuple[int, ...]]  # (kind, launch file, the lines of its launches that name the config)


def launch_kind(name: str) -> str | None:
    suffix = os.path.splitext(name)[1]
    return "script" if suffix == ".sh" else ("markdown" if KINDS.get(suffix) == "markdown" else None)


_stat = deps.real_stat  # the index's own looks are never a target's input: unrecorded, and cheaper


class Index:
    """One run's index (kept by the server between keystrokes); `store`: the persisted one."""

    def __init__(self, store: Store | None = None) -> None:
        self.store = store
        self.quick = store.read_quick() if store is not None else None
        self._whole = store is None  # the whole kept index is read only when the quick form does not answer
        self.folders: dict[str, list[Any]] = {}  # folder -> [mtime_ns | None, files, subfolders, launch names]
        self.entries: dict[str, dict[str, Any]] = {}  # launch file -> its entry
        self._walks: dict[tuple[str, bool], tuple[str, str] | None] = {}  # each walk of this run: its folders and their times (Quick)
        self._valid: set[str] = set()  # entries checked against the disk in this run
        self._listed: dict[tuple[str, bool], list[tuple[str, str]]] = {}
        self._loaded: set[str] = set()  # launch files loaded in this run
        self._now = time.time_ns()
        # True: every change is told (`forget`: the server, whose editor reports the files that
        # change on disk), so nothing is looked at again between runs
        self.told = False
        self.dirty = False

    # -- the launch files under a top ----------------------------------------------------------

    def launch_files(self, top: Path, recursive: bool = True) -> list[tuple[str, str]]:
        """The shell scripts and Markdown files under `top` (or directly in it), as (kind, path):
        at most MAX_LAUNCH_FILES of them, among the first MAX_WALKED files, in os.walk's order."""
        key = (str(top), recursive)
        if key not in self._listed:
            quick = self.quick.walk(key) if self.quick is not None else None
            if quick is not None:
                self._listed[key], self._walks[key] = quick
                return quick[0]
            self.whole()
            found: list[tuple[str, str]] = []
            seen = 0
            todo = [str(top)]
            walked: list[tuple[str, int]] = []
            while todo and seen < MAX_WALKED and len(found) < MAX_LAUNCH_FILES:
                folder = todo.pop()
                listing = self._listing(folder)
                walked.append((folder, -2 if listing is None else -1 if listing[0] is None else listing[0]))
                if listing is None:
                    continue
                seen += listing[1]
                found.extend((kind, f"{folder}{os.sep}{name}") for name, kind in listing[3])
                if recursive:
                    todo.extend(f"{folder}{os.sep}{name}" for name in reversed(listing[2]))
            self._listed[key] = found[:MAX_LAUNCH_FILES]
            self._walks[key] = _walk_form(str(top), walked)
        return self._listed[key]

    def _listing(self, folder: str) -> list[Any] | None:
        """[mtime, files, subfolders, [[launch file name, kind], ...]] of one folder: the stored
        one while the folder's time has not moved, else listed now."""
        stored = self.folders.get(folder)
        if self.told and stored is not None:
            return stored
        try:
            mtime = _stat(folder).st_mtime_ns
        except (OSError, ValueError):
            return None
        if isinstance(stored, list) and len(stored) == 4 and stored[0] == mtime:
            return stored
        with deps.paused():  # what the index read is its own business, never a target's input
            listing = _list(folder)
        if listing is None:
            return None
        listing[0] = mtime if self._now - mtime > RACY_NS else None
        self.folders[folder] = listing
        self.dirty = True
        return listing

    # -- which launches name a config ----------------------------------------------------------

    def tokens(self, path: str, kind: str, files: FileCache) -> list[str]:
        """The file names a launch file's text holds (read once, then forgotten: memory stays
        flat however large the tree)."""
        entry = self._entry(path)
        if entry is None:
            try:
                data = files.read(Path(path)).data
            except SourceError:
                data = b""  # unreadable (too large, not text): no names, until its identity moves
            files.forget(Path(path))
            identity = _identity(path)
            if identity is None or self._now - identity[1] <= RACY_NS:
                identity = [-1, 0, 0]  # too recent for its times to tell: read again next run
            entry = {"s": identity, "h": _sha(data), "t": sorted(_tokens(data)), "n": None, "d": []}
            self.entries[path] = entry
            self._valid.add(path)
            self.dirty = True
        return entry["t"]  # type: ignore[no-any-return]

    def names(self, path: str, kind: str, files: FileCache, key: Any, wanted: set[str]) -> dict[str, list[int]]:
        """The paths (resolved by `key`) the launches in `path` name, each with the lines of those
        launches; loaded once per run, or kept from an earlier run while what it read holds (the
        launch file itself is checked by `tokens`; what it sources only when it names one of the
        `wanted` configs: a sourced file that changes what a launch names is passed, and checked,
        itself)."""
        entry = self.entries.get(path)
        if entry is not None and isinstance(entry.get("n"), dict) and self._inputs_hold(entry, wanted):
            return entry["n"]  # type: ignore[no-any-return]  # read only (a keystroke in the server asks each launch file)
        self._loaded.add(path)
        recipes, inputs = self._load(kind, Path(path), files)
        found: dict[str, list[int]] = {}
        for recipe in recipes:
            if recipe.launch is None:
                continue
            for link in recipe.links:
                if link.path is not None:
                    lines = found.setdefault(str(key(link.path)), [])
                    if recipe.launch.command.span.line not in lines:
                        lines.append(recipe.launch.command.span.line)
        if entry is not None and (inputs is not None or self.store is None):
            entry["n"], entry["d"] = found, inputs or []  # kept by a store only when its inputs are known
            self.dirty = True
        return found

    def unused(self, path: str, kind: str, files: FileCache) -> None:
        """A launch file loaded for the index that names no config passed: its recipes and texts
        are let go (memory stays flat however many launch files hold a config's base name)."""
        if path not in self._loaded:
            return
        recipes = files.loaded.peek((kind, shown(Path(path))))
        files.loaded.pop((kind, shown(Path(path))))
        for recipe in recipes or ():
            for read in recipe.files:
                files.forget(read)
        files.forget(Path(path))

    def _load(self, kind: str, path: Path, files: FileCache) -> tuple[list[Recipe], list[list[Any]] | None]:
        """The launch file's recipes (kept in `files.loaded` for the check that follows: loaded
        once a run), and the inputs of that loading the index keys on (None: not kept)."""
        from recipelint.toolkits import Target, load_target

        target = Target(kind, shown(path))  # as its check will name it: the recipes are that check's

        def load() -> list[Recipe]:
            try:
                return load_target(target, files)
            except (SourceError, RecursionError):
                return []

        if self.store is None or not deps.active():
            return files.loaded.get((kind, target.path), load), None
        with deps.recording() as recorder:
            recipes = files.loaded.get((kind, target.path), load)
        # What a launch names follows from its own text and the shell it sources or calls; the
        # configs, data lists and code it reads are not keyed on (a changed train.yaml keeps
        # every entry), nor is a file found missing
        events = {
            event: seen
            for event, seen in recorder.events.items()
            if event[0] == deps.READ
            and isinstance(seen, list)
            and launch_kind(event[1]) == "script"
            and os.path.abspath(event[1]) != str(path)
        }
        return recipes, self.store.inputs(events)

    def _entry(self, name: str) -> dict[str, Any] | None:
        """A launch file's entry when the file is as it was (by its identity, else its content)."""
        entry = self.entries.get(name)
        if entry is None or name in self._valid:
            return entry
        if not _entry_ok(entry):
            self.entries.pop(name, None)
            return None
        identity = _identity(name)
        if identity is None or identity[0] != entry["s"][0]:
            entry = None
        elif identity != entry["s"]:
            with deps.paused():
                same = _hash_file(name) == entry["h"]
            if same:
                entry["s"] = identity
                self.dirty = True
            else:
                entry = None
        if entry is None:
            self.entries.pop(name, None)
            return None
        self._valid.add(name)
        return entry

    def _inputs_hold(self, entry: dict[str, Any], wanted: set[str]) -> bool:
        if self.store is None or not wanted.intersection(entry["n"]):
            return True  # built in this run (the server forgets what changes: forget()), or names none of them
        with deps.paused():
            return all(self.store.holds(row) for row in entry["d"])

    def whole(self) -> None:
        """Read the whole kept index (once): the quick form did not answer."""
        if self._whole:
            return
        self._whole = self.dirty = True  # written again, with a quick form that answers next time
        data = self.store.read() if self.store is not None else {}
        self.folders, self.entries = data.get("folders", {}), data.get("entries", {})

    def reset(self) -> None:
        """Forget what was stored (a kept index that does not read as one is rebuilt)."""
        self._whole = True
        self.quick = None
        self.folders, self.entries = {}, {}
        self._walks.clear()
        self._listed.clear()
        self._valid.clear()
        self.dirty = True

    def forget(self, path: Path) -> None:
        """A file changed (the server's documents): its entry, and every entry whose loading read
        it, are made again; its folder is listed again."""
        name = os.path.abspath(path)
        if launch_kind(name) is None:
            return  # a config is in no entry: what a launch names is its path, whatever the config holds
        self.entries.pop(name, None)
        folder = os.path.dirname(name)
        while folder not in ("", os.sep) and os.path.dirname(folder) != folder:  # a new folder is listed by its parent
            self.folders.pop(folder, None)
            folder = os.path.dirname(folder)
        if launch_kind(name) == "script":  # a sourced script may change what any launch names
            for entry in self.entries.values():
                entry["n"] = None
        self._listed.clear()
        self._valid.discard(name)

    def new_run(self) -> None:
        """The server's next check: what the disk holds is looked at again, unless every change is told."""
        self._loaded.clear()
        self._now = time.time_ns()
        if not self.told:
            self._listed.clear()
            self._valid.clear()

    def save(self) -> None:
        if self.store is not None and self.dirty:
            self.store.write({"format": FORMAT, "folders": self.folders, "entries": self.entries})
            self.store.write_quick(Quick.encode(self.entries, self._walks, self._listed))
            self.dirty = False


def naming(index: Index, configs: list[tuple[Path, Path, list[tuple[str, str]]]], files: FileCache, key: Any) -> dict[Path, list[Launch]]:
    """For each config (its path as passed, its identity, the launch files that may name it),
    the launches that name it: each launch file read once, loaded once, whatever the number of
    configs it names."""
    wanted: dict[str, list[Path]] = {}
    candidates: dict[str, str] = {}
    for config, identity, launch_files in configs:
        wanted.setdefault(config.name, []).append(identity)  # the name a launch writes is the one passed
        for kind, path in launch_files:
            candidates.setdefault(path, kind)
    quick = index.quick.naming(candidates, wanted, index.store) if index.quick is not None and index.store is not None else None
    if quick is not None:
        return quick
    index.whole()
    found: dict[Path, list[Launch]] = {identity: [] for _, identity, _ in configs}
    shown_as = {identity: str(identity) for identities in wanted.values() for identity in identities}
    for path, kind in candidates.items():
        tokens = index.tokens(path, kind, files)
        held = [identity for name in wanted if name in tokens for identity in wanted[name]] if tokens else []
        if not held:
            continue
        named = index.names(path, kind, files, key, {shown_as[identity] for identity in held})
        naming_any = False
        for identity in held:
            lines = named.get(shown_as[identity])
            if lines:
                found[identity].append((kind, Path(path), tuple(lines)))
                naming_any = True
        if not naming_any:
            index.unused(path, kind, files)
    return found


def _tokens(data: bytes) -> set[str]:
    return {name for token in _TOKEN.findall(data) if len(token) <= 255 and (name := token.decode("utf-8", "replace").rstrip("."))}


def _list(folder: str) -> list[Any] | None:
    files = 0
    subfolders: list[str] = []
    launches: list[list[str]] = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                try:
                    if entry.is_dir():
                        if not entry.is_symlink() and entry.name not in SKIP_DIRS and not entry.name.startswith("."):
                            subfolders.append(entry.name)
                        continue
                    files += 1
                    kind = launch_kind(entry.name)
                    if kind is not None and entry.is_file():
                        launches.append([entry.name, kind])
                except OSError:
                    continue
    except OSError:
        return None
    return [None, files, sorted(subfolders), sorted(launches)]


def _identity(path: str) -> list[int] | None:
    """A regular file's size, modification time and inode (None: not one)."""
    try:
        st = _stat(path)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return [st.st_size, st.st_mtime_ns, st.st_ino]


def _sha(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()[:20]  # 80 bits tell a file from its former self


def _hash_file(path: str) -> str | None:
    try:
        with open(path, "rb") as handle:
            return _sha(handle.read())
    except OSError:
        return None


class Store:
    """The index kept in the result cache's folder: one JSON file, written whole and renamed
    into place; a broken or foreign one is an empty index."""

    def __init__(self, cache: Any) -> None:
        self.cache = cache

    def read(self) -> dict[str, Any]:
        data = self.cache.read_side("launch-index")
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            return {}
        folders, entries = data.get("folders"), data.get("entries")
        if not isinstance(folders, dict) or not isinstance(entries, dict):
            return {}
        return {"folders": folders, "entries": entries}  # each item is checked where it is used

    def write(self, data: dict[str, Any]) -> None:
        self.cache.write_side("launch-index", data)

    def read_quick(self) -> Quick | None:
        data = self.cache.read_side("launch-index-quick")
        if not isinstance(data, dict) or data.get("format") != QUICK_FORMAT:
            return None
        try:
            return Quick(data)
        except BROKEN:
            return None

    def write_quick(self, data: dict[str, Any] | None) -> None:
        if data is not None:
            self.cache.write_side("launch-index-quick", data)

    def inputs(self, events: dict[deps.Event, Any]) -> list[list[Any]] | None:
        return self.cache.inputs(events)  # type: ignore[no-any-return]

    def holds(self, row: list[Any]) -> bool:
        try:
            return bool(self.cache.holds(row))
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            return False


Walk = tuple[str, bool]  # (top, recursive): one listing of launch files
_KIND_CODE = {"script": "s", "markdown": "m"}
_CODE_KIND = {code: kind for kind, code in _KIND_CODE.items()}


class Quick:
    """The kept index's quick form (the module's docstring): read whole on every run, decoded
    per file only where a name passed is held. Each column is one string: paths joined by
    newlines, numbers as the hex of a machine array."""

    def __init__(self, data: dict[str, Any]) -> None:
        files = data["files"]
        self.paths: list[str] = files["p"].split("\n") if files["p"] else []
        self.stats = _ints("q", files["s"])  # size, mtime, inode of each launch file
        self.unloaded = frozenset(_ints("i", files["u"]))  # launch files whose launches were never loaded
        self.inputs: list[str] = files["x"]  # per launch file: the inputs of what it names (JSON), or ""
        self.tokens: dict[str, str] = data["tokens"]  # a name -> the launch files holding it
        self.named: dict[str, str] = data["named"]  # a base name -> {config: [[launch file, lines]]} (JSON)
        self.walks: dict[str, list[str]] = data["walks"]  # "top\tR" -> [folders, their times, launch files, kinds]
        if len(self.stats) != 3 * len(self.paths) or not isinstance(self.inputs, list) or len(self.inputs) != len(self.paths):
            raise ValueError("not a quick form")
        if not all(isinstance(part, dict) for part in (self.tokens, self.named, self.walks)):
            raise ValueError("not a quick form")
        self._ids: dict[str, int] | None = None

    def walk(self, key: Walk) -> tuple[list[tuple[str, str]], tuple[str, str]] | None:
        """The launch files a walk lists, when each folder it listed has the time it had then."""
        stored = self.walks.get(f"{key[0]}\t{int(key[1])}")
        if not isinstance(stored, list) or len(stored) != 4 or not all(isinstance(part, str) for part in stored):
            return None
        folders, times, launches, kinds = stored
        try:
            held = _folders_hold(key[0], folders.split("\n"), _ints("q", times))
            ids = _ints("i", launches)
            if not held or len(ids) != len(kinds):
                return None
            return [(_CODE_KIND[code], self.paths[i]) for i, code in zip(ids, kinds, strict=True)], (folders, times)
        except (*BROKEN, OSError):
            return None

    def naming(self, candidates: dict[str, str], wanted: dict[str, list[Path]], store: Store) -> dict[Path, list[Launch]] | None:
        """What `naming` finds, when every candidate launch file is as kept (its stat), every one
        holding a name passed was loaded, and the inputs of what it names hold; else None."""
        try:
            holders, hits = self._hits(wanted)
            if self._ids is None:
                self._ids = {path: i for i, path in enumerate(self.paths)}
            found: dict[Path, list[Launch]] = {identity: [] for identities in wanted.values() for identity in identities}
            stats, unloaded = self.stats, self.unloaded
            for path, kind in candidates.items():
                i = self._ids.get(path)
                if i is None or (i in holders and i in unloaded):
                    return None
                st = _stat(path)  # one stat and three comparisons a launch file: this loop is the run's cost
                if (
                    st.st_mtime_ns != stats[3 * i + 1]
                    or st.st_size != stats[3 * i]
                    or st.st_ino != stats[3 * i + 2]
                    or not stat.S_ISREG(st.st_mode)
                ):
                    return None
                hit = hits.get(i)
                if hit:
                    if not self._inputs_hold(i, store):
                        return None
                    for identity, lines in hit:
                        found[identity].append((kind, Path(path), tuple(lines)))
            return found
        except (*BROKEN, OSError):
            return None

    def _hits(self, wanted: dict[str, list[Path]]) -> tuple[set[int], dict[int, list[tuple[Path, list[int]]]]]:
        """The launch files holding a name passed, and for each, the configs passed it names."""
        holders: set[int] = set()
        hits: dict[int, list[tuple[Path, list[int]]]] = {}
        for name, identities in wanted.items():
            held = set(_ints("i", self.tokens.get(name, "")))
            holders |= held
            named = json.loads(self.named[name]) if name in self.named else {}
            for identity in identities:
                for i, lines in named.get(str(identity), ()):
                    if i in held and lines:
                        hits.setdefault(i, []).append((identity, lines))
        return holders, hits

    def _inputs_hold(self, i: int, store: Store) -> bool:
        with deps.paused():
            return all(store.holds(row) for row in json.loads(self.inputs[i]))

    @staticmethod
    def encode(
        entries: dict[str, dict[str, Any]], walks: dict[Walk, tuple[str, str] | None], listed: dict[Walk, list[tuple[str, str]]]
    ) -> dict[str, Any] | None:
        """The quick form of the whole index (None: it has none: a path holds a newline, or a
        number does not fit the arrays)."""
        paths = list(entries)
        if any("\n" in path for path in paths):
            return None
        ids = {path: i for i, path in enumerate(paths)}
        stats, unloaded, inputs = array("q"), array("i"), []
        tokens: dict[str, array[int]] = {}
        named: dict[str, dict[str, list[list[Any]]]] = {}
        try:
            for i, entry in enumerate(entries.values()):
                stats.extend(entry["s"])
                for token in entry["t"]:
                    tokens.setdefault(token, array("i")).append(i)
                if entry["n"] is None:
                    unloaded.append(i)
                inputs.append("" if entry["n"] is None else json.dumps(entry["d"], separators=(",", ":")))
                for config, lines in (entry["n"] or {}).items():
                    named.setdefault(os.path.basename(config), {}).setdefault(config, []).append([i, lines])
        except (*BROKEN, OverflowError):
            return None
        kept = {}
        for key, form in walks.items():
            launches = listed.get(key)
            if form is not None and launches is not None and all(path in ids for _, path in launches):
                kept[f"{key[0]}\t{int(key[1])}"] = [
                    *form,
                    array("i", [ids[path] for _, path in launches]).tobytes().hex(),
                    "".join(_KIND_CODE[kind] for kind, _ in launches),
                ]
        return {
            "format": QUICK_FORMAT,
            "files": {"p": "\n".join(paths), "s": stats.tobytes().hex(), "u": unloaded.tobytes().hex(), "x": inputs},
            "tokens": {token: held.tobytes().hex() for token, held in tokens.items()},
            "named": {name: json.dumps(configs, separators=(",", ":")) for name, configs in named.items()},
            "walks": kept,
        }


def _ints(code: str, text: str) -> array[int]:
    values = array(code)
    values.frombytes(bytes.fromhex(text))
    return values


def _walk_form(top: str, walked: list[tuple[str, int]]) -> tuple[str, str] | None:
    """A walk's folders (relative to its top) and their times (-1: too recent to tell, -2: not
    listed), as Quick keeps them."""
    names = ["." if folder == top else folder[len(top) + 1 :] for folder, _ in walked]
    if any("\n" in name for name in names):
        return None
    try:
        return "\n".join(names), array("q", [mtime for _, mtime in walked]).tobytes().hex()
    except OverflowError:
        return None


def _folders_hold(top: str, names: list[str], times: array[int]) -> bool:
    """Whether each folder under `top` has the time it had (one stat each, relative to the top's
    descriptor where the platform allows: the path is not walked from the root each time)."""
    if len(names) != len(times):
        return False
    relative = _stat in os.supports_dir_fd
    fd = os.open(top, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)) if relative else None
    try:
        for name, mtime in zip(names, times, strict=True):
            try:
                now = _stat(name, dir_fd=fd).st_mtime_ns if fd is not None else _stat(os.path.join(top, name)).st_mtime_ns
            except OSError:
                now = -2
            if now != mtime:
                return False
        return True
    finally:
        if fd is not None:
            os.close(fd)


def _entry_ok(entry: Any) -> bool:
    return (
        isinstance(entry, dict)
        and isinstance(entry.get("s"), list)
        and len(entry["s"]) == 3
        and isinstance(entry.get("t"), list)
        and isinstance(entry.get("n"), (dict, type(None)))
        and isinstance(entry.get("d"), list)
    )


# What a kept index that is not what this code wrote raises where it is used: it is rebuilt.
BROKEN = (KeyError, TypeError, IndexError, ValueError, AttributeError)
