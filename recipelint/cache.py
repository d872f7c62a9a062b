"""The result cache: each target's findings, kept until anything they were computed from changes.

An entry is named by what is fixed for the run (recipelint's version and code, Python, the
working folder, the target, the settings it is checked under, the --hardware profile's path)
and holds what the check read (recipelint.deps): every file opened, with its size, times,
inode and, up to `HASH_LIMIT`, a hash of its content; every path whose existence or type was
looked up; every folder listed; the probed hardware's facts. Sourced scripts, called scripts,
data lists, the WeNet/XTuner checkout, requirements pins and virtual environments beside the
recipe, the settings files and the profile are all files the check opens, so all are covered.
An entry is used only when every one of these still holds; a file whose size or times moved is
compared by content, so a `touch` or a `git checkout` of the same content keeps the entry.

Entries are never written from a read that may have raced a write: a file changed while the
check ran, or less than `RACY_SECONDS` before it started (file times are coarse), leaves the
target uncached this time. Files are written whole under a temporary name and renamed into
place, so concurrent runs never see half an entry; a broken or foreign entry is a miss.
Entries are JSON (never pickle: a cache folder may come from an untrusted checkout).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeGuard, TypeVar

from recipelint import __version__, deps

if TYPE_CHECKING:
    from recipelint.engine import Job, Outcome, Target
    from recipelint.settings import Settings

T = TypeVar("T")
FOLDER_NAME = ".recipelint_cache"
HASH_LIMIT = 4 * 1024 * 1024  # larger files (a data.list of a million lines) are known by their stat
RACY_SECONDS = 2.0  # file times can be this coarse (FAT 2 s; ext4 and tmpfs a clock tick)
FORMAT = 3
_GITIGNORE = "# Created by recipelint automatically.\n*\n"
_CACHEDIR_TAG = "Signature: 8a477f597d28d172789f06886806bc55\n# This file is a cache directory tag created by recipelint.\n"


_UNSEEN = object()
BUCKETS = 16  # files entries are spread over: few to write, small to read for one file's check
BUCKET_BYTES = 64 * 1024 * 1024  # a bucket past this is not one this cache wrote: a miss


class ResultCache:
    def __init__(self, folder: Path, started: float | None = None) -> None:
        self.root = folder
        self.folder = folder / f"v{FORMAT}-{_code_key()}"
        self.started = time.time() if started is None else started
        self._now: dict[tuple[str, str], Any] = {}  # each path looked at once per run
        self._run_key = json.dumps([sys.version, sys.path, os.getcwd()])
        self._buckets: dict[str, _Bucket] = {}  # read from disk
        self._new: dict[str, dict[str, Any]] = {}  # written in this run, by bucket
        self._names: dict[tuple[int, int], str] = {}
        # One row object per input for the run: entries share them, so a helper's results pickle
        # each once and the bucket table is built by identity.
        self._rows: dict[tuple[str, str], list[Any]] = {}

    @contextmanager
    def tracking(self) -> Iterator[None]:
        """Record what checks read while inside; write the new entries at the end."""
        from recipelint.schemas import schema_dir

        ignored = (Path(__file__).resolve().parent, schema_dir().resolve(), Path(os.__file__).parent, self.root.resolve())
        with deps.tracking(tuple(f"{folder}{os.sep}" for folder in ignored)):
            try:
                yield
            finally:
                self.save()

    # -- what the engine calls -----------------------------------------------------------------

    def lookup(self, job: Job, target: Target, settings: Settings) -> Outcome | None:
        """The target's outcome from an earlier run, when everything it read still holds."""
        entry = self._entry(self._name(job, target, settings))
        if entry is not None and _outcome_shape(entry["outcome"]):
            try:
                return _decode_outcome(entry["outcome"])
            except (KeyError, TypeError, ValueError, IndexError, AttributeError):
                pass
        return None

    def check(self, job: Job, target: Target, settings: Settings) -> Outcome:
        """Check the target now, recording what it reads; the new entry rides along with the
        outcome (a helper process hands it to the parent, which keeps it)."""
        from recipelint.engine import check_target

        name = self._name(job, target, settings)
        with deps.recording() as recorder:
            outcome = check_target(job, target, settings)
        try:
            made = self._make(recorder, _encode_outcome(outcome))
        except _Unstorable:
            made = None
        if made is not None:
            outcome.cache_entry = (name, made)
        return outcome

    def keep(self, outcome: Outcome) -> None:
        if outcome.cache_entry is not None:
            name, entry = outcome.cache_entry
            self._new.setdefault(name[0], {})[name] = entry

    def remember(self, what: list[Any], compute: Callable[[], T], encode: Callable[[T], Any], decode: Callable[[Any], T]) -> T:
        """compute(), or its value from an earlier run when what it read still holds."""
        name = hashlib.sha1(json.dumps([self._run_key, *what]).encode()).hexdigest()
        entry = self._entry(name)
        if entry is not None:
            try:
                return decode(entry["outcome"])
            except (KeyError, TypeError, ValueError, IndexError, AttributeError):
                pass
        with deps.recording() as recorder:
            value = compute()
        made = self._make(recorder, encode(value))
        if made is not None:
            self._new.setdefault(name[0], {})[name] = made
        return value

    def loads(self, what: str, load: Callable[[], object]) -> None:
        """Run `load` (a --hardware profile) for its errors only, unless an entry says how it went
        on the same inputs: a bad profile is still reported when no recipe needed it."""
        from recipelint.parse.files import SourceError

        def attempt() -> SourceError | None:
            try:
                load()
            except SourceError as error:
                return error
            return None

        failed = self.remember(
            ["loads", what], attempt, lambda e: _error(e) if e is not None else None, lambda d: _unerror(d) if d else None
        )
        if failed is not None:
            raise failed

    def _name(self, job: Job, target: Target, settings: Settings) -> str:
        memo = (id(target), id(settings))
        if memo not in self._names:
            self._names[memo] = self._make_name(job, target, settings)
        return self._names[memo]

    def _make_name(self, job: Job, target: Target, settings: Settings) -> str:
        override = getattr(job.machines.override, "path", None)
        key = [
            self._run_key,
            target.kind,
            str(target.path),
            target.text,
            target.explicit,
            str(target.config) if target.config is not None else None,
            list(target.launches),
            *([[str(c) for c in target.also]] if target.also else []),
            job.inline_ignores,
            str(override) if override is not None else None,
            str(settings.hardware) if settings.hardware else None,
            settings.deepspeed_version,
            sorted(settings.target_versions.items()),
            settings.model_params,
            settings.mean_utterance_seconds,
        ]
        return hashlib.sha1(json.dumps(key).encode()).hexdigest()

    # -- reading and checking an entry ---------------------------------------------------------

    def _entry(self, name: str) -> dict[str, Any] | None:
        """The entry of that name when every input it recorded still holds."""
        fresh = self._new.get(name[0], {}).get(name)
        if fresh is not None:
            return fresh if self._valid(fresh) else None
        if name[0] not in self._buckets:
            self._buckets[name[0]] = _Bucket.read(self.folder / f"{name[0]}.json")
        bucket = self._buckets[name[0]]
        entry = bucket.entries.get(name)
        if not _has_deps(entry) or not bucket.signed(name, entry):
            return None
        try:
            return entry if all(bucket.holds(i, self) for i in entry["deps"]) else None
        except Exception:  # noqa: BLE001 - a malformed entry, whatever its shape, is a miss, never a crash
            return None

    def _valid(self, entry: dict[str, Any]) -> bool:
        try:
            return _has_deps(entry) and all(self.holds(dep) for dep in entry["deps"])
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            return False

    def holds(self, dep: list[Any]) -> bool:
        """Whether one recorded input, [kind, path, what it was (, a read file's hash)], still is."""
        kind, path, recorded = dep[0], dep[1], dep[2]
        current = self._now.get((kind, path), _UNSEEN)  # each path looked at once per run
        if current is _UNSEEN:
            current = self._signature(kind, path)
        return bool(current == recorded) or self._same_content(dep, current)

    def _same_content(self, dep: list[Any], now: Any) -> bool:
        """A read file whose times or inode moved but whose bytes did not (touch, git checkout):
        [READ, path, stat, hash of the content]."""
        if len(dep) < 4 or dep[3] is None or not isinstance(now, list) or now[0] != "f":
            return False
        return bool(dep[2][1] == now[1] and dep[3] == self._hash(dep[1]))

    # -- writing an entry ----------------------------------------------------------------------

    def _make(self, recorder: deps.Recorder, outcome: Any) -> dict[str, Any] | None:
        """Store an entry whose every input is still what the check saw (`inputs`)."""
        found = self.inputs(recorder.events)
        return None if found is None else {"deps": found, "outcome": outcome}

    def inputs(self, events: dict[deps.Event, Any]) -> list[list[Any]] | None:
        """The rows an entry keys on, one per recorded input; None when one is no longer what was
        seen (not stored).

        What a path is now is looked at once per run: a path that changed after that and before
        a recipe saw it fails the comparison (not stored); one that changed after the recipe saw
        it is stored as seen, and the next run finds the difference. A file is trusted by its
        stat only when older than the run by `RACY_SECONDS`, and hashed with its stat checked on
        both sides, so the hash is of the content the check read."""
        found = []
        for event, seen in events.items():
            kind, path = event
            now = self._signature(kind, path)
            if kind == deps.READ and isinstance(now, list):
                if now != seen or max(now[2], now[5]) >= (self.started - RACY_SECONDS) * 1e9:
                    return None  # changed while the check ran, or too recent for its times to tell
            elif kind != deps.VALUE and now != seen:
                return None
            row = self._rows.get(event)
            if row is None:
                row = [kind, path, now, self._content(path, now)] if kind == deps.READ and isinstance(now, list) else [kind, path, now]
                self._rows[event] = row
            found.append(row)
        return found

    def _content(self, path: str, signature: list[Any]) -> str | None:
        """The hash of a file's content, when it is small and held still while hashed."""
        if signature[1] > HASH_LIMIT:
            return None
        read = deps.content_hash(path, signature)
        if read is not None:
            return read
        key = ("held", path)
        if key not in self._now:
            content = _hash(path)
            self._now[key] = content if deps.signature(deps.READ, path) == signature else None
        return self._now[key]  # type: ignore[no-any-return]

    def read_side(self, name: str) -> Any:
        """What `write_side` kept under `name` (None: nothing, not readable JSON, or not signed
        by this user's key: a forged or edited file is refused, and its user builds it again).
        Not an entry: its user checks what it reads (recipelint.launchindex keys it on file
        identities)."""
        import hmac

        from recipelint.parse.files import SourceError, read_capped

        try:  # a FIFO or /dev/zero in its place is refused, as a bucket is
            data = read_capped(self.folder / f"{name}.json", BUCKET_BYTES, "a cache file")
        except (OSError, SourceError, MemoryError):
            return None
        mac, _, body = data.partition(b"\n")
        if not hmac.compare_digest(mac, _side_mac(name, body).encode()):
            return None
        try:
            return json.loads(body)
        except (ValueError, RecursionError, MemoryError):
            return None

    def write_side(self, name: str, data: Any) -> None:
        """Keep `data` as JSON under `name`, signed (`_side_mac`), private to this user (0600 in
        the 0700 folder), written whole and renamed into place."""
        body = json.dumps(data, separators=(",", ":")).encode()
        temporary = self.folder / f"{name}.{os.getpid()}.{time.monotonic_ns()}.tmp"
        try:
            if not self.folder.is_dir():
                self._create()
            with os.fdopen(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as handle:
                handle.write(_side_mac(name, body).encode() + b"\n" + body)
            os.replace(temporary, self.folder / f"{name}.json")
        except OSError:  # as save(): the run is still right, only slower next time
            try:
                os.unlink(temporary)
            except OSError:
                pass

    def save(self) -> None:
        """Write the buckets this run added to, each merged with what is on disk now (another run
        may have written it meanwhile) and renamed into place whole."""
        for bucket, entries in self._new.items():
            path = self.folder / f"{bucket}.json"
            data = _Bucket.read(path).merged(entries)
            temporary = self.folder / f"{bucket}.{os.getpid()}.{time.monotonic_ns()}.tmp"
            try:
                if not self.folder.is_dir():
                    self._create()
                with open(temporary, "xb") as handle:
                    handle.write(data)
                os.replace(temporary, path)
            except OSError:  # a read-only checkout, a full disk: the run is still right, only slower next time
                try:
                    os.unlink(temporary)
                except OSError:
                    pass
                break
        self._new.clear()

    def _create(self) -> None:
        """The entries' folder; the markers (a `.gitignore` of `*`, CACHEDIR.TAG) only in a cache
        folder this run created: `cache-dir = "."` or `".."` names a folder the user owns, where
        a `*` would hide every new file from git and a tag would make backups skip it."""
        created = not self.root.exists()
        self.root.mkdir(mode=0o700, parents=True, exist_ok=True)  # private: findings name the user's files
        self.folder.mkdir(mode=0o700, exist_ok=True)
        if not created:
            return
        for name, text in ((".gitignore", _GITIGNORE), ("CACHEDIR.TAG", _CACHEDIR_TAG)):
            marker = self.root / name
            if not marker.exists():
                marker.write_text(text, encoding="utf-8")

    # -- what a path is now --------------------------------------------------------------------

    def _signature(self, kind: str, path: str) -> Any:
        key = (kind, path)
        if key not in self._now:
            if kind == deps.VALUE:
                self._now[key] = _probe_facts() if path == "probe" else None
            else:
                self._now[key] = deps.signature(kind, path)
        return self._now[key]

    def _hash(self, path: str) -> str | None:
        key = ("hash", path)
        if key not in self._now:
            self._now[key] = _hash(path)
        return self._now[key]  # type: ignore[no-any-return]


class _Bucket:
    """One bucket file: a table of inputs ([kind, path, what it was]) that entries name by
    index, so an input many entries share (a folder searched upward, the profile) is written
    and checked once."""

    def __init__(self, table: list[list[Any]], entries: dict[str, Any]) -> None:
        self.table = table
        self.entries = entries
        self._holds: list[bool | None] = [None] * len(table)

    @classmethod
    def read(cls, path: Path) -> _Bucket:
        from recipelint.parse.files import SourceError, read_capped

        try:  # a FIFO or /dev/zero in its place is refused, a huge or deeply nested file is a miss
            data = json.loads(read_capped(path, BUCKET_BYTES, "a cache bucket"))
        except (OSError, ValueError, SourceError, RecursionError, MemoryError):
            return cls([], {})
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            return cls([], {})
        table, entries = data.get("inputs"), data.get("entries")
        if not isinstance(table, list) or not isinstance(entries, dict):
            return cls([], {})
        return cls(table, entries)

    def signed(self, name: str, entry: dict[str, Any]) -> bool:
        """Whether this user's recipelint wrote the entry: its MAC, under the per-user key kept
        outside the cache folder, over its name, inputs and outcome. A forged entry (one always
        true input and no findings, in a folder another user created first) is a miss."""
        import hmac

        deps, mac = entry["deps"], entry.get("mac")
        if not isinstance(mac, str) or not all(isinstance(i, int) and not isinstance(i, bool) and 0 <= i < len(self.table) for i in deps):
            return False
        try:
            return hmac.compare_digest(mac, _mac(name, [self.table[i] for i in deps], entry.get("outcome")))
        except (TypeError, ValueError, RecursionError):
            return False

    def holds(self, index: int, cache: ResultCache) -> bool:
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(self.table):
            return False  # a forged index (negative ones included) names no input
        known = self._holds[index]
        if known is None:
            known = self._holds[index] = cache.holds(self.table[index])
        return known

    def merged(self, fresh: dict[str, Any]) -> bytes:
        """This bucket with the fresh entries in, as the bytes of its file."""
        rows: dict[tuple[Any, ...], int] = {}
        by_identity: dict[int, int] = {}  # a row object seen before (entries of one run share them)
        table: list[list[Any]] = []
        entries: dict[str, Any] = {}

        def index(row: list[Any]) -> int:
            known = by_identity.get(id(row))
            if known is not None:
                return known
            key = (row[0], row[1], id(row[2]), row[3] if len(row) > 3 else None)
            if key not in rows:
                rows[key] = len(table)
                table.append(row)  # kept alive by the table: its id is not reused meanwhile
            by_identity[id(row)] = rows[key]
            return rows[key]

        for name, entry in self.entries.items():
            if name not in fresh and isinstance(entry, dict):
                try:
                    if not self.signed(name, entry):
                        continue  # not this user's: dropped, never carried on
                    kept = [index(self.table[i]) for i in entry["deps"]]
                    entries[name] = {"deps": kept, "outcome": entry["outcome"], "mac": entry["mac"]}
                except (KeyError, TypeError, IndexError, AttributeError):
                    continue
        for name, entry in fresh.items():
            mac = _mac(name, entry["deps"], entry["outcome"])
            entries[name] = {"deps": [index(row) for row in entry["deps"]], "outcome": entry["outcome"], "mac": mac}
        return json.dumps({"format": FORMAT, "inputs": table, "entries": entries}, separators=(",", ":")).encode()


def _side_mac(name: str, body: bytes) -> str:
    """A side file's MAC under this user's key, over its name (a file renamed to another side's
    name is refused) and its bytes."""
    import hmac

    return hmac.new(_secret(), name.encode() + b"\0" + body, hashlib.sha256).hexdigest()


def _mac(name: str, rows: list[Any], outcome: Any) -> str:
    import hmac

    body = json.dumps([name, rows, outcome], separators=(",", ":"), sort_keys=True).encode()
    return hmac.new(_secret(), body, hashlib.sha256).hexdigest()


_SECRET: list[bytes] = []


def _secret() -> bytes:
    """This user's key for the cache's MACs: 32 random bytes in a 0600 file of a 0700 folder under
    the user's config folder, never in the cache folder (which a repository or another user may
    provide). When it cannot be kept, a key for this process only: entries hold for one run."""
    if not _SECRET:
        _SECRET.append(_stored_secret() or os.urandom(32))
    return _SECRET[0]


def _stored_secret() -> bytes | None:
    from recipelint.parse.files import SourceError, read_capped

    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    path = Path(base) / "recipelint" / "cache-key"
    for _ in range(2):
        try:
            st = os.lstat(path)
            key = read_capped(path, 4096, "a key")
            if st.st_uid == os.geteuid() and not st.st_mode & 0o077 and len(key) >= 32:
                return key
            return None  # another user's, or readable by others: not a secret
        except FileNotFoundError:
            pass
        except (OSError, SourceError):
            return None
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            continue  # another run made it first: read that one
        except OSError:
            return None
        with os.fdopen(fd, "wb") as handle:
            handle.write(os.urandom(32))
    return None


def _hash(path: str) -> str | None:
    from recipelint.parse.files import SourceError, open_regular

    try:  # a recorded input swapped for a FIFO or a device is no match, never a hang
        with open_regular(path) as handle:
            return hashlib.sha1(handle.read(HASH_LIMIT + 1)).hexdigest()
    except (OSError, SourceError):
        return None


_PROBED: list[str] = []


def _probe_facts() -> str:
    """What the probe found on this machine, as the cache compares it (once per process)."""
    if not _PROBED:
        from recipelint.hardware.probe import probe

        facts = probe().to_dict(load_gpus=True)
        facts.pop("taken_at", None)
        _PROBED.append(hashlib.sha1(json.dumps(facts, sort_keys=True, default=str).encode()).hexdigest())
    return _PROBED[0]


def _outcome_shape(data: Any) -> bool:
    """Whether an entry's outcome has the shape _encode_outcome writes (a string where a count
    is, a null code, a span of the wrong length is a miss, never an error later)."""
    try:
        errors: list[Any] = data["errors"]
        recipes: list[Any] = data["recipes"]
        return _is(errors, list) and all(_error_shape(e) for e in errors) and _is(recipes, list) and all(_recipe_shape(r) for r in recipes)
    except (KeyError, TypeError, IndexError):
        return False


def _is(value: Any, kind: type | tuple[type, ...]) -> bool:
    return isinstance(value, kind) and not (isinstance(value, bool) and kind in (int, (int, float)))


def _span_shape(span: Any) -> bool:
    return _is(span, list) and len(span) == 7 and _is(span[0], str) and all(_is(n, int) for n in span[1:])


def _error_shape(error: Any) -> bool:
    return _is(error, list) and len(error) == 4 and _is(error[0], str) and _is(error[1], str) and _is(error[2], int) and _is(error[3], int)


def _recipe_shape(item: Any) -> bool:
    return (
        _is(item, dict)
        and _is(item["files"], int)
        and _is(item["machine"], str)
        and _is(item["found"], list)
        and all(_diagnostic_shape(d) for d in item["found"])
        and _is(item["errors"], list)
        and all(_error_shape(e) for e in item["errors"])
        and _is(item["suppressions"], dict)
        and all(_is(v, list) and all(_is(s, list) and len(s) == 9 and _span_shape(s[0]) for s in v) for v in item["suppressions"].values())
        and _is(item["judged"], list)
        and all(_is(j, list) and len(j) == 5 and all(_is(part, str) for part in (j[0], j[1], j[2], j[4])) for j in item["judged"])
    )


def _diagnostic_shape(d: Any) -> bool:
    texts = (d["c"], d["m"]) if _is(d, dict) else ()
    return (
        len(texts) == 2
        and all(_is(t, str) for t in texts)
        and _is(d["s"], int)
        and _span_shape(d["p"])
        and (d["k"] is None or _is(d["k"], str))
        and _is(d["v"], list)
        and len(d["v"]) == 2
        and _is(d["e"], list)
        and all(_is(e, str) for e in d["e"])
        and (
            d["f"] is None
            or (_is(d["f"], list) and len(d["f"]) == 3 and all(_span_shape(edit[0]) and _is(edit[1], str) for edit in d["f"][0]))
        )
    )


def _has_deps(entry: Any) -> TypeGuard[dict[str, Any]]:
    """Every check reads at least its target: an entry with no input recorded would hold for ever
    (`all([])`), so it is a forged or broken one."""
    return isinstance(entry, dict) and isinstance(entry.get("deps"), list) and bool(entry["deps"])


def _code_key(package: Path | None = None) -> str:
    """recipelint's version and its files' sizes and times, for every install: a copy installed
    from a newer commit with the same version string (pre-commit pinned to a commit) never meets
    an entry an older one wrote."""
    package = package or Path(__file__).resolve().parent
    seen: list[str] = []

    def walk(folder: str) -> None:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_dir() and entry.name != "__pycache__":
                    walk(entry.path)
                elif entry.name.endswith((".py", ".json")):
                    st = entry.stat()
                    seen.append(f"{entry.path}:{st.st_size}:{st.st_mtime_ns}")

    walk(str(package))
    from recipelint.schemas import schema_dir

    walk(str(schema_dir()))
    return __version__ + "-" + hashlib.sha1("\n".join(sorted(seen)).encode()).hexdigest()[:16]


def default_folder(settings: Settings) -> Path:
    """`cache-dir` from the settings, else RECIPELINT_CACHE_DIR, else .recipelint_cache beside
    the config in force (or in the working folder), else a user cache folder when that one
    cannot be written."""
    if settings.cache_dir is not None:
        return settings.cache_dir
    configured = os.environ.get("RECIPELINT_CACHE_DIR")
    if configured:
        return Path(configured)
    project = settings.source.parent if settings.source is not None else Path(".")
    folder = project / FOLDER_NAME
    if folder.is_dir() or os.access(project, os.W_OK):
        return folder
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "recipelint" / hashlib.sha1(str(project.resolve()).encode()).hexdigest()[:16]


# -- outcomes as JSON --------------------------------------------------------------------------


class _Unstorable(Exception):
    """A value the JSON form cannot carry exactly: that target is simply not cached."""


def _value(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, list):
        return {"l": [_value(v) for v in value]}
    if isinstance(value, tuple):
        return {"t": [_value(v) for v in value]}
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {"d": {k: _value(v) for k, v in value.items()}}
    raise _Unstorable(type(value).__name__)


def _unvalue(value: Any) -> Any:
    if not isinstance(value, dict):
        return value
    if "l" in value:
        return [_unvalue(v) for v in value["l"]]
    if "t" in value:
        return tuple(_unvalue(v) for v in value["t"])
    return {k: _unvalue(v) for k, v in value["d"].items()}


def _span(span: Any) -> list[Any]:
    return [str(span.path), *span[1:]]


def _unspan(data: list[Any]) -> Any:
    from recipelint.parse.span import Span

    return Span(Path(data[0]), *data[1:])


def _error(error: Any) -> list[Any]:
    return [str(error.path), error.reason, error.line, error.column]


def _unerror(data: list[Any]) -> Any:
    from recipelint.parse.files import SourceError

    return SourceError(Path(data[0]), data[1], data[2], data[3])


def _diagnostic(d: Any) -> dict[str, Any]:
    fix = None
    if d.fix is not None:
        fix = [[[_span(e.span), e.content] for e in d.fix.edits], d.fix.applicability.value, d.fix.title]
    return {
        "c": d.code,
        "s": int(d.severity),
        "m": d.message,
        "p": _span(d.span),
        "k": d.setting,
        "v": [_value(d.current), _value(d.suggested)],
        "e": list(d.evidence),
        "f": fix,
        "o": d.once,
    }


def _undiagnostic(data: dict[str, Any]) -> Any:
    from recipelint.diagnostics import Applicability, Diagnostic, Edit, Fix, Severity

    fix = None
    if data["f"] is not None:
        edits, applicability, title = data["f"]
        fix = Fix(tuple(Edit(_unspan(span), content) for span, content in edits), Applicability(applicability), title)
    current, suggested = (_unvalue(v) for v in data["v"])
    return Diagnostic(
        data["c"], Severity(data["s"]), data["m"], _unspan(data["p"]), data["k"], current, suggested, data["e"], fix, data.get("o")
    )


def _spans(item: Any) -> list[Any]:
    # The spans a fix of RL002/RL005 edits: a suppression read from the cache is fixed as one just read.
    return [_span(item.bracket) if item.bracket else None, _span(item.removal) if item.removal else None]


def _unspan_or_none(data: Any) -> Any:
    return _unspan(data) if data is not None else None


def _encode_outcome(outcome: Outcome) -> dict[str, Any]:
    return {
        "errors": [_error(e) for e in outcome.errors],
        "recipes": [
            {
                "found": [_diagnostic(d) for d in item.found],
                "files": item.files,
                "errors": [_error(e) for e in item.errors],
                "suppressions": {
                    str(path): [
                        [_span(s.span), s.codes, s.reason, s.whole_file, s.standalone, s.written, *_spans(s), list(s.reach)] for s in items
                    ]
                    for path, items in item.suppressions.items()
                },
                "machine": item.machine,
                "judged": [[j.kind, j.label, j.why, _span(j.where) if j.where else None, j.toolkit] for j in item.judged],
            }
            for item in outcome.recipes
        ],
    }


def _decode_outcome(data: dict[str, Any]) -> Outcome:
    from recipelint.engine import Outcome, RecipeOutcome
    from recipelint.hardware.report import Judged
    from recipelint.suppression import Suppression

    outcome = Outcome([_unerror(e) for e in data["errors"]])
    for item in data["recipes"]:
        suppressions = {
            Path(path): [
                Suppression(
                    _unspan(span),
                    codes,
                    reason,
                    whole,
                    standalone,
                    written=written,
                    bracket=_unspan_or_none(bracket),
                    removal=_unspan_or_none(removal),
                    reach=(reach[0], reach[1]),
                )
                for span, codes, reason, whole, standalone, written, bracket, removal, reach in items
            ]
            for path, items in item["suppressions"].items()
        }
        outcome.recipes.append(
            RecipeOutcome(
                [_undiagnostic(d) for d in item["found"]],
                item["files"],
                [_unerror(e) for e in item["errors"]],
                suppressions,
                item["machine"],
                [
                    Judged(kind, label, why, _unspan(where) if where else None, toolkit)
                    for kind, label, why, where, toolkit in item["judged"]
                ],
            )
        )
    return outcome
