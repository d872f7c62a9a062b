"""What each operator sets in the pods it creates, read from its source, and what a launch takes
from it: torchrun reads every `PET_<FLAG>` as its flag's default (torch.distributed.run's
`env` action), so a torchrun with no `--nnodes` or rendezvous in a PyTorchJob or a TrainJob is
not a one-node, localhost launch; Kubernetes expands `$(VAR)` in a container's command and args
from its env, the operator's included (the env it appends comes last and wins, as the kubelet
reads the list in order).

- PyTorchJob (kubeflow/training-operator@6f74c7f6, v1.9.0, pkg/controller.v1/pytorch/):
  envvar.go sets PET_NPROC_PER_NODE from `spec.nprocPerNode`; with a Master, master.go sets
  MASTER_ADDR/PET_MASTER_ADDR to `<job>-master-0` and MASTER_PORT/PET_MASTER_PORT to its
  `pytorchjob-port` (23456 when none: pytorch_defaults.go), and envvar.go WORLD_SIZE to all
  replicas x nprocPerNode (1 when unset). Without `elasticPolicy` PET_NNODES is all replicas;
  with it (elastic.go) PET_RDZV_ENDPOINT is `rdzvHost:rdzvPort`, the host defaulting to the
  job's first worker `<job>-worker-0` and the port to the Worker's `pytorchjob-port`;
  PET_RDZV_BACKEND `rdzvBackend` (c10d); PET_NNODES `minReplicas:maxReplicas`, each defaulting
  to the other and both to the Worker replicas; PET_NPROC_PER_NODE `elasticPolicy.nProcPerNode`.
- Volcano Job (volcano-sh/volcano@ed72c7c8 pkg/controllers/job/plugins/distributed-framework/
  pytorch/pytorch.go): the `pytorch` plugin (`--master`, `--worker`, `--port`; master, worker,
  23456) sets MASTER_ADDR `<job>-<master>-0.<job>`, MASTER_PORT, WORLD_SIZE the master and
  worker tasks' replicas (pods, not ranks) and RANK; no PET_* (a torchrun there is told its
  nodes and address on its own command line).
- TrainJob (kubeflow/trainer@658725bd, v2.3.0, pkg/runtime/framework/plugins/torch/torch.go
  EnforceMLPolicy), for a runtime with `mlPolicy.torch`: PET_NNODES `numNodes`,
  PET_NPROC_PER_NODE the TrainJob's `numProcPerNode`, else "auto", which with no GPU in
  resourcesPerNode is the CPU count (requests, else limits; at least 1: getNumCPUPerNode) and
  with GPUs torchrun's own "auto" (one a GPU); PET_MASTER_ADDR `<job>-node-0-0.<job>` (the
  trainer Job's first pod), PET_MASTER_PORT 29500 (pkg/constants/constants.go).
"""

from __future__ import annotations

import math
import re

from recipelint.model import Launch, Recipe, Setting
from recipelint.parse.span import Span
from recipelint.parse.tree import Node
from recipelint.records import dataclass, replace
from recipelint.toolkits.kube.manifest import (
    MPI_OPERATOR,
    TRAINER,
    TRAINING_OPERATOR,
    VOLCANO,
    PodGroup,
    cpu_cores,
    elastic_nnodes,
    workload,
)

DEFAULT_PORT = 23456  # training-operator pytorch_types.go PyTorchJobDefaultPort; Volcano's DefaultPort
TRAINER_PORT = 29500  # kubeflow/trainer pkg/constants/constants.go ContainerTrainerPort
TORCHRUN = ("torchrun", "torch.distributed.launch")
_REF = re.compile(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)")
_SHELL_REF = re.compile(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)|\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")
_ENVVAR = f"{TRAINING_OPERATOR} pkg/controller.v1/pytorch/envvar.go"
_ELASTIC = f"{TRAINING_OPERATOR} pkg/controller.v1/pytorch/elastic.go"
_MASTER = f"{TRAINING_OPERATOR} pkg/controller.v1/pytorch/master.go"
_VOLCANO = f"{VOLCANO} pkg/controllers/job/plugins/distributed-framework/pytorch/pytorch.go"
_TORCH = f"{TRAINER} pkg/runtime/framework/plugins/torch/torch.go"


