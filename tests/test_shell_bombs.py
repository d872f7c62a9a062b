"""Scripts built to blow up a reader that evaluates values (bench/shell_bombs.py times them whole):
each is read in bounded time and memory, the value past the bound is "unknown: too large to
evaluate" with its line, and the launch is still read."""

from __future__ import annotations

import importlib.util
import time
import tracemalloc
from pathlib import Path

import pytest

from recipelint.parse.shell import parse_shell
from recipelint.parse.shellrecords import MAX_VALUE
from recipelint.parse.span import SourceText
from tests.helpers import REPO

# A bomb's 2**65 bytes would need far more; the reader's own structures for a 70-line script stay
# well under this (the bounds: 64 KiB a value, 16 MiB all values of a script).
PEAK_BYTES = 48 * 1024 * 1024


def bombs() -> dict[str, str]:
    """The cases of bench/shell_bombs.py (one list of bombs for the bench and the tests)."""
    spec = importlib.util.spec_from_file_location("shell_bombs", REPO / "bench" / "shell_bombs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    found: dict[str, str] = module.bombs()
    return found


@pytest.mark.parametrize("name", [name for name in bombs() if name != "plain recipe"])
def test_a_bomb_is_read_in_bounded_time_and_memory(name: str) -> None:
    text = bombs()[name]
    tracemalloc.start()
    start = time.perf_counter()
    try:
        script = parse_shell(SourceText(Path("run.sh"), text.encode()))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.perf_counter() - start < 20  # each takes under 1 s alone; the bound leaves room for a loaded CI machine
    assert peak < PEAK_BYTES
    launch = script.commands[-1]
    assert launch.words[0].value == "torchrun"
    assert all(word.value is None or len(word.value) <= MAX_VALUE for word in launch.words)


def test_the_doubled_value_is_unknown_and_says_why() -> None:
    script = parse_shell(SourceText(Path("run.sh"), bombs()['a="$a$a"'].encode()))
    word = script.commands[-1].words[-1]
    assert word.value is None and word.reason is not None and "too large to evaluate" in word.reason


def test_below_the_bound_the_value_is_kept() -> None:
    """The bound is no guess: 10 doublings (2 KiB) stay a known value."""
    text = "a=xx\n" + 'a="$a$a"\n' * 10 + "torchrun train.py --x $a\n"
    word = parse_shell(SourceText(Path("run.sh"), text.encode())).commands[-1].words[-1]
    assert word.value == "xx" * 1024
