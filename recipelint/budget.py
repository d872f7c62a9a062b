"""A CPU-time budget for reading one file and for checking one recipe: past it the file (or the
recipe) ends with one error and the run goes on with the others, never the process.

Every reader is linear by design and its values capped (docs/reliability.md), so a budget is a
floor under bugs of ours, not a limit on real recipes: the slowest real file the tests carry
reads in well under a second, and a budget thirty times that is never met by one. It is a
profiling timer (ITIMER_PROF: the process's CPU time, so a loaded machine does not spend it) whose
signal raises `OverBudget` where the reader is; only the main thread can take a signal, so a check
on another thread (the language server's) runs without one, bounded by the document cap."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

FILE_SECONDS = 30.0  # CPU seconds to read one file, or to check one recipe
_running = False  # a budget is in force on the main thread


class OverBudget(Exception):
    def __init__(self, seconds: float) -> None:
        super().__init__(f"over {seconds:g} s of CPU")
        self.seconds = seconds


def seconds() -> float:
    """The budget in force: FILE_SECONDS, or RECIPELINT_CPU_BUDGET's seconds (tests set a small one)."""
    given = os.environ.get("RECIPELINT_CPU_BUDGET", "")
    try:
        found = float(given)
    except ValueError:
        return FILE_SECONDS
    return found if 0 < found <= 3600 else FILE_SECONDS


@contextmanager
def cpu_budget() -> Iterator[None]:
    """Raise OverBudget in the body once it has used the budget's CPU seconds (main thread only)."""
    global _running
    if _running or threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield  # within a budget already (a file read while its recipe is loaded): that one holds
        return
    limit = seconds()

    def expire(signum: int, frame: FrameType | None) -> None:
        raise OverBudget(limit)

    before = signal.signal(signal.SIGPROF, expire)
    signal.setitimer(signal.ITIMER_PROF, limit)
    _running = True
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, before)
        _running = False
