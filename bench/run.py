"""recipelint benchmarks: medians of alternating runs, ratios against yamllint in the same run, peak memory.

    pip install '.[bench]' && python bench/run.py [--reps 7] [--only corpus,scale,datalist,one,probe]

1. The shared corpus (every YAML and JSON of ../shared/corpus): `recipelint check` cold (an
   empty result cache before each run), with --no-cache, and warm (the cache of an earlier
   run), each against `yamllint -d relaxed` on its YAML files, run in turn.
2. The corpus copied 10 times: serial (--jobs 1), the default (several processes when it pays)
   and warm, against yamllint on the copies' YAML files; the parallel report must be the serial
   one byte for byte.
3. One WeNet recipe whose data.list has a million lines (aishell2's raw format, ~137 MB).
4. One recipe, cold; `recipelint check` of an empty folder (the command's fixed cost);
   `python -c pass`.
5. `recipelint probe`.
Peak memory is each child's max RSS (os.wait4). Nothing here asserts a time: it measures.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO.parent / "shared" / "corpus"
EXAMPLE = REPO / "examples" / "wenet-4node-v100"
PROFILE = EXAMPLE / "hardware-v100-node.yaml"
BIN = Path(sys.executable).parent
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # measure as installed: bytecode cached
RACY_SECONDS = 2.5  # a file younger than this is not cached (recipelint.cache.RACY_SECONDS)


class Command:
    def __init__(self, argv: list[str], before: Callable[[], None] | None = None, env: dict[str, str] | None = None) -> None:
        self.argv, self.before, self.env = argv, before, {**ENV, **(env or {})}

    def run(self) -> tuple[float, int, bytes]:
        """Wall seconds, peak RSS (MiB) and stdout of one child process."""
        if self.before is not None:
            self.before()
        start = time.perf_counter()
        process = subprocess.Popen(self.argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=self.env)
        out = process.stdout.read() if process.stdout else b""
        _, status, usage = os.wait4(process.pid, 0)
        elapsed = time.perf_counter() - start
        code = os.waitstatus_to_exitcode(status)
        if code not in (0, 1):
            raise SystemExit(f"{' '.join(self.argv[:3])} ... exited {code}")
        return elapsed, usage.ru_maxrss // 1024, out


def measure(commands: dict[str, Command], reps: int) -> dict[str, tuple[float, int, bytes]]:
    """Each command in turn, `reps` rounds after one warm-up round: median time, max RSS, last output."""
    for command in commands.values():
        command.run()
    times: dict[str, list[float]] = {name: [] for name in commands}
    peaks = dict.fromkeys(commands, 0)
    outputs = dict.fromkeys(commands, b"")
    for _ in range(reps):
        for name, command in commands.items():
            seconds, peak, outputs[name] = command.run()
            times[name].append(seconds)
            peaks[name] = max(peaks[name], peak)
    return {name: (statistics.median(times[name]), peaks[name], outputs[name]) for name in commands}


def table(title: str, results: dict[str, tuple[float, int, bytes]], against: str | None = None) -> None:
    print(
        f"## {title}\n\n| command | median | peak RSS |" + (" ratio |" if against else "") + "\n|---|---|---|" + ("---|" if against else "")
    )
    for name, (seconds, peak, _) in results.items():
        ratio = f" {seconds / results[against][0]:.3f} |" if against else ""
        print(f"| {name} | {seconds * 1000:.0f} ms | {peak} MiB |{ratio}")
    print()


def configs(root: Path) -> tuple[list[str], list[str]]:
    found = sorted(str(p) for p in root.rglob("*") if p.suffix in (".yaml", ".yml", ".json"))
    return found, [f for f in found if not f.endswith(".json")]


def check(*args: str) -> list[str]:
    return [str(BIN / "recipelint"), "check", "--isolated", "--hardware", str(PROFILE), "--format", "concise", "--exit-zero", *args]


def emptied(folder: Path) -> Callable[[], None]:
    return lambda: shutil.rmtree(folder, ignore_errors=True)


def corpus(work: Path, yamllint: str, reps: int) -> None:
    files, yamls = configs(CORPUS)
    cache = work / "corpus-cache"
    env = {"RECIPELINT_CACHE_DIR": str(cache)}
    commands = {
        "yamllint -d relaxed (YAML only)": Command([yamllint, "-d", "relaxed", *yamls]),
        "recipelint check, cold (empty cache)": Command(check(*files), emptied(cache), env),
        "recipelint check --no-cache": Command(check("--no-cache", *files)),
    }
    results = measure(commands, reps)
    Command(check(*files), None, env).run()  # fill the cache
    warm = measure(
        {
            "yamllint -d relaxed (YAML only)": commands["yamllint -d relaxed (YAML only)"],
            "recipelint check, warm": Command(check(*files), None, env),
        },
        reps,
    )
    results["recipelint check, warm"] = warm["recipelint check, warm"]
    results["yamllint -d relaxed (YAML only)"] = min(results["yamllint -d relaxed (YAML only)"], warm["yamllint -d relaxed (YAML only)"])
    table(
        f"1. Whole corpus: {len(files)} files ({len(yamls)} YAML); goals: cold <= 0.25, warm <= 0.15",
        results,
        "yamllint -d relaxed (YAML only)",
    )


def scaled(work: Path, yamllint: str, reps: int) -> None:
    tree = work / "x10"
    for copy in range(10):
        shutil.copytree(CORPUS, tree / f"copy{copy:02d}")
    time.sleep(RACY_SECONDS)  # the copies' times must age before the cache trusts them
    files, yamls = configs(tree)
    cache = work / "x10-cache"
    env = {"RECIPELINT_CACHE_DIR": str(cache)}
    commands = {
        "yamllint -d relaxed (YAML only)": Command([yamllint, "-d", "relaxed", *yamls]),
        "recipelint check --jobs 1 --no-cache (serial)": Command(check("--jobs", "1", "--no-cache", str(tree))),
        "recipelint check --no-cache (parallel when it pays)": Command(check("--no-cache", str(tree))),
        "recipelint check, cold (empty cache)": Command(check(str(tree)), emptied(cache), env),
    }
    results = measure(commands, reps)
    Command(check(str(tree)), None, env).run()
    results["recipelint check, warm"] = measure({"warm": Command(check(str(tree)), None, env)}, reps)["warm"]
    table(f"2. The corpus x10: {len(files)} files, {os.cpu_count()} CPUs; goal: cold <= 0.15", results, "yamllint -d relaxed (YAML only)")
    same = {results[name][2] for name in results if name.startswith("recipelint")}
    print(f"parallel, cached and serial reports identical: {'yes' if len(same) == 1 else 'NO'}\n")


def data_list(work: Path, reps: int) -> None:
    recipe = work / "aishell2-1m"
    shutil.copytree(EXAMPLE, recipe)
    with open(recipe / "data" / "train" / "data.list", "w", encoding="utf-8") as out:
        for i in range(1_000_000):
            speaker, utterance = divmod(i, 300)
            key = f"IC{speaker:04d}W{utterance:04d}"
            text = "厨房用具需要定期清洁和检查"[: 8 + i % 6]
            record = {"key": key, "wav": f"/data/aishell2/iOS/data/wav/C{speaker:04d}/{key}.wav", "txt": text}
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    size = (recipe / "data" / "train" / "data.list").stat().st_size
    time.sleep(RACY_SECONDS)
    cache = work / "dl-cache"
    env = {"RECIPELINT_CACHE_DIR": str(cache)}
    results = measure(
        {
            "recipelint check --no-cache": Command(check("--no-cache", str(recipe))),
            "recipelint check, cold (empty cache)": Command(check(str(recipe)), emptied(cache), env),
        },
        reps,
    )
    Command(check(str(recipe)), None, env).run()
    results["recipelint check, warm"] = measure({"warm": Command(check(str(recipe)), None, env)}, reps)["warm"]
    table(f"3. One recipe, data.list of 1,000,000 lines ({size / 1e6:.0f} MB); goals: <= 300 ms, < 100 MiB", results)


def one_recipe(work: Path, reps: int) -> None:
    empty = work / "empty"
    empty.mkdir()
    results = measure(
        {
            "recipelint check --no-cache examples/wenet-4node-v100": Command(
                [str(BIN / "recipelint"), "check", "--no-cache", "--isolated", "--hardware", str(PROFILE), "--exit-zero", str(EXAMPLE)]
            ),
            "recipelint check --no-cache (an empty folder: the fixed cost)": Command(
                [str(BIN / "recipelint"), "check", "--no-cache", "--isolated", str(empty)]
            ),
            'python -c "pass"': Command([sys.executable, "-c", "pass"]),
            "recipelint rules (typer)": Command([str(BIN / "recipelint"), "rules"]),
        },
        reps,
    )
    table("4. One recipe, cold process; goal: <= 80 ms", results)


def probe(reps: int) -> None:
    table("5. Probe", measure({"recipelint probe": Command([str(BIN / "recipelint"), "probe"])}, reps))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--only", default="corpus,scale,datalist,one,probe")
    args = parser.parse_args()
    only = set(args.only.split(","))
    yamllint = shutil.which("yamllint", path=str(BIN)) or shutil.which("yamllint")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load {load:.2f}, {args.reps} alternating rounds, medians\n")
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        if yamllint and "corpus" in only:
            corpus(work, yamllint, args.reps)
        if yamllint and "scale" in only:
            scaled(work, yamllint, max(3, args.reps // 2))
        if not yamllint:
            print("yamllint not installed: pip install '.[bench]'\n")
        if "datalist" in only:
            data_list(work, args.reps)
        if "one" in only:
            one_recipe(work, args.reps)
        if "probe" in only:
            probe(args.reps)


if __name__ == "__main__":
    main()
