"""WeNet data.list files: count the lines, and tell remote and compressed shards apart.

Nothing is fetched: a URL is classified by its scheme, a local file by its suffix and,
when it is one of the first local files of the list, by its first bytes.

A list is streamed in blocks of whole lines (memory stays flat however long it is). A line
counts as WeNet reads it: every line, blank ones included (`TextLineDataPipe` yields each
line with only its newline stripped; the old `read_lists` appends `line.strip()`). Lines are
looked at one by one only where that can change the answer: the first lines (the sample whose
local files are opened for their magic bytes) and blocks holding a `://`, a `z` (every
compression suffix has one), a backslash (a JSON escape) or a lone carriage return. Any other
block is plain local files without a compression suffix, counted by its newlines; a raw list's
JSON lines are then never parsed. A raw list whose sample states durations (the loader memory
model's mean utterance) is parsed line by line.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import IO

from recipelint.model import Setting
from recipelint.parse.files import SourceError, open_regular
from recipelint.toolkits.wenet.part import DataList

_MAGIC = {b"\x1f\x8b": "gzip", b"BZh": "bz2", b"\xfd7zXZ\x00": "xz", b"\x28\xb5\x2f\xfd": "zstd"}
_SUFFIX = {".gz": "gzip", ".tgz": "gzip", ".bz2": "bz2", ".tbz2": "bz2", ".xz": "xz", ".txz": "xz", ".zst": "zstd"}
# Opening a local file to read its magic bytes costs a syscall each; a sample is enough.
MAGIC_SAMPLE = 64
SAMPLE_LINES = 1024  # the first lines, read one by one: their local files are the magic-byte sample
BLOCK = 1 << 20
MAX_LINE = 1 << 20  # a longer line is not a shard path: only its start is read
_URL = re.compile(rb"://")  # re's literal search is about twice as fast as `in` here
# The loader memory model needs a raw list's mean utterance: when the sample's lines state a
# duration ("duration", or "start" and "end"), every line is parsed. A list is written by one
# tool, so a sample without durations means a list without them (and no search of every block).
_TIMED = re.compile(r'"(?:duration|end)"')


def _location(line: str) -> tuple[str, float | None]:
    """The shard path (shard lists) or the audio path (raw lists, one JSON object per line), and
    the utterance's duration in seconds when a raw line states it."""
    if line.startswith("{"):
        try:
            record = json.loads(line)
        except ValueError:
            return line, None
        if isinstance(record, dict):
            return str(record.get("wav") or record.get("path") or ""), _duration(record)
    return line, None


def _duration(record: dict[str, object]) -> float | None:
    """`duration`, or `end` - `start` (WeNet's segment fields, processor.decode_wav)."""
    value = record.get("duration")
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
        return float(value)
    start, end = record.get("start"), record.get("end")
    if isinstance(start, (int, float)) and isinstance(end, (int, float)) and end > start:
        return float(end - start)
    return None


def _compression(location: str, local: Path | None) -> str | None:
    if local is not None:
        try:
            with open_regular(local) as handle:
                head = handle.read(6)
            for magic, name in _MAGIC.items():
                if head.startswith(magic):
                    return name
            return None
        except (OSError, SourceError):
            pass
    lowered = location.lower()
    for suffix, name in _SUFFIX.items():
        if lowered.endswith(suffix):
            return name
    return None