@dataclass(frozen=True)
class Env:
    """One variable the operator sets: its value, the rule that sets it, and where the manifest
    says what it is set from."""

    value: str
    how: str
    span: Span


def operator_env(root: Node, groups: list[PodGroup], runtime: Node | None) -> dict[str, Env]:
    kind = workload(root)
    if kind == "PyTorchJob":
        return _pytorchjob(root, groups)
    if kind == "VolcanoJob":
        return _volcano(root, groups)
    if kind == "TrainJob":
        return _trainjob(root, groups, runtime)
    return {}


def _total(groups: list[PodGroup]) -> int | None:
    counts = [g.replicas for g in groups]
    return None if any(c is None for c in counts) else sum(c or 0 for c in counts)


def _port(group: PodGroup | None) -> tuple[int, str]:
    """The `pytorchjob-port` of the group's `pytorch` container, else the default the operator's
    defaulting webhook gives it (pytorch_defaults.go setPyTorchDefaultPort)."""
    for container in group.containers if group is not None else []:
        ports = container.get("ports") if container.scalar("name") == "pytorch" else None
        for port in ports.children if ports is not None and ports.kind == "seq" else []:
            value = port.scalar("containerPort")
            if port.scalar("name") == "pytorchjob-port" and isinstance(value, int):
                return value, f"{group.role if group else ''} port pytorchjob-port {value}"
    return DEFAULT_PORT, f"the default pytorchjob-port {DEFAULT_PORT}"


def _pytorchjob(root: Node, groups: list[PodGroup]) -> dict[str, Env]:
    env: dict[str, Env] = {}
    name = str(root.scalar("metadata.name") or "<job>")
    nproc = root.get("spec.nprocPerNode")
    if nproc is not None:
        env["PET_NPROC_PER_NODE"] = Env(
            str(nproc.value), f"spec.nprocPerNode {nproc.value}, set as PET_NPROC_PER_NODE ({_ENVVAR})", nproc.span
        )
    master = next((g for g in groups if g.role == "Master"), None)
    total = _total(groups)
    if master is not None:
        port, said = _port(master)
        at = (master.replicas_node or root).span
        for var in ("MASTER_ADDR", "PET_MASTER_ADDR"):
            env[var] = Env(f"{name}-master-0", f"the Master pod's service ({_MASTER})", at)
        for var in ("MASTER_PORT", "PET_MASTER_PORT"):
            env[var] = Env(str(port), f"{said} ({_MASTER})", at)
        per = int(str(nproc.value)) if nproc is not None and str(nproc.value).isdigit() else 1
        if total is not None:
            env["WORLD_SIZE"] = Env(str(total * per), f"all replicas {total} x nprocPerNode {per} ({_ENVVAR})", at)
    elastic = root.get("spec.elasticPolicy")
    if elastic is None:
        if total is not None:
            env["PET_NNODES"] = Env(
                str(total), f"all replicas {total} ({_ENVVAR})", (groups[-1].replicas_node or root).span if groups else root.span
            )
        return env
    env.update(_elastic(root, elastic, name, groups))
    return env


