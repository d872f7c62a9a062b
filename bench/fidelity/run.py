"""Fidelity of recipelint's loader model: predicted against measured memory of WeNet's train
DataLoader over a grid of num_workers x prefetch x max_frames_in_batch.

    pip install torch numpy langid   # CPU wheels; bench-only
    python bench/fidelity/gen.py /tmp/rlfid/data
    python bench/fidelity/run.py --data /tmp/rlfid/data [--workers 1,2,4] [--prefetch 2,8,32,125]
                                 [--frames 4000,12000,24000] [--no-pin] [--out results/grid.json]

Each point runs bench/fidelity/point.py in a fresh process. A point whose predicted memory is
over --max-share of the memory available when it starts is skipped and listed as such (the
machine is shared). Prints a Markdown table: measured total (PSS of main + workers without
their shared-memory pages, plus /dev/shm growth), the model's prediction, their ratio, and the
ratio of the previous model (queue only: nw x prefetch x max_frames x 960 B).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))

from recipelint import tuner  # noqa: E402
from recipelint.parse.span import SourceText  # noqa: E402
from recipelint.parse.yamlfile import parse_yaml  # noqa: E402
from recipelint.records import replace  # noqa: E402

GB = 1e9


def model(config: Path, point: dict[str, Any], mean_seconds: float, data: Path | None = None) -> tuner.LoaderModel:
    """The loader model of a point: the bench's YAML with the point's frames and `set` overrides,
    and, given the data folder, its data.list (lines, bytes) and data type."""
    import io

    from point import load_configs
    from ruamel.yaml import YAML

    configs = load_configs(config, point.get("frames", 24000), point.get("set"))
    buffer = io.StringIO()
    YAML(typ="safe", pure=True).dump(configs, buffer)
    root = parse_yaml(SourceText(config, buffer.getvalue().encode())).root
    utterance = tuner.Utterance(mean_seconds * tuner.FRAMES_PER_SECOND, f"mean utterance {mean_seconds:.2f} s (generated data)")
    found = tuner.loader_model(root, utterance)
    assert found is not None
    listing = data / "data.list" if data is not None else None
    if listing is not None and listing.exists():
        raw = listing.read_bytes()
        lines = raw.count(b"\n")
        found = replace(found, raw=point.get("data_type") == "raw", list_lines=lines, list_line_bytes=len(raw) / max(lines, 1))
    return found


def kept_mean_seconds(data: Path, fallback: float) -> float:
    """The mean utterance the loader sees: the generated durations that filter_conf keeps (the
    bench's train.yaml: 10 .. 2000 frames), as a user's mean-utterance-seconds would state it.
    Data generated before stats.json listed durations gives its plain mean."""
    stats = json.loads((data / "stats.json").read_text(encoding="utf8"))
    kept = [s for s in stats.get("durations", []) if 0.1 <= s <= 20.0]
    return sum(kept) / len(kept) if kept else fallback


def predict(config: Path, point: dict[str, Any], mean_seconds: float, data: Path | None = None) -> tuple[int, int]:
    """(the model's total for one rank's train loader, the previous model's queue-only figure)."""
    m = model(config, point, mean_seconds, data)
    memory = tuner.loader_memory(m, point["workers"], point["prefetch"], point["pin"], cv=False)
    assert memory is not None
    return memory.total, point["workers"] * point["prefetch"] * point.get("frames", 24000) * 960


def available() -> int:
    with open("/proc/meminfo", encoding="ascii") as handle:
        for line in handle:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    return 0


def run_point(args: argparse.Namespace, point: dict[str, Any]) -> dict[str, Any]:
    command = [
        sys.executable,
        str(HERE / "point.py"),
        "--data",
        str(args.data),
        "--checkout",
        str(args.checkout),
        "--config",
        str(args.config),
    ]
    command += ["--workers", str(point["workers"]), "--prefetch", str(point["prefetch"]), "--frames", str(point["frames"])]
    command += ["--pin"] if point["pin"] else []
    command += ["--data-type", point.get("data_type", "shard")]
    for key, value in point.get("set", {}).items():
        command += ["--set", f"{key}={json.dumps(value)}"]
    out = subprocess.run(command, capture_output=True, text=True, check=False, timeout=900)
    lines = out.stdout.strip().splitlines()
    if out.returncode != 0 or not lines:
        return {**point, "error": out.stderr.strip().splitlines()[-1:] if out.stderr else "no output"}
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def measure_points(args: argparse.Namespace) -> None:
    """Measure each point of a points file as it stands (no prediction: report.py --heldout
    judges them against the model afterwards). Results are appended to --out as they come."""
    spec = json.loads(args.points.read_text(encoding="utf8"))
    done: dict[str, Any] = {}
    if args.out is not None and args.out.exists():
        done = {r["id"]: r for r in json.loads(args.out.read_text(encoding="utf8"))["points"]}
    for point in spec["points"]:
        if point["id"] in done and "total_bytes" in done[point["id"]]:
            continue
        data = args.data_root / point["data"]
        stats = json.loads((data / "stats.json").read_text())
        run_args = argparse.Namespace(**{**vars(args), "data": data})
        result = run_point(run_args, {"frames": 24000, **point})
        done[point["id"]] = {**point, **result, "mean_seconds": stats["mean_seconds"]}
        print(point["id"], "error" if "error" in result else f"{result['total_bytes'] / GB:.2f} GB", flush=True)
        if args.out is not None:
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(json.dumps({"points": list(done.values())}, indent=1) + "\n", encoding="utf8")


def row(result: dict[str, Any]) -> str:
    head = f"| {result['workers']} | {result['prefetch']} | {result['frames']} | {'yes' if result['pin'] else 'no'} "
    if "skipped" in result or "error" in result:
        return head + f"| - | - | - | - | - | {result.get('skipped') or result.get('error')} |"
    workers = sum(result["worker_pss"]) / GB
    ratio = result["predicted"] / result["total_bytes"]
    old = result["old_predicted"] / result["total_bytes"]
    return (
        head
        + f"| {result['queued']} | {workers:.2f} + {result['main_growth_pss'] / GB:.2f} + {result['shm_growth'] / GB:.2f} = {result['total_bytes'] / GB:.2f}"
        + f" | {result['predicted'] / GB:.2f} | {ratio:.2f} | {1 / old:.1f}x | {result['bytes_per_frame']:.0f} |"
    )


HEADER = (
    "| workers | prefetch | max_frames | pin | queued | measured GB: workers + main + shm = total | predicted GB | predicted/measured"
    " | measured/old model | B per padded frame |\n|---|---|---|---|---|---|---|---|---|---|"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=None, help="the data folder (gen.py); not with --points")
    parser.add_argument("--checkout", type=Path, default=REPO / "tests" / "data" / "checkouts" / "wenet-head")
    parser.add_argument("--config", type=Path, default=HERE / "train.yaml")
    parser.add_argument("--workers", default="1,2,4")
    parser.add_argument("--prefetch", default="2,8,32,125")
    parser.add_argument("--frames", default="4000,12000,24000")
    parser.add_argument("--no-pin", action="store_true", help="measure without --pin_memory")
    parser.add_argument("--max-share", type=float, default=0.6, help="skip a point predicted above this share of available memory")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--points", type=Path, default=None, help="measure the points of this file (heldout.json) instead of a grid")
    parser.add_argument("--data-root", type=Path, default=None, help="with --points: the folder holding each point's data folder")
    args = parser.parse_args()
    os.environ.setdefault("RECIPELINT_MEASURE_SHIM", str(HERE / "shim"))
    if args.points is not None:
        measure_points(args)
        return
    mean_seconds = json.loads((args.data / "stats.json").read_text())["mean_seconds"]
    grid = [
        {"workers": w, "prefetch": p, "frames": f, "pin": not args.no_pin}
        for f in (int(x) for x in args.frames.split(","))
        for w in (int(x) for x in args.workers.split(","))
        for p in (int(x) for x in args.prefetch.split(","))
    ]
    print(HEADER, flush=True)
    results = []
    for point in grid:
        predicted, old = predict(args.config, point, mean_seconds)
        if predicted > args.max_share * available():
            result = {**point, "skipped": f"predicted {predicted / GB:.1f} GB > {args.max_share} x available {available() / GB:.1f} GB"}
        else:
            result = run_point(args, point)
        result.update(predicted=predicted, old_predicted=old)
        results.append(result)
        print(row(result), flush=True)
        if args.out is not None:
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(json.dumps({"mean_seconds": mean_seconds, "points": results}, indent=1) + "\n", encoding="utf8")
    ratios = [r["predicted"] / r["total_bytes"] for r in results if "total_bytes" in r]
    if ratios:
        print(f"\npredicted/measured: {min(ratios):.2f} .. {max(ratios):.2f} over {len(ratios)} points", flush=True)


if __name__ == "__main__":
    main()
