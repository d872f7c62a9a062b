"""Shell scripts built to blow up a reader that evaluates values (issue 47's bombs), each checked
by `recipelint check --no-cache` in its own process: wall time and peak RSS (os.wait4), beside a
plain recipe of the same size. The shell reader bounds one value at MAX_VALUE characters, an
array at MAX_ITEMS elements and all of a script's built values at MAX_SPENT characters
(recipelint/parse/shellrecords.py); past them a value is "unknown: too large to evaluate".

    python bench/shell_bombs.py            # a table: case, seconds, peak RSS MiB
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LAUNCH = "torchrun --nproc_per_node 8 train.py --x $a\n"
DOUBLINGS = 64


def bombs() -> dict[str, str]:
    """Each case's script text: 64 doublings of a two-character value, spelled every way bash lets."""
    many = DOUBLINGS
    return {
        "plain recipe": "a=xx\n" + "b=1\n" * many + LAUNCH,
        'a="$a$a"': "a=xx\n" + 'a="$a$a"\n' * many + LAUNCH,
        "a+=$a": "a=xx\n" + "a+=$a\n" * many + LAUNCH,
        'export a="$a$a"': "a=xx\n" + 'export a="$a$a"\n' * many + LAUNCH,
        'declare a="$a$a"': "a=xx\n" + 'declare a="$a$a"\n' * many + LAUNCH,
        "a=$a$a": "a=xx\n" + "a=$a$a\n" * many + LAUNCH,
        'readonly a="$a$a"': "a=xx\n" + 'readonly a="$a$a"\n' * many + LAUNCH,
        'a=("${a[@]}" "${a[@]}")': "a=(xx)\n" + 'a=("${a[@]}" "${a[@]}")\n' * many + 'torchrun train.py "${a[@]}"\n',
        "a=($a $a)": "a=xx\n" + "a=($a $a)\n" * many + LAUNCH,
        "b=$a; a=$b$b": "a=xx\n" + "b=$a; a=$b$b\n" * many + LAUNCH,
        "a=$((a*a))": "a=10\n" + "a=$((a*a))\n" * many + LAUNCH,
        # branches as alternatives (#39): 64 ifs a launch uses (2**64 combinations, read once past 16),
        # and 2,000 commands that each use a branched variable (read again 2,048 times in all)
        "64 ifs, one launch": "".join(f'if [ -n "$C{i}" ]; then v{i}=1; else v{i}=2; fi\n' for i in range(many))
        + "torchrun --nproc_per_node 8 train.py --x $a "
        + " ".join(f"$v{i}" for i in range(many))
        + "\n",
        "2,000 branched uses": 'if [ -n "$C" ]; then a=1; else a=2; fi\n'
        + "".join(f"b{i}=x\n" for i in range(100))
        + "cat $a\n" * 2_000
        + LAUNCH,
        "heredoc of $a": "a=xx\n" + 'a="$a$a"\n' * 20 + "cat <<EOF > ds.json\n" + '{"x": "$a$a$a$a"}\n' * 200 + "EOF\n" + LAUNCH,
    }


def run(text: str) -> tuple[float, float, int]:
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "run.sh"
        script.write_text(text)
        start = time.perf_counter()
        process = subprocess.Popen(
            [sys.executable, "-m", "recipelint", "check", "--no-cache", str(script)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        _, status, usage = os.wait4(process.pid, 0)
        return time.perf_counter() - start, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def main() -> None:
    print(f"{'case':28} {'seconds':>8} {'peak MiB':>9} {'exit':>5}")
    for name, text in bombs().items():
        seconds, peak, code = run(text)
        print(f"{name:28} {seconds:8.2f} {peak:9.1f} {code:5d}")


if __name__ == "__main__":
    main()
