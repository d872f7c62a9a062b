"""Is the machine recipelint runs on the training node? Decided per recipe, from the probe and
what the recipe's launch asks for.

Without `--hardware`, recipelint probes the machine it runs on. That machine is usually a
laptop or a CI runner, not the node the job will train on: judging the recipe's worker counts,
prefetch queues or network settings against it gives findings (and fixes) that are wrong there.
The probe is taken as the training node only when nothing contradicts it:

- the launch needs GPUs (WeNet's CUDA default, a DeepSpeed or XTuner launch) and this host has
  none, or fewer than the ranks per node the launch writes: not the node;
- a scheduler allocation states a node count (`SLURM_JOB_NUM_NODES`) and the recipe asks for
  another: not the node. Outside an allocation the host may be one node of a multi-node job
  started by hand on each node, so its count is not compared.

When it is not the node, the rules see every hardware fact as unknown (`masked`), so no
finding and no fix can come from this host's CPUs, memory, /dev/shm, GPUs or network.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

from recipelint.hardware.profile import FACT_KEYS, Fact, Hardware
from recipelint.records import dataclass

if TYPE_CHECKING:
    from recipelint.model import Recipe
    from recipelint.parse.span import Span

SLURM_NODES = ("SLURM_JOB_NUM_NODES", "SLURM_NNODES")
# WeNet 3's train.py: --device default cuda (wenet.md 1); cpu and npu are the other choices.
NO_GPU_DEVICES = ("cpu",)


@dataclass(frozen=True)
class Verdict:
    """Whether the probed host stands in for the training node, and why (one sentence)."""

    node: bool
    why: str
    where: Span | None = None  # the launch (or file) the decision rests on


@dataclass(frozen=True)
class Need:
    """What a recipe asks of each node: GPUs (a count, or None for "at least one") and nodes."""

    gpus: bool
    per_node: int | None
    nodes: int | None
    what: str  # the evidence, e.g. "run.sh:160 starts 8 ranks per node (torchrun)"
    accelerators: str = "GPUs"


def need(recipe: Recipe) -> Need | None:
    """What the recipe asks of its node; None when it asks nothing recipelint can compare."""
    launch = recipe.launch
    if launch is None:
        if recipe.ds_config is not None:
            return Need(True, None, None, f"{recipe.ds_config.path.name} is a DeepSpeed config")
        for part in recipe.read_parts():
            return Need(True, None, None, f"{part.source.path.name} is {part.kind}")
        return None
    where = f"{launch.command.span.path.name}:{launch.command.span.line}"
    device = launch.device
    if device in NO_GPU_DEVICES:
        return Need(False, None, None, f"{where} trains on --device {device}")
    nodes = launch.nnodes.as_int() if launch.nnodes.given else None
    per_node = launch.nproc_per_node.as_int()
    # Ascend NPUs are not seen by the probe (NVML counts NVIDIA GPUs): say so, `--hardware host` remains.
    other = device not in (None, "cuda")
    how = f"{launch.launcher}, --device {device}: the probe sees NVIDIA GPUs only" if other else launch.launcher
    kind = f"{str(device).upper()}s" if other else "GPUs"
    if per_node is not None and per_node > 0:
        return Need(True, per_node, nodes, f"{where} starts {per_node} rank{'s' if per_node != 1 else ''} per node ({how})", kind)
    return Need(True, None, nodes, f"{where} takes its {'device' if other else 'GPU'} count at run time ({how})", kind)


def judge(recipe: Recipe, hardware: Hardware, environ: Mapping[str, str] | None = None) -> Verdict:
    """Whether the probed `hardware` can stand for the node `recipe` trains on."""
    environ = os.environ if environ is None else environ
    asked = need(recipe)
    where = recipe.launch.command.span if recipe.launch is not None else None
    if asked is None:
        return Verdict(True, "the recipe names no launch to compare this host with", where)
    allocation = _allocation_nodes(environ)
    if allocation is not None and asked.nodes is not None and allocation[0] != asked.nodes:
        return Verdict(False, f"{asked.what} on {asked.nodes} node(s), this host's allocation has {allocation[0]} ({allocation[1]})", where)
    if not asked.gpus:
        return Verdict(True, f"{asked.what}: no GPU needed", where)
    gpus = hardware.fact("gpus")
    count = gpus.value if isinstance(gpus.value, int) else 0
    if count == 0:
        have = "no GPU" if gpus.known else f"no GPU visible ({gpus.reason or 'unknown'})"
        return Verdict(False, f"{asked.what} and needs {asked.accelerators}; this host has {have}", where)
    enough = asked.per_node is None or count >= asked.per_node
    return Verdict(enough, f"{asked.what}; this host has {count} GPU{'s' if count != 1 else ''}", where)


def _allocation_nodes(environ: Mapping[str, str]) -> tuple[int, str] | None:
    for name in SLURM_NODES:
        value = environ.get(name, "")
        if value.isdigit() and int(value) > 0:
            return int(value), f"{name}={value}"
    return None


def masked(hardware: Hardware, verdict: Verdict) -> Hardware:
    """The hardware as the rules see it when the host is not the node: every fact unknown, with why."""
    reason = f"this host is not the training node: {verdict.why}"
    hidden = Hardware("none", {key: Fact(None, "not judged", reason) for key in FACT_KEYS}, not_node=reason)
    return hidden