def _elastic(root: Node, elastic: Node, name: str, groups: list[PodGroup]) -> dict[str, Env]:
    env: dict[str, Env] = {}
    worker = next((g for g in groups if g.role == "Worker"), None)
    host, port_node = elastic.get("rdzvHost"), elastic.get("rdzvPort")
    host_said = f"rdzvHost {host.value}" if host is not None else f"no rdzvHost: the job's first worker {name}-worker-0"
    port, port_said = (port_node.value, f"rdzvPort {port_node.value}") if port_node is not None else _port(worker)
    endpoint = f"{host.value if host is not None else f'{name}-worker-0'}:{port}"
    env["PET_RDZV_ENDPOINT"] = Env(endpoint, f"elasticPolicy: {host_said}, {port_said} ({_ELASTIC})", (host or elastic).span)
    backend = elastic.get("rdzvBackend")
    env["PET_RDZV_BACKEND"] = Env(
        str(backend.value) if backend is not None else "c10d",
        f"elasticPolicy rdzvBackend {backend.value if backend is not None else 'not given: c10d'} ({_ELASTIC})",
        (backend or elastic).span,
    )
    nnodes, said = elastic_nnodes(root, worker) if worker is not None else (None, "")
    if nnodes is not None:
        env["PET_NNODES"] = Env(nnodes, f"elasticPolicy {said} ({_ELASTIC})", elastic.span)
    nproc = elastic.get("nProcPerNode")
    if nproc is not None:
        env["PET_NPROC_PER_NODE"] = Env(str(nproc.value), f"elasticPolicy.nProcPerNode {nproc.value} ({_ELASTIC})", nproc.span)
    return env


def _volcano(root: Node, groups: list[PodGroup]) -> dict[str, Env]:
    plugin = root.get("spec.plugins.pytorch")
    if plugin is None:
        return {}
    options = {"master": "master", "worker": "worker", "port": str(DEFAULT_PORT)}
    for item in plugin.children if plugin.kind == "seq" else []:
        key, sep, value = str(item.value).lstrip("-").partition("=")
        if sep and key in options:
            options[key] = value
    name = str(root.scalar("metadata.name") or "<job>")
    how = f"the pytorch plugin {' '.join(f'--{k}={v}' for k, v in options.items())} ({_VOLCANO})"
    env = {
        "MASTER_ADDR": Env(f"{name}-{options['master']}-0.{name}", how, plugin.span),
        "MASTER_PORT": Env(options["port"], how, plugin.span),
    }
    total = _total([g for g in groups if g.role in (options["master"], options["worker"])])
    if total is not None:
        env["WORLD_SIZE"] = Env(str(total), f"the {options['master']} and {options['worker']} tasks' replicas, {how}", plugin.span)
    return env


def _trainjob(root: Node, groups: list[PodGroup], runtime: Node | None) -> dict[str, Env]:
    torch = runtime.get("spec.mlPolicy.torch") if runtime is not None else None
    if torch is None or not groups:
        return {}
    name = str(root.scalar("metadata.name") or "<job>")
    nodes = groups[0]
    at = (nodes.replicas_node or root).span
    env = {"PET_NNODES": Env(str(nodes.replicas), f"{nodes.replicas_said} ({_TORCH})", at)}
    given = root.get("spec.trainer.numProcPerNode")
    if given is not None:
        env["PET_NPROC_PER_NODE"] = Env(str(given.value), f"{given.path}: {given.value} ({_TORCH})", given.span)
    else:
        env["PET_NPROC_PER_NODE"] = _auto_procs(nodes, torch)
    env["PET_MASTER_ADDR"] = Env(f"{name}-{nodes.role}-0-0.{name}", f"the first pod of the trainer Job {nodes.role} ({_TORCH})", at)
    env["PET_MASTER_PORT"] = Env(str(TRAINER_PORT), f"ContainerTrainerPort {TRAINER_PORT} ({_TORCH})", at)
    return env


