"""Batches per second of WeNet's train DataLoader against num_workers, with a fake training step.

    python bench/fidelity/throughput.py --data DIR [--frames 12000] [--step 0.05] [--workers 1,2,3,4] [--prefetch 32]

Each setting runs in a fresh process: warm-up batches (the shuffle buffers fill), then timed
batches with `time.sleep(step)` standing in for a GPU step (the trainer waits, as on a GPU).
Prints one JSON line per setting: batches/s, the trainer's and the workers' CPU use in cores.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent


def one(args: argparse.Namespace, workers: int, prefetch: int) -> dict[str, float]:
    sys.path.insert(0, str(REPO))
    from point import load_configs  # type: ignore[import-not-found]

    from recipelint.measure import child

    child.import_checkout(args.checkout)
    configs = load_configs(args.config, args.frames)
    configs["tokenizer_conf"]["symbol_table_path"] = str(args.data / "lang_char.txt")
    loader = child.build_loader(configs, "shard", str(args.data / "data.list"), workers, prefetch, False)
    result = child.throughput(loader, args.batches, args.warmup, args.step)
    return {"workers": workers, "prefetch": prefetch, **{k: round(v, 4) for k, v in result.items()}}


def _whole_machine(run: dict[str, float], cores: int) -> float:
    """The rate had the machine been the loader's alone: other work took `foreign_cores`, so the
    workers got `worker_cores` plus whatever stayed idle, against min(workers, cores) without it.
    A worker stalled by its neighbours leaves cores idle, so a stall is not scaled away."""
    idle = max(cores - run["worker_cores"] - run["trainer_cores"] - run.get("foreign_cores", 0.0), 0.0)
    could = min(run["workers"], cores)
    return run["batches_per_s"] * could / max(min(run["worker_cores"] + idle, could), 0.1)


def summarise(path: Path) -> None:
    """Median batches/s per setting; the tuner's num_workers for this machine against the plateau."""
    import statistics

    sys.path.insert(0, str(REPO))
    from recipelint import tuner

    runs = [json.loads(line) for line in path.read_text(encoding="utf8").splitlines() if line.startswith("{")]
    by: dict[tuple[int, int], list[dict[str, float]]] = {}
    for run in runs:
        if "batches_per_s" in run:
            by.setdefault((int(run["workers"]), int(run["prefetch"])), []).append(run)
    cores = len(os.sched_getaffinity(0))
    print(
        "| workers | prefetch | batches/s, each round | other work, cores | batches/s for the whole machine (median) | workers' cores | trainer's cores |"
    )
    print("|---|---|---|---|---|---|---|")
    medians: dict[tuple[int, int], float] = {}
    for (workers, prefetch), items in sorted(by.items()):
        adjusted = [_whole_machine(r, cores) for r in items]
        medians[(workers, prefetch)] = statistics.median(adjusted)
        raw = ", ".join(f"{r['batches_per_s']:.1f}" for r in items)
        other = ", ".join(f"{r.get('foreign_cores', 0.0):.2f}" for r in items)
        trainer = f"{min(r['trainer_cores'] for r in items):.2f}-{max(r['trainer_cores'] for r in items):.2f}"
        median_cores = statistics.median(r["worker_cores"] for r in items)
        print(f"| {workers} | {prefetch} | {raw} | {other} | {medians[(workers, prefetch)]:.1f} | {median_cores:.2f} | {trainer} |")
    # The plateau compares worker counts at one prefetch: the one measured with the most counts.
    prefetch = max({p for _, p in medians}, key=lambda p: (sum(1 for _, q in medians if q == p), p))
    rates = {w: r for (w, p), r in medians.items() if p == prefetch}
    chosen = tuner.loader_worker_cap(cores, 1)
    best = max(rates.values())
    print(
        f"\nplateau (>= {tuner.PLATEAU:g} x best {best:.2f} batches/s at prefetch {prefetch}): workers {sorted(w for w, r in rates.items() if r >= tuner.PLATEAU * best)}"
    )
    print(f"tuner.loader_worker_cap({cores} cores, 1 rank) = {chosen}: {rates.get(chosen, 0) / best:.2f} of the best")
    old = max(1, cores - 1)  # the cap before the bench: a core kept for the trainer (tuner.cpu_worker_cap, now gone)
    if old in rates:
        print(f"previous cap cores - 1 = {old}: {rates[old] / best:.2f} of the best")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--checkout", type=Path, default=REPO / "tests" / "data" / "checkouts" / "wenet-head")
    parser.add_argument("--config", type=Path, default=HERE / "train.yaml")
    parser.add_argument("--frames", type=int, default=12000)
    parser.add_argument("--step", type=float, default=0.05)
    parser.add_argument("--workers", default="1,2,3,4")
    parser.add_argument("--prefetch", default="32", help="one value, or one per --workers entry")
    parser.add_argument("--batches", type=int, default=150)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--reps", type=int, default=1, help="rounds over the settings, each in a rotated order (the machine is shared)")
    parser.add_argument("--one", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--summary", type=Path, default=None, help="summarise a saved run (JSON lines) and check the tuner's choice")
    args = parser.parse_args()
    if args.summary is not None:
        summarise(args.summary)
        return
    if args.one:
        workers, prefetch = (int(x) for x in args.one.split(":"))
        print(json.dumps(one(args, workers, prefetch)), flush=True)
        os._exit(0)
    counts = [int(x) for x in args.workers.split(",")]
    prefetches = [int(x) for x in args.prefetch.split(",")]
    prefetches = prefetches * len(counts) if len(prefetches) == 1 else prefetches
    base = [sys.executable, __file__, "--data", str(args.data), "--checkout", str(args.checkout), "--config", str(args.config)]
    base += ["--frames", str(args.frames), "--step", str(args.step), "--batches", str(args.batches), "--warmup", str(args.warmup)]
    settings = list(zip(counts, prefetches, strict=True))
    for rep in range(args.reps):
        shift = rep % len(settings)
        for workers, prefetch in settings[shift:] + settings[:shift]:
            load = os.getloadavg()[0]
            out = subprocess.run(base + ["--one", f"{workers}:{prefetch}"], capture_output=True, text=True, check=False)
            lines = out.stdout.strip().splitlines()
            result = json.loads(lines[-1]) if lines else {"workers": workers, "prefetch": prefetch, "error": out.stderr[-500:]}
            print(json.dumps({**result, "rep": rep, "load_before": round(load, 2)}), flush=True)


if __name__ == "__main__":
    main()
