"""The reader's two shortcuts give what looking for every needle on every line gives.

- The word filter: a chunk is split into its words once, and a needle whose words the chunk
  does not hold is not searched for in it.
- The quick path: a line found only through a needle that no pattern needle and no epoch marker
  contains (an error word) is kept as its start; only an exception's line goes the whole way.

Each test runs the reader as it is and with the shortcut taken away, on logs made of the real
lines the tests carry, in chunks small enough that a log is many of them.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from recipelint.diagnose import diagnose, to_json
from recipelint.diagnose import reader as reader_module
from recipelint.diagnose.reader import Scanner
from recipelint.diagnose.signatures import all_signatures
from tests.helpers import REPO

LOGS = REPO / "tests" / "data" / "logs"


def real_lines() -> list[bytes]:
    return [line for path in sorted(LOGS.glob("*.log")) for line in path.read_bytes().splitlines(keepends=True)]


def mixture(tmp_path: Path, seed: int) -> Path:
    """Real log lines in a random order, some glued to digits and punctuation, some coloured."""
    rng = random.Random(seed)
    lines = real_lines()
    picked = [rng.choice(lines) for _ in range(3000)]
    for i in rng.sample(range(len(picked)), 300):
        picked[i] = rng.choice((b"[rank3]:", b"12:01:", b"\x1b[31m", b"x")) + picked[i]
    path = tmp_path / f"mixture-{seed}.log"
    path.write_bytes(b"".join(picked))
    return path


def every_needle(self: Scanner, buf: bytes) -> set[bytes]:
    return set(self._tests)


def no_quick_path(buf: bytes, quick: list[bytes], tried: object, starts: dict[int, list[bytes]]) -> set[int]:
    for start, found in reader_module._line_starts(buf, quick).items():
        starts.setdefault(start, []).extend(found)
    return set()


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_the_shortcuts_change_no_report(tmp_path: Path, seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    log = mixture(tmp_path, seed)
    monkeypatch.setattr(reader_module, "CHUNK", 8192)
    fast = to_json(diagnose([log], []))
    with monkeypatch.context() as slow:
        slow.setattr(Scanner, "_present", every_needle)
        slow.setattr(reader_module, "_quick", no_quick_path)
        full = to_json(diagnose([log], []))
    assert fast == full
    assert '"code": "LOG' in fast and '"type":' in fast  # the mixture holds findings and roots to compare


def test_a_chunk_is_searched_only_for_the_needles_whose_words_it_holds() -> None:
    scan = Scanner([p for s in all_signatures().values() for p in s.patterns])
    watchdog = b"[rank0]:[E311 14:40:38.961000000 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation timeout\n"
    present = scan._present(watchdog)
    assert b"Watchdog caught" in present and b"CUDA out of memory. Tried to allocate" not in present
    assert b"Watchdog caught" not in scan._present(b"the Watchdog did not catch it\n")
    # a word the needle cuts at its end is looked for inside the chunk's words
    assert b"etwork Socket" in scan._present(b"NCCL WARN NET/Socket : Network Socketpair failed\n")
    assert b"etwork Socket" not in scan._present(b"NCCL WARN Network sockets failed\n")


def test_a_line_found_through_an_error_word_is_a_root_when_it_is_an_exception(tmp_path: Path) -> None:
    log = tmp_path / "train.log"
    filler = b"".join(b"UserWarning: error_head.bias not used, Exception handling unchanged %d\n" % i for i in range(50))
    log.write_bytes(filler + b"[rank1]: ValueError: bad shard\n" + filler + b"[rank1]: KeyError: 'late'\n")
    report = diagnose([log], [])
    assert [(r.hit.rank, r.raised.type, r.hit.line.number) for r in report.roots] == [(1, "ValueError", 51)]
    assert [line.number for line in report.error_lines][-1] == 102
