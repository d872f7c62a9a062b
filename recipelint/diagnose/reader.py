"""Training logs, streamed: plain or gzip, several files, in bounded memory whatever their size.

A log is read CHUNK bytes at a time. Every pattern names a literal its lines contain (its
needle); the chunk is searched for the needles with `bytes.find`, which runs at memory speed,
and only the lines holding one are decoded and matched. What is kept does not grow with the
log: context lines come from the chunk in hand or from a ring buffer of the previous chunk's
last lines, each pattern keeps its first KEEP_HITS hits, its last LAST_HITS and a count, the
error lines sit in a fixed-size deque, and progress is sampled from the end of each chunk.
"""

from __future__ import annotations

import gzip
import json
import re
import zlib
from collections import deque
from collections.abc import Iterable, Sequence
from datetime import datetime
from io import BytesIO
from pathlib import Path
from typing import IO, cast

from recipelint.diagnose import roots, timeline
from recipelint.diagnose.timeline import Progress
from recipelint.parse.files import SourceError, open_regular
from recipelint.records import dataclass, field

CHUNK = 1 << 20  # bytes read at a time
MAX_CARRY = 1 << 20  # a line longer than this is cut in two (counted once per piece)
MAX_MATCH = 1 << 16  # characters of one line the patterns see
MAX_SHOWN = 600  # characters of one line kept for the excerpt
CONTEXT = 3  # lines kept before and after each hit
MARK_LINES = 50000  # lines at a log's start searched for the toolkit it shows (and its last chunk)
WRAP_NEEDLE = 15  # a pattern whose needle is this long may be wrapped by a terminal (long messages are)
KEEP_HITS = 32  # first hits kept per pattern
LAST_HITS = 8  # last hits kept per pattern
ERROR_LINES = 20  # last error lines kept, for a log with no known signature
BACK_LINES = 400  # how far back a hit looks for the training progress before it
ERROR_NEEDLES = (b"rror", b"RROR", b"Exception", b"Traceback", b"FAILED", b"Killed", b"Signal ", b"NCCL WARN", b"CANCELLED")
# Validation and checkpoints mark the end of an epoch's training; "TRAIN info" the start of the next.
EPOCH_END = (b"CV info", b"Epoch(val)", b"Saving checkpoint", b"CV |", b"DEBUG CV Batch")
EPOCH_START = (b"TRAIN info",)
# Lines that show which toolkit wrote a log (its package in a traceback, its own progress
# lines): a cause that belongs to one toolkit is offered only when the log or the recipe shows it.
TOOLKIT_MARKS = {
    "wenet": (b"wenet", b"DEBUG TRAIN Batch", b"TRAIN | steps/sec", b"DEBUG CV Batch"),
    "xtuner": (b"xtuner",),
    "deepspeed": (b"deepspeed", b"DeepSpeed"),
}
_ERROR = re.compile(b"|".join(re.escape(n) for n in ERROR_NEEDLES))
_EPOCH_END = re.compile(b"|".join(re.escape(n) for n in EPOCH_END))
_EPOCH_START = re.compile(b"|".join(re.escape(n) for n in EPOCH_START))
# What an exception line starts with (roots.exception decides): a cheap test before decoding.
_EXCEPTION_START = re.compile(rb"\s*(?:\[(?:rank|default)\d+\]:\s*)?(?:E\s+)?(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception)\b")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
# Colour codes written inside a message ("Watchdog \x1b[0mcaught"): removed from the bytes before
# any needle is looked for, so a code between two words never hides a line.
_ANSI_BYTES = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]")


@dataclass(frozen=True)
class Pattern:
    """A line pattern of a signature: `needle` is a literal that every matching line holds."""

    key: str  # "<signature code>.<name>", e.g. "LOG002.watchdog"
    needle: str
    regex: re.Pattern[str]


@dataclass(frozen=True)
class LogLine:
    path: Path
    number: int
    text: str

    def __str__(self) -> str:
        return f"{self.path}:{self.number}"


@dataclass
class Hit:
    key: str
    line: LogLine
    groups: dict[str, str]
    before: tuple[LogLine, ...]
    after: list[LogLine]
    rank: int | None
    time: datetime | None
    progress: Progress | None  # the last training progress before this line, in its file
    after_epoch: bool = False  # an epoch's validation or checkpoint came after that progress


