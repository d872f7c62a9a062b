"""The batch triple DeepSpeed asserts: train_batch_size = micro batch x accumulation x data-parallel size.

## What it does
Reproduces `DeepSpeedConfig._set_batch_related_parameters` and `_batch_assertion`
(deepspeedai/DeepSpeed@edaa7221:deepspeed/runtime/config.py) with the data-parallel size of the launch: nodes x GPUs per node from the
recipe (the hardware profile fills a GPU count the launch leaves to the run time), divided by
`sequence_parallel_size`. A JSON no launch names has no data-parallel size: then only a
`train_batch_size` that is not a multiple of the given micro batch x accumulation (no size
satisfies it) is reported. Every combination
DeepSpeed accepts or rejects gets its own message:
all three given and inconsistent; `train_batch_size` with the micro batch (accumulation
derived, 0 is rejected); with the accumulation (micro batch derived); alone (micro batch
derived); only the accumulation, or none of them.

## Severity
Error: each case is an assertion of `DeepSpeedConfig._batch_assertion` /
`_set_batch_related_parameters` (`deepspeed/runtime/config.py`, every release in the model tables,
0.10.0 to 0.19.8) at `deepspeed.initialize`. A batch key it cannot read as a positive integer
(1.5, `"4"`, 0) is left to RL413/RL414, which say what DeepSpeed does with it; `null` is "not given".

## Why is this bad
Each is an `AssertionError` in `deepspeed.initialize`, after the job has its GPUs:
"Check batch related parameters. train_batch_size is not equal to micro_batch_per_gpu *
gradient_acc_step * world_size 32 != 4 * 2 * 8", "Gradient accumulation steps: 0 has to be
greater than 0", "Either train_batch_size or train_micro_batch_size_per_gpu needs to be
provided". The same file often runs on a different GPU count than it was written for.

## Example
`{"train_batch_size": 32, "train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 2}`
on 2 nodes x 8 GPUs: 32 != 4 x 2 x 16.

## Fix
Rewrites the triple to the consistent one nearest to the global batch the file asks for
(`tuner.nearest_batch_triples`). The micro batch is what fits GPU memory: it is kept when
`train_batch_size` holds at least one micro batch per rank, and only lowered otherwise
(never raised). Among accumulations >= 1, the product closest to `train_batch_size` wins,
then the fewest rewritten keys, then the larger micro batch. Only keys the file gives are
rewritten; DeepSpeed derives the others. The evidence lists the next alternatives.
OpenRLHF #346: 256 on 7 GPUs with micro 2 x accumulation 18 becomes `train_batch_size` 252
(the alternative, 2 x 19 x 7 = 266, is further away); 32 with micro 4 x accumulation 2 on
16 GPUs becomes micro 1 (1 x 2 x 16 = 32).

## Fix safety
Unsafe: it changes the global batch or the per-GPU batch, and which of the three values is
intended is a guess.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint import tuner
from recipelint.context import Context
from recipelint.diagnostics import Applicability, Diagnostic, Edit, Fix, Severity
from recipelint.parse.tree import Node
from recipelint.toolkits.deepspeed.rules._ds import data_parallel_size, ds_document, int_value

CODE = "RL415"
NAME = "deepspeed-batch-triple"
SEVERITY = Severity.ERROR
FIXABLE = True
SOURCE = "deepspeedai/DeepSpeed@edaa7221:deepspeed/runtime/config.py: _set_batch_related_parameters / _batch_assertion (messages verified by running them)"
KEYS = ("train_batch_size", "train_micro_batch_size_per_gpu", "gradient_accumulation_steps")


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    doc = ds_document(ctx)
    if doc is None:
        return
    root = doc.root
    nodes = {key: root.get(key) for key in KEYS}
    if not _judged(ctx, root, nodes):
        return
    tbs, mbs, gas = (int_value(root, key) for key in KEYS)
    if tbs is None and mbs is None:
        if ctx.recipe.ds_filler != "none":
            return  # HF, Accelerate, XTuner and the autotuner pass the batch size themselves
        span = nodes["gradient_accumulation_steps"].span if nodes["gradient_accumulation_steps"] else root.span
        yield ctx.diagnostic(
            CODE,
            SEVERITY,
            "neither train_batch_size nor train_micro_batch_size_per_gpu is set: DeepSpeed asserts 'Either train_batch_size or train_micro_batch_size_per_gpu needs to be provided'",
            span,
            setting="train_micro_batch_size_per_gpu",
        )
        return
    if tbs is None:
        return  # without train_batch_size DeepSpeed derives it: always consistent
    ws, origin = data_parallel_size(ctx, root)
    if ws is None:
        yield from _on_any_world(ctx, nodes, tbs, mbs, gas)
        return
    if ws < 1:
        return
    evidence = [f"data-parallel size {ws}: {origin}", "DeepSpeed derives missing values with floor division"]
    tbs_node = nodes["train_batch_size"]
    assert tbs_node is not None
    message = _inconsistent(tbs, mbs, gas, ws)
    if message is None:
        return
    fix, suggested = _nearest_fix(nodes, tbs, mbs, gas, ws, evidence)
    shown = suggested if suggested != tbs else None  # the fix keeps train_batch_size: its title names what changes
    yield ctx.diagnostic(
        CODE, SEVERITY, message, tbs_node.span, setting="train_batch_size", current=tbs, suggested=shown, evidence=evidence, fix=fix
    )


def _judged(ctx: Context, root: Node, nodes: dict[str, Node | None]) -> bool:
    """Whether the triple is DeepSpeed's arithmetic to redo here."""
    if set(KEYS) & set(ctx.recipe.reader.code_sets):
        return False  # the training code writes the batch sizes itself before deepspeed.initialize
    if any(node is not None and node.value == "auto" for node in nodes.values()):
        return False  # filled at launch: RL416 says whether anything fills it
    if root.get("elasticity.enabled") is not None and root.scalar("elasticity.enabled") is True:
        return False
    for key, node in nodes.items():
        value = int_value(root, key)
        if value is not None and value < 1:
            return False  # no arithmetic on a size below 1: RL413 reports it (DeepSpeed asserts it is greater than 0)
        if node is not None and node.value is not None and value is None:
            return False  # 1.5, "4": RL413 and RL414 say what DeepSpeed does with it; null is "not given"
    return True


