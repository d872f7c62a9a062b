"""Refit the loader model's two free constants (a worker's base memory, the heap share a queued
batch leaves) by least squares over calibration results, the rest of the model as it stands.

    python bench/fidelity/fit.py bench/fidelity/results/grid-pin.json

Only calibration files go here, never results/heldout.json: the held-out points judge the fit.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run import model  # noqa: E402

from recipelint import tuner  # noqa: E402


def main() -> None:
    rows: list[tuple[float, float, float]] = []  # (base coefficient, heap coefficient, measured minus the rest)
    for name in sys.argv[1:]:
        data = json.loads(Path(name).read_text(encoding="utf8"))
        for point in data["points"]:
            if "total_bytes" not in point:
                continue
            m = model(HERE / "train.yaml", point, data["mean_seconds"])
            batch = m.batch()
            assert batch is not None
            worker, _ = m.worker()
            nw, queued = point["workers"], point["workers"] * point["prefetch"]
            one = batch.pinned if point["pin"] and batch.pinned else batch.bytes
            rest = nw * (worker - tuner.WORKER_BASE_BYTES) + queued * one
            rows.append((nw, queued * batch.bytes, point["total_bytes"] - rest))
    # Normal equations of a 2-parameter least squares, written out (no numpy needed).
    saa = sum(a * a for a, _, _ in rows)
    sab = sum(a * b for a, b, _ in rows)
    sbb = sum(b * b for _, b, _ in rows)
    say = sum(a * y for a, _, y in rows)
    sby = sum(b * y for _, b, y in rows)
    det = saa * sbb - sab * sab
    base = (say * sbb - sby * sab) / det
    heap = (saa * sby - sab * say) / det
    print(json.dumps({"points": len(rows), "worker_base_bytes": round(base), "worker_heap_share": round(heap, 3)}))


if __name__ == "__main__":
    main()