@dataclass
class Root:
    """The first exception a rank (or a log without ranks) printed."""

    hit: Hit
    raised: roots.Raised


@dataclass
class Stats:
    count: int = 0
    hits: list[Hit] = field(default_factory=list)
    last: deque[Hit] = field(default_factory=lambda: deque(maxlen=LAST_HITS))
    ranks: set[int] = field(default_factory=set)

    def add(self, hit: Hit) -> None:
        self.count += 1
        if hit.rank is not None:
            self.ranks.add(hit.rank)
        if len(self.hits) < KEEP_HITS:
            self.hits.append(hit)
        else:
            self.last.append(hit)

    @property
    def all(self) -> list[Hit]:
        return self.hits + list(self.last)


@dataclass
class FileScan:
    """One log's timeline: its first and last timestamps, first and last progress, epoch ends."""

    path: Path
    rank: int | None = None  # from the file name (rank3.log)
    lines: int = 0
    first_time: datetime | None = None
    last_time: datetime | None = None
    first_progress: Progress | None = None
    last_progress: Progress | None = None
    epoch_ends: deque[tuple[int, Progress | None]] = field(default_factory=lambda: deque(maxlen=64))
    last_marker: tuple[int, str] | None = None  # (line, "end" | "start") of the latest epoch marker
    last_lines: deque[LogLine] = field(default_factory=lambda: deque(maxlen=CONTEXT))
    year: int = 1900  # for timestamps without one: the year of the last full timestamp seen
    toolkits: set[str] = field(default_factory=set)  # the toolkits its lines show (TOOLKIT_MARKS)


@dataclass
class _Chunk:
    """A chunk of complete lines and where it sits in its file."""

    scan: FileScan
    buf: bytes
    base: int  # lines before the chunk
    tail: tuple[LogLine, ...]  # the last lines before the chunk (a ring of CONTEXT lines)
    cursor: int = 0  # byte offset whose line number is known
    cursor_line: int = 0
    # key -> the chunk's last (start, end, line, text, match) past the kept hits
    late: dict[str, tuple[int, int, int, str, re.Match[str] | None]] = field(default_factory=dict)

    def number(self, start: int) -> int:
        """1-based line number of the line starting at byte `start`; counting goes on from the
        last start asked for, forwards or backwards."""
        if start >= self.cursor:
            self.cursor_line += self.buf.count(b"\n", self.cursor, start)
        else:
            self.cursor_line -= self.buf.count(b"\n", start, self.cursor)
        self.cursor = start
        return self.base + self.cursor_line + 1

    def line_at(self, start: int) -> tuple[int, bytes]:
        end = self.buf.find(b"\n", start)
        return (len(self.buf) if end == -1 else end), self.buf[start : len(self.buf) if end == -1 else end]


def decode(raw: bytes) -> str:
    text = raw[: MAX_MATCH * 2].decode("utf-8", "replace")
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    return text.rstrip("\r\n")[:MAX_MATCH]


def _redraws(raw: bytes, needle: bytes, text: str) -> list[str]:
    """What the patterns read of one line: the line itself, or, for a line longer than they see
    that a progress bar redrew with `\\r`, each redraw holding the needle (a watchdog message
    after 64K characters of a tqdm bar on the same line)."""
    if len(raw) <= MAX_MATCH or b"\r" not in raw:
        return [text]
    return [decode(piece) for piece in raw.split(b"\r") if needle in piece]


def shown(text: str, at: int = 0) -> str:
    """The part of a long line worth showing: from a little before `at`."""
    if "\r" in text:  # progress bars redraw with CR: show the redraw that holds `at`
        start = text.rfind("\r", 0, at) + 1
        end = text.find("\r", at)
        text, at = text[start : end if end != -1 else len(text)], at - start
    if len(text) <= MAX_SHOWN:
        return text
    start = max(0, at - 120)
    return ("..." if start else "") + text[start : start + MAX_SHOWN] + "..."


