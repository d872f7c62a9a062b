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
from recipelint.toolkits.kube.gpulabels import gpu_model

# The workloads read, by `kind` (a Volcano Job is told from batch/v1's by its apiVersion).
KINDS = ("PyTorchJob", "MPIJob", "TrainJob", "JobSet", "Job", "Pod")
RUNTIME_KINDS = ("ClusterTrainingRuntime", "TrainingRuntime")
DEFAULT_SHM_GIB = 64 / 1024
_HEAD = re.compile(rb"^apiVersion:.*$", re.MULTILINE)
_KIND = re.compile(rb"^kind:[ \t]*[\"']?(\w+)", re.MULTILINE)
_QUANTITY = re.compile(r"(\d+(?:\.\d+)?(?:[eE]\d+)?)(Ki|Mi|Gi|Ti|Pi|k|K|M|G|T|P|m)?")
_BYTES = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}
# Sources of the operators' rules, as the docs and `show` cite them.
TRAINING_OPERATOR = "kubeflow/training-operator@6f74c7f6 (v1.9.0)"
MPI_OPERATOR = "kubeflow/mpi-operator@caa3c47f"
VOLCANO = "volcano-sh/volcano@ed72c7c8"
TRAINER = "kubeflow/trainer@658725bd (v2.3.0)"
# Trainer v2's trainer Job in a runtime's JobSet template: the replicated Job labelled
# `trainer.kubeflow.org/trainjob-ancestor-step: trainer`, its container `node`
# (pkg/constants/constants.go AncestorTrainer, Node; since v2.0.0: before it, the alpha's
# `trainer-node` Job and `trainer` container, still read).
ANCESTOR_LABEL, ANCESTOR_TRAINER = "trainer.kubeflow.org/trainjob-ancestor-step", "trainer"
TRAINER_JOBS, TRAINER_CONTAINERS = ("node", "trainer-node"), ("node", "trainer")


def is_manifest(path: Path) -> bool:
    """A Kubernetes object file: `apiVersion:` and a `kind:` at the top of one of its documents
    (the kind is judged when its document is read: a Service beside a PyTorchJob is skipped)."""
    data = head(path, 65536)
    return data is not None and _HEAD.search(data) is not None and _KIND.search(data) is not None


def names_workload(data: bytes) -> bool:
    """Whether a manifest's text names a kind read here: a file that does not (a Helm template of
    a Service, a ClusterRole) is no recipe, and not being YAML is no error in a folder scan."""
    return any(match.group(1).decode() in KINDS for match in _KIND.finditer(data))


def workload(root: Node) -> str | None:
    """The kind of workload a document is, as read here ("VolcanoJob" for batch.volcano.sh's
    Job); None for any other object (a Service, a ConfigMap, a runtime)."""
    kind = root.scalar("kind") if root.kind == "map" else None
    if kind == "Job" and str(root.scalar("apiVersion") or "").startswith("batch.volcano.sh/"):
        return "VolcanoJob"
    return kind if kind in KINDS else None


@dataclass
class PodGroup:
    """Pods of one template: a PyTorchJob's Master or Worker, an MPIJob's Launcher or Worker, a
    Volcano task, a JobSet's replicated Job, a Job's or a Pod's own spec."""

    role: str  # "Master", "Worker", "Launcher", a task's name, "Job", "Pod"
    replicas: int | None  # None: written, but not a number (`$NUM_NODES`, filled in by a template step)
    replicas_node: Node | None
    spec: Node  # the pod spec (containers, volumes)
    containers: list[Node] = field(default_factory=list)
    replicas_said: str | None = None  # how the count is arrived at, when it is not `replicas: N` as written
    # The pods the launch's ranks run in, when not the launch's own (an MPIJob's Workers, where
    # the Launcher's mpirun starts them).
    ranks_in: PodGroup | None = None


def _group(role: str, holder: Node, spec: Node | None, default: int = 1, key: str = "replicas") -> PodGroup | None:
    if spec is None or spec.kind != "map":
        return None
    replicas = holder.get(key)
    count = default if replicas is None else replicas.value if isinstance(replicas.value, int) else None
    return PodGroup(role, count, replicas, spec)


