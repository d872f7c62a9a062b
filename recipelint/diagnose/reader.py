"""Training logs, streamed: plain or gzip, several files, in bounded memory whatever their size.

A log is read CHUNK bytes at a time. Every pattern names a literal its lines contain (its
needle). A chunk is first split into its words once (`bytes.translate` and `split`, C speed):
a needle whose words the chunk does not hold cannot be in it and is not searched for, so a
chunk costs one pass for all the needles plus one `bytes.find` pass for each needle it may
hold, not one pass per needle. Only the lines holding a needle are looked at, and only those a
pattern can match are decoded. What is kept does not grow with the log: context lines come
from the chunk in hand or from a ring buffer of the previous chunk's last lines, each pattern
keeps its first KEEP_HITS hits, its last LAST_HITS and a count, the error lines sit in a
fixed-size deque, and progress is sampled from the end of each chunk.
"""

from __future__ import annotations

import bisect
import functools
import gzip
import json
import re
import zlib
from collections import deque
from collections.abc import Callable, Iterable, Sequence
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
WINDOWS = 4  # windows around a needle read in one over-long line: time stays bounded by its length
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
_EXCEPTION_START = re.compile(rb"\s*(?:\[(?:rank|default)\d+\]:\s*|\d{1,5}: \s*)?(?:E\s+)?(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception)\b")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
# Colour codes written inside a message ("Watchdog \x1b[0mcaught"): removed from the bytes before
# any needle is looked for, so a code between two words never hides a line.
_ANSI_BYTES = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]")
# The bytes words are made of when a chunk is split to learn which needles it can hold: ASCII
# letters and underscore. Digits are separators too: a dense log's numbers (steps, times, ranks)
# would otherwise make most of its words distinct, and no needle needs one.
_WORD_BYTES = bytes(c if (65 <= c <= 90 or 97 <= c <= 122 or c == 95) else 32 for c in range(256))
_RUN = re.compile(rb"[^ ]+")
# An exception line (_EXCEPTION_START) holds one of these: it is found through a needle inside one.
_EXCEPTION_WORDS = (b"Error", b"Exception")
# What a line found through a needle may be besides a pattern's line (bits of _Needle.kinds): an
# error line (sure when the needle is an error needle itself), a validation or training epoch
# marker, an exception.
_ERROR_LINE, _ERROR_SURE, _EPOCH_LINE, _EXCEPTION_LINE = 1, 2, 4, 8


@dataclass(frozen=True)
class _Needle:
    """A literal searched for in each chunk that may hold it, and what a line holding it may be."""

    text: bytes
    words: frozenset[bytes]  # its words bounded on both sides inside it: a chunk holding it holds each as a whole word
    parts: tuple[bytes, ...]  # its words at its ends: a chunk holding it holds each inside a word
    covers: tuple[bytes, ...]  # the pattern needles that contain it (its lines are tried for those)
    kinds: int  # _ERROR_LINE | ... : the other needles it is part of

    def may_be_in(self, words: set[bytes], joined: Callable[[], bytes]) -> bool:
        return self.words <= words and all(part in joined() for part in self.parts)


