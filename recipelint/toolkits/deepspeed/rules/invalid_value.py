"""A DeepSpeed value DeepSpeed rejects: the wrong type, outside its bounds, not one of its values,
or a block that is not an object.

## What it does
Judges the keys DeepSpeed hands to its pydantic models (`zero_optimization` with its offload,
`zenflow` and `leaf_module` blocks, `fp16`/`bf16` since 0.17.1, `tensor_parallel`, the monitors,
`compile`, `hybrid_engine`, `timers.throughput`) the way the models of the releases the run
imports do: the tables `tools/build_deepspeed_models.py` reads from DeepSpeed's source
(`schemas/deepspeed/models/<release>.json`, with the tag or sdist each came from): field types
with pydantic's lax coercions (`1`/`"true"` are booleans, `"3"` and `1.0` integers, `1.5` no
integer on pydantic 2), `Field(gt=, ge=, lt=, le=)` bounds (`reduce_bucket_size` 0 since it is
`gt=0`, a negative `allgather_bucket_size`, a fractional `stage3_max_live_parameters`), enums
(`"stage": 4`, `"device": "CPU"`), and the validators no annotation says: fp16's dynamic loss
scaling with `loss_scale_window` or `min_loss_scale` 0 (`_validate_dynamic_loss_scale_params`,
`deepspeed/runtime/precision_config.py`, v0.19.3 on), ZenFlow's `validate_fields`
(`deepspeed/runtime/zenflow/zenflow_config.py`). A block that is not an object
(`"zero_optimization": "stage2"`, `"bf16": "true"`) fails before any field: "argument after **
must be a mapping".

Keys DeepSpeed reads with `dict.get` (the top level, `optimizer`, `scheduler`, `aio`, ...) are
judged against `schemas/deepspeed/ds_config.schema.json`, by what the code then does with them:
`steps_per_print: 0` divides by zero at the first step (an error); a negative
`gradient_clipping` turns clipping off (`if self.gradient_clipping() > 0.0`,
`deepspeed/runtime/engine.py`: a warning); a negative `steps_per_print` prints every |n| steps
(info); a fractional `steps_per_print` reports where `global_steps % 50.5 == 0` holds (float `%` is
exact: every 101 steps, a warning); `0`/`1` or `null` for a flag is tested for truth and accepted
(nothing); `null` for a batch size is "not given" (nothing); a fractional batch size is RL415's
(DeepSpeed's batch arithmetic on it as written). `wall_clock_breakdown` and
`flops_profiler.enabled` are not tested for truth: `DeepSpeedConfig._initialize_params` computes
`get_wall_clock_breakdown(param_dict) | self.flops_profiler_config.enabled` (deepspeed/runtime/config.py,
every release from 0.7.0 to 0.19.8), so a string, `null` or a float on either side is
`TypeError: unsupported operand type(s) for |` at start-up (an error); `0`/`1` pass. `"auto"` is left to RL416, strings that stand for
booleans or numbers to RL414, unknown keys to RL410, the batch triple to RL415.

## Severity
Error where every release the run may import rejects the value at `deepspeed.initialize` or
fails at the first step; a warning naming the releases when only some do (older models lacked a
bound or a validator), or when DeepSpeed accepts the value and does something else than written.

## Why is this bad
DeepSpeed stops at `deepspeed.initialize` ("1 validation error for DeepSpeedZeroConfig ...
Input should be greater than 0"), after the job has its GPUs.

## Example
```json
"zero_optimization": {"stage": 3, "reduce_bucket_size": 0, "offload_param": {"device": "CPU"}}
```

## Fix
None: the intended value is not knowable.

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import Any

from recipelint import versions
from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.parse.tree import Document
from recipelint.schemas import validate
from recipelint.toolkits.deepspeed import models
from recipelint.toolkits.deepspeed.knowledge import BITOR_FLAGS, SCHEMA, schema_node
from recipelint.toolkits.deepspeed.rules._ds import ds_document

CODE = "RL413"
NAME = "deepspeed-invalid-value"
SEVERITY = Severity.ERROR
VISITS = ("deepspeed-config",)
FIXABLE = False
SOURCE = "schemas/deepspeed/models/ (tools/build_deepspeed_models.py reads the pydantic models of each release, e.g. deepspeedai/DeepSpeed@v0.19.5:deepspeed/runtime/zero/config.py); schemas/deepspeed/ds_config.schema.json for the keys read with dict.get"
BATCH = ("train_batch_size", "train_micro_batch_size_per_gpu", "gradient_accumulation_steps")


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    doc = ds_document(ctx)
    if doc is None:
        return
    plain = doc.root.plain()
    rng = ctx.version_range("deepspeed")
    yield from _model_findings(ctx, doc, plain, rng)
    yield from _schema_findings(ctx, doc, plain, rng)
    yield _allreduce_sum(ctx, doc, plain, rng)
    yield _bitor(ctx, doc, plain)


def _bitor(ctx: Context, doc: Document, plain: dict[str, Any]) -> Diagnostic | None:
    """`get_wall_clock_breakdown(param_dict) | self.flops_profiler_config.enabled`: Python's `|` on
    the two values as written (each `False` when absent) raises for a string, null or float."""
    flops = plain.get("flops_profiler", {})
    if not isinstance(flops, dict):
        return None
    values = (plain.get("wall_clock_breakdown", False), flops.get("enabled", False))
    if "auto" in values:
        return None  # RL416
    try:
        values[0] | values[1]
        return None
    except TypeError as exc:
        error = str(exc)
    bad = next(path for path, value in zip(BITOR_FLAGS, values, strict=True) if not isinstance(value, int))  # bool is an int
    node = doc.root.get(bad)
    if node is None:
        return None
    return ctx.diagnostic(
        CODE,
        SEVERITY,
        f"{bad} {_show(node.value)}: DeepSpeedConfig computes get_wall_clock_breakdown(param_dict) | self.flops_profiler_config.enabled on the values as written and raises TypeError: {error} (deepspeed/runtime/config.py, every release from 0.7.0 to 0.19.8)",
        node.span,
        setting=bad,
        current=node.value,
    )


# DeepSpeedConfig._do_error_check refuses a 'sum' gradient all-reduce with ZeRO stage 3, ZenFlow
# or DeepCompile: deepspeed/runtime/config.py of the 0.19.6, 0.19.7 and 0.19.8 sdists
# (https://pypi.org/project/deepspeed/0.19.6/); 0.19.5 has no gradient_allreduce_op.
ALLREDUCE_SUM_SINCE = "0.19.6"


def _allreduce_sum(ctx: Context, doc: Document, plain: dict[str, Any], rng: versions.Range) -> Diagnostic | None:
    op = plain.get("gradient_allreduce_op")
    node = doc.root.get("gradient_allreduce_op")
    if not isinstance(op, str) or op.lower() != "sum" or node is None:
        return None
    zero_value, compile_value = plain.get("zero_optimization"), plain.get("compile")
    zero: dict[str, Any] = zero_value if isinstance(zero_value, dict) else {}
    compile_block: dict[str, Any] = compile_value if isinstance(compile_value, dict) else {}
    stage = zero.get("stage")
    refused = [
        name
        for name, on in (
            ("ZeRO stage 3", not isinstance(stage, bool) and str(stage).strip() in ("3", "3.0")),
            ("ZenFlow", zero.get("zenflow") is not None),
            ("DeepCompile", compile_block.get("deepcompile") is True),
        )
        if on
    ]
    if not refused:
        return None
    since = versions.parse(ALLREDUCE_SUM_SINCE)
    verdict = versions.evaluate(rng, lambda version: version >= since, (ALLREDUCE_SUM_SINCE,))
    if verdict.holds == "none":
        return None
    effect = "DeepSpeedConfig raises ValueError at deepspeed.initialize"
    return ctx.diagnostic(
        CODE,
        SEVERITY if verdict.holds == "all" else Severity.WARNING,
        f"gradient_allreduce_op 'sum' is not supported with {' or '.join(refused)}: {effect}"
        + ("" if verdict.holds == "all" else f" {verdict.says()}")
        + " (deepspeed/runtime/config.py, DeepSpeed >= 0.19.6)",
        node.span,
        setting="gradient_allreduce_op",
        current=op,
        evidence=[f"target {verdict.range.allows()}"],
    )


def _model_findings(ctx: Context, doc: Document, plain: dict[str, Any], rng: versions.Range) -> Iterator[Diagnostic | None]:
    """What the models of the releases in the range reject: an error where all do."""
    found: dict[str, list[models.Problem]] = {}
    for _, release in models.points(rng):
        if release not in found:
            found[release] = models.problems(plain, release)
    order: dict[tuple[str, str], models.Problem] = {}
    every: dict[str, list[models.Problem]] = {}
    for problems in found.values():
        for problem in problems:
            order.setdefault((problem.path, problem.message), problem)
    for key, problem in order.items():
        if problem.path == "zero_optimization.cpu_offload" and problem.message.startswith("Cannot provide"):
            continue  # RL411 reports cpu_offload beside offload_optimizer
        holders = [release for release, problems in found.items() if any((p.path, p.message) == key for p in problems)]
        verdict = versions.evaluate(rng, _rejects(found, key), models.releases())
        if verdict.holds == "none":
            continue
        if not every:  # which releases reject it, over all the tables: only for what is found
            every.update({release: models.problems(plain, release) for release in models.releases()})
        since = versions.held(models.releases(), _rejects(every, key))
        yield _model_finding(ctx, doc, problem, verdict, holders[-1], since)


def _rejects(found: dict[str, list[models.Problem]], key: tuple[str, str]) -> Callable[[versions.Version], bool]:
    def at(version: versions.Version) -> bool:
        return any((p.path, p.message) == key for p in found.get(str(models.table_for(version)["release"]), []))

    return at


def _model_finding(
    ctx: Context, doc: Document, problem: models.Problem, verdict: versions.Verdict, release: str, since: str
) -> Diagnostic | None:
    node = doc.root.get(problem.path)
    while node is None and "." in problem.path:
        problem = models.Problem(problem.path.rpartition(".")[0], problem.message, problem.model, problem.file, problem.release)
        node = doc.root.get(problem.path)
    if node is None:
        return None
    shown = f" {_show(node.value)}" if node.kind == "scalar" else ""
    where = f"{problem.model}, {problem.file}; rejected {since}"
    if verdict.holds == "all":
        severity, effect = SEVERITY, "DeepSpeed rejects it at deepspeed.initialize"
    else:
        severity, effect = Severity.WARNING, f"DeepSpeed rejects it at deepspeed.initialize {verdict.says()}"
    return ctx.diagnostic(
        CODE,
        severity,
        f"{problem.path}{shown}: {problem.message}: {effect} ({where})",
        node.span,
        setting=problem.path,
        current=node.value if node.kind == "scalar" else None,
        evidence=[f"target {verdict.range.allows()}", f"model table: {models.provenance(models.table(release))}"],
    )


def _show(value: Any) -> str:
    return (
        "null"
        if value is None
        else ("true" if value is True else "false" if value is False else repr(value) if isinstance(value, str) else str(value))
    )


def _under_model(path: str, rng: versions.Range) -> bool:
    """Whether some release in the range hands this key to a pydantic model (then the models judge it)."""
    return any(models.block_of(models.table(release), path) is not None for _, release in models.points(rng))


def _without_auto(value: Any) -> Any:
    """RL416 judges "auto"."""
    if isinstance(value, dict):
        return {k: _without_auto(v) for k, v in value.items() if v != "auto"}
    if isinstance(value, list):
        return [_without_auto(v) for v in value]
    return value


def _stringly(value: Any) -> bool:
    return (
        isinstance(value, str)
        and value.strip().lower() in ("true", "false", "yes", "no")
        or (isinstance(value, str) and value.strip().lstrip("-").replace(".", "", 1).isdigit())
    )


def _schema_findings(ctx: Context, doc: Document, plain: dict[str, Any], rng: versions.Range) -> Iterator[Diagnostic | None]:
    """The keys DeepSpeed reads with dict.get, against the JSON Schema, by what the code does with them."""
    for problem in validate(SCHEMA, _without_auto(plain)):
        if "Additional properties" in problem.message or "were unexpected" in problem.message:
            continue  # RL410
        node = doc.root.get(problem.path) if problem.path else None
        if node is None or problem.path in BITOR_FLAGS or _under_model(problem.path, rng):
            continue
        if node.kind == "map" and "is not valid under any of the given schemas" in problem.message:
            continue  # a block with a nested problem: the nested one is reported on its own
        if node.kind == "scalar" and _stringly(node.value):
            continue  # RL414
        verdict = _dict_get_verdict(problem.path, node.value)
        if verdict is None:
            continue
        severity, effect = verdict
        yield ctx.diagnostic(
            CODE, severity, f"invalid value: {problem.message}{effect}", node.span, setting=problem.path, current=node.value
        )


def _dict_get_verdict(path: str, value: Any) -> tuple[Severity, str] | None:
    """What DeepSpeed's `dict.get` reading does with a value the schema does not allow."""
    kinds = _kinds(schema_node(path) or {})
    if value is None and (path in BATCH or kinds == {"boolean"}):
        return None  # null: a batch size not given; a flag tested for truth (off)
    if isinstance(value, int) and not isinstance(value, bool) and value in (0, 1) and kinds == {"boolean"}:
        return None  # `if flag:` takes 0 and 1 as written
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if path == "gradient_clipping" and number and value < 0:
        return Severity.WARNING, ": DeepSpeed clips only when it is > 0 (deepspeed/runtime/engine.py), so clipping is off"
    if path == "steps_per_print" and isinstance(value, float) and value > 0 and not value.is_integer():
        # `global_steps % steps_per_print == 0` on a float: float % is exact, so it holds at the
        # multiples of the value's numerator in lowest terms (50.5 = 101/2: every 101 steps).
        every = Fraction(value).numerator
        when = f"every {every} steps" if every < 10**9 else "never in practice"
        return Severity.WARNING, f": DeepSpeed reports when global_steps % {value} == 0 (deepspeed/runtime/engine.py), which holds {when}"
    if path == "steps_per_print" and number and value < 0:
        return Severity.INFO, f": DeepSpeed reports every {-int(value)} steps (global_steps % {int(value)} == 0 holds there)"
    if path in BATCH and isinstance(value, float) and value > 0 and not value.is_integer():
        return None  # RL415 does DeepSpeed's batch arithmetic on it as written
    return SEVERITY, ""


def _kinds(spec: dict[str, Any]) -> set[str]:
    found: set[str] = set()
    for option in [spec, *spec.get("anyOf", [])]:
        kind = option.get("type")
        found.update([kind] if isinstance(kind, str) else kind or [])
    return found - {"null"} if "boolean" in found else found