class Scanner:
    def __init__(self, patterns: Sequence[Pattern]) -> None:
        self.by_needle: dict[bytes, list[Pattern]] = {}
        for pattern in patterns:
            self.by_needle.setdefault(pattern.needle.encode(), []).append(pattern)
        # Each scan of a chunk costs the same whatever it finds, so a needle that contains another
        # is not searched for: every line holding it is found through the shorter one.
        self.needles: list[bytes] = []
        for needle in sorted(set(self.by_needle) | set(ERROR_NEEDLES + EPOCH_END + EPOCH_START), key=len):
            if not any(shorter in needle for shorter in self.needles):
                self.needles.append(needle)
        # A line found through a needle can hold only the patterns whose needle contains it: only
        # those are tried on it (a dense log finds most lines through a few short needles).
        self.covers: dict[bytes, tuple[bytes, ...]] = {
            found: tuple(needle for needle in self.by_needle if found in needle) for found in self.needles
        }
        self.stats: dict[str, Stats] = {}
        self.files: list[FileScan] = []
        self._errors: deque[tuple[Path, int, bytes]] = deque(maxlen=ERROR_LINES)
        self.last_error: Hit | None = None
        self.roots: dict[tuple[Path, int | None], Root] = {}
        self._pending: list[Hit] = []

    @property
    def error_lines(self) -> list[LogLine]:
        """The last error lines no pattern matched (decoded only now: most are never shown)."""
        return [LogLine(path, number, shown(decode(raw))) for path, number, raw in self._errors]

    def stat(self, key: str) -> Stats:
        return self.stats.get(key) or Stats()

    def read(self, path: Path) -> None:
        """Scan one log file; SourceError when it cannot be read (what was read is kept)."""
        scan = FileScan(path, timeline.file_rank(path.name))
        self.files.append(scan)
        if path.is_dir():
            raise SourceError(path, "is a directory, not a log")
        try:
            with open_regular(path) as raw:
                head = raw.read(4)
                raw.seek(0)
                if head[:2] == b"\x1f\x8b":
                    with gzip.GzipFile(fileobj=raw) as unzipped:
                        self.stream(scan, cast(IO[bytes], unzipped))
                elif (wide := _utf16(head)) is not None:
                    self.stream(scan, cast(IO[bytes], _Reencoded(raw, wide)))
                else:
                    self.stream(scan, _elastic(path, raw) or raw)
        except IsADirectoryError:
            raise SourceError(path, "is a directory, not a log") from None
        except FileNotFoundError:
            raise SourceError(path, "no such file") from None
        except PermissionError:
            raise SourceError(path, "permission denied") from None
        except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
            raise SourceError(path, f"gzip stream broken after line {scan.lines}: {exc}", scan.lines) from None
        except OSError as exc:
            raise SourceError(path, exc.strerror or str(exc)) from None

    def stream(self, scan: FileScan, handle: IO[bytes]) -> None:
        carry = b""
        tail: deque[LogLine] = deque(maxlen=CONTEXT)
        while True:
            data = handle.read(CHUNK)
            buf = carry + data
            if data:
                cut = buf.rfind(b"\n")
                if cut == -1:
                    if len(buf) < MAX_CARRY:
                        carry = buf
                        continue
                    cut = len(buf) - 1  # one enormous line: cut it, memory stays bounded
                carry, buf = buf[cut + 1 :], buf[: cut + 1]
            elif not buf:
                break
            if b"\x1b" in buf:
                buf = _ANSI_BYTES.sub(b"", buf)
            chunk = _Chunk(scan, buf, scan.lines, tuple(tail))
            self._chunk(chunk, final=not data)
            scan.lines += buf.count(b"\n") + (0 if buf.endswith(b"\n") else 1)
            tail.extend(_last_lines(chunk, CONTEXT))  # a chunk of one line keeps the two before it
            scan.last_lines = deque(tail, maxlen=CONTEXT)
            if not data:
                break
        self._pending = []

    def _chunk(self, chunk: _Chunk, final: bool = False) -> None:
        self._fill_pending(chunk)
        scan = chunk.scan
        # A log shows its toolkit at start-up (its imports, its first lines) or in the traceback
        # it ends with: the first chunks and the last are searched, not every pass of a long run.
        if chunk.base < MARK_LINES or final:
            for name, marks in TOOLKIT_MARKS.items():
                if name not in scan.toolkits and any(mark in chunk.buf for mark in marks):
                    scan.toolkits.add(name)
        if scan.first_time is None:
            scan.first_time = _first_time(chunk)
        if scan.first_progress is None:
            first = timeline.PROGRESS_BYTES.search(chunk.buf)
            if first is not None:
                start = chunk.buf.rfind(b"\n", 0, first.start()) + 1
                scan.first_progress = self._progress_at(chunk, start, chunk.number(start))
        for start, needles in sorted(self._line_starts(chunk.buf).items()):
            number = chunk.number(start)
            end, raw = chunk.line_at(start)
            self._line(chunk, start, end, number, raw, needles)
        self._finish(chunk)
        latest = self._progress_before(chunk, len(chunk.buf), chunk.base + chunk.buf.count(b"\n") + 1)
        if latest is not None:
            scan.last_progress = latest
        scan.last_time = _last_time(chunk) or scan.last_time

    def _line_starts(self, buf: bytes) -> dict[int, list[bytes]]:
        """Where each line holding a needle starts, with the needles it was found through."""
        starts: dict[int, list[bytes]] = {}
        for needle in self.needles:
            at = buf.find(needle)
            while at != -1:
                starts.setdefault(buf.rfind(b"\n", 0, at) + 1, []).append(needle)
                newline = buf.find(b"\n", at)
                if newline == -1:
                    break
                at = buf.find(needle, newline + 1)
        return starts

    def _line(self, chunk: _Chunk, start: int, end: int, number: int, raw: bytes, found: list[bytes]) -> None:
        text = decode(raw)
        matched = self._patterns(chunk, start, end, number, raw, text, found)
        if _EPOCH_END.search(raw):
            marker = chunk.scan.last_marker
            if marker is None or marker[1] != "end":  # the first validation line: where training stopped
                chunk.scan.epoch_ends.append((number, self._progress_before(chunk, start, number)))
            chunk.scan.last_marker = (number, "end")
        elif _EPOCH_START.search(raw):
            chunk.scan.last_marker = (number, "start")
        if not matched and _ERROR.search(raw):
            self._errors.append((chunk.scan.path, number, raw[: MAX_SHOWN * 4]))
            chunk.late["error"] = (start, end, number, text, None)
        if _EXCEPTION_START.match(raw):
            self._root(chunk, start, end, number, text)

    def _patterns(self, chunk: _Chunk, start: int, end: int, number: int, raw: bytes, text: str, found: list[bytes]) -> bool:
        """Try the patterns the line can hold; whether one matched."""
        matched = False
        missed: list[Pattern] = []
        plain = len(raw) <= MAX_MATCH or b"\r" not in raw
        for needle in {n: None for f in found for n in self.covers[f]}:
            if needle not in raw:
                continue
            for pattern in self.by_needle[needle]:
                for seen in [text] if plain else _redraws(raw, needle, text):
                    match = pattern.regex.search(seen)
                    if match is not None:
                        matched = True
                        self._hit(chunk, start, end, number, seen, pattern.key, match)
                        break
                else:
                    if len(needle) >= WRAP_NEEDLE:
                        missed.append(pattern)
        if missed and not matched:
            matched = self._wrapped(chunk, start, end, number, text, missed)
        return matched

    def _wrapped(self, chunk: _Chunk, start: int, end: int, number: int, text: str, missed: list[Pattern]) -> bool:
        """A line a terminal wrapped at its width (`OpT` / `ype=BROADCAST`): its needle is on this
        line but the rest of the message on the next; the patterns read the two joined."""
        if end + 1 >= len(chunk.buf) or len(text) >= MAX_MATCH or chunk.buf[end + 1 : end + 2] in (b" ", b"\t", b"\n", b"["):
            return False  # a continuation starts mid-word: not indented, not a new bracketed record
        _, following = chunk.line_at(end + 1)
        joined = text + decode(following)
        matched = False
        for pattern in missed:
            match = pattern.regex.search(joined)
            # Only a match that crosses the join with its needle on the first line: a match inside
            # either line alone, or one that reaches the next line's own message, is not a wrap.
            if (
                match is not None
                and match.start() < len(text) < match.end()
                and -1 < joined.find(pattern.needle, match.start()) < len(text)
            ):
                matched = True
                self._hit(chunk, start, end, number, joined, pattern.key, match)
        return matched

    def _root(self, chunk: _Chunk, start: int, end: int, number: int, text: str) -> None:
        """Keep the first exception of each rank of each file, with the frame it was raised in."""
        found = roots.exception(text)
        if found is None:
            return
        rank = timeline.rank_of(text)
        key = (chunk.scan.path, chunk.scan.rank if rank is None else rank)
        if key in self.roots or len(self.roots) >= roots.MAX_ROOTS:
            return
        hit = self._make(chunk, start, end, number, text, "root", None)
        where = roots.location(line.text for line in hit.before)
        self.roots[key] = Root(hit, roots.Raised(found[0], found[1], where))
        if len(hit.after) < CONTEXT:
            self._pending.append(hit)

    def _hit(self, chunk: _Chunk, start: int, end: int, number: int, text: str, key: str, match: re.Match[str]) -> None:
        stats = self.stats.setdefault(key, Stats())
        if len(stats.hits) < KEEP_HITS:
            self._keep(stats, self._make(chunk, start, end, number, text, key, match))
            return
        # Past the first hits only a count, the ranks and the chunk's last hit are kept: a
        # pattern that matches every line costs a regex per line, not a Hit.
        stats.count += 1
        rank = timeline.rank_of(text)
        rank = chunk.scan.rank if rank is None else rank
        if rank is not None:
            stats.ranks.add(rank)
        chunk.late[key] = (start, end, number, text, match)

    def _keep(self, stats: Stats, hit: Hit) -> None:
        stats.add(hit)
        if len(hit.after) < CONTEXT:
            self._pending.append(hit)

    def _finish(self, chunk: _Chunk) -> None:
        """Materialise each pattern's last hit of the chunk, and the last error line."""
        for key, (start, end, number, text, match) in chunk.late.items():
            hit = self._make(chunk, start, end, number, text, key, match)
            if key == "error":
                self.last_error = hit
                if len(hit.after) < CONTEXT:
                    self._pending.append(hit)
                continue
            stats = self.stats[key]
            stats.last.append(hit)
            if len(hit.after) < CONTEXT:
                self._pending.append(hit)

    def _make(self, chunk: _Chunk, start: int, end: int, number: int, text: str, key: str, match: re.Match[str] | None) -> Hit:
        scan = chunk.scan
        at = match.start() if match else 0
        time = timeline.timestamp(text, scan.year)
        if time is not None and _FULL_YEAR.search(text):
            scan.year = time.year
        inline = timeline.progress(text[:at], number, time) if at else None
        before = _before(chunk, start, number)
        prior = inline or self._progress_before(chunk, start, number)
        marker = scan.last_marker
        after_epoch = marker is not None and marker[1] == "end" and (prior is None or marker[0] > prior.line)
        rank = timeline.rank_of(text)
        return Hit(
            key,
            LogLine(scan.path, number, shown(text, at)),
            {k: v for k, v in (match.groupdict() if match else {}).items() if v is not None},
            before,
            _after(chunk, end, number),
            rank if rank is not None else scan.rank,
            time,
            prior,
            after_epoch,
        )

    def _progress_before(self, chunk: _Chunk, start: int, number: int) -> Progress | None:
        """The last progress line before byte `start`: looked for up to BACK_LINES lines back,
        then the one sampled from earlier chunks."""
        buf, end = chunk.buf, start
        for back in range(1, BACK_LINES + 1):
            if end <= 0:
                break
            begin = buf.rfind(b"\n", 0, end - 1) + 1
            raw = buf[begin : end - 1] if buf[end - 1 : end] == b"\n" else buf[begin:end]
            if timeline.PROGRESS_BYTES.search(raw):
                return self._progress_at(chunk, begin, number - back)
            end = begin
        return chunk.scan.last_progress

    def _progress_at(self, chunk: _Chunk, start: int, number: int) -> Progress | None:
        _, raw = chunk.line_at(start)
        text = decode(raw)
        return timeline.progress(text, number, timeline.timestamp(text, chunk.scan.year))

    def _fill_pending(self, chunk: _Chunk) -> None:
        """Give hits near the end of the previous chunk their lines after."""
        if not self._pending:
            return
        lines = _first_lines(chunk, CONTEXT)
        for hit in self._pending:
            for line in lines:
                if len(hit.after) < CONTEXT and line.number > (hit.after[-1].number if hit.after else hit.line.number):
                    hit.after.append(line)
        self._pending = [hit for hit in self._pending if len(hit.after) < CONTEXT]


