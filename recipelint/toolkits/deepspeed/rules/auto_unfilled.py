"""`"auto"` where nothing will fill it.

## What it does
`"auto"` is a placeholder Hugging Face transformers, Accelerate and XTuner replace before
DeepSpeed reads the config; DeepSpeed itself never resolves it. The rule knows who launches
the config: WeNet and a plain `deepspeed` launch fill nothing (every `"auto"` is an error);
under Hugging Face it flags `"auto"` on keys HF does not fill; Accelerate raises for any
`"auto"` it has no value for (it fills its plugin's keys, and at `accelerator.prepare` the
train batch size, the three hidden-size buckets and DummyOptim/DummyScheduler params); XTuner
fills the micro batch, accumulation, clipping and fp16/bf16. A JSON linted alone is judged against what any of them fills: a warning where a leftover
`"auto"` fails or changes the run (the batch keys, `gradient_clipping`, `zero_optimization.stage`,
`fp16/bf16.enabled`), info where DeepSpeed then uses its default for a tuning knob
(`stage3_max_live_parameters`, `offload_param.buffer_size`, ...).

`"auto"` in an `optimizer` or `scheduler` block DeepSpeed never builds (the training code
passes its own to `deepspeed.initialize`, e.g. Megatron-DeepSpeed) is not reported. `"auto"` under
a top-level key DeepSpeed never reads (a look-alike block: `zero_optimisation`) is ignored, not
"unfilled": info (RL410 reports the key), a warning where Accelerate may read the config, since
its `fill_match` raises for every leaf it cannot fill.

## Severity
An error where the run fails: the batch keys and `gradient_clipping` (TypeError in
`deepspeed/runtime/config.py` `_batch_assertion` and `engine.py` `clip_grad`, every release),
optimizer or scheduler params (the constructor), or Accelerate raises for it. A warning where plain
DeepSpeed drops it to the model's default (`DeepSpeedConfigModel.__init__`,
`deepspeed/runtime/config_utils.py`, since 0.7.0): it runs, not as written. Info where a filler may
fill it and the default is harmless; nothing for a key the model does not have (RL410).

## Why is this bad
What DeepSpeed does with a leftover `"auto"` (deepspeedai/DeepSpeed@edaa7221:deepspeed/runtime/config.py): in the batch triple,
`TypeError: '>' not supported between instances of 'str' and 'int'`; in
`gradient_clipping`, the same TypeError at the first step; in optimizer or scheduler params,
a TypeError in the constructor; in a pydantic block it is silently dropped and the default
used: `zero_optimization.stage: "auto"` trains at stage 0, `fp16/bf16.enabled: "auto"` in fp32.

A bare alias DeepSpeed accepts for a ZeRO-3 key (`prefetch_bucket_size`,
`param_persistence_threshold`, `max_live_parameters`, ...; the schema's `x-alias-of`) with
`"auto"` is never filled: transformers' `trainer_config_finalize` and Accelerate's
`_prepare_deepspeed` fill only the `stage3_` names (transformers
`src/transformers/integrations/deepspeed.py` at 02348331, accelerate
`src/accelerate/accelerator.py` and `utils/dataclasses.py` `fill_match` at 16cb6eb8), and
Accelerate then raises at `prepare`: ``ValueError: `zero_optimization.prefetch_bucket_size`
not found in kwargs`` (axolotl #2964).

## Example
WeNet with `"train_micro_batch_size_per_gpu": "auto"`; an HF launch with
`"zero_optimization": {"stage": 3, "prefetch_bucket_size": "auto"}`.

## Fix
For a bare alias: under Hugging Face, Accelerate or an unknown launcher, renames it to the
`stage3_` name they fill; where nothing fills it (WeNet, plain DeepSpeed, XTuner), writes the
default DeepSpeed already uses in its place (it drops `"auto"` in this pydantic block). None
for other keys: the value depends on the run.

## Fix safety
Safe: the rename is DeepSpeed's own alias (same field), and the explicit default is the value
DeepSpeed used anyway.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Applicability, Diagnostic, Edit, Fix, Severity
from recipelint.parse.tree import Document, Node
from recipelint.toolkits.deepspeed import models
from recipelint.toolkits.deepspeed.knowledge import filled_by, schema_node
from recipelint.toolkits.deepspeed.rules._ds import builds_block, ds_document

CODE = "RL416"
NAME = "deepspeed-auto-unfilled"
SEVERITY = Severity.ERROR
VISITS = ("deepspeed-config",)
FIXABLE = True
SOURCE = (
    'who resolves "auto": huggingface/transformers@00e12e7c:src/transformers/integrations/deepspeed.py, huggingface/accelerate@16cb6eb8:src/accelerate/utils/dataclasses.py (fill_match); '
    "what DeepSpeed does with it: deepspeedai/DeepSpeed@edaa7221:deepspeed/runtime/config.py"
)
FILLERS = {
    "none": "nothing fills it (the launch passes the JSON to DeepSpeed as is)",
    "hf": "Hugging Face does not fill this key",
    "accelerate": "Accelerate raises for it ('not found in kwargs')",
    "xtuner": "XTuner does not fill this key",
    "unknown": "neither Hugging Face, Accelerate nor XTuner fills this key",
}
DEFAULT_USED = "DeepSpeed silently drops it and uses the default"
# DeepSpeed's own legitimate "auto" values.
_OWN = {"pipeline.stages"}


def _modelled(path: str) -> bool:
    """Whether the newest release known hands the mapping at `path` to a pydantic model (which drops "auto")."""
    return path != "" and models.model_at(models.table(models.releases()[-1]), path) is not None


def _effect(path: str) -> str:
    top = path.split(".")[0]
    if path in ("train_batch_size", "train_micro_batch_size_per_gpu", "gradient_accumulation_steps"):
        return "DeepSpeed fails with TypeError in its batch arithmetic"
    if path == "gradient_clipping":
        return "DeepSpeed fails with TypeError at the first step"
    if top in ("optimizer", "scheduler"):
        return "the optimizer or scheduler gets the string: a TypeError when it is built (torch's classes check their numbers) or at the first step (DeepSpeed's fused ones do not)"
    if _modelled(path.rpartition(".")[0]):
        return DEFAULT_USED + (" (stage 0)" if path.endswith(".stage") else " (fp32 training)" if path.endswith(".enabled") else "")
    return "DeepSpeed receives the string"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    doc = ds_document(ctx)
    if doc is None:
        return
    filler = ctx.recipe.ds_filler
    written = set(ctx.recipe.reader.code_sets)  # the training code overwrites these before DeepSpeed reads them
    for node in doc.root.walk():
        if node.kind != "scalar" or node.value != "auto" or node.path in _OWN or "[" in node.path:
            continue
        if node.path.split(".")[0] in written:
            continue
        if filled_by(filler, node.path):
            continue
        block = node.path.split(".")[0]
        if block in ("optimizer", "scheduler") and builds_block(ctx, block)[0] is False:
            continue  # the training code passes its own: DeepSpeed never reads the block (RL421 says so)
        spec = schema_node(node.path)
        parent = node.path.rpartition(".")[0]
        if schema_node(block) is None and filler != "accelerate":
            yield _never_read(ctx, node, filler)
            continue
        if _modelled(parent) and node.path.rpartition(".")[2] not in models.keys_at(models.table(models.releases()[-1]), parent):
            continue  # a key the model does not have: DeepSpeed drops the "auto" with the key (RL410)
        if spec is not None and spec.get("x-alias-of"):
            yield _alias(ctx, doc, node, str(spec["x-alias-of"]), filler)
            continue
        severity = SEVERITY if filler in ("none", "accelerate") else Severity.WARNING
        effect = _effect(node.path)
        if filler == "none" and effect.startswith(DEFAULT_USED):
            severity = Severity.WARNING  # DeepSpeed runs with its default: not as written, no failure
        elif severity is Severity.WARNING and effect == DEFAULT_USED:
            severity = Severity.INFO  # a filler may not fill it, and then DeepSpeed's default is what "auto" gets
        yield ctx.diagnostic(
            CODE,
            severity,
            f'{node.path} is "auto" but {FILLERS.get(filler, FILLERS["unknown"])}: {_effect(node.path)}',
            node.span,
            setting=node.path,
            current="auto",
        )


def _never_read(ctx: Context, node: Node, filler: str) -> Diagnostic | None:
    """ "auto" under a top-level key DeepSpeed does not read (a look-alike block,
    `zero_optimisation`): nothing needs to fill it, DeepSpeed never sees it (RL410 reports the
    key). Unknown keys inside blocks it reads are not taken for ignored: `optimizer.params`,
    `scheduler.params` and `amp` hand theirs on. Accelerate walks every leaf and raises for it, so a launch that
    may be Accelerate's gets a warning with that condition."""
    said = f'{node.path} is "auto" in {node.path.split(".")[0]}, which DeepSpeed never reads: ignored, whatever fills it (RL410 reports the key)'
    if filler == "unknown":
        return ctx.diagnostic(
            CODE,
            Severity.WARNING,
            f"{said}; if Accelerate reads this config, it raises '`{node.path}` not found in kwargs'",
            node.span,
            setting=node.path,
            current="auto",
        )
    return ctx.diagnostic(CODE, Severity.INFO, said, node.span, setting=node.path, current="auto")


