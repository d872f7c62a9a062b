"""Merge per-node profiles into one cluster profile, and say which facts differ between nodes.

The job runs at the pace of its weakest node, so each fact takes the value the rules must
respect: the fewest CPUs, the least memory, the slowest network.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from recipelint.hardware.profile import Fact, Hardware

# How each fact combines across nodes.
_LOWEST = ("cpus", "host_cpus", "physical_cores", "memory_gib", "host_memory_gib", "shm_gib", "gpus", "gpu_memory_gib", "nvlink")
_NETWORK_ORDER = ("ethernet", "roce", "infiniband")  # weakest first
# Facts whose difference torchrun or NCCL does not support, or that change a rule's answer.
_COMPARED = ("cpus", "memory_gib", "shm_gib", "gpus", "gpu_model", "gpu_compute_capability", "inter_node_network")


def merge(profiles: list[tuple[Path, Hardware]]) -> Hardware:
    merged = Hardware("profile", taken_at=max((h.taken_at or "" for _, h in profiles), default="") or None)
    names = ", ".join(path.name for path, _ in profiles)
    merged.facts["nodes"] = Fact(sum(int(h.value("nodes") or 1) for _, h in profiles), f"merge of {names}")
    keys = {key for _, h in profiles for key in h.facts}
    for key in sorted(keys - {"nodes"}):
        values = [(path, h.facts[key].value) for path, h in profiles if key in h.facts and h.facts[key].value is not None]
        if not values:
            continue
        distinct = {repr(v) for _, v in values}
        if key in _COMPARED and len(distinct) > 1:
            detail = ", ".join(f"{path.name}={value}" for path, value in values)
            merged.differs.append(f"{key}: {detail}")
        merged.facts[key] = Fact(_combine(key, [v for _, v in values]), f"merge of {names}" + (" (lowest)" if len(distinct) > 1 else ""))
    return merged


def _combine(key: str, values: list[Any]) -> Any:
    if key in _LOWEST and all(isinstance(v, (int, float)) for v in values):
        return min(values)
    if key == "gpu_compute_capability":
        return min(values, key=lambda v: tuple(int(p) for p in str(v).split(".")))
    if key == "inter_node_network":
        return min(values, key=lambda v: _NETWORK_ORDER.index(v) if v in _NETWORK_ORDER else 0)
    if key == "interfaces" and all(isinstance(v, dict) for v in values):
        common = set.intersection(*(set(v) for v in values))
        return {name: values[0][name] for name in sorted(common)}  # only names every node has
    return values[0]