_FULL_YEAR = re.compile(r"(?:19|20)\d\d[-/]\d\d[-/]\d\d")


def _before(chunk: _Chunk, start: int, number: int) -> tuple[LogLine, ...]:
    lines: list[LogLine] = []
    buf, end = chunk.buf, start
    while len(lines) < CONTEXT and end > 0:
        begin = buf.rfind(b"\n", 0, end - 1) + 1
        lines.append(LogLine(chunk.scan.path, number - len(lines) - 1, shown(decode(buf[begin : end - 1]))))
        end = begin
    if len(lines) < CONTEXT:
        lines.extend(reversed([line for line in chunk.tail if line.number < number - len(lines)][-(CONTEXT - len(lines)) :]))
    return tuple(reversed(lines))


def _after(chunk: _Chunk, end: int, number: int) -> list[LogLine]:
    lines: list[LogLine] = []
    buf, begin = chunk.buf, end + 1
    while len(lines) < CONTEXT and begin < len(buf):
        stop = buf.find(b"\n", begin)
        stop = len(buf) if stop == -1 else stop
        lines.append(LogLine(chunk.scan.path, number + len(lines) + 1, shown(decode(buf[begin:stop]))))
        begin = stop + 1
    return lines


def _first_lines(chunk: _Chunk, count: int) -> list[LogLine]:
    lines: list[LogLine] = []
    begin, buf = 0, chunk.buf
    while len(lines) < count and begin < len(buf):
        stop = buf.find(b"\n", begin)
        stop = len(buf) if stop == -1 else stop
        lines.append(LogLine(chunk.scan.path, chunk.base + len(lines) + 1, shown(decode(buf[begin:stop]))))
        begin = stop + 1
    return lines