def _alias(ctx: Context, doc: Document, node: Node, canonical: str, filler: str) -> Diagnostic | None:
    """ "auto" on a bare alias: rename it to the stage3_ name the fillers know, or write DeepSpeed's default."""
    parent_path, _, key = node.path.rpartition(".")
    parent = doc.root.get(parent_path) if parent_path else doc.root
    target = f"{parent_path}.{canonical}" if parent_path else canonical
    fills = filler in ("hf", "accelerate", "unknown")
    fix = None
    if parent is None or parent.get(canonical) is not None:
        effect = f"and {canonical} is set too, which DeepSpeed rejects (extra_forbidden); remove {key}"
    elif fills:
        key_span = parent.key_span(key)
        fix = Fix((Edit(key_span, f'"{canonical}"'),), Applicability.SAFE, f"rename {key} to {canonical}") if key_span else None
        effect = f"Hugging Face and Accelerate fill \"auto\" only under {canonical}; Accelerate raises '`{node.path}` not found in kwargs' at prepare"
    else:
        default = (schema_node(target) or {}).get("default")
        if default is not None:
            fix = Fix(
                (Edit(node.span, str(default).lower() if isinstance(default, bool) else str(default)),),
                Applicability.SAFE,
                f"set {key} {default}",
            )
        effect = f"{FILLERS.get(filler, FILLERS['unknown'])}: DeepSpeed drops it and uses the default {default}"
    return ctx.diagnostic(
        CODE,
        SEVERITY if filler in ("none", "hf", "accelerate") else Severity.WARNING,
        f'{node.path} is "auto" on the bare alias of {canonical}: {effect}',
        node.span,
        setting=node.path,
        current="auto",
        suggested=canonical if fills else None,
        evidence=[
            "transformers trainer_config_finalize and Accelerate _prepare_deepspeed fill reduce_bucket_size, stage3_prefetch_bucket_size and stage3_param_persistence_threshold by name"
        ],
        fix=fix,
    )
