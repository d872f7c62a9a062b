"""What a check read: every file opened, every path whose existence or type decided a lookup,
every folder listed. The result cache (recipelint.cache) keys a recipe's findings on these.

Recording is on only while a run uses the cache (`tracking()`); then an audit hook sees each
`open`, `os.listdir` and `os.scandir`, and `os.stat`/`os.lstat` are wrapped (pathlib's
`exists`, `is_file`, `is_dir` and `resolve` go through them). What is computed once per run and
shared by recipes (a file's text, the checkout found for a folder) is held in a `Memo`, which
keeps the events of its computation and replays them to every later recipe that uses it: a
recipe's record does not depend on which recipe happened to run first.

Nothing here is imported by default but `Memo` and `note`, which cost nothing when off.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")

READ, STAT, LSTAT, REAL, LIST, GLOB, VALUE = "read", "stat", "lstat", "real", "list", "glob", "value"
Event = tuple[str, str]  # (kind, path), or (VALUE, name) for a fact such as the probed hardware

_recorders: list[Recorder] = []  # innermost last; each event goes to all of them
_tracking = False
_busy = False
_hook_installed = False
_real_stat = os.stat
real_stat = _real_stat  # a stat that is never recorded (what a caller records itself, or never keys on)
_real_lstat = os.lstat
_real_realpath = os.path.realpath
# Files of recipelint itself and of the Python running it: covered by the cache's version key.
_IGNORED_PREFIXES: tuple[str, ...] = ()


class Recorder:
    """The events of one computation, in first-seen order, each with what the path was when the
    computation looked (a file's stat, a folder's listing): the cache writes an entry only when
    that still holds, so a change during the run never hides behind a newer signature."""

    def __init__(self) -> None:
        self.events: dict[Event, Any] = {}


def note(kind: str, path: str, seen: Any = None) -> None:
    """Record one event (readers call it where a memo of theirs hides the real access)."""
    event = (kind, path)
    for recorder in _recorders:
        recorder.events.setdefault(event, seen)


def signature(kind: str, path: str, st: os.stat_result | None = None) -> Any:
    """What a path is, as far as an event of this kind can tell: "m" missing, "d" a folder,
    "o" something else; a read file's stat; a link's target; a listing's hash."""
    import stat as stat_module

    if kind == REAL:
        real = _real_realpath(path)
        try:
            _real_lstat(real)
        except (OSError, ValueError):
            return [real, False]
        return [real, True]
    if kind == GLOB:
        folder, _, patterns = path.partition("\0")
        return _names(folder, tuple(patterns.split("\0")))
    if kind == LIST:
        try:
            with os.scandir(path) as entries:
                names = sorted(f"{e.name}/{'d' if e.is_dir() else 'l' if e.is_symlink() else 'f'}" for e in entries)
        except (OSError, ValueError):
            return "m"
        import hashlib

        return hashlib.sha1("\0".join(names).encode()).hexdigest()
    if st is None:
        try:
            st = _real_lstat(path) if kind == LSTAT else _real_stat(path)
        except (OSError, ValueError):
            return "m"
    mode = st.st_mode
    if kind == LSTAT and stat_module.S_ISLNK(mode):
        try:
            return ["l", os.readlink(path)]
        except OSError:
            return "m"
    if stat_module.S_ISREG(mode):
        return ["f", st.st_size, st.st_mtime_ns, st.st_ino, mode, st.st_ctime_ns] if kind == READ else "f"
    return "d" if stat_module.S_ISDIR(mode) else "o"


_MATCHERS: dict[tuple[str, ...], Any] = {}


def _matcher(patterns: tuple[str, ...]) -> Any:
    """One regular expression for the patterns (fnmatchcase's meaning): a folder of 5,000 recipes
    is one match per name, not one per name and pattern."""
    match = _MATCHERS.get(patterns)
    if match is None:
        import re
        from fnmatch import translate

        match = _MATCHERS[patterns] = (
            re.compile("|".join(f"(?:{translate(p)})" for p in patterns)).match if patterns else (lambda name: None)
        )
    return match


def _names(folder: str, patterns: tuple[str, ...]) -> list[str] | str:
    match = _matcher(patterns)
    try:
        with os.scandir(folder) as entries:
            return sorted(e.name for e in entries if match(e.name))
    except (OSError, ValueError):
        return "m"


def listing(folder: str, patterns: tuple[str, ...]) -> list[str]:
    """The names in a folder that match the patterns, sorted; a check depends on those names
    only (a requirements file or a virtual environment appearing, not any file at all)."""
    with paused():
        names = _names(folder, patterns)
    note(GLOB, folder + "\0" + "\0".join(patterns), names)
    return names if isinstance(names, list) else []


_opened: dict[str, Any] = {}  # a read file's signature when it was last opened
_contents: dict[str, tuple[Any, str]] = {}  # path -> (that signature, sha1 of the bytes then read)


def content(path: str, data: bytes) -> None:
    """The bytes a reader got from a file it just opened: the cache keeps their hash, so it
    need not read the file again (and hashes what the check read, not what is there later)."""
    if _tracking and path in _opened:
        import hashlib

        _contents[path] = (_opened[path], hashlib.sha1(data).hexdigest())


def content_hash(path: str, seen: Any) -> str | None:
    known = _contents.get(path)
    return known[1] if known is not None and known[0] == seen else None


def _ignored(path: str) -> bool:
    return path.startswith(_IGNORED_PREFIXES) or path.endswith((".pyc", ".so"))