def _last_lines(chunk: _Chunk, count: int) -> list[LogLine]:
    buf = chunk.buf
    total = buf.count(b"\n") + (0 if buf.endswith(b"\n") else 1)
    lines: list[LogLine] = []
    end = len(buf) - 1 if buf.endswith(b"\n") else len(buf)
    while len(lines) < count and end >= 0:
        begin = buf.rfind(b"\n", 0, end) + 1
        lines.append(LogLine(chunk.scan.path, chunk.base + total - len(lines), shown(decode(buf[begin:end]))))
        if begin == 0:
            break
        end = begin - 1
    return list(reversed(lines))


def _first_time(chunk: _Chunk) -> datetime | None:
    for line in _first_lines(chunk, 50):
        found = timeline.timestamp(line.text, chunk.scan.year)
        if found is not None:
            if _FULL_YEAR.search(line.text):
                chunk.scan.year = found.year
            return found
    return None


def _last_time(chunk: _Chunk) -> datetime | None:
    for line in reversed(_last_lines(chunk, 50)):
        found = timeline.timestamp(line.text, chunk.scan.year)
        if found is not None:
            return found
    return None


def _elastic(path: Path, raw: IO[bytes]) -> IO[bytes] | None:
    """A torchelastic error file (JSON with the traceback escaped in it), as the lines it holds."""
    if path.suffix != ".json":
        return None
    data = raw.read(16 * 1024 * 1024 + 1)
    raw.seek(0)
    try:
        document = json.loads(data)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    message = document.get("message") if isinstance(document, dict) else None
    if isinstance(message, str):
        return BytesIO(message.encode())
    if not isinstance(message, dict):
        return None
    extra = message.get("extraInfo")
    # any shape a writer chose: a nested or odd error file is read for what it holds, never a crash
    callstack = extra.get("py_callstack") if isinstance(extra, dict) else extra
    parts: Iterable[object] = (message.get("message"), callstack)
    return BytesIO("\n".join(part if isinstance(part, str) else json.dumps(part) for part in parts if part).encode())


def _utf16(head: bytes) -> str | None:
    """The codec of a UTF-16 log (PowerShell's `>` writes one), from its byte order mark or the
    zero bytes of ASCII text; None for anything else."""
    if head[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return "utf-16"
    if len(head) == 4 and head[1] == head[3] == 0 and head[0] and head[2]:
        return "utf-16-le"
    if len(head) == 4 and head[0] == head[2] == 0 and head[1] and head[3]:
        return "utf-16-be"
    return None


class _Reencoded:
    """A UTF-16 log as the UTF-8 bytes the scanner reads, decoded as it streams."""

    def __init__(self, raw: IO[bytes], codec: str) -> None:
        import codecs

        self.raw = raw
        self.decoder = codecs.getincrementaldecoder(codec)(errors="replace")

    def read(self, size: int = -1) -> bytes:
        while True:
            data = self.raw.read(size)
            text = self.decoder.decode(data, final=not data)
            if text or not data:
                return text.encode("utf-8")
