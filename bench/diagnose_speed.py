"""Speed of `recipelint diagnose` on a dense log, against two peers in the same run.

    python bench/diagnose_speed.py                 # 256 MiB dense log
    python bench/diagnose_speed.py --size-mib 64
    python bench/diagnose_speed.py --mix real      # every line of the thread excerpts the tests carry

A dense log is one where a large share of the lines hold something the reader must look at: an
NCCL_DEBUG=INFO run of Hugging Face's Trainer with DeepSpeed, warnings that say "error",
traceback frames, progress bars redrawn with `\\r`, interleaved `[rankN]:` prefixes, and an
NCCL watchdog timeout at the end. Each command runs in a child process and the child's CPU time
(user + system) is what counts: `recipelint diagnose`, `grep -c rror` (a C scan, the floor),
and a plain Python loop over the lines (`for line in f: n += b"rror" in line`, the price of
touching every line from Python). The peak RSS of the diagnose child is printed too.

`--mix real` builds the log from the lines of the real thread excerpts in tests/data/logs
(every `.log` there and in its folders, the held-out ones included): hundreds of different
lines from NCCL, torch, DeepSpeed, the shell and the launchers, most of which match a
signature, so the cost per matched line is what it measures (issue 44).
"""

from __future__ import annotations

import argparse
import random
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

LINES = (
    "[rank{r}]:[W311 14:{m:02d}:{s:02d}.311000000 ProcessGroupNCCL.cpp:1100] Warning: TORCH_NCCL_AVOID_RECORD_STREAMS is the default now, this environment variable is thus deprecated. (function operator())\n",
    "node0:41200:41213 [{r}] NCCL INFO Channel 0{r}/0 : {r}[{r}] -> 1[1] via P2P/IPC\n",
    "node0:41200:41213 [{r}] NCCL INFO Connected all rings, use ring PXN 0 GDR 1\n",
    "{{'loss': 1.2{s}, 'grad_norm': 0.53, 'learning_rate': 1.9e-05, 'epoch': 0.{m}}}\n",
    " 12%|█▏        | {s}{m}/3597 [51:02<2:06:30,  2.45s/it]\r 12%|█▏        | {s}{m}/3597 [51:03<2:06:30,  2.45s/it]\n",
    "2024-03-11 14:{m:02d}:{s:02d},311 - WARNING - transformers.modeling_utils - Some weights of the checkpoint were not used: error_head.bias\n",
    "[2024-03-11 14:{m:02d}:{s:02d},311] [INFO] [logging.py:96:log_dist] [Rank {r}] step={s}{m}, skipped=0, lr=[1.9e-05], mom=[(0.9, 0.95)]\n",
    '  File "/opt/conda/lib/python3.10/site-packages/torch/nn/modules/module.py", line 1501, in _call_impl\n',
    "[rank{r}]: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Exception handling is unchanged.\n",
    "[rank{r}]:[E311 14:{m:02d}:{s:02d}.1 ProcessGroupNCCL.cpp:1785] [PG 0 Rank {r}] ProcessGroupNCCL preparing to dump debug info.\n",
)
TAIL = (
    "[rank0]:[E311 14:40:38.961000000 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation timeout: "
    "WorkNCCL(SeqNum=41237, OpType=ALLREDUCE, NumelIn=31490048, NumelOut=31490048, Timeout(ms)=600000) ran for 600003 milliseconds before timing out.\n"
)
LOOP = "import sys\nn = 0\nwith open(sys.argv[1], 'rb') as f:\n    for line in f:\n        n += b'rror' in line\nprint(n)\n"
DIAGNOSE = (
    "import sys\nfrom recipelint.cli import main\nsys.argv = ['recipelint', 'diagnose', '--format', 'concise', sys.argv[1]]\nmain()\n"
)


EXCERPTS = Path(__file__).resolve().parent.parent / "tests" / "data" / "logs"


def real_lines() -> list[bytes]:
    """Every line of the thread excerpts the tests carry, as the threads printed them."""
    lines = []
    for path in sorted(EXCERPTS.rglob("*.log")):
        lines.extend(line.rstrip(b"\r\n") + b"\n" for line in path.read_bytes().splitlines() if line.strip())
    return lines


def write_log(path: Path, size: int, mix: str = "synthetic") -> None:
    rng = random.Random(30)
    if mix == "real":
        lines = real_lines()
        block = b"".join(rng.choice(lines) for _ in range(20000))
    else:
        block = "".join(
            rng.choice(LINES).format(r=rng.randrange(8), m=rng.randrange(60), s=rng.randrange(60)) for _ in range(20000)
        ).encode()
    with open(path, "wb") as handle:
        written = 0
        while written < size:
            handle.write(block)
            written += len(block)
        handle.write(TAIL.encode())


def child_cpu(command: list[str]) -> tuple[float, float]:
    """CPU seconds (user + system) and peak RSS (MiB) of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, capture_output=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, after.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size-mib", type=int, default=256)
    parser.add_argument("--mix", choices=("synthetic", "real"), default="synthetic")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "dense.log"
        write_log(log, args.size_mib << 20, args.mix)
        mib = log.stat().st_size / (1 << 20)
        print(f"{'command':<40} {'CPU s':>7} {'MiB per CPU s':>14}")
        for name, command in (
            ("grep -c rror", ["grep", "-c", "rror", str(log)]),
            ("python line loop", [sys.executable, "-c", LOOP, str(log)]),
            ("recipelint diagnose", [sys.executable, "-c", DIAGNOSE, str(log)]),
        ):
            cpu, peak = child_cpu(command)
            print(
                f"{name:<40} {cpu:>7.2f} {mib / cpu:>14.1f}"
                + (f"   peak RSS of the children so far {peak:.0f} MiB" if "diagnose" in name else "")
            )
        if args.mix == "real":
            print(f"log: {mib:.0f} MiB of {len(real_lines())} real lines ({len(set(real_lines()))} different)")
        else:
            print(f"log: {mib:.0f} MiB")


if __name__ == "__main__":
    main()
