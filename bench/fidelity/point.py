"""Measure one grid point: WeNet's train DataLoader with the consumer paused until the queues fill.

    python bench/fidelity/point.py --data DIR --workers 2 --prefetch 8 --frames 12000 [--pin]
        [--data-type raw] [--set batch_conf.batch_type=static --set sort=false ...]

Prints one JSON object: memory of the main process and each worker (PSS, USS, RSS, shmem part)
at rest, /dev/shm and system shmem growth, batches queued, the queued batches' bytes and padded
frames. Run in its own process per point so the main process starts clean.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(REPO))

from recipelint.measure import child  # noqa: E402


def emulate_pinning() -> None:
    """The CPU build has no pinned memory; emulate CUDA's caching host allocator (every tensor
    copied into a block rounded up to a power of two, whole block resident) and let the
    DataLoader start its pin thread as it does on a GPU node."""
    import torch
    from torch.utils.data._utils import pin_memory as pin_module

    torch.accelerator.is_available = lambda: True  # type: ignore[assignment]
    torch.accelerator.current_accelerator = lambda *a, **k: torch.device("cpu")  # type: ignore[assignment]
    torch.accelerator.current_device_index = lambda: 0  # type: ignore[assignment]
    torch.accelerator.set_device_index = lambda index: None  # type: ignore[assignment]
    original = pin_module.pin_memory

    def pinned(data: Any, device: Any = None) -> Any:
        if isinstance(data, torch.Tensor):
            size = data.nbytes
            block = torch.empty(1 << max(size - 1, 0).bit_length(), dtype=torch.uint8)
            block.fill_(0)  # cudaHostAlloc locks every page of the block
            view = block[:size].view(data.dtype).view(data.shape) if size else data.clone()
            view.copy_(data)
            return view
        return original(data, device) if not isinstance(data, dict) else {k: pinned(v) for k, v in data.items()}

    pin_module.pin_memory = pinned


def load_configs(path: Path, frames: int, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """The bench's train YAML with max_frames_in_batch and `dataset_conf` keys replaced
    (`overrides`: dotted keys under dataset_conf, e.g. {"batch_conf.batch_size": 32})."""
    from ruamel.yaml import YAML

    configs: dict[str, Any] = YAML(typ="safe", pure=True).load(path.read_text(encoding="utf8"))
    configs = copy.deepcopy(configs)
    configs["dataset_conf"]["batch_conf"]["max_frames_in_batch"] = frames
    for dotted, value in (overrides or {}).items():
        *parents, last = dotted.split(".")
        node = configs["dataset_conf"]
        for name in parents:
            node = node.setdefault(name, {})
        node[last] = value
    return configs


def parse_overrides(pairs: list[str]) -> dict[str, Any]:
    """`key=value` pairs, each value read as JSON when it is JSON (32, false), else a string."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, _, text = pair.partition("=")
        try:
            out[key] = json.loads(text)
        except json.JSONDecodeError:
            out[key] = text
    return out


def settle(iterator: Any, pids: list[int], quiet_s: float, limit_s: float) -> tuple[float, dict[int, int]]:
    """Wait until the workers and the main process stop using CPU (the queues are full)."""
    start = time.perf_counter()
    first: dict[int, int] = {}
    history: list[float] = []
    me = os.getpid()
    while time.perf_counter() - start < limit_s:
        time.sleep(0.5)
        if not first:
            first = {p: child.smaps(p)["Rss"] for p in pids}
        history.append(sum(child.cpu_seconds(p) for p in pids + [me]))
        window = int(quiet_s / 0.5)
        if len(history) > window and history[-1] - history[-1 - window] < 0.02 * quiet_s:
            break
    return time.perf_counter() - start, first


def measure(args: argparse.Namespace) -> dict[str, Any]:
    child.import_checkout(args.checkout)
    if args.pin:
        emulate_pinning()
    configs = load_configs(args.config, args.frames, parse_overrides(args.set))
    configs["tokenizer_conf"]["symbol_table_path"] = str(args.data / "lang_char.txt")
    loader = child.build_loader(configs, args.data_type, str(args.data / "data.list"), args.workers, args.prefetch, args.pin)
    me = os.getpid()
    main0, shm0, shmem0 = child.smaps(me), child.shm_used(), child.meminfo_shmem()
    iterator = iter(loader)
    pids = child.worker_pids(iterator)
    waited, first_rss = settle(iterator, pids, args.quiet, args.limit)
    main1 = child.smaps(me)
    workers = [child.smaps(p) for p in pids]
    shm1, shmem1 = child.shm_used(), child.meminfo_shmem()
    queued = int(iterator._tasks_outstanding)
    in_pin_queue = iterator._data_queue.qsize() if args.pin else None
    sizes, frames, pinned = [], [], []
    for _ in range(queued):
        nbytes, nframes, npinned = child.batch_stats(next(iterator))
        sizes.append(nbytes)
        frames.append(nframes)
        pinned.append(npinned)
    private = lambda m: m["Pss"] - m.get("Pss_Shmem", 0)  # noqa: E731
    total = sum(private(w) for w in workers) + private(main1) - private(main0) + shm1 - shm0
    return {
        "workers": args.workers,
        "prefetch": args.prefetch,
        "frames": args.frames,
        "pin": args.pin,
        "waited_s": round(waited, 1),
        "queued": queued,
        "in_pin_queue": in_pin_queue,
        "total_bytes": total,
        "main_growth_pss": private(main1) - private(main0),
        "main_growth_uss": main1["Uss"] - main0["Uss"],
        "worker_pss": [private(w) for w in workers],
        "worker_uss": [w["Uss"] for w in workers],
        "worker_rss": [w["Rss"] for w in workers],
        "worker_first_rss": list(first_rss.values()),
        "shm_growth": shm1 - shm0,
        "meminfo_shmem_growth": shmem1 - shmem0,
        "batch_bytes_mean": sum(sizes) / max(len(sizes), 1),
        "bytes_per_frame": sum(sizes) / max(sum(frames), 1),
        "frames_mean": sum(frames) / max(len(frames), 1),
        "pinned_bytes_mean": sum(pinned) / max(len(pinned), 1),
        "batch_frames": frames,  # padded frames of each queued batch: the fill distribution
        "batch_pinned": pinned,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--checkout", type=Path, default=REPO / "tests" / "data" / "checkouts" / "wenet-head")
    parser.add_argument("--config", type=Path, default=HERE / "train.yaml")
    parser.add_argument("--workers", type=int, required=True)
    parser.add_argument("--prefetch", type=int, required=True)
    parser.add_argument("--frames", type=int, required=True)
    parser.add_argument("--pin", action="store_true")
    parser.add_argument("--data-type", choices=("shard", "raw"), default="shard")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="replace a dataset_conf key (dotted)")
    parser.add_argument("--quiet", type=float, default=3.0, help="seconds without CPU use that mean the queues are full")
    parser.add_argument("--limit", type=float, default=400.0)
    args = parser.parse_args()
    # The torchaudio stand-in (bench/fidelity/shim) where none is installed, as run.py sets it for
    # the points it runs: the README's command runs point.py alone, without run.py's environment.
    os.environ.setdefault("RECIPELINT_MEASURE_SHIM", str(HERE / "shim"))
    print(json.dumps(measure(args)), flush=True)
    os._exit(0)  # the persistent workers hold gigabytes: do not wait for an orderly shutdown


if __name__ == "__main__":
    main()
