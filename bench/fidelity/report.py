"""Render measured grid results (run.py --out) against the current model: the Markdown table of
docs/tuner.md and the range of predicted/measured.

    python bench/fidelity/report.py bench/fidelity/results/grid-pin.json [more.json ...]
    python bench/fidelity/report.py --points bench/fidelity/results/heldout.json --data-root /tmp/rlfid

With --points, a points file's results (run.py --points) are judged point by point: each row
names the point, and the model is built with its overrides, data type and data.list.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run import HEADER, kept_mean_seconds, predict, row  # noqa: E402


def points_report(results: Path, data_root: Path) -> None:
    print("| point | workers | prefetch | frames | pin | measured GB | predicted GB | predicted/measured | why |")
    print("|---|---|---|---|---|---|---|---|---|")
    ratios = []
    for point in json.loads(results.read_text(encoding="utf8"))["points"]:
        if "total_bytes" not in point:
            print(f"| {point['id']} | | | | | - | - | - | {point.get('error')} |")
            continue
        data = data_root / point["data"]
        predicted, _ = predict(HERE / "train.yaml", point, kept_mean_seconds(data, point["mean_seconds"]), data)
        ratio = predicted / point["total_bytes"]
        ratios.append(ratio)
        frames = (
            point["frames"] if "batch_conf.batch_size" not in point.get("set", {}) else f"static {point['set']['batch_conf.batch_size']}"
        )
        print(
            f"| {point['id']} | {point['workers']} | {point['prefetch']} | {frames} | {'yes' if point['pin'] else 'no'}"
            f" | {point['total_bytes'] / 1e9:.2f} | {predicted / 1e9:.2f} | {ratio:.2f} | {point['why']} |"
        )
    if ratios:
        print(f"\npredicted/measured: {min(ratios):.2f} .. {max(ratios):.2f} over {len(ratios)} points")


def main() -> None:
    if sys.argv[1:2] == ["--points"]:
        points_report(Path(sys.argv[2]), Path(sys.argv[4]) if sys.argv[3:4] == ["--data-root"] else Path("/tmp/rlfid"))
        return
    ratios: list[float] = []
    for name in sys.argv[1:]:
        data = json.loads(Path(name).read_text(encoding="utf8"))
        print(HEADER)
        for point in data["points"]:
            point["predicted"], point["old_predicted"] = predict(HERE / "train.yaml", point, data["mean_seconds"])
            print(row(point))
            if "total_bytes" in point:
                ratios.append(point["predicted"] / point["total_bytes"])
        print()
    if ratios:
        print(f"predicted/measured: {min(ratios):.2f} .. {max(ratios):.2f} over {len(ratios)} points")


if __name__ == "__main__":
    main()
