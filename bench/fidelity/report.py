"""Render measured grid results (run.py --out) against the current model: the Markdown table of
docs/tuner.md and the range of predicted/measured.

    python bench/fidelity/report.py bench/fidelity/results/grid-pin.json [more.json ...]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run import HEADER, predict, row  # noqa: E402


def main() -> None:
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
