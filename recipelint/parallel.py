"""Checking targets on several cores, only when it pays.

The run starts serially and measures. Once the targets done so far say that the ones left
would take longer serially than `PAYS_OFF` times what forking the helpers costs, the process
forks one helper per other CPU. The targets left go into a queue in small blocks (a block
keeps neighbours, which share a recipe tree and its checkout, in one process); the parent and
its helpers take blocks until it is empty, so a faster process takes more. The parent then
reads each helper's results from a pipe and hands everything back in the targets' order. A
small run never forks, so it is never slower than a serial one, and the report is the serial
one byte for byte.

Helpers are forked (Linux): they inherit the loaded rules and readers and everything read so
far, and cost a millisecond or two each. Elsewhere, and with `jobs` 1, everything runs serially.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Generator
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

# Measured on a 2-core machine (bench/run.py): forking a loaded recipelint process, its exit
# and reading its results back cost 2-4 ms.
FORK_SECONDS = 0.004
PAYS_OFF = 3.0  # the time saved must be this many fork costs: a win even on a noisy machine
MIN_LEFT = 8  # fewer targets left than this are not worth a process
BLOCK = 4  # targets a process takes from the queue at a time


def cpus() -> int:
    """The CPUs this process may run on (its affinity mask, not the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def can_fork() -> bool:
    return sys.platform == "linux" and hasattr(os, "fork")


def run(
    function: Callable[[Any, T], R],
    context: Any,
    items: list[T],
    jobs: int = 1,
    prepare: Callable[[list[T]], None] | None = None,
    tick: Callable[[int], None] | None = None,
) -> Generator[R, None, None]:
    """function(context, item) for each item, in order; on several CPUs when it pays.

    `jobs`: at most this many processes (0: one per CPU). `prepare(items left)`: runs before
    the helpers are forked, so that what they all need is loaded once, here. `tick(n)`: n more
    items are done, called as they finish in any process (results still come back in order,
    so a progress line fed by the results alone would stand still until the helpers end)."""
    workers = min(jobs or cpus(), cpus(), len(items))
    took: list[float] = []
    done = 0
    while done < len(items):
        started = time.perf_counter()
        result = function(context, items[done])
        took.append(time.perf_counter() - started)
        if tick is not None:
            tick(1)
        yield result
        done += 1
        left = len(items) - done
        if workers > 1 and left >= MIN_LEFT and done >= 3:
            # The median item: a first item's imports and a first YAML's parser set-up are once per run.
            serial = sorted(took)[done // 2] * left
            if serial * (1 - 1 / workers) > PAYS_OFF * FORK_SECONDS * (workers - 1) and can_fork():
                if prepare is not None:
                    prepare(items[done:])
                yield from _shared(function, context, items[done:], workers, tick)
                return


def blocks(count: int) -> list[range]:
    """The item indexes, in blocks of `BLOCK` (neighbours, which share a recipe tree and its
    checkout, stay in one process)."""
    return [range(start, min(start + BLOCK, count)) for start in range(0, count, BLOCK)]


def _shared(
    function: Callable[[Any, T], R], context: Any, items: list[T], workers: int, tick: Callable[[int], None] | None = None
) -> Generator[R, None, None]:
    """The parent and its helpers take blocks from one queue (a pipe of block numbers, each
    read whole by one process) until it is empty: whoever is faster takes more. Each helper
    writes a byte to the ticks pipe per item done, which the parent reads between its own blocks."""
    import gc
    import pickle  # noqa: F401 - loaded once here, before the helpers need it

    spans = blocks(len(items))
    queue, feed = os.pipe()
    os.write(feed, b"".join(number.to_bytes(4, "little") for number in range(len(spans))))
    os.close(feed)  # an empty queue then reads as the end
    ticks, ticked = os.pipe()
    os.set_blocking(ticks, False)
    helpers: list[tuple[int, int]] = []  # (pid, the read end of its results pipe)
    gc.freeze()  # the helpers' collectors leave the inherited objects alone: their pages stay shared
    try:
        for _ in range(workers - 1):
            read, write = os.pipe()
            pid = os.fork()
            if pid == 0:  # pragma: no cover - runs in the helper, which never returns
                os.close(read)
                os.close(ticks)
                _helper(function, context, items, spans, queue, write, ticked)
            os.close(write)
            helpers.append((pid, read))
        os.close(ticked)
        ticked = -1
        results: dict[int, R] = {}
        for number in _take(queue):
            for index in spans[number]:
                results[index] = function(context, items[index])
            if tick is not None:
                tick(len(spans[number]) + _ticks(ticks))
        if tick is not None:
            _drain(ticks, tick)
        while helpers:
            pid, read = helpers.pop(0)
            for number, done in _collect(pid, read):
                results.update(zip(spans[number], done, strict=True))
        for index in range(len(items)):
            # a helper lost (the OOM killer's SIGKILL, a crash) took its blocks with it: they are
            # checked again here, so every target still gets its result
            yield results.pop(index) if index in results else function(context, items[index])
    finally:
        gc.unfreeze()
        os.close(queue)
        os.close(ticks)
        if ticked >= 0:
            os.close(ticked)
        for pid, read in helpers:  # interrupted: stop the helpers still running
            _stop(pid, read)


def _ticks(ticks: int) -> int:
    """The items the helpers finished since the last look (the pipe is non-blocking)."""
    count = 0
    while True:
        try:
            chunk = os.read(ticks, 4096)
        except BlockingIOError:
            return count
        if not chunk:
            return count
        count += len(chunk)


def _drain(ticks: int, tick: Callable[[int], None]) -> None:
    """Once the parent's own blocks are done: count the helpers' items as they finish, until every
    helper has closed its end (each closes it before sending its results, so this never waits on
    a full results pipe)."""
    import select

    while True:
        select.select([ticks], [], [], 1.0)
        try:
            chunk = os.read(ticks, 4096)
        except BlockingIOError:
            continue
        if not chunk:
            return
        tick(len(chunk))


def _take(queue: int) -> Generator[int, None, None]:
    """Block numbers from the queue until it is empty (four bytes each, read whole: a pipe
    read of up to its buffer is atomic, so no block goes to two processes)."""
    while len(record := os.read(queue, 4)) == 4:
        yield int.from_bytes(record, "little")


def _helper(function: Callable[[Any, T], R], context: Any, items: list[T], spans: list[range], queue: int, write: int, ticked: int) -> None:
    """In the forked helper: check blocks from the queue, a byte on the ticks pipe per item, send
    the results pickled, exit without cleanup (the parent's buffers and exit handlers are the parent's)."""
    import pickle

    code = 0
    try:
        done = []
        for number in _take(queue):
            done.append((number, [function(context, items[index]) for index in spans[number]]))
            os.write(ticked, b"\x01" * len(spans[number]))
        os.close(ticked)
        data = pickle.dumps((True, done), protocol=pickle.HIGHEST_PROTOCOL)
    except BaseException as exc:  # noqa: BLE001 - whatever it is, the parent reports it
        data = pickle.dumps((False, f"{type(exc).__name__}: {exc}"))
        code = 1
    try:
        with os.fdopen(write, "wb") as out:
            out.write(data)
    finally:
        os._exit(code)


def _collect(pid: int, read: int) -> list[Any]:
    """A helper's results; [] when it ended without them (its blocks are then checked again by the
    parent), with one line on stderr saying so."""
    import pickle

    status = 0
    try:
        with os.fdopen(read, "rb") as pipe:
            data = pipe.read()
    finally:
        try:
            status = os.waitpid(pid, 0)[1]
        except ChildProcessError:
            pass
    payload: Any
    try:
        ok, payload = pickle.loads(data) if data else (False, _ended(status))
    except Exception as exc:  # noqa: BLE001 - a truncated or garbled pipe is a lost helper
        ok, payload = False, f"its results could not be read ({type(exc).__name__})"
    if ok:
        return list(payload)
    sys.stderr.write(f"recipelint: a helper process failed ({payload}); its targets were checked again in the main process\n")
    return []


def _ended(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"killed by signal {os.WTERMSIG(status)}"
    return f"exit status {os.waitstatus_to_exitcode(status)} without results"


def _stop(pid: int, read: int) -> None:
    import signal

    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except OSError:
        pass
    try:
        os.close(read)
    except OSError:
        pass
