"""DeepSpeed configs: which JSON is one, and what the schema says about a key path."""

from __future__ import annotations

from functools import cache
from typing import Any

from recipelint.parse.tree import Document, Node
from recipelint.schemas import load_schema

SCHEMA = "deepspeed/ds_config.schema.json"
# Top-level keys that say "DeepSpeed config" when they have DeepSpeed's shape. Keys trainers
# share (`gradient_accumulation_steps`; `bf16: true` in Hugging Face or ms-swift arguments) are
# not evidence: ms-swift's examples/yaml/deepspeed/sft.json is trainer arguments.
_SIGNATURE_ANY = {
    "train_batch_size",
    "train_micro_batch_size_per_gpu",
    "steps_per_print",
    "gradient_clipping",
    "zero_allow_untested_optimizer",
    "zero_force_ds_cpu_optimizer",
    "wall_clock_breakdown",
}
_SIGNATURE_BLOCKS = {"zero_optimization", "fp16", "bf16", "bfloat16", "activation_checkpointing", "flops_profiler", "amp"}
_SIGNATURE_TYPED = {"optimizer", "scheduler"}  # a block with a `type`
MIN_SIGNATURE = 2
# Flags DeepSpeedConfig._initialize_params combines with `|` (deepspeed/runtime/config.py, every
# release from 0.7.0 to 0.19.8: `get_wall_clock_breakdown(param_dict) | self.flops_profiler_config.enabled`,
# both read with dict.get): anything but a boolean or an integer on either side is a TypeError at
# start-up, not a value tested for truth.
BITOR_FLAGS = ("wall_clock_breakdown", "flops_profiler.enabled")

# Keys Accelerate fills when they say "auto": its DeepSpeedPlugin (accelerate utils/dataclasses.py)
# and Accelerator._prepare_deepspeed (accelerate/accelerator.py at 16cb6eb8: train_batch_size with a
# dataloader; the three hidden-size keys from model.config.hidden_size; optimizer and scheduler
# params for DummyOptim / DummyScheduler).
ACCELERATE_FILLS = {
    "gradient_accumulation_steps",
    "gradient_clipping",
    "train_micro_batch_size_per_gpu",
    "train_batch_size",
    "zero_optimization.reduce_bucket_size",
    "zero_optimization.stage3_prefetch_bucket_size",
    "zero_optimization.stage3_param_persistence_threshold",
    "optimizer.params.lr",
    "optimizer.params.weight_decay",
    "scheduler.params.warmup_min_lr",
    "scheduler.params.warmup_max_lr",
    "scheduler.params.warmup_num_steps",
    "scheduler.params.total_num_steps",
    "zero_optimization.stage",
    "zero_optimization.offload_optimizer.device",
    "zero_optimization.offload_param.device",
    "zero_optimization.offload_optimizer.nvme_path",
    "zero_optimization.offload_param.nvme_path",
    "zero_optimization.stage3_gather_16bit_weights_on_model_save",
    "fp16.enabled",
    "bf16.enabled",
}
# Keys XTuner fills: its DeepSpeedStrategy (micro batch, accumulation, clipping) and
# auto_dtype_of_deepspeed_config (fp16/bf16); not train_batch_size (xtuner.md sections 1, 3).
XTUNER_FILLS = {"train_micro_batch_size_per_gpu", "gradient_accumulation_steps", "gradient_clipping", "fp16.enabled", "bf16.enabled"}


# A JSON found by walking a folder is read only when it may be a config: small, with a signature
# key written as a key. Data files (JSON lines, model outputs holding `Infinity`, 1.5 MB of
# training samples) are no recipe and no error.
WALKED_JSON_BYTES = 1024 * 1024


def may_be_deepspeed(head: bytes) -> bool:
    import re

    keys = "|".join(sorted(_SIGNATURE_ANY | _SIGNATURE_BLOCKS | _SIGNATURE_TYPED))
    return re.search(rb'"(?:' + keys.encode() + rb')"\s*:', head) is not None


def deepspeed_evidence(root: Node) -> tuple[list[str], list[str]]:
    """The top-level keys that are DeepSpeed signatures, and those DeepSpeed does not know."""
    if root.kind != "map":
        return [], []
    known = set((schema_node("") or {}).get("properties", {}))
    signature = []
    foreign = []
    for key, node in root.entries.items():
        if key not in known:
            foreign.append(key)
        if key in _SIGNATURE_ANY or (key in _SIGNATURE_BLOCKS and node.kind == "map"):
            signature.append(key)
        elif key in _SIGNATURE_TYPED and node.kind == "map" and node.get("type") is not None:
            signature.append(key)
    return signature, foreign


def named_deepspeed(document: Document) -> bool:
    """Whether a JSON a launch names as its DeepSpeed config is one: an object holding a key
    DeepSpeed reads, or nothing (all defaults). A Docker `config.json` (`auths`) or a data file is
    not, and none of its values may reach a report."""
    root = document.root
    if root.kind != "map":
        return False
    known = set((schema_node("") or {}).get("properties", {}))
    return not root.entries or any(key in known for key in root.entries)


def looks_like_deepspeed(root: Node) -> bool:
    """A JSON nobody launches is DeepSpeed's when at least two signature keys say so and keys
    DeepSpeed does not know are not the majority, or when every key is DeepSpeed's and one of
    them is a signature."""
    signature, foreign = deepspeed_evidence(root)
    if len(signature) >= MIN_SIGNATURE:
        return len(foreign) * 2 <= len(root.entries)
    return bool(signature) and not foreign


def _object_branch(node: dict[str, Any]) -> dict[str, Any]:
    """For `anyOf: [object, null|bool|auto]`, the object branch."""
    for option in node.get("anyOf", []):
        if option.get("type") == "object" or "properties" in option:
            return dict(option)
    return node


@cache
def schema_node(path: str) -> dict[str, Any] | None:
    """The schema of a dotted key path, or None when the schema does not know it."""
    node: dict[str, Any] = load_schema(SCHEMA)
    for part in path.split(".") if path else []:
        node = _object_branch(node)
        properties = node.get("properties", {})
        if part not in properties:
            return None
        node = properties[part]
    return _object_branch(node) if path else node


def hf_fills(path: str) -> bool:
    node = schema_node(path)
    if node is None:
        return False
    if node.get("x-hf-fills"):
        return True
    parent, _, leaf = path.rpartition(".")
    params = schema_node(parent)
    return bool(params and params.get("properties", {}).get(leaf, {}).get("x-hf-fills"))


def filled_by(filler: str, path: str) -> bool:
    if filler == "hf":
        return hf_fills(path)
    if filler == "accelerate":
        return path in ACCELERATE_FILLS
    if filler == "xtuner":
        return path in XTUNER_FILLS
    if filler == "unknown":
        return hf_fills(path) or path in ACCELERATE_FILLS or path in XTUNER_FILLS
    return False  # "none": nothing fills it
