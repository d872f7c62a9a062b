"""The node as a job's allocation states it: when no profile is given, the facts a Slurm batch
script or a Kubernetes manifest declares (recipelint.allocation) stand in for the probe's. What
the job may use is its cgroup (cpus-per-task, the pod's CPU limit), not the node's cores."""

from __future__ import annotations

from typing import TYPE_CHECKING

from recipelint.hardware.profile import Fact, Hardware

if TYPE_CHECKING:
    from recipelint.allocation import Allocation


def overlay(base: Hardware, allocation: Allocation) -> Hardware:
    """The allocation's facts over `base` (the probe taken as the node, or the masked probe): a
    fact the job file leaves open keeps the base's value, else says why it is open."""
    facts = dict(base.facts)
    for name, why in allocation.unknown.items():
        if name in facts and facts[name].value is not None:
            continue
        facts[name] = Fact(None, allocation.label, why)
    stated = allocation.facts()
    for name, (value, source) in stated.items():
        facts[name] = Fact(value, source)
    hardware = Hardware("allocation", facts, taken_at=base.taken_at, label=allocation.label)
    loader = base.gpu_loader
    if loader is not None:  # the GPU model and memory still come from the probe, loaded on first use
        hardware.gpu_loader = lambda: {name: fact for name, fact in loader().items() if name not in stated}
    hardware.chosen_by = f"no profile given: {allocation.what}"
    # The facts it does not state stay hidden as the masked probe's: RL004 names their rules once.
    hardware.not_node = base.not_node
    return hardware