def _audit(name: str, args: tuple[Any, ...]) -> None:
    global _busy
    if not _recorders or _busy or name not in ("open", "os.listdir", "os.scandir"):
        return
    if sys._getframe(1).f_code.co_filename.startswith("<frozen importlib"):
        return  # an import: recipelint's own code and its libraries are the cache's version key
    _busy = True  # the hook's own listing would come back here
    try:
        _event(name, args)
    finally:
        _busy = False


def _event(name: str, args: tuple[Any, ...]) -> None:
    if name == "open":
        path, mode, flags = args
        if mode is None:  # os.open: the flags say
            writes = flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT)
        else:
            writes = any(c in str(mode) for c in "wax+")
        if isinstance(path, (str, bytes, os.PathLike)) and not writes:
            text = os.fsdecode(path)
            if not _ignored(text):
                seen = _opened[text] = signature(READ, text)
                note(READ, text, seen)
    elif name in ("os.listdir", "os.scandir") and args and isinstance(args[0], (str, bytes, os.PathLike)):
        text = os.fsdecode(args[0])
        if not _ignored(text):
            note(LIST, text, signature(LIST, text))


def _recorded(kind: str, real: Callable[..., os.stat_result], path: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> os.stat_result:
    if not _recorders or not isinstance(path, (str, os.PathLike)) or args or kwargs.get("dir_fd") is not None:
        return real(path, *args, **kwargs)
    text = os.fspath(path)
    try:
        st = real(path, **kwargs)
    except (OSError, ValueError):
        note(kind, text, "m")
        raise
    note(kind, text, signature(kind, text, st))
    return st


def _stat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
    return _recorded(STAT if kwargs.get("follow_symlinks", True) else LSTAT, _real_stat, path, args, kwargs)


def _lstat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
    return _recorded(LSTAT, _real_lstat, path, args, kwargs)


def _realpath(path: Any, *, strict: bool = False) -> Any:
    """One event for a whole resolution (pathlib's resolve): the path it came to, not the
    lstat of every folder on the way."""
    if not _recorders or not isinstance(path, (str, os.PathLike)):
        return _real_realpath(path, strict=strict)
    text = os.fspath(path)
    try:
        with paused():
            real = _real_realpath(path, strict=strict)
    except (OSError, ValueError, RuntimeError):
        note(REAL, text, signature(REAL, text))
        raise
    try:
        _real_lstat(real)
        note(REAL, text, [real, True])
    except (OSError, ValueError):
        note(REAL, text, [real, False])
    return real


@contextmanager
def tracking(ignored: tuple[str, ...] = ()) -> Iterator[None]:
    """Turn recording on for a run (an audit hook cannot be removed: it stays, idle, after)."""
    global _tracking, _hook_installed, _IGNORED_PREFIXES
    if _tracking:
        yield
        return
    if not _hook_installed:
        sys.addaudithook(_audit)
        _hook_installed = True
    _IGNORED_PREFIXES = ignored
    os.stat, os.lstat, os.path.realpath = _stat, _lstat, _realpath  # type: ignore[assignment]
    _tracking = True
    try:
        yield
    finally:
        os.stat, os.lstat, os.path.realpath = _real_stat, _real_lstat, _real_realpath
        _tracking = False
        _opened.clear()
        _contents.clear()


@contextmanager
def paused() -> Iterator[None]:
    """Nothing read inside is recorded (the caller records what stands for it)."""
    saved = _recorders[:]
    _recorders.clear()
    try:
        yield
    finally:
        _recorders.extend(saved)


def active() -> bool:
    return _tracking


@contextmanager
def recording() -> Iterator[Recorder]:
    recorder = Recorder()
    _recorders.append(recorder)
    try:
        yield recorder
    finally:
        _recorders.remove(recorder)


_MODULE_MEMOS: list[Memo[Any, Any]] = []


def new_run() -> None:
    """Forget what module-level memos hold: a run sees the files as they are now."""
    for memo in _MODULE_MEMOS:
        memo.clear()


class Memo(Generic[K, V]):
    """A per-run memo whose entries remember what computing them read.

    An entry computed while recording was off knows nothing of its inputs: a recording caller
    computes it again. `module`: a memo at module level, emptied by `new_run()`. `record`:
    False for what only the run's own bookkeeping uses (never a recipe's findings)."""

    def __init__(self, module: bool = False, record: bool = True) -> None:
        self._entries: dict[K, tuple[V, dict[Event, Any] | None]] = {}
        self._record = record
        if module:
            _MODULE_MEMOS.append(self)

    def get(self, key: K, compute: Callable[[], V]) -> V:
        if not self._record:
            if key not in self._entries:
                with paused():
                    self._entries[key] = (compute(), {})
            return self._entries[key][0]
        entry = self._entries.get(key)
        if entry is not None and (entry[1] is not None or not _recorders):
            value, events = entry
            if events and _recorders:
                for recorder in _recorders:
                    for event, seen in events.items():
                        recorder.events.setdefault(event, seen)
            return value
        if not _tracking:
            value = compute()
            self._entries[key] = (value, None)
            return value
        with recording() as recorder:
            value = compute()
        self._entries[key] = (value, recorder.events)
        return value

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def pop(self, key: K) -> None:
        self._entries.pop(key, None)

    def peek(self, key: K) -> V | None:
        entry = self._entries.get(key)
        return entry[0] if entry is not None else None

    def clear(self) -> None:
        self._entries.clear()