def _auto_procs(nodes: PodGroup, torch: Node) -> Env:
    """No numProcPerNode: "auto", torchrun's one rank a GPU, unless the trainer's resources name
    no GPU (a resource whose name holds "gpu", requests before limits: runtime.GetNumGPUPerNode),
    when it is the CPUs (requests, else limits, rounded up as Quantity.Value does; at least 1)."""
    resources = nodes.containers[0].get("resources") if nodes.containers else None
    lists = [resources.get(key) for key in ("requests", "limits")] if resources is not None else []
    if any("gpu" in key.lower() for found in lists if found is not None and found.kind == "map" for key in found.entries):
        return Env("auto", f"no numProcPerNode, GPUs in the trainer's resources: auto ({_TORCH})", torch.span)
    for found in lists:
        cpu = found.get("cpu") if found is not None and found.kind == "map" else None
        cores = cpu_cores(cpu.value) if cpu is not None else None
        if cpu is not None and cores:
            count = max(1, math.ceil(cores))
            return Env(str(count), f"no numProcPerNode and no GPU: the CPUs, {cpu.path}: {cpu.value} ({_TORCH} getNumCPUPerNode)", cpu.span)
    return Env("1", f"no numProcPerNode, no GPU and no CPU in the trainer's resources: 1 ({_TORCH} getNumCPUPerNode)", torch.span)


def apply_operator(recipe: Recipe, root: Node, groups: list[PodGroup], runtime: Node | None, shell: bool = False) -> None:
    """The operator's env joins the launch's (over a same-named entry of the container's), its
    `$(VAR)` references are expanded (`shell`: a `bash -c` script, whose `$VAR` bash takes from
    that env too), and torchrun takes its PET_* defaults."""
    launch = recipe.launch
    env = operator_env(root, groups, runtime)
    if launch is None:
        return
    if launch.launcher == "mpirun" and workload(root) == "MPIJob":
        _hostfile(launch, recipe)
    elif launch.launcher == "mpirun":
        _hosts(launch, recipe)
    for name, item in env.items():
        launch.env[name] = Setting(name, item.value, False, item.span, origin=item.how)
    _expand(launch, _SHELL_REF if shell else _REF)
    if launch.launcher in TORCHRUN:
        _pet(launch, env)
        if not launch.nnodes.given and workload(root) == "TrainJob" and runtime is None:
            # the runtime's mlPolicy decides the PET_* the pods get: not read, not guessed
            name = root.scalar("spec.runtimeRef.name")
            how = f"the runtime {name} is not in the files read (installed on the cluster?): its mlPolicy sets PET_NNODES ({_TORCH})"
            launch.nnodes = replace(launch.nnodes, value=None, given=True, span=launch.command.words[0].span, origin=how)
            launch.nproc_per_node = replace(launch.nproc_per_node, value=None, given=True, origin=how.replace("NNODES", "NPROC_PER_NODE"))
            if not launch.rendezvous.given:
                launch.rendezvous = replace(launch.rendezvous, value=None, origin=how.replace("PET_NNODES", "PET_MASTER_ADDR"))
        elif not launch.nnodes.given:
            # no --nnodes and no PET_NNODES: torchrun's own default, one node, in every pod
            how = "torchrun's default --nnodes 1: no --nnodes, and this operator sets no PET_NNODES; each pod meets only itself"
            launch.nnodes = replace(launch.nnodes, value=1, given=True, span=launch.command.words[0].span, origin=how)