def pod_groups(root: Node, runtime: Node | None = None) -> list[PodGroup]:
    """The pod templates of a workload document, each with its containers; `runtime`: a TrainJob's
    ClusterTrainingRuntime or TrainingRuntime, when found."""
    kind = workload(root)
    groups: list[PodGroup | None] = []
    if kind in ("PyTorchJob", "MPIJob"):
        specs = root.get("spec.pytorchReplicaSpecs" if kind == "PyTorchJob" else "spec.mpiReplicaSpecs")
        for role, _, node in specs.items if specs is not None and specs.kind == "map" else []:
            groups.append(_group(role, node, node.get("template.spec")))
    elif kind == "VolcanoJob":
        tasks = root.get("spec.tasks")
        for task in tasks.children if tasks is not None and tasks.kind == "seq" else []:
            groups.append(_group(str(task.scalar("name") or "task"), task, task.get("template.spec")))
    elif kind == "JobSet":
        groups.extend(_jobset_groups(root.get("spec.replicatedJobs")))
    elif kind == "TrainJob":
        groups.extend(_trainjob_groups(root, runtime))
    elif kind in ("Job", "Pod"):
        groups.append(_group(str(kind), root, root.get("spec.template.spec") if kind == "Job" else root.get("spec"), key="-"))
    found = [g for g in groups if g is not None]
    for group in found:
        containers = group.spec.get("containers")
        if not group.containers:
            group.containers = (
                [c for c in containers.children if c.kind == "map"] if containers is not None and containers.kind == "seq" else []
            )
    if kind == "MPIJob":
        workers = next((g for g in found if g.role == "Worker"), None)
        for group in found:
            group.ranks_in = workers if group.role == "Launcher" else None
    return found


def _jobset_groups(jobs: Node | None) -> list[PodGroup | None]:
    """A JobSet's replicated Jobs: `replicas` Jobs of `parallelism` pods each (jobset.x-k8s.io
    ReplicatedJob; a Job's parallelism defaults to 1)."""
    groups: list[PodGroup | None] = []
    for job in jobs.children if jobs is not None and jobs.kind == "seq" else []:
        group = _group(str(job.scalar("name") or "job"), job, job.get("template.spec.template.spec"))
        parallelism = job.get("template.spec.parallelism")
        if group is not None and group.replicas is not None and parallelism is not None and isinstance(parallelism.value, int):
            group.replicas_said = f"{group.role}: replicas {group.replicas} x parallelism {parallelism.value}"
            group.replicas *= parallelism.value
            group.replicas_node = group.replicas_node or parallelism
        groups.append(group)
    return groups


def _trainjob_groups(job: Node, runtime: Node | None) -> list[PodGroup | None]:
    """Trainer v2: the runtime's `trainer-node` Job, its `trainer` container with the TrainJob's
    image, command, args and resourcesPerNode in place of the runtime's, on `numNodes` pods (the
    TrainJob's, else the runtime's mlPolicy, else 1): kubeflow/trainer@a55f03a8
    pkg/runtime/framework/plugins/jobset/builder.go (Trainer), plugins/torch/torch.go."""
    trainer = job.get("spec.trainer")
    role, spec = _runtime_pod(runtime)
    base = next((c for name in TRAINER_CONTAINERS if (c := _container(spec, name)) is not None), None) if spec is not None else None
    container = Node("map", (base or trainer or job).span, None, (base or trainer or job).path)
    container.items = list(base.items) if base is not None else []
    overrides = {"image": "image", "command": "command", "args": "args", "resourcesPerNode": "resources"}
    for key, span, node in trainer.items if trainer is not None and trainer.kind == "map" else []:
        if key in overrides:
            container.items = [item for item in container.items if item[0] != overrides[key]] + [(overrides[key], span, node)]
        elif key == "env":
            container.items.append(("env", span, node))  # the TrainJob's env joins the runtime's (torch.go)
    if spec is None and trainer is None:
        return []
    nodes = _num_nodes(job, runtime)
    group = PodGroup(role, nodes[0], nodes[1], spec or Node("map", job.span), [container], nodes[2])
    return [group]


def _runtime_pod(runtime: Node | None) -> tuple[str, Node | None]:
    """The runtime's trainer Job (its name, its pod spec): the one its ancestor label marks
    (FindPodSetByAncestor), else the one named as the Trainer names it."""
    jobs = runtime.get("spec.template.spec.replicatedJobs") if runtime is not None else None
    items = [item for item in jobs.children if item.kind == "map"] if jobs is not None and jobs.kind == "seq" else []
    marked = [item for item in items if _label(item.get("template.metadata.labels")) == ANCESTOR_TRAINER]
    named = [i for name in TRAINER_JOBS for i in items if i.scalar("name") == name]
    for item in marked + named:
        return str(item.scalar("name")), item.get("template.spec.template.spec")
    return TRAINER_JOBS[0], None


