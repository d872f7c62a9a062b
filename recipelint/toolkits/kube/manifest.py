"""A training manifest's pods: which containers run, how many replicas, and what each pod is
given (resources, the /dev/shm volume, env), read from the YAML tree (tags never constructed).

Kubernetes quantities (k8s.io/apimachinery pkg/api/resource/quantity.go): CPU as cores or
millicores (`500m`), memory in bytes with binary (`Ki`, `Mi`, `Gi`, `Ti`) or decimal (`k`, `M`,
`G`, `T`) suffixes. A container's /dev/shm, with no volume mounted there, is the runtime's
default 64 MiB (Docker `--shm-size` default; containerd's and CRI-O's `shm_size` default
65536k). A memory-backed emptyDir without `sizeLimit` is bounded by the pod's memory limit
(kubernetes.io/docs/concepts/storage/volumes/#emptydir).
"""

from __future__ import annotations

import re
from pathlib import Path

from recipelint.allocation import Allocation, Grant
from recipelint.parse.files import head
from recipelint.parse.tree import Node
from recipelint.records import dataclass, field

KINDS = ("PyTorchJob", "Job", "Pod")
DEFAULT_SHM_GIB = 64 / 1024
_HEAD = re.compile(rb"^apiVersion:.*$", re.MULTILINE)
_KIND = re.compile(rb"^kind:[ \t]*[\"']?(\w+)", re.MULTILINE)
_QUANTITY = re.compile(r"(\d+(?:\.\d+)?(?:[eE]\d+)?)(Ki|Mi|Gi|Ti|Pi|k|K|M|G|T|P|m)?")
_BYTES = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}


def is_manifest(path: Path) -> bool:
    data = head(path, 65536)
    if data is None or _HEAD.search(data) is None:
        return False
    kind = _KIND.search(data)
    return kind is not None and kind.group(1).decode() in KINDS


@dataclass
class PodGroup:
    """Pods of one template: a PyTorchJob's Master or Worker, a Job's or a Pod's own spec."""

    role: str  # "Master", "Worker", "Job", "Pod"
    replicas: int
    replicas_node: Node | None
    spec: Node  # the pod spec (containers, volumes)
    containers: list[Node] = field(default_factory=list)


def pod_groups(root: Node) -> list[PodGroup]:
    kind = root.scalar("kind")
    groups: list[PodGroup] = []
    if kind == "PyTorchJob":
        specs = root.get("spec.pytorchReplicaSpecs")
        for role, _, node in specs.items if specs is not None and specs.kind == "map" else []:
            spec = node.get("template.spec")
            replicas = node.get("replicas")
            count = replicas.value if replicas is not None and isinstance(replicas.value, int) else 1
            if spec is not None:
                groups.append(PodGroup(role, count, replicas, spec))
    else:
        spec = root.get("spec.template.spec") if kind == "Job" else root.get("spec")
        if spec is not None and spec.kind == "map":
            groups.append(PodGroup(str(kind), 1, None, spec))
    for group in groups:
        containers = group.spec.get("containers")
        group.containers = (
            [c for c in containers.children if c.kind == "map"] if containers is not None and containers.kind == "seq" else []
        )
    return groups


def cpu_cores(value: object) -> float | None:
    match = _QUANTITY.fullmatch(str(value).strip()) if value is not None else None
    if match is None or match.group(2) not in (None, "m"):
        return None
    return float(match.group(1)) / (1000 if match.group(2) == "m" else 1)


def gib(value: object) -> float | None:
    match = _QUANTITY.fullmatch(str(value).strip()) if value is not None else None
    if match is None or match.group(2) == "m":
        return None
    return float(match.group(1)) * _BYTES.get(match.group(2) or "", 1) / 2**30


def _said(node: Node) -> str:
    """`containers[0].resources.limits.cpu: 16`: the path inside the pod template, and the value."""
    return f"{node.path.split('.template.spec.')[-1]}: {node.value}"