def _hostfile(launch: Launch, recipe: Recipe) -> None:
    """`mpirun -np T` without `-npernode` in an MPIJob's Launcher: Open MPI fills the hostfile
    the operator writes (each Worker with slotsPerWorker slots, mpi_job_controller.go) slot by
    slot, so a node runs up to its slots and the ranks spread over ceil(T / slots) Workers."""
    slots = recipe.allocation.get("tasks_per_node") if recipe.allocation is not None else None
    total = launch.nproc_per_node.as_int() if launch.nproc_per_node.name == "-np" else None
    if slots is None or total is None or slots.value < 1:
        return
    per_node = min(total, slots.value)
    how = f"-np {total} over the hostfile's {slots.said} ({MPI_OPERATOR} pkg/controller/mpi_job_controller.go)"
    launch.nproc_per_node = replace(launch.nproc_per_node, value=per_node, origin=f"{per_node} of {how}")
    nodes = -(-total // slots.value)
    launch.nnodes = replace(launch.nnodes, value=nodes, given=True, span=launch.nproc_per_node.span, origin=f"{nodes} Worker(s): {how}")


def _hosts(launch: Launch, recipe: Recipe) -> None:
    """mpirun in one pod of a job with others (a Volcano Job's master task): its ranks run in
    the other pods, as many as its `--host` list or hostfile gives each, which the manifest does
    not say; the nodes are those pods when `-np` fills them one a pod at least."""
    pods = recipe.allocation.get("nodes") if recipe.allocation is not None else None
    total = launch.nproc_per_node.as_int() if launch.nproc_per_node.name == "-np" else None
    if pods is None or total is None:
        return
    how = f"-np {total} over {pods.said}: how many ranks a pod runs is mpirun's --host list or hostfile's"
    launch.nproc_per_node = replace(launch.nproc_per_node, value=None, origin=how)
    nodes = min(total, pods.value)
    launch.nnodes = replace(
        launch.nnodes, value=nodes, given=True, span=launch.nproc_per_node.span, origin=f"{nodes} pod(s) at most: {how}"
    )


def _expand(launch: Launch, refs: re.Pattern[str]) -> None:
    """`--nnodes=$(WORLD_SIZE)`: Kubernetes replaces `$(NAME)` in command and args with the
    container's env (kubernetes.io/docs/tasks/inject-data-application/define-command-argument-container);
    in a `bash -c` script, `${MASTER_ADDR}` is bash's, from the same env. Only a value the
    launch's own reading left open is filled."""
    known = {name: str(s.value) for name, s in launch.env.items() if s.value is not None}
    for field_name in ("nnodes", "nproc_per_node", "rendezvous"):
        setting: Setting = getattr(launch, field_name)
        text = setting.word.text.strip("'\"") if setting.word is not None else setting.value if isinstance(setting.value, str) else None
        if text is None or setting.value is not None and not refs.search(text):
            continue
        names = ["".join(groups) for groups in refs.findall(text)]
        if not names or any(n not in known for n in names):
            continue
        value = refs.sub(lambda m: known["".join(g or "" for g in m.groups())], text)
        how = ", ".join(f"{n} = {known[n]}: {launch.env[n].origin or 'the container env'}" for n in dict.fromkeys(names))
        setattr(launch, field_name, replace(setting, value=int(value) if value.isdigit() else value, origin=how))


def _pet(launch: Launch, env: dict[str, Env]) -> None:
    """torchrun's flags the launch leaves out, from the PET_* the operator sets."""
    nnodes, nproc = env.get("PET_NNODES"), env.get("PET_NPROC_PER_NODE")
    if nnodes is not None and not launch.nnodes.given:
        low, _, high = nnodes.value.partition(":")
        value: object = int(low) if low.isdigit() and (not high or high == low) else nnodes.value
        launch.nnodes = replace(launch.nnodes, value=value, given=True, span=nnodes.span, origin=f"PET_NNODES={nnodes.value}: {nnodes.how}")
    if nproc is not None and not launch.nproc_per_node.given:
        count: object = int(nproc.value) if nproc.value.isdigit() else nproc.value
        how = f"PET_NPROC_PER_NODE={nproc.value}: {nproc.how}"
        launch.nproc_per_node = replace(launch.nproc_per_node, value=count, given=True, span=nproc.span, origin=how)
    endpoint, addr, port = env.get("PET_RDZV_ENDPOINT"), env.get("PET_MASTER_ADDR"), env.get("PET_MASTER_PORT")
    if launch.rendezvous.given:
        return
    if endpoint is not None:
        how = f"PET_RDZV_ENDPOINT={endpoint.value}: {endpoint.how}"
        launch.rendezvous = replace(launch.rendezvous, value=endpoint.value, given=True, span=endpoint.span, origin=how)
    elif addr is not None and port is not None:
        how = f"PET_MASTER_ADDR and PET_MASTER_PORT: {addr.how}, {port.how}"
        launch.rendezvous = replace(launch.rendezvous, value=f"{addr.value}:{port.value}", given=True, span=addr.span, origin=how)
