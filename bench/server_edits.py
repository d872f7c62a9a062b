"""`recipelint server` memory across many edits: the server's resident set after each thousand
keystrokes, beside its resident set once the documents are open (the peer: what it holds before
any edit) and the 1 GiB bound docs/reliability.md states.

    pip install '.[server]' && python bench/server_edits.py [--edits 10000] [--burst 50]

The server is started over stdio and driven by a real LSP client (tests/server_client.py). An
example recipe (examples/wenet-4node-v100, copied to a temporary folder) has its run script and
its YAML open; each keystroke types a character into a comment of one of them and the next
deletes it, so the documents keep their size and any growth is the server's. Edits go in bursts
of `--burst`, each burst waiting for the diagnostics of its last version, so the server runs a
round of checks per burst (10,000 edits of 50: 200 rounds). The resident set is read with psutil
from the server's process. Nothing here asserts: it measures; tests/test_server_loop.py holds
the bound on fewer edits.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
import time
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.server_client import Session  # noqa: E402

MIB = 1 << 20


async def drive(folder: Path, edits: int, burst: int) -> list[tuple[int, float, float]]:
    """(edits sent, server RSS in MiB, seconds since the first edit) after each thousand."""
    run_sh, train = folder / "run.sh", folder / "conf" / "train.yaml"
    session = Session(folder, {"hardware": "hardware-v100-node.yaml"})
    await session.start()
    await session.open(run_sh)
    await session.open(train)
    server = psutil.Process(session.client._server.pid)  # type: ignore[attr-defined]
    rows = [(0, server.memory_info().rss / MIB, 0.0)]
    comment = {path: (i, len(line)) for path in (run_sh, train) for i, line in enumerate(path.read_text().splitlines()) if line.startswith("#")}
    start = time.perf_counter()
    for sent in range(1, edits + 1):
        path = run_sh if (sent // 2) % 2 == 0 else train
        line, column = comment[path]
        typed = sent % 2 == 1
        version = (
            session.edit(path, (line, column), (line, column), "x") if typed else session.edit(path, (line, column), (line, column + 1), "")
        )
        if sent % burst == 0:
            await session.wait(path, 0, lambda p, v=version: p.version == v)  # type: ignore[misc]
        if sent % 1000 == 0:
            rows.append((sent, server.memory_info().rss / MIB, time.perf_counter() - start))
    await session.stop()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--edits", type=int, default=10_000)
    parser.add_argument("--burst", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "recipe"
        shutil.copytree(REPO / "examples" / "wenet-4node-v100", folder)
        rows = asyncio.run(drive(folder, args.edits, args.burst))
    opened = rows[0][1]
    print(f"{'edits':>7} {'server RSS MiB':>15} {'vs opened':>10} {'seconds':>8}")
    for sent, rss, seconds in rows:
        print(f"{sent:>7} {rss:>15.1f} {rss - opened:>+10.1f} {seconds:>8.1f}")
    print(f"peer: the server once its documents are open, {opened:.1f} MiB; bound 1024 MiB")


if __name__ == "__main__":
    main()
