"""Progress on a terminal: one line on stderr, rewritten in place, for runs that take more than a
second, and cleared at the end (as ruff and cargo do). Never used when stderr is not a terminal:
a CI log or a pipe gets no carriage returns."""

from __future__ import annotations

import time
from typing import TextIO

DELAY = 1.0  # a run that ends sooner shows nothing
INTERVAL = 0.1  # the line is rewritten at most this often
_CLEAR = "\r\x1b[K"  # back to the line's start, erase it


class Progress:
    """`progress(done, total)`, called as each target is checked; `clear()` once at the end."""

    def __init__(self, stream: TextIO, clock: object = time.monotonic) -> None:
        self.stream = stream
        self._clock = clock if callable(clock) else time.monotonic
        self.start = self._clock()
        self.last = 0.0
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        now = self._clock()
        if now - self.start < DELAY or (now - self.last < INTERVAL and done < total):
            return
        self.last = now
        # a target is a run script or README with the configs its launches name, or a config no
        # launch names: fewer than the files given when scripts name configs
        self.stream.write(f"{_CLEAR}recipelint: checked {done}/{total} scripts and lone configs")
        self.stream.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            self.stream.write(_CLEAR)
            self.stream.flush()
            self.shown = False
