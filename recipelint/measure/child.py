"""The measuring side of `recipelint tune --measure` and of bench/fidelity.

Runs in a child process only: it imports torch and the user's WeNet checkout, builds the train
DataLoader the way `wenet/utils/train_utils.py::init_dataset_and_dataloader` does (HEAD
01546996), and reads memory from /proc. Never imported by `check`, `fix` or the CLI start-up.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

PAGE_KIB = 1024


def smaps(pid: int) -> dict[str, int]:
    """Bytes from /proc/PID/smaps_rollup: Rss, Pss, Pss_Shmem, and Uss (private pages)."""
    values: dict[str, int] = {}
    with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as handle:
        for line in handle:
            parts = line.split()
            if len(parts) == 3 and parts[2] == "kB":
                values[parts[0].rstrip(":")] = int(parts[1]) * PAGE_KIB
    values["Uss"] = values.get("Private_Clean", 0) + values.get("Private_Dirty", 0)
    return values


def shm_used() -> int:
    """Bytes in use on /dev/shm (torch's unlinked shared-memory files count here too)."""
    stat = os.statvfs("/dev/shm")
    return (stat.f_blocks - stat.f_bfree) * stat.f_frsize


def meminfo_shmem() -> int:
    """System-wide shmem bytes (tmpfs and memfd), a cross-check of shm_used()."""
    with open("/proc/meminfo", encoding="ascii") as handle:
        for line in handle:
            if line.startswith("Shmem:"):
                return int(line.split()[1]) * 1024
    return 0


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine_busy_seconds() -> float:
    """CPU seconds the whole machine has been busy (all processes), from /proc/stat."""
    with open("/proc/stat", encoding="ascii") as handle:
        values = [int(v) for v in handle.readline().split()[1:]]
    return (sum(values) - values[3] - values[4]) / os.sysconf("SC_CLK_TCK")


def worker_pids(iterator: Any) -> list[int]:
    return [w.pid for w in getattr(iterator, "_workers", [])]


def import_checkout(checkout: Path) -> None:
    """Put the WeNet checkout first on sys.path; a torchaudio stand-in last when none is installed."""
    sys.path.insert(0, str(checkout))
    shim = os.environ.get("RECIPELINT_MEASURE_SHIM")
    if shim:
        sys.path.append(shim)


def make_tokenizer(configs: dict[str, Any]) -> Any:
    """The tokenizer train.py builds; the char branch of wenet.utils.init_tokenizer, else that function."""
    conf = configs.get("tokenizer_conf", {})
    if configs.get("tokenizer", "char") == "char":
        from wenet.text.char_tokenizer import CharTokenizer

        return CharTokenizer(
            conf["symbol_table_path"],
            conf.get("non_lang_syms_path"),
            split_with_space=conf.get("split_with_space", False),
            connect_symbol=conf.get("connect_symbol", ""),
        )
    from wenet.utils.init_tokenizer import init_tokenizer

    return init_tokenizer(configs)


def build_loader(configs: dict[str, Any], data_type: str, data_list: str, num_workers: int, prefetch: int, pin_memory: bool) -> Any:
    """WeNet's train DataLoader: batch_size None, persistent workers, generator seed 777."""
    import torch
    from torch.utils.data import DataLoader
    from wenet.utils.init_dataset import init_dataset

    generator = torch.Generator()
    generator.manual_seed(777)
    conf = configs["dataset_conf"]
    dataset_type = configs.get("dataset", "asr")
    tokenizer = make_tokenizer(configs)
    dataset = init_dataset(dataset_type, data_type, data_list, tokenizer, conf, True, split="train")
    return DataLoader(
        dataset,
        batch_size=None,
        pin_memory=pin_memory,
        num_workers=num_workers,
        persistent_workers=True,
        generator=generator,
        prefetch_factor=prefetch,
    )


def batch_stats(batch: Any) -> tuple[int, int, int]:
    """(bytes of the batch's tensors, padded frames = batch x longest, bytes once pinned)."""
    import torch

    from recipelint.tuner import pinned_bytes

    sizes = tuple(int(v.nbytes) for v in batch.values() if isinstance(v, torch.Tensor))
    feats = batch["feats"]
    return sum(sizes), int(feats.shape[0] * feats.shape[1]), pinned_bytes(sizes)


def throughput(loader: Any, batches: int, warmup: int, step_s: float, progress: Any = None) -> dict[str, float]:
    """Batches per second with a fixed-time fake training step; the trainer's and workers' CPU use."""
    iterator = iter(loader)
    for _ in range(warmup):
        next(iterator)
    pids = worker_pids(iterator)
    main0, workers0, machine0 = time.process_time(), sum(cpu_seconds(p) for p in pids), machine_busy_seconds()
    start = time.perf_counter()
    sizes, frames, pinned = 0, 0, 0
    for index in range(batches):
        batch = next(iterator)
        nbytes, nframes, npinned = batch_stats(batch)
        sizes, frames, pinned = sizes + nbytes, frames + nframes, pinned + npinned
        if step_s:
            time.sleep(step_s)
        if progress is not None:
            progress(index + 1)
    elapsed = time.perf_counter() - start
    worker_cpu = sum(cpu_seconds(p) for p in pids) - workers0
    trainer_cpu = time.process_time() - main0
    machine_cpu = machine_busy_seconds() - machine0
    memory = [smaps(p)["Pss"] for p in pids]
    return {
        "batches_per_s": batches / elapsed,
        "trainer_cores": trainer_cpu / elapsed,
        "worker_cores": worker_cpu / elapsed,
        "foreign_cores": max(machine_cpu - worker_cpu - trainer_cpu, 0.0) / elapsed,  # other work on a shared machine
        "batch_bytes": sizes / batches,
        "pinned_batch_bytes": pinned / batches,
        "bytes_per_frame": sizes / max(frames, 1),
        "worker_pss": sum(memory) / max(len(memory), 1),
    }


def _emit(kind: str, **data: Any) -> None:
    print(json.dumps({"event": kind, **data}), flush=True)


def main(argv: list[str]) -> int:
    """tune --measure: argv[0] is a JSON request; progress and the result go to stdout as JSON lines."""
    request = json.loads(argv[0])
    import_checkout(Path(request["checkout"]))
    cores = request.get("cores")
    if cores:
        available = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, available[: max(1, min(cores, len(available)))])
    configs = request["configs"]
    # Loop over the list as train.py does in step mode (dataset_conf.cycle), so a small list
    # still gives the batches asked for.
    configs["dataset_conf"]["cycle"] = max(int(configs["dataset_conf"].get("cycle", 1)), 10_000)
    results: dict[str, Any] = {}
    total = len(request["candidates"]) * request["batches"]
    done = 0
    for workers in request["candidates"]:
        loader = build_loader(configs, request["data_type"], request["data_list"], workers, request["prefetch"], False)

        def tick(count: int, base: int = done) -> None:
            _emit("progress", done=base + count, total=total)

        results[str(workers)] = throughput(loader, request["batches"], request["warmup"], 0.0, tick)
        done += request["batches"]
        del loader
    _emit("result", cores=len(os.sched_getaffinity(0)), candidates=results)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
