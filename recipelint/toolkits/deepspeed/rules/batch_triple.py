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
derived); only the accumulation, or none of them. A fractional value (`16.5`) is not converted by
DeepSpeed: its floor divisions and `==` run on the float as written (`deepspeed_assertion`), so
`16.5 / 4 / 4` asserts `16.5 != 4 * 4 * 1`, and `16.5 / 4` derives accumulation `4.0` and asserts too,
while `16.5 / 5.5 / 3` passes on one GPU.

## Severity
Error: each case is an assertion of `DeepSpeedConfig._batch_assertion` /
`_set_batch_related_parameters` (`deepspeed/runtime/config.py`, every release in the model tables,
0.7.0 to 0.19.8 read alike) at `deepspeed.initialize`. A fractional triple whose assertion passes is
a warning: the run starts, but no data loader draws a fraction of a sample, so the batch trained is
not the one written; without a launch, the sizes 1 to 4096 are tried. A batch key that is not a
positive number (`"4"`, 0) is left to RL413/RL414, which say what DeepSpeed does with it; `null` is
"not given".

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
from recipelint.toolkits.deepspeed.rules._ds import data_parallel_size, ds_document, int_value, number_value

CODE = "RL415"
NAME = "deepspeed-batch-triple"
SEVERITY = Severity.ERROR
VISITS = ("deepspeed-config",)
FIXABLE = True
SOURCE = "deepspeedai/DeepSpeed@edaa7221:deepspeed/runtime/config.py: _set_batch_related_parameters / _batch_assertion (messages verified by running them)"
KEYS = ("train_batch_size", "train_micro_batch_size_per_gpu", "gradient_accumulation_steps")


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    doc = ds_document(ctx, versioned=False)  # the same in every release from 0.7.0
    if doc is None:
        return
    root = doc.root
    nodes = {key: root.get(key) for key in KEYS}
    if not _judged(ctx, root, nodes):
        return
    numbers = [number_value(root, key) for key in KEYS]
    if any(isinstance(n, float) and not n.is_integer() for n in numbers):
        yield _fractional(ctx, root, nodes, numbers)
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
        value = number_value(root, key)
        if value is not None and value <= 0:
            return False  # no arithmetic on a size of 0 or below: RL413 reports it (DeepSpeed asserts it is greater than 0)
        if node is not None and node.value is not None and value is None:
            return False  # "4", true: RL413 and RL414 say what DeepSpeed does with it; null is "not given"
    return True


Number = int | float
# The data-parallel sizes a fractional triple is tried at when no launch names the config.
ANY_WORLD = range(1, 4097)


def deepspeed_assertion(tbs: Number | None, mbs: Number | None, gas: Number | None, ws: Number) -> str | None:
    """`DeepSpeedConfig._set_batch_related_parameters` then `_batch_assertion`
    (deepspeed/runtime/config.py, the same from 0.7.0 to 0.19.8), on the values as written:
    DeepSpeed never converts them, so a float stays a float through its floor divisions and its
    `==`. Its assertion message, or None when the triple passes."""
    if tbs is not None and mbs is not None and gas is not None:
        pass
    elif tbs is not None and mbs is not None:
        gas = tbs // mbs // ws
    elif tbs is not None and gas is not None:
        mbs = tbs // ws // gas
    elif mbs is not None and gas is not None:
        tbs = mbs * gas * ws
    elif tbs is not None:
        gas, mbs = 1, tbs // ws
    elif mbs is not None:
        tbs, gas = mbs * ws, 1
    else:
        return "Either train_batch_size or train_micro_batch_size_per_gpu needs to be provided"
    assert tbs is not None and mbs is not None and gas is not None
    for value, label in ((tbs, "Train batch size"), (mbs, "Micro batch size per gpu"), (gas, "Gradient accumulation steps")):
        if not value > 0:
            return f"{label}: {value} has to be greater than 0"
    if tbs != mbs * gas * ws:
        return f"Check batch related parameters. train_batch_size is not equal to micro_batch_per_gpu * gradient_acc_step * world_size {tbs} != {mbs} * {gas} * {ws}"
    return None


def _fractional(ctx: Context, root: Node, nodes: dict[str, Node | None], numbers: list[Number | None]) -> Diagnostic | None:
    """A batch key with a fraction (16.5): DeepSpeed's arithmetic on it as written decides. An
    error where its assertion fails at the launch's data-parallel size (or at every size from 1
    to 4096 when no launch names the config); where it passes, a warning: the run starts, but no
    data loader draws a fraction of a sample, so the batch is not the one written."""
    tbs, mbs, gas = numbers
    key = next(k for k, n in zip(KEYS, numbers, strict=True) if isinstance(n, float) and not n.is_integer())
    node = nodes[key]
    assert node is not None
    written = ", ".join(f"{k} {n}" for k, n in zip(KEYS, numbers, strict=True) if n is not None)
    ws, origin = data_parallel_size(ctx, root)
    if ws is not None and ws < 1:
        return None  # more sequence-parallel ranks than GPUs: as for a whole triple, not judged here
    if ws is not None:
        said = deepspeed_assertion(tbs, mbs, gas, ws)
        evidence = [f"data-parallel size {ws}: {origin}"]
        passing = [] if said else [ws]
    else:
        passing = [size for size in ANY_WORLD if deepspeed_assertion(tbs, mbs, gas, size) is None]
        said = None if passing else deepspeed_assertion(tbs, mbs, gas, 1)
        evidence = ["no launch names this config: data-parallel sizes 1 to 4096 tried"]
    where = f"at data-parallel size {ws}" if ws is not None else "at every data-parallel size from 1 to 4096 (at size 1)"
    if said is not None:
        message = f"{written}: DeepSpeed's batch arithmetic takes the fraction as written (floor division on floats) and asserts {where}: '{said}'"
        return ctx.diagnostic(CODE, SEVERITY, message, node.span, setting=key, current=node.value, evidence=evidence)
    sizes = (
        ""
        if ws is not None
        else f" (it passes at data-parallel size {', '.join(map(str, passing[:5]))}{' ...' if len(passing) > 5 else ''})"
    )
    message = f"{written}: DeepSpeed's batch arithmetic takes the fraction as written and its assertion passes{sizes}, but no data loader draws a fraction of a sample: the batch trained is not the one written"
    return ctx.diagnostic(CODE, Severity.WARNING, message, node.span, setting=key, current=node.value, evidence=evidence)


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
