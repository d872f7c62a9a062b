"""Probe this machine as the training process will see it.

Everything is read under `root` (default "/"), so tests run the probe on fake sysfs, procfs
and cgroup trees. NVML is only initialised when a rule asks for a GPU fact.
"""

from __future__ import annotations

import datetime
import math
import os
import time
from pathlib import Path
from typing import Any

from recipelint.hardware.profile import Fact, Hardware

GIB = 1024**3


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def _cgroup_dirs(root: Path) -> list[Path]:
    """The cgroup directories of this process, innermost first (v2 unified, then v1 controllers)."""
    dirs: list[Path] = []
    text = _read(root / "proc/self/cgroup") or ""
    base = root / "sys/fs/cgroup"
    for line in text.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, rel = parts
        rel = rel.lstrip("/")
        if controllers == "":
            dirs.append(base / rel)
        else:
            for controller in controllers.split(","):
                for name in (controller, "cpu,cpuacct", "cpuacct,cpu"):
                    candidate = base / name / rel
                    if candidate.is_dir():
                        dirs.append(candidate)
    # In a container the process's path is often not mounted; the mount root is then the group.
    dirs.extend([base, base / "cpu", base / "cpu,cpuacct", base / "memory"])
    return dirs


def _cpu_quota(root: Path) -> tuple[float | None, str]:
    for directory in _cgroup_dirs(root):
        text = _read(directory / "cpu.max")
        if text:
            quota, _, period = text.partition(" ")
            if quota != "max" and period:
                return int(quota) / int(period), f"cgroup cpu.max ({text})"
            return None, ""
        quota_text = _read(directory / "cpu.cfs_quota_us")
        period_text = _read(directory / "cpu.cfs_period_us")
        if quota_text and period_text:
            if int(quota_text) > 0:
                return int(quota_text) / int(period_text), f"cgroup cpu.cfs_quota_us/cfs_period_us ({quota_text}/{period_text})"
            return None, ""
    return None, ""


def _memory_limit(root: Path) -> tuple[int | None, str]:
    for directory in _cgroup_dirs(root):
        text = _read(directory / "memory.max")
        if text:
            return (int(text), "cgroup memory.max") if text != "max" else (None, "")
        text = _read(directory / "memory.limit_in_bytes")
        if text:
            value = int(text)
            # cgroup v1 writes a number near 2**63 for "no limit"
            return (value, "cgroup memory.limit_in_bytes") if value < 2**60 else (None, "")
    return None, ""


def _affinity(root: Path) -> tuple[int, str]:
    if str(root) == "/" and hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)), "sched_getaffinity"
    text = _read(root / "proc/self/status") or ""
    for line in text.splitlines():
        if line.startswith("Cpus_allowed_list:"):
            return _count_list(line.split(":", 1)[1].strip()), "/proc/self/status Cpus_allowed_list"
    return os.cpu_count() or 1, "os.cpu_count"


def _count_list(text: str) -> int:
    count = 0
    for part in text.split(","):
        if "-" in part:
            low, high = part.split("-")
            count += int(high) - int(low) + 1
        elif part.strip():
            count += 1
    return count


def probe_cpu(root: Path) -> dict[str, Fact]:
    import psutil

    facts: dict[str, Fact] = {}
    affinity, affinity_source = _affinity(root)
    host = psutil.cpu_count(logical=True) if str(root) == "/" else affinity
    quota, quota_source = _cpu_quota(root)
    if quota is not None and math.ceil(quota) < affinity:
        facts["cpus"] = Fact(max(1, math.ceil(quota)), quota_source)
    else:
        facts["cpus"] = Fact(affinity, affinity_source)
    facts["host_cpus"] = Fact(host, "psutil.cpu_count" if str(root) == "/" else affinity_source)
    physical = psutil.cpu_count(logical=False) if str(root) == "/" else None
    facts["physical_cores"] = Fact(physical, "psutil.cpu_count(logical=False)", None if physical else "not reported")
    numa: dict[str, str] = {}
    node_dir = root / "sys/devices/system/node"
    if node_dir.is_dir():
        for entry in sorted(node_dir.glob("node[0-9]*")):
            cpulist = _read(entry / "cpulist")
            if cpulist is not None:
                numa[entry.name] = cpulist
    facts["numa_nodes"] = Fact(numa or None, "sysfs devices/system/node", None if numa else "no NUMA information")
    return facts


def probe_memory(root: Path) -> dict[str, Fact]:
    import psutil

    facts: dict[str, Fact] = {}
    if str(root) == "/":
        total = psutil.virtual_memory().total
        total_source = "psutil.virtual_memory"
    else:
        total = 0
        for line in (_read(root / "proc/meminfo") or "").splitlines():
            if line.startswith("MemTotal:"):
                total = int(line.split()[1]) * 1024
        total_source = "/proc/meminfo"
    limit, limit_source = _memory_limit(root)
    facts["host_memory_gib"] = Fact(round(total / GIB, 1), total_source)
    if limit is not None and limit < total:
        facts["memory_gib"] = Fact(round(limit / GIB, 1), limit_source)
    else:
        facts["memory_gib"] = Fact(round(total / GIB, 1), total_source)
    shm = root / "dev/shm"
    try:
        stat = os.statvfs(shm)
        facts["shm_gib"] = Fact(round(stat.f_blocks * stat.f_frsize / GIB, 2), "statvfs /dev/shm")
    except OSError as exc:
        facts["shm_gib"] = Fact(None, "statvfs /dev/shm", f"/dev/shm: {exc.strerror}")
    return facts


