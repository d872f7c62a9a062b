"""The root error of each rank: the first exception it printed, and where it was raised.

A distributed failure is usually reported many times: the rank that broke prints its exception,
then every other rank prints what that did to it (a barrier that lost a peer, a watchdog, the
launcher's `ChildFailedError`). The first exception of each rank, with the frame it was raised
in, is what a user reads first in any report, with or without a known signature.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from recipelint.records import dataclass

# `KeyError: 'messages'`, `[rank0]: torch.distributed.DistBackendError: ...`, `E   ValueError`.
_EXCEPTION = re.compile(
    r"^\s*(?:\[(?:rank|default)\d+\]:\s*|\d{1,5}: \s*)?(?:E\s+)?"
    r"(?P<type>(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception))(?::\s*(?P<message>.*?))?\s*$"
)
# Python's frame line, and rich's (`│ /x/train.py:87 in main`).
_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<fn>[\w<>.]+)')
_RICH_FRAME = re.compile(r"(?P<file>[\w./~-]+\.py):(?P<line>\d+) in (?P<fn>[\w<>.]+)")
# Reports of another process's failure, not a failure of their own: the launcher's summary of
# a child that died, the DeepSpeed launcher's re-raise of a child's exit status.
_SECONDARY = ("ChildFailedError", "CalledProcessError")
MAX_ROOTS = 64  # ranks (or files) remembered; a log of thousands of ranks keeps the first 64
TRACE_LINES = 40  # lines read back from an exception for its traceback (a root is read once per rank)
TRACE_BYTES = 8192  # bytes searched back for a torchelastic summary's rank line
# A rank's prefix on its lines, as timeline.rank_of reads it: `[rank3]:`, `[default3]:`, `3: `.
_PREFIX = re.compile(r"^\s*(?:\[(?:rank|default)\d+\]:|\d{1,5}: )")
# torchelastic's failure summary: `  rank      : 3 (local_rank: 3)`, above the traceback it quotes.
_SUMMARY_RANK = re.compile(r"^\s*rank\s*:\s*(\d+) \(local_rank")
_SUMMARY_END = re.compile(r"^\s*(?:\[\d+\]:|=====|-----)")
# Frames of the launcher and of installed packages: the training code's own frame is preferred.
_LIBRARY = re.compile(r"(?:site|dist)-packages/|/lib/python\d[.\d]*/(?!site)|torch/distributed/(?:run|launch|elastic)")


@dataclass(frozen=True)
class Raised:
    """One exception line: its type, message and the frame it was raised in, when shown."""

    type: str
    message: str
    where: str | None

    def describe(self) -> str:
        said = f"{self.type}: {self.message}" if self.message else self.type
        return said + (f" (raised at {self.where})" if self.where else "")


def exception(text: str) -> tuple[str, str] | None:
    """(type, message) when the line is the last line of a traceback, else None."""
    if "rror" not in text and "Exception" not in text:
        return None
    match = _EXCEPTION.match(text)
    if match is None:
        return None
    kind = match["type"]
    if kind.rsplit(".", 1)[-1] in _SECONDARY:
        return None
    return kind, (match["message"] or "")[:300]


def location(lines: Iterable[str]) -> str | None:
    """Where an exception was raised, from the lines before it: the innermost frame of the
    training code (outside installed packages and the launcher), else the innermost frame."""
    found = own = None
    for text in lines:
        match = _FRAME.search(text) or _RICH_FRAME.search(text)
        if match is not None:
            found = f"{match['file']}:{match['line']} in {match['fn']}"
            own = own if _LIBRARY.search(match["file"]) else found
    return own or found


def own_lines(lines: list[str], text: str) -> list[str]:
    """The lines of the traceback that belong to the exception's writer: with a rank prefix,
    only the lines with that same prefix (other ranks' lines interleave in a shared log)."""
    prefix = _PREFIX.match(text)
    if prefix is None:
        return lines
    mark = prefix.group(0).strip()
    return [line for line in lines if line.lstrip().startswith(mark)]


def summary_rank(lines: list[str]) -> int | None:
    """The rank torchelastic's failure summary names for the traceback it quotes, when the
    exception is part of one (the nearest `rank : N (local_rank: M)` above, within the entry)."""
    for text in reversed(lines):
        match = _SUMMARY_RANK.match(text)
        if match is not None:
            return int(match.group(1))
        if _SUMMARY_END.match(text):
            return None
    return None
