"""The DeepSpeed oracle's recipelint run, with the version memo off and on, in one run.

    python bench/oracle_versions.py [--limit N] [--reps 1]

The cases are the oracle's (tests/oracle_cases.py: every real DeepSpeed JSON the tests carry and
each of its mutations, about 8,700 files), judged as tests/test_deepspeed_oracle.py judges them
(a plain DeepSpeed launch on one GPU, DeepSpeed 0.19.8); DeepSpeed itself is not needed. The
memo is `functools.cache` on `versions.parse`, `versions.clauses`, `Range.points` (`versions._points`) and `models.table_for`: "off"
runs the same code through the functions' `__wrapped__` originals (what the code was before the
memo), "on" starts with empty caches. Printed: CPU seconds of each pass (process time, so other
work on a shared machine counts less), the calls to `versions.parse`, and how many of them the
memo answered. The passes alternate when --reps > 1; medians are printed. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from recipelint import versions  # noqa: E402
from recipelint.toolkits.deepspeed import models  # noqa: E402
from tests.oracle_cases import cases, recipelint_errors  # noqa: E402

MEMOISED: tuple[tuple[Any, str], ...] = ((versions, "parse"), (versions, "clauses"), (versions, "_points"), (models, "table_for"))


class Counted:
    """`versions.parse` with a call counter in front."""

    def __init__(self, fn: Callable[[str], versions.Version]) -> None:
        self.fn, self.calls = fn, 0

    def __call__(self, version: str) -> versions.Version:
        self.calls += 1
        return self.fn(version)


def one_pass(paths: list[Path], memo: bool) -> tuple[float, int, int]:
    """CPU seconds, parse calls, parse calls answered by the memo."""
    saved = {(module, name): getattr(module, name) for module, name in MEMOISED}
    for (module, name), fn in saved.items():
        fn.cache_clear()
        if not memo:
            setattr(module, name, fn.__wrapped__)
    counter = Counted(versions.parse)
    versions.parse = counter  # type: ignore[assignment]
    try:
        start = time.process_time()
        for path in paths:
            recipelint_errors(path, "0.19.8")
        seconds = time.process_time() - start
    finally:
        for (module, name), fn in saved.items():
            setattr(module, name, fn)
    hits = saved[(versions, "parse")].cache_info().hits if memo else 0
    return seconds, counter.calls, hits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=0, help="only the first N cases")
    parser.add_argument("--reps", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        paths = [path for _, _, path in cases(Path(tmp))]
        if args.limit:
            paths = paths[: args.limit]
        recipelint_errors(paths[0], "0.19.8")  # imports, schemas and tables loaded outside the timing
        runs: dict[bool, list[tuple[float, int, int]]] = {False: [], True: []}
        for _ in range(args.reps):
            for memo in (False, True):
                runs[memo].append(one_pass(paths, memo))
    print(f"oracle recipelint run: {len(paths)} configs, {args.reps} rep(s), CPU seconds (median)")
    for memo, label in ((False, "memo off"), (True, "memo on ")):
        seconds = statistics.median(r[0] for r in runs[memo])
        calls, hits = runs[memo][-1][1], runs[memo][-1][2]
        answered = f", {hits} answered by the memo ({len(paths) and hits * 100 // max(calls, 1)} %)" if memo else ""
        print(f"  {label}: {seconds:7.1f} s, {seconds * 1000 / len(paths):5.1f} ms/config, versions.parse called {calls}{answered}")
    off, on = (statistics.median(r[0] for r in runs[m]) for m in (False, True))
    print(f"  memo on / memo off: {on / off:.2f}")


if __name__ == "__main__":
    main()