def _needle(text: bytes, patterns: Iterable[bytes]) -> _Needle:
    translated = text.translate(_WORD_BYTES)
    runs = [(m.start(), m.end()) for m in _RUN.finditer(translated)]
    inner = frozenset(translated[a:b] for a, b in runs if a > 0 and b < len(translated))
    parts = tuple(translated[a:b] for a, b in runs if not (a > 0 and b < len(translated)))
    kinds = 0
    if any(text in other for other in ERROR_NEEDLES):
        kinds |= _ERROR_SURE if text in ERROR_NEEDLES else _ERROR_LINE
    if any(text in other for other in EPOCH_END + EPOCH_START):
        kinds |= _EPOCH_LINE
    if any(text in word for word in _EXCEPTION_WORDS):
        kinds |= _EXCEPTION_LINE
    return _Needle(text, inner, parts, tuple(pattern for pattern in patterns if text in pattern), kinds)


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
    parsed: dict[int, Progress | None] = field(default_factory=dict)  # progress lines read, by start

    @functools.cached_property
    def progress_starts(self) -> list[int]:
        """Where the chunk's progress lines start: one C scan of the chunk, made the first time a
        hit asks for the progress before it (a lookup is then a bisection, not a loop over lines)."""
        buf, found = self.buf, set()
        for literal in timeline.PROGRESS_LITERALS:  # a literal scan each (C speed), then the line's own test
            at = buf.find(literal)
            while at >= 0:
                begin = buf.rfind(b"\n", 0, at) + 1
                end = buf.find(b"\n", at)
                if begin not in found and timeline.PROGRESS_BYTES.search(buf, begin, len(buf) if end < 0 else end):
                    found.add(begin)
                at = buf.find(literal, (len(buf) if end < 0 else end) + 1)
        return sorted(found)

    @functools.cached_property
    def lines(self) -> int:
        """How many lines the chunk holds (a last line without its newline counts)."""
        return self.buf.count(b"\n") + (0 if self.buf.endswith(b"\n") else 1)

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
    """What the patterns read of one line: the line itself, or, for a line longer than they see,
    each redraw holding the needle of a line a progress bar redrew with `\\r` (a watchdog message
    after 64K characters of a tqdm bar on the same line), and in a redraw still too long (a line
    with no `\\r` at all) a window around each of the needle's first places."""
    if len(raw) <= MAX_MATCH:
        return [text]
    seen: list[str] = []
    for piece in raw.split(b"\r") if b"\r" in raw else [raw]:
        if needle not in piece:
            continue
        if len(piece) <= MAX_MATCH:
            seen.append(decode(piece))
            continue
        at = piece.find(needle)
        for _ in range(WINDOWS):
            if at < 0:
                break
            seen.append(decode(piece[max(0, at - MAX_MATCH // 2) : at + MAX_MATCH // 2]))
            at = piece.find(needle, at + MAX_MATCH // 2)
    return seen


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
        every = set(self.by_needle) | set(ERROR_NEEDLES + EPOCH_END + EPOCH_START)
        # Each search of a chunk costs the same whatever it finds, so a needle that contains another
        # is not searched for: every line holding it is found through the shorter one, and tried
        # only for the pattern needles that contain the one it was found through.
        self.needles: list[bytes] = []
        for text in sorted(every, key=len):
            if not any(shorter in text for shorter in self.needles):
                self.needles.append(text)
        self._searched = [_needle(text, self.by_needle) for text in self.needles]
        # Every needle's own test: a pattern needle the chunk cannot hold is not tried on its lines.
        self._tests = {text: _needle(text, ()) for text in every}
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
        scan = FileScan(path, timeline.file_rank(path.name, path.parent.name))
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
            scan.lines += chunk.lines
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
        self._lines(chunk)
        self._finish(chunk)
        latest = self._progress_before(chunk, len(chunk.buf), chunk.base + chunk.buf.count(b"\n") + 1)
        if latest is not None:
            scan.last_progress = latest
        scan.last_time = _last_time(chunk) or scan.last_time

    def _present(self, buf: bytes) -> set[bytes]:
        """The needles the chunk may hold: those whose words it holds (one pass for all of them)."""
        words = set(buf.translate(_WORD_BYTES).split())
        joined: list[bytes] = []

        def all_words() -> bytes:  # built only when a needle has a word cut at its ends
            if not joined:
                joined.append(b" ".join(words))
            return joined[0]

        return {text for text, test in self._tests.items() if test.may_be_in(words, all_words)}

    def _lines(self, chunk: _Chunk) -> None:
        """Look at each line holding a needle the chunk may hold, in order."""
        present = self._present(chunk.buf)
        tried = {n.text: (tuple(c for c in n.covers if c in present), n.kinds) for n in self._searched if n.text in present}
        # A needle no pattern needle contains and no epoch marker either finds error lines and
        # exceptions only: its lines are kept as starts, and only an exception's goes the whole way.
        quick = [text for text, (covers, kinds) in tried.items() if not covers and not kinds & (_EPOCH_LINE | _ERROR_LINE)]
        starts = _line_starts(chunk.buf, [text for text in tried if text not in quick])
        plain = _quick(chunk.buf, quick, tried, starts)
        errors: list[int] = []
        for start, found in sorted(starts.items()):
            self._line(chunk, start, found, tried, errors)
        if plain:
            errors = sorted(plain.difference(starts).union(errors))
        # Only the last error lines are kept (a fixed-size deque): only those are numbered and copied.
        for start in errors[-ERROR_LINES:]:
            _, raw = chunk.line_at(start)
            self._errors.append((chunk.scan.path, chunk.number(start), raw[: MAX_SHOWN * 4]))
        if errors:
            end, raw = chunk.line_at(errors[-1])
            chunk.late["error"] = (errors[-1], end, chunk.number(errors[-1]), decode(raw), None)

    def _line(
        self, chunk: _Chunk, start: int, found: list[bytes], tried: dict[bytes, tuple[tuple[bytes, ...], int]], errors: list[int]
    ) -> None:
        end, raw = chunk.line_at(start)
        if len(found) == 1:
            needles, kinds = tried[found[0]]
        else:
            needles, kinds = tuple({n: None for f in found for n in tried[f][0]}), 0
            for text in found:
                kinds |= tried[text][1]
        matched = self._patterns(chunk, start, end, raw, needles) if needles else False
        if kinds & _EPOCH_LINE:
            self._epoch(chunk, start, raw)
        if not matched and (kinds & _ERROR_SURE or (kinds & _ERROR_LINE and _ERROR.search(raw))):
            errors.append(start)
        if kinds & _EXCEPTION_LINE and _EXCEPTION_START.match(raw):
            self._root(chunk, start, end, chunk.number(start), decode(raw))

    def _epoch(self, chunk: _Chunk, start: int, raw: bytes) -> None:
        number = chunk.number(start)
        if _EPOCH_END.search(raw):
            marker = chunk.scan.last_marker
            if marker is None or marker[1] != "end":  # the first validation line: where training stopped
                chunk.scan.epoch_ends.append((number, self._progress_before(chunk, start, number)))
            chunk.scan.last_marker = (number, "end")
        elif _EPOCH_START.search(raw):
            chunk.scan.last_marker = (number, "start")

    def _patterns(self, chunk: _Chunk, start: int, end: int, raw: bytes, needles: tuple[bytes, ...]) -> bool:
        """Try the patterns the line can hold; whether one matched. The line is decoded and
        numbered only when it holds one of their needles."""
        matched = False
        missed: list[Pattern] = []
        plain = len(raw) <= MAX_MATCH
        text: str | None = None
        number = 0
        for needle in needles:
            if needle not in raw:
                continue
            if text is None:
                text, number = decode(raw), chunk.number(start)
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
        if missed and not matched and text is not None:
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
        # A torchelastic summary names the rank above a traceback it quotes (`rank : 3
        # (local_rank: 3)`); its lines are read back only where the window holds one.
        summary = rank is None and chunk.buf.rfind(b"(local_rank: ", max(0, start - roots.TRACE_BYTES), start) >= 0
        trace = [line.text for line in _before(chunk, start, number, roots.TRACE_LINES)] if summary else []
        rank = roots.summary_rank(trace) if summary else rank
        key = (chunk.scan.path, chunk.scan.rank if rank is None else rank)
        if key in self.roots or len(self.roots) >= roots.MAX_ROOTS:
            return
        # The traceback before it: with a rank prefix, the rank's own lines only.
        trace = trace or [line.text for line in _before(chunk, start, number, roots.TRACE_LINES)]
        hit = self._make(chunk, start, end, number, text, "root", None, rank)
        where = roots.location(roots.own_lines(trace, text))
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

    def _make(
        self, chunk: _Chunk, start: int, end: int, number: int, text: str, key: str, match: re.Match[str] | None, rank: int | None = None
    ) -> Hit:
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
        rank = timeline.rank_of(text) if rank is None else rank
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
        starts = chunk.progress_starts
        at = bisect.bisect_left(starts, start) - 1
        if at >= 0:
            begin = starts[at]
            back = chunk.buf.count(b"\n", begin, start)
            if back <= BACK_LINES:
                return self._progress_at(chunk, begin, number - back)
        return chunk.scan.last_progress

    def _progress_at(self, chunk: _Chunk, start: int, number: int) -> Progress | None:
        if start in chunk.parsed:  # many hits share the progress line before them: parsed once
            return chunk.parsed[start]
        _, raw = chunk.line_at(start)
        text = decode(raw)
        chunk.parsed[start] = found = timeline.progress(text, number, timeline.timestamp(text, chunk.scan.year))
        return found

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


def _quick(buf: bytes, quick: list[bytes], tried: dict[bytes, tuple[tuple[bytes, ...], int]], starts: dict[int, list[bytes]]) -> set[int]:
    """The error lines the quick needles find; a line another needle found, or an exception's,
    joins `starts` to be looked at in order."""
    plain: set[int] = set()
    for needle in quick:
        kinds = tried[needle][1]
        at = buf.find(needle)
        while at != -1:
            start = buf.rfind(b"\n", 0, at) + 1
            end = buf.find(b"\n", at)
            end = len(buf) if end == -1 else end
            if start in starts or (kinds & _EXCEPTION_LINE and _EXCEPTION_START.match(buf, start, end)):
                starts.setdefault(start, []).append(needle)
            elif kinds & _ERROR_SURE:
                plain.add(start)
            at = buf.find(needle, end + 1) if end < len(buf) else -1
    return plain


def _line_starts(buf: bytes, needles: Iterable[bytes]) -> dict[int, list[bytes]]:
    """Where each line holding a needle starts, with the needles it was found through."""
    starts: dict[int, list[bytes]] = {}
    for needle in needles:
        at = buf.find(needle)
        while at != -1:
            starts.setdefault(buf.rfind(b"\n", 0, at) + 1, []).append(needle)
            newline = buf.find(b"\n", at)
            if newline == -1:
                break
            at = buf.find(needle, newline + 1)
    return starts


_FULL_YEAR = re.compile(r"(?:19|20)\d\d[-/]\d\d[-/]\d\d")


def _before(chunk: _Chunk, start: int, number: int, count: int = CONTEXT) -> tuple[LogLine, ...]:
    lines: list[LogLine] = []
    buf, end = chunk.buf, start
    while len(lines) < count and end > 0:
        begin = buf.rfind(b"\n", 0, end - 1) + 1
        lines.append(LogLine(chunk.scan.path, number - len(lines) - 1, shown(decode(buf[begin : end - 1]))))
        end = begin
    if len(lines) < count:
        lines.extend(reversed([line for line in chunk.tail if line.number < number - len(lines)][-(count - len(lines)) :]))
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
    total = chunk.lines
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
    said = message.get("message")
    if isinstance(callstack, str) and isinstance(said, str) and said.strip() and said.strip() in callstack:
        return BytesIO(callstack.encode())  # the stack ends in the message: the root is read with its frames
    parts: Iterable[object] = (said, callstack)
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