def probe_network(root: Path) -> dict[str, Fact]:
    devices: dict[str, dict[str, Any]] = {}
    ib_root = root / "sys/class/infiniband"
    if ib_root.is_dir():
        for device in sorted(ib_root.iterdir()):
            for port in sorted((device / "ports").glob("*")):
                state = (_read(port / "state") or "").split(":")[-1].strip()
                rate = _read(port / "rate") or ""
                layer = _read(port / "link_layer") or "InfiniBand"
                devices[f"{device.name}/{port.name}"] = {"state": state, "rate": rate, "link_layer": layer}
    interfaces: dict[str, str] = {}
    net_root = root / "sys/class/net"
    if net_root.is_dir():
        for entry in sorted(net_root.iterdir()):
            interfaces[entry.name] = _read(entry / "operstate") or "unknown"
    active = [d for d in devices.values() if d["state"] == "ACTIVE"]
    if any(d["link_layer"] == "InfiniBand" for d in active):
        network = "infiniband"
    elif active:
        network = "roce"
    else:
        network = "ethernet"
    why = "active InfiniBand/RoCE port in sysfs" if active else "no active port under /sys/class/infiniband"
    return {
        "inter_node_network": Fact(network, f"sysfs class/infiniband ({why})"),
        "infiniband": Fact(devices, "sysfs class/infiniband"),
        "interfaces": Fact(interfaces or None, "sysfs class/net", None if interfaces else "no /sys/class/net"),
    }


def probe_gpus(nvml: Any = None) -> dict[str, Fact]:
    """GPU facts through NVML; any failure makes them unknown with the reason."""
    started = time.perf_counter()

    def unknown(reason: str) -> dict[str, Fact]:
        return {
            key: Fact(None, "nvml", reason)
            for key in ("gpus", "gpu_model", "gpu_memory_gib", "gpu_compute_capability", "gpu_driver", "nvlink")
        }

    if nvml is None:
        try:
            import pynvml
        except Exception as exc:  # ImportError, or a broken library raising at import
            return unknown(f"pynvml not importable: {exc}")
        nvml = pynvml
    try:
        nvml.nvmlInit()
    except Exception as exc:
        return unknown(f"NVML init failed: {_nvml_reason(exc)}")
    try:
        count = nvml.nvmlDeviceGetCount()
        visible = os.environ.get("CUDA_VISIBLE_DEVICES")
        indices = list(range(count))
        if visible is not None:
            chosen = [int(v) for v in visible.split(",") if v.strip().isdigit() and int(v) < count]
            indices = chosen
        if not indices:
            facts = unknown("no GPU visible" + (" (CUDA_VISIBLE_DEVICES hides all)" if visible is not None else ""))
            facts["gpus"] = Fact(0, "nvml")
            return facts
        handle = nvml.nvmlDeviceGetHandleByIndex(indices[0])
        name = nvml.nvmlDeviceGetName(handle)
        name = name.decode() if isinstance(name, bytes) else name
        memory = nvml.nvmlDeviceGetMemoryInfo(handle).total
        major, minor = nvml.nvmlDeviceGetCudaComputeCapability(handle)
        driver = nvml.nvmlSystemGetDriverVersion()
        driver = driver.decode() if isinstance(driver, bytes) else driver
        nvlink = _nvlink_links(nvml, handle)
        took = (time.perf_counter() - started) * 1000
        source = f"nvml ({took:.0f} ms)"
        label = f"nvml, CUDA_VISIBLE_DEVICES={visible}" if visible is not None else source
        return {
            "gpus": Fact(len(indices), label),
            "gpu_model": Fact(name, source),
            "gpu_memory_gib": Fact(round(memory / GIB, 1), source),
            "gpu_compute_capability": Fact(f"{major}.{minor}", source),
            "gpu_driver": Fact(driver, source),
            "nvlink": Fact(nvlink, source),
        }
    except Exception as exc:
        return unknown(f"NVML query failed: {_nvml_reason(exc)}")
    finally:
        try:
            nvml.nvmlShutdown()
        except Exception:
            pass


def _nvlink_links(nvml: Any, handle: Any) -> int:
    links = 0
    for link in range(18):  # NVML_NVLINK_MAX_LINKS
        try:
            if nvml.nvmlDeviceGetNvLinkState(handle, link):
                links += 1
        except Exception:
            break
    return links


def _nvml_reason(exc: Exception) -> str:
    text = str(exc) or type(exc).__name__
    return text.splitlines()[0]


def probe(root: Path = Path("/"), nvml: Any = None) -> Hardware:
    hardware = Hardware("probe", taken_at=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"))
    hardware.facts.update(probe_cpu(root))
    hardware.facts.update(probe_memory(root))
    hardware.facts.update(probe_network(root))
    hardware.gpu_loader = lambda: probe_gpus(nvml)
    return hardware
