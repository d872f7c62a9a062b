"""`recipelint server` latency: a keystroke's didChange to the publishDiagnostics that answers it.

    pip install '.[server]' && python bench/lsp_latency.py [--keys 60]

The server is started over stdio as a subprocess and driven by a real LSP client (pygls's, as
the tests drive it). For each recipe of examples/ (copied to a temporary folder, judged against
its hardware profile) it opens the run script and its train YAML, types a few warm-up keys, then
N keystrokes alternately in a comment of the run script and of the YAML, one at a time: each
timed from sending the change to receiving the diagnostics of that document's new version.
Peers in the same run: the in-process check of the same path (`engine.check`, what the server
runs) and `recipelint check --no-cache` of it as a process (what an editor that runs the CLI on
each change would pay). Nothing here asserts a time: it measures.

`--lone N`: a keystroke in a config opened alone (its run.sh not open) inside a generated
repository of N WeNet-like recipes (bench/precommit.py's, 8 files each: 250 make 2,000 files),
the config judged with the launch that names it, found through the repository index the server
keeps between keystrokes (issue 38: 36 ms a keystroke when each check walked the repository).
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.server_client import Session  # noqa: E402

RECIPES = [
    ("wenet-4node-v100", ".", "run.sh", "conf/train.yaml", "hardware-v100-node.yaml"),
    ("wenet-aishell-2080ti-hang", "examples/aishell/s0", "run.sh", "conf/train_conformer.yaml", "hardware-2080ti-node.yaml"),
    ("wenet-bz2-shards-hang", "s0", "run.sh", "conf/train_conformer.yaml", "hardware-8gpu-node.yaml"),
]


def summary(times: list[float]) -> str:
    ordered = sorted(times)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    return f"median {statistics.median(times) * 1000:6.1f} ms  p90 {p90 * 1000:6.1f} ms  (n={len(times)})"


async def keystrokes(
    root: Path, folder: Path, files: list[Path], profile: str, keys: int, warm: int, debounce: float | None = None
) -> dict[Path, list[float]]:
    options: dict[str, object] = {"hardware": str(root / profile)}
    if debounce is not None:
        options["debounceMs"] = debounce
    session = Session(folder, options)
    await session.start()
    for path in files:
        await session.open(path)
    times: dict[Path, list[float]] = {path: [] for path in files}
    for key in range(warm + keys):
        path = files[key % len(files)]
        # type one character at the end of the first comment (not the #! line) and take it back
        # on the next turn: the recipe stays as it is, only the text changes
        lines = path.read_text().split("\n")
        line = next(i for i, text in enumerate(lines) if text.startswith("#") and not text.startswith("#!"))
        end = len(lines[line])
        typed = key // len(files) % 2 == 0
        start = time.perf_counter()
        if typed:
            version = session.edit(path, (line, end), (line, end), "x")
        else:
            version = session.edit(path, (line, end), (line, end + 1), "")
        await session.wait(path, 0, lambda p, v=version: p.version == v)  # type: ignore[misc]
        if key >= warm:
            times[path].append(time.perf_counter() - start)
    await session.stop()
    return times


def in_process(folder: Path, script: Path, profile: Path, runs: int) -> list[float]:
    import os

    from recipelint import engine
    from recipelint.hardware.machines import ProfileLoader
    from recipelint.parse.files import FileCache
    from recipelint.settings import Resolver

    here = os.getcwd()
    os.chdir(folder)
    try:
        times = []
        for _ in range(runs + 3):
            start = time.perf_counter()
            engine.check([script], hardware=ProfileLoader(profile), files=FileCache(), resolver=Resolver(), keep_recipes=False)
            times.append(time.perf_counter() - start)
        return times[3:]
    finally:
        os.chdir(here)


def as_process(folder: Path, script: Path, profile: Path, runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "recipelint", "check", "--no-cache", "--hardware", str(profile), "--exit-zero", str(script)],
            cwd=folder,
            capture_output=True,
            check=True,
        )
        times.append(time.perf_counter() - start)
    return times


def lone(recipes: int, keys: int, warm: int, debounce: float | None) -> None:
    sys.path.insert(0, str(REPO / "bench"))
    from precommit import generate

    with tempfile.TemporaryDirectory() as tmp:
        root = generate(Path(tmp) / "repo", recipes)
        files = sum(1 for path in root.rglob("*") if path.is_file() and ".git" not in path.parts)
        config = root / "examples" / "set0000" / "s0" / "conf" / "train.yaml"
        times = asyncio.run(keystrokes(root, root, [config], "node.yaml", keys, warm, debounce))
        print(f"repository of {recipes} recipes, {files} files; {config.relative_to(root)} open alone")
        print(f"  server, keystroke in {config.name:<24} {summary(times[config])}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keys", type=int, default=60, help="timed keystrokes per recipe")
    parser.add_argument("--warm", type=int, default=6, help="keystrokes before timing starts")
    parser.add_argument("--processes", type=int, default=5, help="`recipelint check` processes per recipe")
    parser.add_argument("--debounce", type=float, help="the server's debounceMs (default: its own)")
    parser.add_argument("--only", help="the example recipes to run, by folder name, comma-separated")
    parser.add_argument("--lone", type=int, help="only: a config opened alone in a repository of this many recipes")
    args = parser.parse_args()
    if args.lone:
        lone(args.lone, args.keys, args.warm, args.debounce)
        return
    with tempfile.TemporaryDirectory() as tmp:
        for name, recipe, script, config, profile in RECIPES:
            if args.only and name not in args.only.split(","):
                continue
            root = Path(tmp) / name
            shutil.copytree(REPO / "examples" / name, root)
            folder = root / recipe
            files = [folder / script, folder / config]
            times = asyncio.run(keystrokes(root, folder, files, profile, args.keys, args.warm, args.debounce))
            print(f"{name}/{recipe}")
            for path, measured in times.items():
                print(f"  server, keystroke in {path.name:<24} {summary(measured)}")
            print(f"  in-process engine.check of {script:<13} {summary(in_process(folder, folder / script, root / profile, args.keys))}")
            print(
                f"  recipelint check process of {script:<12} {summary(as_process(folder, folder / script, root / profile, args.processes))}"
            )


if __name__ == "__main__":
    main()