class _Scan:
    def __init__(self, item: DataList, base: Path) -> None:
        self.item = item
        self.base = base
        self.seen = 0  # lines so far
        self.probed = 0  # local files opened for their magic bytes
        self.timed = False  # a line of the sample states a duration: every line is parsed

    def block(self, data: bytes, start: int = 0, end: int | None = None) -> None:
        """The whole lines of data[start:end], each ending in a newline (offsets: no copy of a block)."""
        end = len(data) if end is None else end
        if self.seen < SAMPLE_LINES:
            cut = start
            for _ in range(SAMPLE_LINES - self.seen):
                cut = data.find(b"\n", cut, end) + 1
                if cut == 0:
                    cut = end
                    break
            self.one_by_one(data[start:cut])
            start = cut
        if start >= end:
            return
        crs = data.count(b"\r", start, end) if data.find(b"\r", start, end) >= 0 else 0
        escaped = data.find(b"\\", start, end) >= 0
        zs = data.find(b"z", start, end) >= 0 or data.find(b"Z", start, end) >= 0
        if escaped or zs or self.timed or (crs and crs != data.count(b"\r\n", start, end)) or _URL.search(data, start, end):
            self.one_by_one(data[start:end])
            return
        lines = data.count(b"\n", start, end)
        self.item.lines += lines
        self.seen += lines
        self.item.schemes["file"] += lines
        if "file" not in self.item.example:
            first = data[start : data.find(b"\n", start, end)]
            self.item.example["file"] = _location(first.decode("utf-8", "replace").strip())[0]

    def one_by_one(self, data: bytes) -> None:
        for raw in data.splitlines():  # \n, \r\n and a lone \r, as Python's text mode reads lines
            self.line(raw.decode("utf-8", "replace").strip())

    def line(self, line: str) -> None:
        item = self.item
        item.lines += 1
        self.seen += 1
        sampling = self.seen <= SAMPLE_LINES and self.probed < MAGIC_SAMPLE
        plain = "://" not in line and "z" not in line and "Z" not in line and "\\" not in line
        if self.seen <= SAMPLE_LINES and _TIMED.search(line):
            self.timed = True
        if plain and not sampling and "file" in item.example and not self.timed:
            item.schemes["file"] += 1  # neither remote nor compressed, whatever the JSON holds
            return
        location, seconds = _location(line)
        if seconds is not None:
            item.seconds += seconds
            item.timed += 1
        if "://" in location:
            from urllib.parse import urlsplit

            scheme = urlsplit(location).scheme.lower()
        else:
            scheme = "file"
        item.schemes[scheme] += 1
        item.example.setdefault(scheme, location)
        local = None
        if scheme == "file" and sampling:
            self.probed += 1
            candidate = Path(location.removeprefix("file://"))
            local = candidate if candidate.is_absolute() else self.base / candidate
        kind = _compression(location, local)
        if kind:
            item.compression[kind] += 1
            item.example.setdefault(kind, location)


def read_data_list(path: Path, setting: Setting, base: Path, errors: list[SourceError] | None = None) -> DataList:
    """The list's lines, streamed. A list that is there but cannot be read (no permission, a FIFO,
    a device) is an error of the recipe in `errors`, never a silent pass."""
    item = DataList(path, setting, os.path.exists(path) and not os.path.isdir(path))
    if not item.exists:
        return item
    scan = _Scan(item, base)
    try:
        with open_regular(path) as handle:
            _stream(handle, scan)
    except (OSError, SourceError) as exc:
        item.exists = False
        if errors is not None:
            errors.append(exc if isinstance(exc, SourceError) else SourceError(path, exc.strerror or str(exc)))
    return item


def _stream(handle: IO[bytes], scan: _Scan) -> None:
    rest, dropping = b"", False  # rest: the start of a line the next block ends
    while block := handle.read(BLOCK):
        scan.item.size += len(block)
        start = 0
        if dropping or rest:
            first = block.find(b"\n") + 1
            if first == 0:
                rest = rest if dropping else rest + block
            elif dropping:
                start, dropping = first, False
            else:
                scan.block(rest + block[:first])
                rest, start = b"", first
            if first == 0:
                if len(rest) > MAX_LINE:
                    scan.block(rest[:MAX_LINE] + b"\n")
                    rest, dropping = b"", True
                continue
        last = block.rfind(b"\n", start) + 1
        if last > start:
            scan.block(block, start, last)
            start = last
        rest = block[start:]
        if len(rest) > MAX_LINE:
            scan.block(rest[:MAX_LINE] + b"\n")
            rest, dropping = b"", True
    if rest:
        scan.block(rest + b"\n")  # the last line has no newline
