"""What a job's scheduler gives each node: the allocation a Slurm batch script or a Kubernetes
manifest writes beside the launch (nodes, tasks, GPUs, CPUs, memory, /dev/shm, time), each with
the directive it was read from.

A scheduler toolkit (recipelint.toolkits.slurm, recipelint.toolkits.kube) attaches one to each
recipe it finds inside the job (`Recipe.allocation`); when no profile is given, the run's
hardware takes the facts it states in place of the probe's (recipelint.hardware.machines), and
`recipelint show` prints each with its source. Nothing here names a scheduler's syntax.
"""

from __future__ import annotations

from typing import Any

from recipelint.parse.span import Span
from recipelint.records import dataclass, field

# The allocation's facts that stand for the node's hardware facts (recipelint.hardware.profile),
# in the order `show` prints them; the others (tasks, CPUs per task, time) are the job's own.
NODE_FACTS = ("nodes", "gpus", "cpus", "memory_gib", "shm_gib", "gpu_model", "gpu_compute_capability")
LABELS = {
    "nodes": "job nodes",
    "tasks_per_node": "job tasks per node",
    "gpus": "job GPUs per node",
    "gpu_model": "job GPU model",
    "gpu_compute_capability": "job GPU compute capability",
    "cpus_per_task": "job CPUs per task",
    "cpus": "job CPUs per node",
    "memory_gib": "job memory per node (GiB)",
    "shm_gib": "job /dev/shm (GiB)",
    "time": "job time limit",
}


@dataclass(frozen=True)
class Grant:
    """One fact of the allocation: its value, what the job file says, and where it says it."""

    value: Any
    said: str  # the directive as written, or the arithmetic over several: "#SBATCH --cpus-per-task=40 x 1 task"
    span: Span

    def source(self) -> str:
        return f"{self.said} ({self.span.path.name}:{self.span.line})"


@dataclass
class Allocation:
    """The job's allocation per node; a fact the job file does not state is absent from `grants`,
    with why in `unknown` when the scheduler's default is not the job's to say."""

    scheduler: str  # "Slurm", "Kubernetes": how messages and `show` name the source
    what: str  # what the job file states it in: "#SBATCH directives and srun flags", "the manifest's resources"
    path: Span  # where the job file declares it (the first directive, the manifest's kind)
    grants: dict[str, Grant] = field(default_factory=dict)  # keys of LABELS
    unknown: dict[str, str] = field(default_factory=dict)  # fact -> why the job file leaves it open
    # What the scheduler itself starts on each node: "srun" runs one copy of its program per task;
    # "pod": one container per replica (None: the launch starts its own processes).
    starter: str | None = None

    def get(self, name: str) -> Grant | None:
        return self.grants.get(name)

    def value(self, name: str) -> Any:
        grant = self.grants.get(name)
        return grant.value if grant is not None else None

    @property
    def label(self) -> str:
        return f"the job's {self.scheduler} allocation"

    def facts(self) -> dict[str, tuple[Any, str]]:
        """The node facts it states, as (value, source) by hardware fact name."""
        return {name: (grant.value, grant.source()) for name, grant in self.grants.items() if name in NODE_FACTS}

    def rows(self) -> list[tuple[str, str, str]]:
        """(label, value, source) for `show`, in LABELS order; the open ones with why."""
        found = [(LABELS[name], _shown(grant.value), grant.source()) for name, grant in self.grants.items()]
        found += [(LABELS[name], "not stated", why) for name, why in self.unknown.items() if name not in self.grants]
        order = list(LABELS.values())
        return sorted(found, key=lambda row: order.index(row[0]))


def _shown(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)
