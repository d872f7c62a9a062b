"""Build schemas/deepspeed/ds_config.schema.json from the key tree in shared/reference/deepspeed.md section 4,
with ZeRO's bounds and the zenflow and tensor_parallel blocks from the newest model table
(schemas/deepspeed/models/, tools/build_deepspeed_models.py).

Run: python tools/build_deepspeed_schema.py. Blocks DeepSpeed validates with pydantic
(`extra="forbid"`) get `additionalProperties: false`; blocks read with `dict.get` stay open and
carry `x-lenient: true`, so recipelint warns about unknown keys there instead of failing.
Annotations recipelint reads: x-lenient, x-hf-fills (Hugging Face fills "auto"), x-removed-in,
x-replaced-by, x-default-by-version, x-alias-of (a bare alias of a stage3_ key), x-removed-values
(values of a key a release no longer accepts).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent.parent / "schemas" / "deepspeed" / "ds_config.schema.json"
AUTO = {"$ref": "#/$defs/auto"}


def t(kind: str | list[str], desc: str, default: Any = None, auto: bool = False, **extra: Any) -> dict[str, Any]:
    node: dict[str, Any] = {"type": kind, "description": desc}
    if default is not None:
        node["default"] = default
    node.update(extra)
    if auto:
        node["x-hf-fills"] = True
        return {"anyOf": [node, AUTO], "description": desc, **({"default": default} if default is not None else {}), "x-hf-fills": True}
    return node


def b(desc: str, default: bool | None = False, **extra: Any) -> dict[str, Any]:
    return t("boolean", desc, default, **extra)


def i(desc: str, default: int | None = None, minimum: int | None = 0, **extra: Any) -> dict[str, Any]:
    if minimum is not None:
        extra["minimum"] = minimum
    return t("integer", desc, default, **extra)


def n(desc: str, default: float | None = None, **extra: Any) -> dict[str, Any]:
    return t("number", desc, default, **extra)


def s(desc: str, default: str | None = None, **extra: Any) -> dict[str, Any]:
    return t("string", desc, default, **extra)


def strict(desc: str, props: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": "object", "description": desc, "properties": props, "additionalProperties": False, **extra}


def lenient(desc: str, props: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": "object", "description": desc, "properties": props, "x-lenient": True, **extra}


def removed(desc: str, version: str, replaced: str | None = None) -> dict[str, Any]:
    node: dict[str, Any] = {
        "description": f"{desc} Removed: DeepSpeed {version} rejects the key.",
        "deprecated": True,
        "x-removed-in": version,
    }
    if replaced:
        node["x-replaced-by"] = replaced
    return node


def alias(node: dict[str, Any], of: str) -> dict[str, Any]:
    """A bare pydantic alias DeepSpeed accepts for a stage3_ name. Hugging Face and Accelerate
    fill "auto" only under the stage3_ name, so recipelint renames it."""
    return {**node, "x-alias-of": of}


def deprecated(desc: str, replaced: str, **extra: Any) -> dict[str, Any]:
    return {"description": f"Deprecated: {desc} Use {replaced}.", "deprecated": True, "x-replaced-by": replaced, **extra}


DTYPE = {
    "enum": ["fp16", "bf16", "fp32", None],
    "description": "fp16, bf16 or fp32 (DeepSpeed accepts any case; recipelint asks for lower case).",
}

offload_common = {
    "device": {
        "enum": ["none", "cpu", "nvme"],
        "default": "none",
        "description": "Where to offload: none, cpu or nvme (lower case only; the docs' default 'cpu' is wrong, the code's is 'none').",
    },
    "nvme_path": t(["string", "null"], "Directory on the NVMe device; required when device is nvme (not checked until zero.Init)."),
    "pin_memory": b(
        "Page-locked host buffers. Default true since 0.19.5 (false before).",
        True,
        **{"x-default-by-version": {"0.19.5": True, "0": False}},
    ),
    "buffer_count": i("Number of buffers in the swap pool."),
}
offload_param = strict(
    "Offload parameters (ZeRO stage 3 only; silently ignored below stage 3).",
    {
        **offload_common,
        "buffer_count": i("Buffers for parameter swapping.", 5),
        "buffer_size": i("Size of each buffer (elements).", 100000000),
        "max_in_cpu": i("Parameter elements kept in CPU memory with nvme offload.", 1000000000),
    },
)
offload_optimizer = strict(
    "Offload optimizer states (ZeRO stage 1, 2, 3; NVMe only with stage 3).",
    {
        **offload_common,
        "buffer_count": i("Buffers for optimizer-state swapping (at least the number of states: Adam 4).", 4),
        "pipeline_read": b("Overlap reads with the optimizer step (nvme)."),
        "pipeline_write": b("Overlap writes with the optimizer step (nvme)."),
        "fast_init": b("Fast optimizer initialisation with nvme."),
        "ratio": n("Fraction of optimizer states offloaded; below 1.0 requires stage 3.", 1.0, minimum=0, maximum=1),
        "super_offload": b("SuperOffload (stage 3, since 0.18.0)."),
        "cpuadam_cores_perc": n("Share of cores for DeepSpeedCPUAdam.", 0.8, minimum=0, maximum=1),
    },
)

zero = strict(
    "ZeRO optimizer (pydantic, unknown keys rejected since 0.7.0). A bare boolean is the legacy form (true = stage 1).",
    {
        "stage": {
            "anyOf": [{"enum": [0, 1, 2, 3]}, AUTO],
            "default": 0,
            "description": "0 (disabled), 1 (optimizer states), 2 (+ gradients), 3 (+ parameters).",
            "x-hf-fills": True,
        },
        "contiguous_gradients": b("Copy gradients to a contiguous buffer.", True),
        "reduce_scatter": b("Reduce-scatter instead of all-reduce for gradients.", True),
        "reduce_bucket_size": t(["integer", "number"], "Elements reduced at a time (not bytes).", 500000000, auto=True),
        "use_multi_rank_bucket_allreduce": b("Multi-rank bucket all-reduce.", True),
        "allgather_partitions": b("All-gather instead of broadcast after the step.", True),
        "allgather_bucket_size": t(["integer", "number"], "Elements all-gathered at a time.", 500000000),
        "overlap_comm": b(
            "Overlap gradient reduction with backward. Default: true for stage 3, false otherwise (the docs say false).", None
        ),
        "load_from_fp32_weights": b("Initialise fp32 master weights from the checkpoint's fp32 copy.", True),
        "elastic_checkpoint": b("Elastic checkpoint (unsupported with stage 3)."),
        "offload_param": {"anyOf": [offload_param, {"type": "null"}], "description": offload_param["description"]},
        "offload_optimizer": {"anyOf": [offload_optimizer, {"type": "null"}], "description": offload_optimizer["description"]},
        "zenflow": {"type": ["object", "null"], "description": "ZenFlow configuration."},
        "sub_group_size": t(
            ["integer", "number"], "Parameter elements per optimizer sub-group. Default 1e9 (the docs say 1e12).", 1000000000
        ),
        "stage3_prefetch_bucket_size": t(
            ["integer", "number"],
            "Elements prefetched ahead (alias prefetch_bucket_size). Default 5e7 (the docs say 5e8).",
            50000000,
            auto=True,
        ),
        "prefetch_bucket_size": alias(
            t(["integer", "number"], "Alias of stage3_prefetch_bucket_size (Hugging Face fills only the stage3_ name)."),
            "stage3_prefetch_bucket_size",
        ),
        "stage3_param_persistence_threshold": t(
            ["integer", "number"], "Parameters smaller than this are not partitioned.", 100000, auto=True
        ),
        "param_persistence_threshold": alias(
            t(["integer", "number"], "Alias of stage3_param_persistence_threshold."), "stage3_param_persistence_threshold"
        ),
        "stage3_model_persistence_threshold": t(["integer", "number"], "Upper bound on unpartitioned parameters."),
        "model_persistence_threshold": alias(
            t(["integer", "number"], "Alias of stage3_model_persistence_threshold."), "stage3_model_persistence_threshold"
        ),
        "stage3_max_live_parameters": t(["integer", "number"], "Parameters resident per GPU before release.", 1000000000),
        "max_live_parameters": alias(t(["integer", "number"], "Alias of stage3_max_live_parameters."), "stage3_max_live_parameters"),
        "stage3_max_reuse_distance": t(["integer", "number"], "Keep a parameter if reused within this many parameters.", 1000000000),
        "max_reuse_distance": alias(t(["integer", "number"], "Alias of stage3_max_reuse_distance."), "stage3_max_reuse_distance"),
        "stage3_gather_16bit_weights_on_model_save": {
            "anyOf": [{"type": "boolean"}, AUTO],
            "default": False,
            "description": "Gather 16-bit weights when saving (alias gather_16bit_weights_on_model_save).",
            "x-hf-fills": True,
        },
        "gather_16bit_weights_on_model_save": alias(
            b("Alias of stage3_gather_16bit_weights_on_model_save."), "stage3_gather_16bit_weights_on_model_save"
        ),
        "stage3_module_granularity_threshold": i("Module granularity threshold (since 0.16.0).", 0),
        "module_granularity_threshold": alias(i("Alias of stage3_module_granularity_threshold."), "stage3_module_granularity_threshold"),
        "stage3_use_all_reduce_for_fetch_params": b("Fetch parameters with all-reduce (since 0.14.3)."),
        "stage3_allgather_sequential": b("Sequential all-gather (since 0.18.5)."),
        "ignore_unused_parameters": b("Tolerate parameters without gradients.", True),
        "legacy_stage1": b("Legacy stage 1 implementation."),
        "round_robin_gradients": b("Round-robin gradient partitioning (stage 1/2 with offload)."),
        "zero_hpz_partition_size": i("ZeRO++ hierarchical partition size (since 0.10.0).", 1),
        "zero_quantized_weights": b("ZeRO++ quantized weights (since 0.10.0)."),
        "zero_quantized_gradients": b("ZeRO++ quantized gradients (since 0.10.0)."),
        "zero_quantized_nontrainable_weights": b("Quantize non-trainable weights (since 0.10.2)."),
        "zeropp_loco_param": removed("LoCo-ZeRO++ error feedback.", "0.19.8"),
        "mics_shard_size": removed("MiCS sharding.", "0.19.7"),
        "mics_hierarchical_params_gather": removed("MiCS hierarchical gather.", "0.19.7"),
        "memory_efficient_linear": b("Memory-efficient linear layers.", True),
        "override_module_apply": b("Override module apply.", True),
        "pipeline_loading_checkpoint": b("Pipeline checkpoint loading."),
        "log_trace_cache_warnings": b("Log trace cache warnings."),
        "enable_sanity_checks": b("Sanity checks."),
        "save_muon_momentum_buffer_in_memory": b("Keep the Muon momentum buffer in memory."),
        "leaf_module": strict(
            "ZeRO-3 leaf modules.",
            {
                "classes": {"type": "array", "items": {"type": "string"}},
                "names": {"type": "array", "items": {"type": "string"}},
                "name_suffixes": {"type": "array", "items": {"type": "string"}},
            },
        ),
        "cpu_offload": deprecated(
            "offloads optimizer states to CPU (warning 'Config parameter cpu_offload is deprecated use offload_optimizer instead').",
            'offload_optimizer: {"device": "cpu"}',
            type="boolean",
        ),
        "cpu_offload_param": deprecated("offloads parameters to CPU.", 'offload_param: {"device": "cpu"}', type="boolean"),
        "cpu_offload_use_pin_memory": deprecated(
            "warning only; the value is not applied.", "offload_optimizer.pin_memory / offload_param.pin_memory", type="boolean"
        ),
        "stage3_gather_fp16_weights_on_model_save": deprecated("old name.", "stage3_gather_16bit_weights_on_model_save", type="boolean"),
    },
)

precision_fp16 = strict(
    "fp16 mixed precision (pydantic since 0.17.1: unknown keys rejected; read with dict.get before).",
    {
        "enabled": {
            "anyOf": [{"type": "boolean"}, AUTO],
            "default": False,
            "description": "Enable fp16 (needs compute capability 7.0+).",
            "x-hf-fills": True,
        },
        "auto_cast": b("Cast inputs to fp16."),
        "loss_scale": n("0 = dynamic loss scaling, else a fixed scale; must be finite and >= 0.", 0, minimum=0),
        "initial_scale_power": i("Initial dynamic scale 2**p.", 16),
        "loss_scale_window": i("Steps between scale increases; > 0 with dynamic scaling.", 1000),
        "hysteresis": i("Overflow steps tolerated before lowering the scale.", 2),
        "consecutive_hysteresis": b("Refill hysteresis on every good step."),
        "min_loss_scale": i("Lowest dynamic scale; > 0 with dynamic scaling.", 1),
        "fp16_master_weights_and_grads": b("fp16 master weights (ZeRO 1/2/3 only)."),
    },
    **{"x-strict-since": "0.17.1"},
)
precision_bf16 = strict(
    "bf16 mixed precision (pydantic since 0.17.1). Needs compute capability 8.0+ (Ampere).",
    {
        "enabled": {
            "anyOf": [{"type": "boolean"}, AUTO],
            "default": False,
            "description": "Enable bf16 (compute capability 8.0+).",
            "x-hf-fills": True,
        },
        "immediate_grad_update": b("Apply gradients immediately.", False),
        "check_grad_overflow": b(
            "Check gradients for overflow. Default true since 0.19.3 (false 0.17.1-0.19.2).",
            True,
            **{"x-default-by-version": {"0.19.3": True, "0.17.1": False}},
        ),
        "bf16_master_weights_and_grads": b("bf16 master weights (ZeRO 1/2/3)."),
        "bf16_optimizer_states": b("bf16 optimizer states (needs bf16_master_weights_and_grads)."),
    },
    **{"x-strict-since": "0.17.1"},
)


def monitor(desc: str, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    return strict(
        desc,
        {"enabled": b("Enable."), "output_path": s("Output folder.", ""), "job_name": s("Job name.", "DeepSpeedJobName"), **(extra or {})},
    )


OPT_TYPES = "adam, adamw, lamb, adagrad, muadam, muadamw, musgd, lion, muon (any case), or a torch.optim class name (case-sensitive); onebitadam, zerooneadam and onebitlamb up to 0.19.6"
# Optimizers dropped from DEEPSPEED_OPTIMIZERS (deepspeed/runtime/config.py; present in the 0.19.6
# sdist, absent from 0.19.7 and 0.19.8): the engine then asserts "<type> is not a supported
# DeepSpeed Optimizer". Keys are the lower-case names DeepSpeed matches.
REMOVED_OPTIMIZERS = {"onebitadam": "0.19.7", "zerooneadam": "0.19.7", "onebitlamb": "0.19.7"}
SCHED_TYPES = ["LRRangeTest", "OneCycle", "WarmupLR", "WarmupDecayLR", "WarmupCosineLR"]

properties: dict[str, Any] = {
    "train_batch_size": {
        "anyOf": [{"type": "integer", "minimum": 1}, AUTO],
        "description": "Global batch: train_micro_batch_size_per_gpu x gradient_accumulation_steps x data-parallel size.",
        "x-hf-fills": True,
    },
    "train_micro_batch_size_per_gpu": {
        "anyOf": [{"type": "integer", "minimum": 1}, AUTO],
        "description": "Samples per GPU per step.",
        "x-hf-fills": True,
    },
    "gradient_accumulation_steps": {
        "anyOf": [{"type": "integer", "minimum": 1}, AUTO],
        "description": "Micro steps per optimizer step (derived as 1 when absent).",
        "x-hf-fills": True,
    },
    "managed_gradient_accumulation": b("Managed gradient accumulation (since 0.19.4).", True),
    "gradient_clipping": {
        "anyOf": [{"type": "number", "minimum": 0}, AUTO],
        "default": 1.0,
        "description": "Gradient norm clipping; 0 disables. Default 1.0 since 0.19.3 (0.0 before).",
        "x-hf-fills": True,
        "x-default-by-version": {"0.19.3": 1.0, "0": 0.0},
    },
    "steps_per_print": {
        "type": ["integer", "null"],
        "minimum": 1,
        "description": "Progress report every N steps; 0 divides by zero. Default None since 0.15.2 (10 before; the docs still say 10).",
        "x-default-by-version": {"0.15.2": None, "0": 10},
    },
    "wall_clock_breakdown": b("Time forward/backward/step."),
    "memory_breakdown": b("Report memory use."),
    "dump_state": b("Print the engine state after init."),
    "disable_allgather": b("Disable all-gather."),
    "sparse_gradients": removed("Sparse gradient compression for embeddings.", "0.19.8"),
    "prescale_gradients": b("Scale gradients before all-reduce."),
    "gradient_predivide_factor": n("Divide gradients by this before all-reduce.", 1.0),
    "gradient_allreduce_op": {
        "enum": ["mean", "sum", "MEAN", "SUM"],
        "default": "mean",
        "description": "Gradient all-reduce operation (after 0.19.5).",
    },
    "communication_data_type": DTYPE,
    "seq_parallel_communication_data_type": DTYPE,
    "zero_allow_untested_optimizer": b("Allow a client optimizer ZeRO has not been tested with."),
    "zero_force_ds_cpu_optimizer": b("Require DeepSpeedCPUAdam/CPULion with offload (since 0.8.3).", True),
    "dataloader_drop_last": b("Drop the last incomplete batch of DeepSpeed's loader."),
    "vocabulary_size": i("Vocabulary size (warns if not a multiple of 8)."),
    "log_level": s("Log level (since 0.19.3)."),
    "graph_harvesting": removed("Graph harvesting.", "0.19.8"),
    "use_data_before_expert_parallelism": b("Use data before expert parallelism."),
    "sequence_parallel_size": i("Ulysses sequence-parallel size: divides the data-parallel size.", 1, minimum=1),
    "data_parallel_size": i("Data-parallel size for the device mesh.", None, minimum=1),
    "fp16": precision_fp16,
    "bf16": precision_bf16,
    "bfloat16": {**precision_bf16, "description": "Legacy alias of bf16, used only when bf16 is absent."},
    "amp": removed("NVIDIA Apex AMP.", "0.19.8", "fp16, bf16 or torch_autocast"),
    "torch_autocast": lenient(
        "torch.autocast (since 0.17.2).",
        {
            "enabled": b("Enable."),
            "dtype": {
                "enum": ["fp16", "float16", "half", "torch.float16", "bf16", "bfloat16", "torch.bfloat16", "fp32", "float", "float32"],
                "description": "Autocast dtype.",
            },
            "lower_precision_safe_modules": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Module classes safe in lower precision.",
            },
        },
    ),
    "data_types": lenient("Data types.", {"grad_accum_dtype": DTYPE, "param_dtype": DTYPE, "buffer_dtype": DTYPE}),
    "optimizer": lenient(
        "Optimizer (read with dict.get; params go to the constructor, where unknown names raise TypeError).",
        {
            "type": s(f"Optimizer: {OPT_TYPES}.", **{"x-removed-values": REMOVED_OPTIMIZERS}),
            "params": {
                "type": "object",
                "description": "Constructor arguments (lr, betas, eps, weight_decay; adam_w_mode defaults to true). max_grad_norm is rejected: use gradient_clipping.",
                "properties": {
                    "lr": {"anyOf": [{"type": "number"}, AUTO], "x-hf-fills": True},
                    "betas": {"anyOf": [{"type": "array"}, AUTO], "x-hf-fills": True},
                    "eps": {"anyOf": [{"type": "number"}, AUTO], "x-hf-fills": True},
                    "weight_decay": {"anyOf": [{"type": "number"}, AUTO], "x-hf-fills": True},
                },
            },
            "legacy_fusion": b("Legacy fused optimizer."),
        },
    ),
    "scheduler": lenient(
        "Learning-rate scheduler (read with dict.get; params go to the constructor).",
        {
            "type": s(f"One of {', '.join(SCHED_TYPES)} (case-sensitive), or a torch.optim.lr_scheduler class."),
            "params": {
                "type": "object",
                "description": "Constructor arguments.",
                "properties": {
                    k: {"anyOf": [{"type": "number"}, AUTO], "x-hf-fills": True}
                    for k in ("warmup_min_lr", "warmup_max_lr", "warmup_num_steps", "total_num_steps")
                },
            },
        },
    ),
    "zero_optimization": {"anyOf": [zero, {"type": "boolean"}], "description": zero["description"]},
    "activation_checkpointing": lenient(
        "Activation checkpointing.",
        {
            "partition_activations": b("Partition activations across model-parallel GPUs."),
            "contiguous_memory_optimization": b("Contiguous checkpoint buffers."),
            "cpu_checkpointing": b("Checkpoint to CPU."),
            "number_checkpoints": t(["integer", "null"], "Number of checkpoints."),
            "synchronize_checkpoint_boundary": b("Synchronize at boundaries."),
            "profile": b("Profile."),
        },
    ),
    "flops_profiler": lenient(
        "FLOPS profiler.",
        {
            "enabled": b("Enable."),
            "recompute_fwd_factor": n("Recompute factor.", 0.0),
            "profile_step": i("Step to profile.", 1),
            "module_depth": i("Depth.", -1, minimum=None),
            "top_modules": i("Top modules (default 1; the docs say 3).", 1),
            "detailed": b("Detailed.", True),
            "output_file": t(["string", "null"], "Output file."),
        },
    ),
    "comms_logger": strict(
        "Communication logger (pydantic).",
        {
            "enabled": b("Enable."),
            "verbose": b("Verbose."),
            "prof_all": b("Profile all ops.", True),
            "debug": b("Debug."),
            "prof_ops": {"type": "array", "items": {"type": "string"}, "description": "Ops to profile."},
        },
    ),
    "tensorboard": monitor("TensorBoard monitor (pydantic since 0.8.1)."),
    "csv_monitor": monitor("CSV monitor (pydantic since 0.8.1)."),
    "wandb": strict(
        "Weights & Biases monitor (pydantic).",
        {
            "enabled": b("Enable."),
            "group": t(["string", "null"], "Group."),
            "team": t(["string", "null"], "Team."),
            "project": s("Project.", "deepspeed"),
        },
    ),
    "comet": strict(
        "Comet monitor (pydantic).",
        {
            k: {"description": k}
            for k in (
                "enabled",
                "samples_log_interval",
                "project",
                "workspace",
                "api_key",
                "experiment_name",
                "experiment_key",
                "online",
                "mode",
            )
        },
    ),
    "aio": lenient(
        "Async I/O for NVMe offload (top level).",
        {
            "block_size": i("Block size.", 1048576),
            "queue_depth": i("Queue depth.", 8),
            "intra_op_parallelism": i("Parallelism (was thread_count before 0.16.4; the old key is ignored).", 1),
            "thread_count": deprecated("renamed in 0.16.4; now ignored.", "aio.intra_op_parallelism"),
            "single_submit": b("Single submit."),
            "overlap_events": b("Overlap events.", True),
            "use_gds": b("GPUDirect Storage."),
        },
    ),
    "checkpoint": lenient(
        "Checkpointing.",
        {
            "tag_validation": {
                "enum": ["Warn", "Ignore", "Fail", "warn", "ignore", "fail", "WARN", "IGNORE", "FAIL"],
                "default": "Warn",
                "description": "Tag validation.",
            },
            "load_universal": b("Load a universal checkpoint."),
            "use_node_local_storage": b("Node-local storage."),
            "parallel_write": {"type": "object"},
            "checkpoint_serialization": b("Serialization.", True),
            "writer": {"type": "object"},
        },
    ),
    "pipeline": lenient(
        "Pipeline parallelism.",
        {
            "stages": {"description": "Stages or 'auto'.", "default": "auto"},
            "partition": s("Partition method.", "best"),
            "seed_layers": b("Seed layers."),
            "activation_checkpoint_interval": i("Interval.", 0),
            "pipe_partitioned": b("Partitioned pipe.", True),
            "grad_partitioned": b("Partitioned gradients.", True),
            "use_reentrant": b("Reentrant checkpointing.", True),
        },
    ),
    "elasticity": removed("Elastic training.", "0.19.8", "train_batch_size / train_micro_batch_size_per_gpu / gradient_accumulation_steps"),
    "autotuning": lenient(
        "Autotuning.",
        {
            k: {"description": k}
            for k in (
                "enabled",
                "fast",
                "results_dir",
                "exps_dir",
                "overwrite",
                "metric",
                "start_profile_step",
                "end_profile_step",
                "metric_path",
                "tuner_type",
                "tuner_early_stopping",
                "tuner_num_trials",
                "arg_mappings",
                "model_info",
                "model_info_path",
                "mp_size",
                "max_train_batch_size",
                "min_train_batch_size",
                "max_train_micro_batch_size_per_gpu",
                "min_train_micro_batch_size_per_gpu",
                "num_tuning_micro_batch_sizes",
            )
        },
    ),
    "data_efficiency": lenient(
        "Data efficiency (curriculum learning, random-LTD).",
        {"enabled": b("Enable."), "seed": i("Seed.", 1234), "data_sampling": {"type": "object"}, "data_routing": {"type": "object"}},
    ),
    "curriculum_learning": removed("Legacy top-level curriculum learning.", "0.19.8", "data_efficiency.data_sampling.curriculum_learning"),
    "compression_training": removed("Compression library (quantization, pruning, layer reduction).", "0.19.7"),
    "sparse_attention": removed("Sparse attention.", "0.19.7"),
    "progressive_layer_drop": removed("Progressive layer dropping.", "0.19.8"),
    "quantize_training": removed("Mixture-of-Quantization (MoQ).", "0.19.7"),
    "eigenvalue": removed("Eigenvalue-based MoQ.", "0.19.8"),
    "nebula": removed("Nebula checkpointing.", "0.19.7"),
    "compile": strict(
        "DeepCompile (pydantic).",
        {
            k: {"description": k}
            for k in (
                "deepcompile",
                "autoep_non_moe",
                "free_activation",
                "free_activation_threshold",
                "offload_activation",
                "offload_activation_pin_memory",
                "offload_opt_states",
                "double_buffer",
                "symmetric_memory",
                "debug_log",
                "offload_parameters",
                "sync_before_reduce",
                "sync_after_reduce",
                "sync_before_allgather",
                "sync_after_allgather",
                "keep_int_input_tensors",
                "keep_all_input_tensors",
                "passes",
            )
        },
    ),
    "timers": lenient(
        "Timers.",
        {"throughput": strict("Throughput timer (pydantic).", {"enabled": b("Enable.", True), "synchronized": b("Synchronized.", True)})},
    ),
    "tensor_parallel": strict(
        "Tensor parallelism (pydantic).",
        {k: {"description": k} for k in ("autotp_size", "tp_overlap_comm", "tp", "partition_config", "preset_model", "dtype")},
    ),
    "hybrid_engine": strict(
        "Hybrid engine (pydantic).",
        {
            k: {"description": k}
            for k in (
                "enabled",
                "max_out_tokens",
                "inference_tp_size",
                "release_inference_cache",
                "pin_parameters",
                "tp_gather_partition_size",
                "enable_cuda_graph",
            )
        },
    ),
    "weight_quantization": {"type": "object", "description": "Inference weight quantization."},
    "expert_parallel": {"type": "object", "description": "AutoEP expert parallelism (own parser)."},
    "datastates": {"type": "object", "description": "DataStates checkpointing."},
}

# What DeepSpeed's models enforce, from the newest release table tools/build_deepspeed_models.py
# reads from DeepSpeed's source: the bounds of ZeRO's fields, and the blocks this file never
# spelled out (zenflow, tensor_parallel) whole.
MODELS = OUT.parent / "models"
_SCALAR = {"bool": "boolean", "int": "integer", "float": "number", "str": "string", "Path": "string"}
_BOUND = {"gt": "exclusiveMinimum", "ge": "minimum", "lt": "exclusiveMaximum", "le": "maximum"}


def _newest_table() -> dict[str, Any]:
    def key(path: Path) -> tuple[int, ...]:
        return tuple(int(p) for p in path.stem.split("."))

    newest = max(MODELS.glob("*.json"), key=key)
    data: dict[str, Any] = json.loads(newest.read_text())
    return data


def _of_type(kind: Any, table: dict[str, Any]) -> dict[str, Any]:
    """A JSON Schema for one annotation of the table."""
    if isinstance(kind, str):
        if kind in _SCALAR:
            return {"type": _SCALAR[kind]}
        if kind in table["enums"]:
            return {"enum": table["enums"][kind]}
        if kind in table["models"]:
            return _of_model(kind, table)
        return {}
    head, *args = kind
    if head == "Optional":
        return {"anyOf": [_of_type(args[0], table), {"type": "null"}]}
    if head == "Union":
        return {"anyOf": [_of_type(a, table) for a in args]}
    if head == "Literal":
        return {"enum": [a[1] if isinstance(a, list) else a for a in args]}
    return {"type": "object"} if head in ("Dict", "dict") else {"type": "array"} if head in ("List", "list") else {}


def _of_model(name: str, table: dict[str, Any]) -> dict[str, Any]:
    props: dict[str, Any] = {}
    for field, spec in table["models"][name]["fields"].items():
        node = _of_type(spec["type"], table)
        node.update({_BOUND[b]: spec[b] for b in _BOUND if b in spec})
        if "default" in spec and spec["default"] is not None:
            node["default"] = spec["default"]
        props[str(spec.get("alias") or field)] = node
    source = table["models"][name]["file"]
    return strict(f"{name} ({source}, DeepSpeed {table['release']}).", props)


def _with_bounds(node: dict[str, Any], spec: dict[str, Any]) -> None:
    target = node["anyOf"][0] if "anyOf" in node else node
    target.update({_BOUND[b]: spec[b] for b in _BOUND if b in spec})
    if "exclusiveMinimum" in target:
        target.pop("minimum", None)


def from_models(props: dict[str, Any]) -> None:
    table = _newest_table()
    zero = props["zero_optimization"]["anyOf"][0]["properties"]
    for field, spec in table["models"]["DeepSpeedZeroConfig"]["fields"].items():
        for name in {field, spec.get("alias") or field}:
            if name in zero and "x-alias-of" not in zero[name] and any(b in spec for b in _BOUND):
                _with_bounds(zero[name], spec)
    zenflow = _of_model("ZenFlowConfig", table)
    zero["zenflow"] = {"anyOf": [zenflow, {"type": "null"}], "description": zenflow["description"]}
    props["tensor_parallel"] = _of_model("TPTrainingConfig", table)


from_models(properties)

schema = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://recipelint.dev/schemas/deepspeed/ds_config.schema.json",
    "title": "DeepSpeed configuration (ds_config.json)",
    "description": "The DeepSpeed config file, DeepSpeed 0.19.x (key tree read from deepspeedai/DeepSpeed at 0.19.6-0.19.8). DeepSpeed ignores unknown top-level keys; this schema lists every key it reads, so editors can complete and flag typos. Blocks DeepSpeed validates strictly forbid unknown keys here too. Generated by tools/build_deepspeed_schema.py.",
    "type": "object",
    "properties": properties,
    "x-lenient": True,
    "$defs": {
        "auto": {
            "const": "auto",
            "description": "Filled in by Hugging Face transformers, Accelerate or XTuner at launch; plain DeepSpeed does not resolve it.",
        }
    },
}

if __name__ == "__main__":
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(schema, indent=1) + "\n")
    print(f"wrote {OUT} ({len(properties)} top-level keys)")
