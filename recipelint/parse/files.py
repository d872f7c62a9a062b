"""Reading files once, and the one error type every front end raises for bad input."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import IO, Any

from recipelint import deps
from recipelint.deps import Memo
from recipelint.parse.span import SourceText
from recipelint.records import dataclass, field

# A config larger than this is not a config (the largest in the corpus is 9 KB); refusing it
# keeps time and memory bounded: at 1 MiB the slowest reader (a shell script) takes 1-2 s, at
# 16 MiB it took up to 34 s and 2.6 GB (bench: generated scripts and YAML of each size). data.list
# files are streamed, not read through here.
MAX_FILE_BYTES = 1024 * 1024
BOM = b"\xef\xbb\xbf"  # UTF-8's byte order mark, which editors on Windows write first


_CONTROL = {code: f"\\x{code:02x}" for code in (*range(0x20), 0x7F)}
_CONTROL.update({0x09: "\\t", 0x0A: "\\n", 0x0D: "\\r"})


def printable(text: object, limit: int | None = None) -> str:
    """Text from a recipe, a file name or a settings file, safe on one terminal line: control
    characters escaped (no escape sequence, OSC 8 link, `\\r` or newline reaches the terminal or a
    CI log, where a line starting `::error` would be a workflow command), and cut at `limit`."""
    shown = str(text).translate(_CONTROL)
    shown = "".join(ch if ch.isprintable() or ch == " " else f"\\u{ord(ch):04x}" for ch in shown) if not shown.isprintable() else shown
    if limit is not None and len(shown) > limit:
        shown = shown[: limit - 3] + "..."
    return shown


_TERMINAL = {code: f"\\x{code:02x}" for code in (*range(0x09), *range(0x0B, 0x20), 0x7F, *range(0x80, 0xA0))}


def terminal_text(text: str) -> str:
    """A whole report for a terminal or a log: every control character but newline and tab
    escaped, so no byte from a recipe (an escape sequence, an OSC 8 link, a `\\r` that rewrites
    the line) reaches the terminal as a command."""
    return text.translate(_TERMINAL)


class SourceError(Exception):
    """Bad input: reported as one line `path:line:col: reason`, never as a traceback."""

    def __init__(self, path: Path, reason: str, line: int = 0, column: int = 0) -> None:
        super().__init__(reason)
        self.path = path
        self.reason = reason
        self.line = line
        self.column = column

    def __str__(self) -> str:
        where = f"{printable(self.path)}:{self.line}:{self.column}" if self.line else printable(self.path)
        return f"{where}: {printable(self.reason)}"

    def __reduce__(self) -> tuple[type[SourceError], tuple[Path, str, int, int]]:
        return SourceError, (self.path, self.reason, self.line, self.column)  # a worker process sends it back


@dataclass
class FileCache:
    """Each file is read once per run, however many recipes share it.

    `overlay` holds edited contents that have not been written, so `fix --diff`
    can check its own output without touching the disk.
    """

    overlay: dict[Path, bytes] = field(default_factory=dict)
    _texts: Memo[Path, SourceText] = field(default_factory=Memo)
    # folder -> [(run script, the configs it names)], and (folder, ".git") -> whether the search
    # stops there; filled by the engine's upward search, which finds the targets (not cached)
    named: Memo[Any, Any] = field(default_factory=lambda: Memo(record=False))
    # (toolkit, folder, PYTHONPATH entries) -> the checkout found for it (recipelint.parse.checkout)
    checkouts: Memo[tuple[str, Path, tuple[Path, ...]], Any] = field(default_factory=Memo)
    # the first checkout found at a folder: recipes that share a checkout share what was read from it
    checkout_code: dict[tuple[str, Path], Any] = field(default_factory=dict)
    # folders a walk could not list: each is one error line of the run, never a silent pass
    unlisted: list[SourceError] = field(default_factory=list)
    # files passed that are no recipe and not read (an empty JSON, a result file over the size a
    # config can be, a UTF-16 README), each with why: `show` says them, never an error of the run
    skipped: list[tuple[Path, str]] = field(default_factory=list)
    # (reader, path) -> what a reader of Python sources made of a file and the modules it imports
    # (the consumer of a DeepSpeed JSON): several launches of one training script read it once
    code_reads: Memo[tuple[str, Path], Any] = field(default_factory=Memo)
    # (kind, path) -> the recipes a launch file holds, loaded while finding which launches name a
    # config passed alone and taken by the check of that launch file: loaded once a run
    loaded: Memo[tuple[str, Path], Any] = field(default_factory=Memo)
    # the repository index of the run (recipelint.launchindex.Index): the server keeps one
    # between keystrokes; None: each run makes its own
    launch_index: Any = None

    # path -> what a file was when its text was read from disk (fix writes only what it checked)
    stamps: dict[Path, Stamp] = field(default_factory=dict)
    # the linted folders and their repositories (linted_roots): a file a recipe names elsewhere is
    # not read; None: no such bound (a caller that checks texts of its own)
    roots: list[Path] | None = None

    def outside(self, path: Path) -> Path | None:
        """The real path of a file a recipe names, when it lies outside the linted tree and its
        repository (`train_config=/etc/shadow`): such a file is reported by name, never read."""
        if self.roots is None or path in self.overlay:
            return None
        real = path.resolve()
        return None if any(real == root or root in real.parents for root in self.roots) else real

    def read(self, path: Path) -> SourceText:
        return self._texts.get(path, lambda: self._load(path))

    def _load(self, path: Path) -> SourceText:
        data = self.overlay.get(path)
        if data is None:
            data, self.stamps[path] = read_stamped(path)
        elif len(data) > MAX_FILE_BYTES:  # stdin, an editor's document: the cap of a file on disk
            raise SourceError(path, f"file is {_mib(len(data))}, over the {_mib(MAX_FILE_BYTES)} limit for a config", 1, 1)
            if deps.active():
                deps.content(str(path), data)
        if b"\x00" in data[:8192]:
            raise SourceError(path, "binary file, not a text config")
        try:
            text = SourceText(path, data)
        except UnicodeDecodeError as exc:
            line = data[: exc.start].count(b"\n") + 1
            column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
            raise SourceError(path, "not valid UTF-8 text", line, column) from None
        return text

    def forget(self, path: Path) -> None:
        self._texts.pop(path)


def linted_roots(targets: list[Path]) -> list[Path]:
    """The folders a run may read named files in and write fixes to: each linted folder (a
    file's own folder) and the repository it sits in (the nearest `.git`), resolved."""
    from recipelint.parse.where import worktree_top

    roots: list[Path] = []
    for target in targets:
        folder = (target if target.is_dir() else target.parent).resolve()
        for root in (folder, worktree_top(folder)):
            if root is not None and root not in roots:
                roots.append(root)
    return roots


_KINDS = {stat.S_IFIFO: "a FIFO", stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device", stat.S_IFSOCK: "a socket"}


def open_regular(path: Path | str) -> IO[bytes]:
    """Open a file for reading only when it is a regular file.

    The descriptor is opened non-blocking (a FIFO with no writer would block `open` itself) and
    its own fstat decides, so a link to /dev/zero or a FIFO swapped in after a stat is refused
    before anything is read. Raises SourceError for anything else."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise _error(Path(path), exc) from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise SourceError(Path(path), "is a directory")
        if not stat.S_ISREG(mode):
            raise SourceError(Path(path), f"not a regular file ({_KINDS.get(stat.S_IFMT(mode), 'a special file')}): not read")
        return open(fd, "rb")  # noqa: SIM115 - the caller closes it
    except BaseException:
        os.close(fd)
        raise


def head(path: Path | str, limit: int) -> bytes | None:
    """Up to `limit` bytes of a regular file; None when it is not one or cannot be read (a peek
    that decides what a file is, never an error of the run)."""
    try:
        with open_regular(path) as handle:
            return handle.read(limit).removeprefix(BOM)  # what follows a byte order mark decides
    except (OSError, SourceError):
        return None


def read_capped(path: Path | str, limit: int, what: str = "a config") -> bytes:
    """A regular file's bytes, refused when more than `limit` bytes can be read (the size a stat
    reports is not trusted: /proc files and some mounts report 0)."""
    with open_regular(path) as handle:
        return read_stream(handle, Path(path), limit, what)


def read_stream(handle: IO[bytes], path: Path, limit: int, what: str = "a config") -> bytes:
    """At most `limit` bytes of an open file, pipe or device (stdin), refused past that: the
    one capped read behind every input."""
    try:
        st = os.fstat(handle.fileno())
    except (OSError, ValueError):
        st = None
    size = st.st_size if st is not None and stat.S_ISREG(st.st_mode) else 0
    if size > limit:
        raise SourceError(path, f"file is {_mib(size)}, over the {_mib(limit)} limit for {what}", 1, 1)
    try:
        data = handle.read(limit + 1)
    except OSError as exc:
        raise _error(path, exc) from None
    if len(data) > limit:
        raise SourceError(path, f"file is over the {_mib(limit)} limit for {what}", 1, 1)
    return data


def _mib(size: int) -> str:
    return f"{size / (1024 * 1024):.3g} MiB"


def read_bytes(path: Path) -> bytes:
    return read_capped(path, MAX_FILE_BYTES)


@dataclass(frozen=True)
class Stamp:
    """A file as it was read: its bytes and its identity from fstat on the descriptor the bytes
    came from (a rename swaps the inode, an edit the size, time or hash)."""

    data: bytes
    size: int
    mtime_ns: int
    inode: tuple[int, int]
    sha256: str

    def same(self, other: Stamp) -> bool:
        return (self.size, self.mtime_ns, self.inode, self.sha256) == (other.size, other.mtime_ns, other.inode, other.sha256)


def read_stamped(path: Path | str, limit: int = MAX_FILE_BYTES) -> tuple[bytes, Stamp]:
    """read_capped, with the file's identity taken on the same descriptor."""
    import hashlib

    with open_regular(path) as handle:
        data = read_stream(handle, Path(path), limit)
        st = os.fstat(handle.fileno())
    stamp = Stamp(data, st.st_size, st.st_mtime_ns, (st.st_dev, st.st_ino), hashlib.sha256(data).hexdigest())
    return data, stamp


def _missing(path: Path) -> str:
    """A link that leads nowhere is there to `ls`: say where it leads (modelscope/FunASR's
    examples/wenetspeech/conformer/demo_infer.sh links to ../paraformer/, which that folder lacks)."""
    try:
        target = os.readlink(path)
    except (OSError, ValueError):
        return "no such file"
    return f"a link to {printable(target)}, which does not exist"


def _error(path: Path, exc: OSError) -> SourceError:
    if isinstance(exc, IsADirectoryError):
        return SourceError(path, "is a directory")
    if isinstance(exc, FileNotFoundError):
        return SourceError(path, _missing(path))
    if isinstance(exc, PermissionError):
        return SourceError(path, "permission denied")
    if exc.errno == 40:  # ELOOP
        return SourceError(path, "a symlink loop")
    return SourceError(path, exc.strerror or str(exc))
