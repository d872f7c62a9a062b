"""What the DeepSpeed rules share: the document, the target release, and the data-parallel size."""

from __future__ import annotations

from recipelint import versions
from recipelint.context import Context
from recipelint.parse.tree import Document, Node
from recipelint.toolkits.deepspeed.knowledge import looks_like_deepspeed


def ds_document(ctx: Context, versioned: bool = True) -> Document | None:
    """The recipe's DeepSpeed JSON, when it is one. `versioned`: the rule's verdict depends on the
    DeepSpeed release, so there is none when every release the run may import is older than the
    tables (RL429 says so once for the recipe)."""
    doc = ctx.recipe.ds_config
    if versioned and not ctx.version_range("deepspeed").points():
        return None
    if doc is None or doc.root.kind != "map":
        return None
    named_by_launch = ctx.recipe.launch is not None or ctx.recipe.ds_filler != "unknown"
    if not named_by_launch and not looks_like_deepspeed(doc.root):
        return None  # a JSON linted alone that is not a DeepSpeed config (package.json, a tokenizer, ...)
    return doc


def builds_block(ctx: Context, block: str) -> tuple[bool | None, str]:
    """Whether DeepSpeed builds the JSON's `optimizer` / `scheduler` block for this launch, and the
    clause that says why: True, the consumer hands it to DeepSpeed; False, the training code passes
    its own to deepspeed.initialize and the block is ignored; None, not known (the clause says on
    what it depends)."""
    consumer = ctx.recipe.reader
    builds = consumer.builds(block)
    own = "optimizer" if block == "optimizer" else "lr_scheduler"
    if builds is None:
        why = f"the consumer is {consumer.label}: {consumer.why()}" if consumer.why() else "no launch names this JSON"
        return None, f"if DeepSpeed builds this {block}, i.e. the training code passes no {own} to deepspeed.initialize ({why})"
    return builds, f"{consumer.label} ({consumer.why()})" if consumer.why() else consumer.label


def since(ctx: Context, release: str) -> versions.Verdict:
    """Whether the DeepSpeed the run imports is `release` or newer: over all the releases it may
    import, some (`verdict.condition` names them) or none."""
    floor = versions.parse(release)
    return versions.evaluate(ctx.version_range("deepspeed"), lambda version: version >= floor, (release,))


def enabled(root: Node, block: str) -> bool:
    node = root.get(f"{block}.enabled")
    return node is not None and node.value is True


def bf16_block(root: Node) -> str:
    """`bf16`, or the legacy alias `bfloat16` that DeepSpeed reads only when `bf16` is absent."""
    return "bf16" if root.get("bf16") is not None else "bfloat16"


def number_value(root: Node, key: str) -> int | float | None:
    """A number as written (not a boolean, not a string); None otherwise."""
    node = root.get(key)
    if node is None or isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
        return None
    return node.value


def int_value(root: Node, key: str) -> int | None:
    node = root.get(key)
    if node is None or isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
        return None
    return int(node.value) if float(node.value).is_integer() else None


def data_parallel_size(ctx: Context, root: Node) -> tuple[int | None, str]:
    """GPUs of the launch (the profile fills the ranks a launch leaves to the run time), divided by
    the sequence-parallel size in the config. A JSON with no launch has no data-parallel size: the
    launch that will run it decides (DeepSpeedExamples' compression configs run on one GPU of an
    8-GPU node), so the node's GPU count is not taken for it."""
    world = ctx.world_size if ctx.recipe.launch is not None else None
    origin = ctx.ranks_evidence if world is not None else ""
    if world is None:
        return None, ""
    model = ctx.recipe.model_parallel
    if model is not None and not isinstance(model.value, int):
        return None, ""  # the ranks per model replica are decided at run time
    if model is not None and model.value > 1:
        return world // model.value, f"{origin} / {model.value} ranks per model replica ({model.origin})"
    sp = int_value(root, "sequence_parallel_size") or 1
    if sp > 1:
        return world // sp, f"{origin} / sequence_parallel_size {sp}"
    return world, origin


def zero_stage(root: Node) -> int | None:
    """ZeRO's stage as DeepSpeed reads it (pydantic takes "2" for 2; a legacy `true` is stage 1);
    None when not known ("auto" is dropped or filled by a trainer)."""
    zero = root.get("zero_optimization")
    if zero is None:
        return 0
    if zero.kind == "scalar" and isinstance(zero.value, bool):
        return int(zero.value)
    stage = root.scalar("zero_optimization.stage") if zero.kind == "map" else None
    if stage is None and zero.kind == "map" and root.get("zero_optimization.stage") is None:
        return 0
    if isinstance(stage, (int, float)) and not isinstance(stage, bool) and float(stage).is_integer():
        return int(stage)
    return int(stage) if isinstance(stage, str) and stage.isdigit() else None
