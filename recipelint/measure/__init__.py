"""`recipelint tune --measure`: run the recipe's own WeNet dataset pipeline in a child process and
record what it measured in the hardware profile (`measured:`), for check and fix to use.

Only this explicit mode imports torch or the user's checkout, and only in the child
(recipelint/measure/child.py), under a time limit. Nothing here is imported by check or fix.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from recipelint import tuner
from recipelint.model import Recipe
from recipelint.records import dataclass, field
from recipelint.toolkits.wenet.part import train_data

WENET_MARKER = Path("wenet") / "dataset" / "dataset.py"
MEASURED = "WeNet"  # whose pipeline the child runs, as `tune --measure`'s messages and profile entries name it


class MeasureError(Exception):
    """Why a measurement could not run or finish (one line for the user)."""


def find_checkout(recipe: Recipe, explicit: Path | None = None) -> Path | None:
    """The WeNet source tree to measure with: `--checkout DIR`, else the checkout the recipe's
    front end found (path.sh's PYTHONPATH, a package folder above it, an installed copy:
    recipelint.parse.checkout). Only a tree with WeNet's dataset code can be measured."""
    candidate = explicit
    if candidate is None and recipe.checkout is not None and recipe.checkout.toolkit == "wenet":
        candidate = recipe.checkout.root
    if candidate is not None and (candidate / WENET_MARKER).is_file():
        return candidate.resolve()
    return None


def candidates(cores: int) -> list[int]:
    """num_workers to try on a rank's cores: 1, 2, 4, ... up to the cores, and the cores themselves."""
    counts = {1, cores}
    n = 2
    while n < cores:
        counts.add(n)
        n *= 2
    return sorted(counts)[:6]


@dataclass
class Request:
    recipe_root: Path
    checkout: Path
    configs: dict[str, Any]
    data_type: str
    data_list: str
    prefetch: int
    cores: int
    batches: int = 200
    warmup: int = 10
    workers: list[int] = field(default_factory=list)

    def payload(self) -> str:
        return json.dumps(
            {
                "checkout": str(self.checkout),
                "configs": self.configs,
                "data_type": self.data_type,
                "data_list": self.data_list,
                "prefetch": self.prefetch,
                "cores": self.cores,
                "batches": self.batches,
                "warmup": self.warmup,
                "candidates": self.workers or candidates(self.cores),
            }
        )


def request_for(recipe: Recipe, checkout: Path, cores: int, batches: int) -> Request:
    """What to measure for a recipe: its YAML, its first train data.list, its data_type and prefetch."""
    if recipe.config is None:
        raise MeasureError(f"{recipe.root}: no train YAML found (--config)")
    configs = recipe.config.root.plain()
    if not isinstance(configs, dict) or "dataset_conf" not in configs:
        raise MeasureError(f"{recipe.config.path}: no dataset_conf to measure")
    lists = [item for item in train_data(recipe) if item.exists]
    if not lists:
        raise MeasureError(f"{recipe.root}: the train data.list is not there; measure on a machine that has the data")
    prefetch = recipe.arg("prefetch").as_int() or 10
    data_type = str(recipe.arg("data_type").value or "shard")
    return Request(recipe.root, checkout, configs, data_type, str(lists[0].path.resolve()), max(1, prefetch), max(1, cores), batches)


def run_child(request: Request, limit_s: float, progress: Callable[[int, int], None], command: list[str] | None = None) -> dict[str, Any]:
    """Run the child in the recipe's folder (relative paths as train.py sees them); kill it and its
    workers at the limit."""
    command = command or [sys.executable, "-m", "recipelint.measure.child", request.payload()]
    child_env = dict(os.environ)
    package_root = str(Path(__file__).resolve().parent.parent.parent)
    child_env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, child_env.get("PYTHONPATH", "")) if p)
    process = subprocess.Popen(
        command, cwd=request.recipe_root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=child_env, start_new_session=True
    )
    deadline = time.monotonic() + limit_s
    result: dict[str, Any] | None = None
    try:
        assert process.stdout is not None
        for line in _lines(process, deadline):
            event = json.loads(line) if line.startswith("{") else {}
            if event.get("event") == "progress":
                progress(int(event["done"]), int(event["total"]))
            elif event.get("event") == "result":
                result = event
    finally:
        _stop(process)
    if result is None:
        tail = (process.stderr.read() if process.stderr else "").strip().splitlines()
        raise MeasureError(f"the measuring process stopped without a result: {tail[-1] if tail else 'no message'}")
    return result


def _lines(process: subprocess.Popen[str], deadline: float) -> Any:
    import selectors

    assert process.stdout is not None
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ)
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise MeasureError("the measurement ran past its time limit (--time-limit); nothing was written")
        if not selector.select(timeout=min(left, 1.0)):
            continue
        line = process.stdout.readline()
        if not line:
            return
        yield line.strip()


def _stop(process: subprocess.Popen[str]) -> None:
    """End the child and its DataLoader workers (its own process group)."""
    if process.poll() is None:
        import signal

        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    process.wait()


def entry(result: dict[str, Any], request: Request, source: str) -> dict[str, Any]:
    """The profile's `measured:` entry from a child's result."""
    from recipelint.hardware.profile import fingerprint

    per = {int(k): v for k, v in result["candidates"].items()}
    rates = {n: float(v["batches_per_s"]) for n, v in per.items()}
    plateau = tuner.plateau_workers(rates)
    chosen = per[plateau] if plateau is not None else next(iter(per.values()))
    return {
        "source": source,
        "config": str(request.configs.get("__config__", "")) or None,
        "dataset_conf": fingerprint(request.configs["dataset_conf"]),
        "cores": int(result["cores"]),
        "prefetch": request.prefetch,
        "batch_bytes": round(chosen["batch_bytes"]),
        "pinned_batch_bytes": round(chosen["pinned_batch_bytes"]),
        "bytes_per_frame": round(chosen["bytes_per_frame"], 1),
        "worker_bytes": round(chosen["worker_pss"]),
        "batches_per_s": {str(n): round(r, 2) for n, r in sorted(rates.items())},
        "workers_plateau": plateau,
    }