def _label(labels: Node | None) -> object:
    found = labels.entries.get(ANCESTOR_LABEL) if labels is not None and labels.kind == "map" else None  # a key with dots
    return found.value if found is not None else None


def _container(spec: Node, name: str) -> Node | None:
    containers = spec.get("containers")
    return next((c for c in (containers.children if containers is not None else []) if c.scalar("name") == name), None)


def _num_nodes(job: Node, runtime: Node | None) -> tuple[int, Node | None, str]:
    for holder, key, said in ((job, "spec.trainer.numNodes", "TrainJob"), (runtime, "spec.mlPolicy.numNodes", "runtime")):
        node = holder.get(key) if holder is not None else None
        if node is not None and isinstance(node.value, int):
            return node.value, node, f"{said} {key.rsplit('.', 2)[-2]}.numNodes {node.value}"
    return 1, None, "no numNodes in the TrainJob or its runtime: 1 (torch.go, ptr.Deref(numNodes, 1))"


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
    """What each pod of `group` is given, for the launch in `container` (an MPIJob's Launcher:
    its Workers' pods, where mpirun starts the ranks)."""
    where = root.get("kind") or root
    job = Allocation("Kubernetes", "its pods' replicas, resources and volumes", where.span, starter="pod")
    _replicas(job, root, [group.ranks_in] if group.ranks_in is not None and workload(root) != "MPIJob" else groups)
    workers = group.ranks_in
    if workers is not None and workers.containers and workload(root) == "MPIJob":
        group, container = workers, workers.containers[0]
        slots = root.get("spec.slotsPerWorker")
        count = slots.value if slots is not None and isinstance(slots.value, int) else 1
        said = _said(slots) if slots is not None else f"no slotsPerWorker: 1 ({MPI_OPERATOR} pkg/apis/kubeflow/v2beta1/default.go)"
        job.grants["tasks_per_node"] = Grant(count, f"{said}: the hostfile's slots per Worker", (slots or root).span)
    elif workers is not None and workers.containers:
        # mpirun in one task of a Volcano Job starts its ranks in the others' pods, as its --host or hostfile lists them
        group, container = workers, workers.containers[0]
        job.unknown["tasks_per_node"] = f"mpirun's ranks in the {workers.role} pods: how many a pod is its hostfile's or --host list's"
    else:
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
    gpu_model(job, group.spec)
    return job


def elastic_nnodes(root: Node, worker: PodGroup) -> tuple[str | None, str]:
    """PET_NNODES of an elastic PyTorchJob, and why: `min:max` replicas, each defaulting to the
    other and both to the Worker replicas (training-operator pytorch_defaults.go setElasticPolicy,
    elastic.go generateEnvNnodes); None when those are not numbers."""
    low, high = root.get("spec.elasticPolicy.minReplicas"), root.get("spec.elasticPolicy.maxReplicas")
    values = [n.value if n is not None and isinstance(n.value, int) else None for n in (low, high)]
    least = values[0] if values[0] is not None else values[1] if values[1] is not None else worker.replicas
    most = values[1] if values[1] is not None else least
    said = (
        f"minReplicas {least}, maxReplicas {most}"
        if low is not None or high is not None
        else f"min and max: Worker replicas {worker.replicas}"
    )
    return (f"{least}:{most}" if least is not None else None), said


def _replicas(job: Allocation, root: Node, groups: list[PodGroup]) -> None:
    kind = workload(root)
    if kind == "MPIJob":
        counted = [g for g in groups if g.role == "Worker"]  # the Launcher runs mpirun, no rank (mpi_job_controller.go)
    elif kind == "PyTorchJob" and root.get("spec.elasticPolicy") is not None:
        counted = [g for g in groups if g.role == "Worker"]  # elastic: Workers only (elastic.go)
    else:
        counted = [g for g in groups if g.replicas_node is not None or g.replicas_said is not None]
    if not counted:
        return
    unread = next((g for g in counted if g.replicas is None), None)
    if unread is not None and unread.replicas_node is not None:
        job.unknown["nodes"] = f"{_said(unread.replicas_node)}: not a number (a template filled in before the job is applied)"
        return
    total = sum(g.replicas or 0 for g in counted)
    said = " + ".join(g.replicas_said or f"{g.role} replicas {g.replicas}" for g in counted)
    if kind == "PyTorchJob" and root.get("spec.elasticPolicy") is not None:
        said += f" (elastic, {elastic_nnodes(root, counted[0])[1]}: the operator starts the Worker replicas)"
    span = next((g.replicas_node.span for g in reversed(counted) if g.replicas_node is not None), job.path)
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