def _inconsistent(tbs: int, mbs: int | None, gas: int | None, ws: int) -> str | None:
    """What DeepSpeed asserts for this triple at data-parallel size `ws`; None when it passes.

    Given all three, DeepSpeed checks the product; otherwise it derives the missing values with
    floor division, then asserts the product."""
    if mbs is not None and gas is not None:
        if tbs == mbs * gas * ws:
            return None
        return f"train_batch_size {tbs} != micro batch {mbs} x accumulation {gas} x data-parallel size {ws} = {mbs * gas * ws}: DeepSpeed's batch assertion fails"
    if mbs is not None:
        derived = tbs // mbs // ws
        zero = f"train_batch_size {tbs} < micro batch {mbs} x data-parallel size {ws}: DeepSpeed derives gradient_accumulation_steps 0 and asserts 'Gradient accumulation steps: 0 has to be greater than 0'"
        wrong = (
            f"train_batch_size {tbs} is not a multiple of micro batch {mbs} x data-parallel size {ws}: DeepSpeed derives accumulation {derived} and asserts {tbs} != {mbs} * {derived} * {ws}",
            mbs * derived * ws,
        )
    elif gas is not None:
        derived = tbs // ws // gas
        zero = f"train_batch_size {tbs} < data-parallel size {ws} x accumulation {gas}: DeepSpeed derives micro batch 0 and asserts 'Micro batch size per gpu: 0 has to be greater than 0'"
        wrong = (
            f"train_batch_size {tbs} is not a multiple of data-parallel size {ws} x accumulation {gas}: DeepSpeed derives micro batch {derived} and asserts {tbs} != {derived} * {gas} * {ws}",
            derived * gas * ws,
        )
    else:
        derived = tbs // ws
        zero = f"train_batch_size {tbs} alone on data-parallel size {ws}: DeepSpeed derives micro batch 0 and asserts 'Micro batch size per gpu: 0 has to be greater than 0'"
        wrong = (
            f"train_batch_size {tbs} alone is not a multiple of data-parallel size {ws}: DeepSpeed derives micro batch {derived} and asserts {tbs} != {derived} * 1 * {ws}",
            derived * ws,
        )
    if derived == 0:
        return zero
    return wrong[0] if wrong[1] != tbs else None


def _on_any_world(ctx: Context, nodes: dict[str, Node | None], tbs: int, mbs: int | None, gas: int | None) -> Iterator[Diagnostic | None]:
    """Without a launch the data-parallel size is unknown: only a triple no size can satisfy,
    `train_batch_size` not a multiple of micro batch x accumulation, is reported."""
    per_rank = (mbs or 1) * (gas or 1)
    if mbs is None and gas is None or (tbs >= per_rank and tbs % per_rank == 0):
        return
    given = " x ".join(f"{name} {value}" for name, value in (("micro batch", mbs), ("accumulation", gas)) if value is not None)
    tbs_node = nodes["train_batch_size"]
    assert tbs_node is not None
    yield ctx.diagnostic(
        CODE,
        SEVERITY,
        f"train_batch_size {tbs} is not a multiple of {given} = {per_rank}: DeepSpeed's batch assertion fails on every data-parallel size",
        tbs_node.span,
        setting="train_batch_size",
        current=tbs,
        evidence=["no launch names this config: its data-parallel size is unknown, and none makes the triple consistent"],
    )


def _nearest_fix(
    nodes: dict[str, Node | None], tbs: int, mbs: int | None, gas: int | None, ws: int, evidence: list[str]
) -> tuple[Fix | None, int]:
    """The fix to the nearest consistent triple; the alternatives go to the evidence."""
    ranked = tuner.nearest_batch_triples(tbs, mbs, gas, ws)
    if not ranked:
        return None, tbs
    best = ranked[0]
    values = {
        "train_batch_size": best.total,
        "train_micro_batch_size_per_gpu": best.micro,
        "gradient_accumulation_steps": best.accumulation,
    }
    edits = []
    for key in best.changed:
        node = nodes[key]
        if node is None:
            return None, best.total
        edits.append(Edit(node.span, str(values[key])))
    evidence.append(f"nearest consistent: {best.describe()} ({tuner.__name__}.nearest_batch_triples)")
    evidence.extend(f"alternative: {other.describe()}" for other in ranked[1:])
    title = "set " + ", ".join(f"{key} {values[key]}" for key in best.changed)
    return Fix(tuple(edits), Applicability.UNSAFE, title), best.total
