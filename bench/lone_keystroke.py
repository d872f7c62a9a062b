"""A keystroke in a config opened alone, in the language server's workspace, in process.

    python bench/lone_keystroke.py [--recipes 250] [--keys 30]

A generated repository of N WeNet-like recipes (bench/precommit.py's, 8 files each: 250 make
2,000 files); `examples/set0000/s0/conf/train.yaml` is opened alone in one workspace (its
launch found through the repository index the server keeps, with the editor's file events:
`Index.told`), and its run.sh in another. One key at a time is typed at the end of each,
alternately, and `Workspace.recheck` of the changed document is timed: wall and CPU time of
this process (the check runs in it). The run.sh keystroke is the peer: the same check of the
same launch, without the index, in the same rounds, so the machine's load weighs on both alike.
It needs no LSP client (bench/lsp_latency.py --lone times the same over the protocol). Nothing
here asserts a time: it measures.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from precommit import generate  # noqa: E402

from recipelint.server.workspace import Workspace  # noqa: E402


class Typist:
    """One open document of one workspace, and the times of its keystrokes."""

    def __init__(self, path: Path, told: bool) -> None:
        self.workspace = Workspace(Path("node.yaml"))
        self.workspace.index.told = told
        self.path, self.text, self.version = path, path.read_text(), 1
        self.workspace.open(path, self.text, self.version)
        self.workspace.recheck([path])
        self.wall: list[float] = []
        self.cpu: list[float] = []

    def key(self, timed: bool) -> None:
        self.text += "#" if self.text.endswith("#") else "\n#"
        self.version += 1
        self.workspace.change(self.path, self.text, self.version)
        wall, cpu = time.perf_counter(), time.process_time()
        self.workspace.recheck([self.path])
        if timed:
            self.wall.append(time.perf_counter() - wall)
            self.cpu.append(time.process_time() - cpu)

    def summary(self) -> str:
        return f"median {statistics.median(self.wall) * 1000:6.1f} ms wall, {statistics.median(self.cpu) * 1000:5.1f} ms CPU (n={len(self.wall)})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--recipes", type=int, default=250)
    parser.add_argument("--keys", type=int, default=30)
    parser.add_argument("--warm", type=int, default=4)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = generate(Path(tmp) / "repo", args.recipes)
        os.chdir(root)
        files = sum(1 for path in root.rglob("*") if path.is_file() and ".git" not in path.parts)
        recipe = root / "examples" / "set0000" / "s0"
        lone, script = Typist(recipe / "conf" / "train.yaml", told=True), Typist(recipe / "run.sh", told=True)
        for round in range(args.warm + args.keys):
            lone.key(round >= args.warm)
            script.key(round >= args.warm)
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print(f"repository of {args.recipes} recipes, {files} files; load {load:.1f}")
        print(f"  keystroke in conf/train.yaml, open alone: {lone.summary()}")
        print(f"  keystroke in run.sh (the peer):           {script.summary()}")


if __name__ == "__main__":
    main()
