"""The DeepSpeed JSON disagrees with the train YAML where WeNet asserts they agree.

## What it does
Checks the four asserts in `check_modify_and_save_config` (wenet/utils/train_utils.py):
`train_micro_batch_size_per_gpu == 1`, `gradient_accumulation_steps == accum_grad`,
`gradient_clipping == grad_clip` and `steps_per_print == log_interval`.

## Why is this bad
Each mismatch is an AssertionError at start-up, after the job has its GPUs. WeNet batches
inside its own dataset, so DeepSpeed's micro batch must be 1; the other three are read from
both files and must match. Upstream's `aishell/rnnt/run_npu.sh` fails this way (grad_clip 4
vs gradient_clipping 5; wenet-e2e/wenet@01546996:examples/aishell/rnnt/run_npu.sh). YAML defaults when absent: grad_clip 50.0,
log_interval 10; accum_grad is effectively required.

## Example
YAML `accum_grad: 4`, JSON `"gradient_accumulation_steps": 1`.

## Fix
Writes the YAML's value into the JSON (micro batch: 1).

## Fix safety
Safe for `train_micro_batch_size_per_gpu` (WeNet requires 1) and `steps_per_print`
(logging only). Unsafe for `gradient_accumulation_steps` and `gradient_clipping`: they change
the optimisation, and which file holds the intended value is a guess.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Applicability, Diagnostic, Edit, Fix, Severity

TOOLKITS = ("wenet",)
CODE = "RL402"
NAME = "wenet-deepspeed-mismatch"
SEVERITY = Severity.ERROR
VISITS = ("launch",)
FIXABLE = True
SOURCE = "wenet-e2e/wenet@01546996:wenet/utils/train_utils.py: check_modify_and_save_config asserts"

# (JSON key, YAML key or None for a fixed value, YAML default, fix applicability)
PAIRS = (
    ("train_micro_batch_size_per_gpu", None, 1, Applicability.SAFE),
    ("gradient_accumulation_steps", "accum_grad", None, Applicability.UNSAFE),
    ("gradient_clipping", "grad_clip", 50.0, Applicability.UNSAFE),
    ("steps_per_print", "log_interval", 10, Applicability.SAFE),
)


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    recipe = ctx.recipe
    ds, config = recipe.ds_config, recipe.config
    if ds is None or recipe.launch is None or recipe.arg("train_engine").value != "deepspeed":
        return
    for json_key, yaml_key, default, applicability in PAIRS:
        node = ds.root.get(json_key)
        if yaml_key is None:
            expected, origin = default, "WeNet batches in its own dataset"
        elif config is not None:
            yaml_node = config.root.get(yaml_key)
            expected = yaml_node.value if yaml_node is not None else default
            origin = f"{yaml_key}: {expected} in {config.path.name}" + ("" if yaml_node is not None else " (default)")
        else:
            continue
        if expected is None:
            continue
        if node is None:
            yield ctx.diagnostic(
                CODE,
                SEVERITY,
                f"{json_key} is missing from {ds.path.name}; WeNet reads it and asserts it equals {expected} ({origin})",
                ds.root.span,
                setting=json_key,
                suggested=expected,
            )
            continue
        if _equal(node.value, expected):
            continue
        text = (
            str(int(expected)) if isinstance(expected, float) and expected.is_integer() and isinstance(node.value, int) else str(expected)
        )
        yield ctx.diagnostic(
            CODE,
            SEVERITY,
            f"{json_key} is {node.value} but WeNet asserts it equals {expected} ({origin})",
            node.span,
            setting=json_key,
            current=node.value,
            suggested=expected,
            evidence=[origin],
            fix=Fix((Edit(node.span, text),), applicability, f"set {json_key} to {text}"),
        )


def _equal(a: object, b: object) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool) and not isinstance(b, bool):
        return float(a) == float(b)
    return a == b
