"""The machine recipelint runs on is not the training node, so no rule judged its hardware.

## What it does
Without `--hardware` (and without `hardware = ...` in the settings), recipelint probes the
machine it runs on and compares it with what each recipe's launch asks for. When the launch
needs GPUs and this host has none, or fewer than the ranks per node the launch starts, or a
Slurm allocation (`SLURM_JOB_NUM_NODES`) holds another number of nodes than the recipe, this
host is not the training node. The rules that judge the node's hardware (those that declare
the facts they read: CPUs, memory, /dev/shm, GPUs, network) then see every fact as unknown,
and this info, once per run, names them and says how to give the node.

## Why is this bad
It is not: it says which checks did not run. Judging a recipe against a laptop or a CI runner
gives findings that are wrong on the node ("only 2 CPUs are usable") and fixes that would
rewrite upstream's values for the wrong machine.

## Example
`recipelint check examples/aishell/s0` on a laptop without a GPU: `run.sh:160 takes its GPU
count at run time (torchrun) and needs GPUs; this host has no GPU visible`.

## Fix
None. Save the node's profile on the node, `recipelint probe --output node.yaml`, then lint
anywhere with `--hardware node.yaml`, or put `hardware = "node.yaml"` in `recipelint.toml`
(found relative to that file). `--hardware host` judges the current machine anyway.

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.hardware.report import NOT_THE_NODE

CODE = NOT_THE_NODE
NAME = "host-not-training-node"
SEVERITY = Severity.INFO
VISITS = ()  # none per recipe: the runner produces its findings
FIXABLE = False
SOURCE = "the probe compared with the launch's GPUs and nodes (recipelint/hardware/host.py, docs/hardware.md)"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    # Emitted once per run by the engine, which sees every recipe's verdict; this module
    # carries the code and its documentation.
    return iter(())