def allocation(root: Node, groups: list[PodGroup], group: PodGroup, container: Node) -> Allocation:
    """What each pod of `group` is given, for the launch in `container`."""
    where = root.get("kind") or root
    job = Allocation("Kubernetes", "its pods' replicas, resources and volumes", where.span, starter="pod")
    _replicas(job, root, groups)
    job.grants["tasks_per_node"] = Grant(1, "one container process per pod", container.span)
    gpus = container.get("resources.limits") or container.get("resources.requests")
    gpu = gpus.entries.get("nvidia.com/gpu") if gpus is not None and gpus.kind == "map" else None  # a key with dots: not a path
    if gpu is not None and str(gpu.value).isdigit():
        job.grants["gpus"] = Grant(int(str(gpu.value)), _said(gpu), gpu.span)
    _cpus(job, container)
    memory = container.get("resources.limits.memory")
    size = gib(memory.value) if memory is not None else None
    if memory is not None and size is not None:
        job.grants["memory_gib"] = Grant(size, _said(memory), memory.span)
    _shm(job, group, container)
    return job


def _replicas(job: Allocation, root: Node, groups: list[PodGroup]) -> None:
    elastic = root.get("spec.elasticPolicy.maxReplicas")
    if elastic is not None:
        job.unknown["nodes"] = f"{_said(elastic)}: elastic, the pod count changes while it runs"
        return
    counted = [g for g in groups if g.replicas_node is not None]
    if not counted:
        return
    total = sum(g.replicas for g in counted)
    said = " + ".join(f"{g.role} replicas {g.replicas}" for g in counted)
    span = counted[-1].replicas_node.span if counted[-1].replicas_node is not None else job.path
    job.grants["nodes"] = Grant(total, f"{said} (one pod per node)", span)


def _cpus(job: Allocation, container: Node) -> None:
    limit = container.get("resources.limits.cpu")
    cores = cpu_cores(limit.value) if limit is not None else None
    if limit is not None and cores is not None and cores >= 1:
        job.grants["cpus"] = Grant(int(cores), _said(limit), limit.span)
        return
    request = container.get("resources.requests.cpu")
    if limit is not None:
        job.unknown["cpus"] = f"{_said(limit)}: not a count of whole cores"
    elif request is not None:
        job.unknown["cpus"] = f"{_said(request)}: a request is what the pod is guaranteed, not a limit; it may use the node's idle CPUs"
    else:
        job.unknown["cpus"] = "no resources.limits.cpu: the pod may use every CPU of its node"


def _shm(job: Allocation, group: PodGroup, container: Node) -> None:
    """The /dev/shm the container sees: a memory-backed emptyDir mounted there, or the default."""
    mounts = container.get("volumeMounts")
    mount = next((m for m in (mounts.children if mounts is not None else []) if m.scalar("mountPath") == "/dev/shm"), None)
    if mount is None:
        job.grants["shm_gib"] = Grant(DEFAULT_SHM_GIB, "no volume at /dev/shm: the container runtime's default 64 MiB", container.span)
        return
    volumes = group.spec.get("volumes")
    name = mount.scalar("name")
    volume = next((v for v in (volumes.children if volumes is not None else []) if v.scalar("name") == name), None)
    empty = volume.get("emptyDir") if volume is not None else None
    if empty is None or empty.kind != "map" or empty.scalar("medium") != "Memory":
        job.unknown["shm_gib"] = f"{mount.path}: /dev/shm is volume {name}, not a memory-backed emptyDir"
        return
    limit = empty.get("sizeLimit")
    size = gib(limit.value) if limit is not None else None
    if limit is not None and size is not None:
        job.grants["shm_gib"] = Grant(size, _said(limit), limit.span)
    elif "memory_gib" in job.grants:
        memory = job.grants["memory_gib"]
        job.grants["shm_gib"] = Grant(memory.value, f"emptyDir medium Memory without sizeLimit: the pod's {memory.said}", empty.span)
    else:
        job.unknown["shm_gib"] = "emptyDir medium Memory without sizeLimit or memory limit: up to the node's memory"
