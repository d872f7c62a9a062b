"""recipelint benchmarks: prints medians and peak memory, next to a peer tool in the same run.

    pip install '.[bench]' && python bench/run.py [--reps 5] [--scales 1,10,100]

1. `recipelint check` over every YAML and JSON file of ../shared/corpus against
   `yamllint -d relaxed` over its YAML files, run alternately, and the ratio.
2. One WeNet recipe (run.sh + YAML + DeepSpeed JSON), cold, against `python -c "import ruamel.yaml"`.
3. Scaling: the corpus replicated 1x, 10x, 100x in a temporary tree; files per second.
4. `recipelint probe` on this machine.
Peak memory is each child's max RSS (os.wait4). No timing asserts: this only measures.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO.parent / "shared" / "corpus"
EXAMPLE = REPO / "examples" / "wenet-4node-v100"
PROFILE = EXAMPLE / "hardware-v100-node.yaml"
BIN = Path(sys.executable).parent
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # measure as installed: bytecode cached


def run(argv: list[str]) -> tuple[float, int]:
    """Wall seconds and peak RSS (MiB) of one child process."""
    start = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise SystemExit(f"{' '.join(argv[:3])} ... exited {code}")
    return elapsed, usage.ru_maxrss // 1024


def measure(commands: dict[str, list[str]], reps: int) -> dict[str, tuple[float, int]]:
    """Run the commands alternately `reps` times after one warm-up each; median time, max RSS."""
    for argv in commands.values():
        run(argv)
    times: dict[str, list[float]] = {name: [] for name in commands}
    peaks: dict[str, int] = {name: 0 for name in commands}
    for _ in range(reps):
        for name, argv in commands.items():
            seconds, peak = run(argv)
            times[name].append(seconds)
            peaks[name] = max(peaks[name], peak)
    return {name: (statistics.median(values), peaks[name]) for name, values in times.items()}


def corpus_files(root: Path) -> tuple[list[str], list[str]]:
    configs = sorted(str(p) for p in root.rglob("*") if p.suffix in (".yaml", ".yml", ".json"))
    return configs, [f for f in configs if not f.endswith(".json")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--scales", default="1,10,100")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    args = parser.parse_args()
    recipelint = str(BIN / "recipelint")
    yamllint = shutil.which("yamllint", path=str(BIN)) or shutil.which("yamllint")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, {args.reps} repetitions, medians\n")

    configs, yamls = corpus_files(args.corpus)
    check = [recipelint, "check", "--isolated", "--hardware", str(PROFILE), "--format", "concise", "--exit-zero"]
    commands = {"recipelint check (YAML + JSON)": check + configs}
    if yamllint:
        commands["yamllint -d relaxed (YAML only)"] = [yamllint, "-d", "relaxed", *yamls]
    results = measure(commands, args.reps)
    print(f"## 1. Whole corpus: {len(configs)} files ({len(yamls)} YAML)\n")
    print("| command | median | peak RSS |\n|---|---|---|")
    for name, (seconds, peak) in results.items():
        print(f"| {name} | {seconds * 1000:.0f} ms | {peak} MiB |")
    if yamllint:
        ours, theirs = results["recipelint check (YAML + JSON)"][0], results["yamllint -d relaxed (YAML only)"][0]
        print(f"\nrecipelint / yamllint = {ours / theirs:.2f} (goal: <= 0.25)\n")
    else:
        print("\nyamllint not installed: pip install '.[bench]'\n")

    one = {
        "recipelint check examples/wenet-4node-v100": [
            recipelint,
            "check",
            "--isolated",
            "--hardware",
            str(PROFILE),
            "--exit-zero",
            str(EXAMPLE),
        ],
        'python -c "import ruamel.yaml"': [sys.executable, "-c", "import ruamel.yaml"],
        'python -c "pass"': [sys.executable, "-c", "pass"],
        "recipelint rules (start-up, no files)": [recipelint, "rules"],
    }
    print("## 2. One recipe, cold process\n\n| command | median | peak RSS |\n|---|---|---|")
    for name, (seconds, peak) in measure(one, args.reps).items():
        print(f"| {name} | {seconds * 1000:.0f} ms | {peak} MiB |")

    print("\n## 3. Scaling\n\n| copies | files | median | files/s | peak RSS |\n|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        tree = Path(folder)
        made = 0
        for scale in (int(s) for s in args.scales.split(",")):
            while made < scale:
                shutil.copytree(args.corpus, tree / f"copy{made:03d}")
                made += 1
            files = len(corpus_files(tree)[0])
            reps = args.reps if scale <= 10 else 1
            seconds, peak = measure(
                {"scale": [recipelint, "check", "--isolated", "--hardware", str(PROFILE), "--format", "concise", "--exit-zero", str(tree)]},
                reps,
            )["scale"]
            print(f"| {scale}x | {files} | {seconds * 1000:.0f} ms | {files / seconds:.0f} | {peak} MiB |")

    print("\n## 4. Probe\n\n| command | median | peak RSS |\n|---|---|---|")
    for name, (seconds, peak) in measure({"recipelint probe": [recipelint, "probe"]}, args.reps).items():
        print(f"| {name} | {seconds * 1000:.0f} ms | {peak} MiB |")


if __name__ == "__main__":
    main()
