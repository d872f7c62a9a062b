"""The DeepSpeed oracle's cases and recipelint's side of it, without DeepSpeed: the real JSONs
(the corpus and tests/data/upstream/deepspeed-configs) and the mutation operators applied to each,
and the errors recipelint gives each as a plain DeepSpeed launch on a 1-GPU node whose script
calls `deepspeed.initialize` without an optimizer. tests/test_deepspeed_oracle.py has DeepSpeed
judge the same files; bench/oracle_versions.py times recipelint's side."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.helpers import CORPUS, UPSTREAM

ONE_GPU: dict[str, Any] = {
    "cpus": 16,
    "memory_gib": 256,
    "shm_gib": 64,
    "gpus": 1,
    "nodes": 1,
    "gpu_compute_capability": "9.0",
    "inter_node_network": "infiniband",
}
# Rules whose findings are about the hardware or the launch, not about what DeepSpeed checks.
ENGINE_TIME = {"RL417", "RL420"}
SOURCES = (CORPUS, UPSTREAM / "deepspeed-configs")
Config = dict[str, Any]


def _zero(config: Config) -> Config:
    zero = config.get("zero_optimization")
    return dict(zero) if isinstance(zero, dict) else {}


def _with_zero(config: Config, **keys: Any) -> Config:
    return {**config, "zero_optimization": {**_zero(config), **keys}}


def _mbs(config: Config) -> int:
    mbs = config.get("train_micro_batch_size_per_gpu")
    return mbs if isinstance(mbs, int) and not isinstance(mbs, bool) and mbs > 0 else 1


def _optimizer(config: Config, kind: str, **params: Any) -> Config:
    return {**config, "optimizer": {"type": kind, "params": params}}


def _scheduler(config: Config, kind: str, **params: Any) -> Config:
    return {**config, "scheduler": {"type": kind, "params": params}}


def _original(config: Config) -> dict[str, Config]:
    """The twelve operators the oracle had first."""
    mbs = _mbs(config)
    zero = _zero(config)
    return {
        "batch-mismatch": {
            **config,
            "train_batch_size": mbs * 3 + 1,
            "train_micro_batch_size_per_gpu": mbs,
            "gradient_accumulation_steps": 3,
        },
        "no-batch": {k: v for k, v in config.items() if k not in ("train_batch_size", "train_micro_batch_size_per_gpu")},
        "zero-extra-key": _with_zero(config, stage3_prefetch_bucket=1),
        "zero-stage-4": _with_zero(config, stage=4),
        "offload-upper-case": _with_zero(config, stage=3, offload_param={"device": "CPU"}),
        "partial-offload-stage-2": _with_zero(config, stage=2, offload_optimizer={"device": "cpu", "ratio": 0.5}),
        "cpu-offload-twice": _with_zero(config, cpu_offload=True, offload_optimizer={"device": "cpu"}),
        "both-precisions": {**config, "fp16": {"enabled": True}, "bf16": {"enabled": True}},
        "fp16-extra-key": {**config, "fp16": {"enabled": True, "loss_scale_windw": 100}},
        "removed-block": {**config, "sparse_attention": {"mode": "fixed"}},
        "removed-zero-key": {**config, "zero_optimization": {**zero, "mics_shard_size": 8}},
        "monitor-extra-key": {**config, "tensorboard": {"enabled": True, "output": "x"}},
    }


def _shapes(config: Config) -> dict[str, Config]:
    """Keys moved a level, numbers in other spellings, blocks of the wrong type, nulls."""
    mbs = _mbs(config)
    top = {k: v for k, v in config.items() if k != "gradient_clipping"}
    return {
        "key-moved-down": {**top, "zero_optimization": {**_zero(config), "gradient_clipping": 1.0}},
        "key-moved-up": {
            **config,
            "overlap_comm": True,
            "zero_optimization": {k: v for k, v in _zero(config).items() if k != "overlap_comm"},
        },
        "unit-string": _with_zero(config, reduce_bucket_size="2GB"),
        "exponent-string": _with_zero(config, allgather_bucket_size="5e8"),
        "fractional-int": _with_zero(config, stage3_max_live_parameters=1e9 + 0.5),
        "negative-bucket": _with_zero(config, reduce_bucket_size=-1),
        "zero-micro-batch": {**config, "train_batch_size": 8, "train_micro_batch_size_per_gpu": 0, "gradient_accumulation_steps": 1},
        "negative-accumulation": {
            **config,
            "train_micro_batch_size_per_gpu": mbs,
            "gradient_accumulation_steps": -2,
            "train_batch_size": None,
        },
        "null-batch-beside-micro": {**config, "train_batch_size": None, "train_micro_batch_size_per_gpu": mbs},
        "null-stage": _with_zero(config, stage=None),
        "block-as-string": {**config, "zero_optimization": "stage2"},
        "precision-block-as-string": {**config, "bf16": "true"},
        "micro-batch-float": {
            **config,
            "train_micro_batch_size_per_gpu": 1.5,
            "train_batch_size": None,
            "gradient_accumulation_steps": None,
        },
    }


def _spellings(config: Config) -> dict[str, Config]:
    """Booleans, stages and enums as other types or spellings; typos and look-alike letters."""
    return {
        "bool-as-string": {**config, "fp16": {"enabled": "false"}, "bf16": {"enabled": False}},
        "bool-as-int": _with_zero(config, contiguous_gradients=1, overlap_comm=0),
        "stage-as-string": _with_zero(config, stage="2"),
        "stage-as-float": _with_zero(config, stage=2.0),
        "stage-as-bool": {**config, "zero_optimization": True},
        "enum-case": _with_zero(config, stage=3, offload_optimizer={"device": "Cpu"}),
        "enum-alias": {**config, "communication_data_type": "float16"},
        "typo-in-zero": _with_zero(config, stgae=2),
        "look-alike-letter": _with_zero(config, **{"cоntiguous_gradients": True}),  # Cyrillic o
        "auto-without-hf": {**config, "train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto"},
        "older-key": _with_zero(config, grad_hooks=True),
        "unreleased-key": {**config, "gradient_allreduce_op": "sum"},
    }


def _engine_operators(config: Config) -> dict[str, Config]:
    """What the engine builds: optimizer names, ZeRO's tested list, constructor parameters."""
    stage2 = _with_zero(config, stage=2)
    untested = {**stage2, "zero_allow_untested_optimizer": True}
    return {
        "optimizer-fused-name": _optimizer(config, "FusedAdam", lr=1e-4),
        "optimizer-snake-case": _optimizer(config, "adam_w", lr=1e-4),
        "optimizer-bnb-name": _optimizer(config, "AdamW8bit", lr=1e-4),
        "optimizer-torch-case": _optimizer(config, "sgd", lr=0.1),
        "torch-optimizer-under-zero": _optimizer(stage2, "SGD", lr=0.1, momentum=0.9),
        "torch-optimizer-allowed": _optimizer(untested, "SGD", lr=0.1, momentum=0.9),
        "optimizer-foreign-params": _optimizer(untested, "RMSprop", lr=1e-3, betas=[0.9, 0.999]),
        "optimizer-param-wrong-type": _optimizer(config, "AdamW", lr="1e-4", torch_adam=True),
        "lamb-under-zero": _optimizer(stage2, "Lamb", lr=1e-3),
        "amsgrad-on-fused-adam": _optimizer(config, "Adam", lr=1e-4, amsgrad=True),
        "scheduler-foreign-params": _scheduler(config, "WarmupCosineLR", warmup_max_lr=1e-4, total_num_steps=100),
        "scheduler-missing-required": _scheduler(config, "WarmupDecayLR", warmup_num_steps=10),
        "scheduler-good": _scheduler(config, "WarmupLR", warmup_min_lr=0, warmup_max_lr=1e-4, warmup_num_steps=10),
    }


def _without_optimizer(config: Config) -> Config:
    return {k: v for k, v in config.items() if k != "optimizer"}


def _last_misses(config: Config) -> dict[str, Config]:
    """Issue 42: fractional batch keys as DeepSpeed does the arithmetic, flags DeepSpeed combines
    with `|`, ZeRO's reduce-scatter assertions, ZeRO without an optimizer, and what passes."""
    top = {
        k: v for k, v in config.items() if k not in ("train_batch_size", "train_micro_batch_size_per_gpu", "gradient_accumulation_steps")
    }
    stage2 = _with_zero(config, stage=2)
    return {
        "fractional-triple-consistent": {
            **top,
            "train_batch_size": 16.5,
            "train_micro_batch_size_per_gpu": 5.5,
            "gradient_accumulation_steps": 3,
        },
        "fractional-triple-inconsistent": {
            **top,
            "train_batch_size": 16.5,
            "train_micro_batch_size_per_gpu": 4,
            "gradient_accumulation_steps": 4,
        },
        "fractional-accumulation-derived": {**top, "train_batch_size": 16.5, "train_micro_batch_size_per_gpu": 4},
        "fractional-accumulation": {**top, "train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 2.5},
        "wall-clock-string": {**config, "wall_clock_breakdown": "false"},
        "wall-clock-null": {**config, "wall_clock_breakdown": None},
        "wall-clock-int": {**config, "wall_clock_breakdown": 1},
        "flops-enabled-string": {**config, "flops_profiler": {"enabled": "true"}},
        "steps-per-print-fraction": {**config, "steps_per_print": 50.5},
        "max-grad-norm-null": _optimizer(config, "AdamW", lr=1e-4, max_grad_norm=None),
        "zero2-prescale": {**stage2, "prescale_gradients": True},
        "zero2-predivide": {**stage2, "gradient_predivide_factor": 2.0},
        "zero2-prescale-no-reduce-scatter": {**_with_zero(config, stage=2, reduce_scatter=False), "prescale_gradients": True},
        "zero1-prescale": {**_with_zero(config, stage=1), "prescale_gradients": True},
        "zero2-without-optimizer": _without_optimizer(stage2),
        "zero3-without-optimizer": _without_optimizer(_with_zero(config, stage=3)),
        "optimizer-params-without-type": {**_with_zero(config, stage=1), "optimizer": {"params": {"lr": 1e-4, "max_grad_norm": 1.0}}},
        "auto-in-look-alike-block": {**config, "zero_optimisation": {"stage": "auto"}},
    }


MUTATIONS: tuple[Callable[[Config], dict[str, Config]], ...] = (_original, _shapes, _spellings, _engine_operators, _last_misses)
# Written as text, since json.dumps cannot repeat a key.
DUPLICATE = "duplicate-key"


def mutations(config: Config) -> dict[str, Config]:
    out: dict[str, Config] = {}
    for operator in MUTATIONS:
        out.update(operator(config))
    return out


def _duplicate(config: Config) -> str:
    text = json.dumps(config, indent=2)
    return text.replace("{", '{\n  "steps_per_print": 10,\n  "steps_per_print": 20,', 1)


def recipelint_errors(path: Path, deepspeed_version: str) -> list[str]:
    from recipelint.context import Context, Options
    from recipelint.diagnostics import Diagnostic, Severity
    from recipelint.hardware.profile import from_mapping
    from recipelint.model import Consumer, Recipe
    from recipelint.parse.files import FileCache
    from recipelint.parse.jsonfile import parse_json
    from recipelint.rules import all_rules
    from tests.helpers import deepspeed_launch

    profile = from_mapping(dict(ONE_GPU), "oracle")
    recipe = Recipe(root=path.parent, toolkit="deepspeed", ds_config=parse_json(FileCache().read(path)), ds_filler="none")
    recipe.launch = deepspeed_launch(int(ONE_GPU["gpus"]))  # DeepSpeedConfig is read on one process
    recipe.consumer = Consumer(
        "deepspeed", client_optimizer=False, client_scheduler=False, evidence=["train.py: deepspeed.initialize(model=model, config=...)"]
    )
    ctx = Context(recipe, lambda: profile, Options(deepspeed_version=deepspeed_version))
    found: list[Diagnostic] = []
    for rule in all_rules().values():
        found.extend(d for d in rule.check(ctx) if d is not None and d.severity is Severity.ERROR and d.code not in ENGINE_TIME)
    return [f"{d.code} {d.message}" for d in found]


def cases(tmp_path: Path) -> list[tuple[str, str, Path]]:
    """(label, operator, file) for every real JSON and each of its mutations."""
    cases: list[tuple[str, str, Path]] = []
    for top in SOURCES:
        for source in sorted(top.rglob("*.json")):
            label = str(source.relative_to(top.parent))
            cases.append((label, "original", source))
            try:
                config = json.loads(source.read_text(encoding="utf-8"))
            except ValueError:
                continue  # comments: DeepSpeed's hjson reads the original file above
            if not isinstance(config, dict):
                continue
            for name, mutated in mutations(config).items():
                path = tmp_path / f"{len(cases)}-{name}.json"
                path.write_text(json.dumps(mutated, indent=2))
                cases.append((f"{label} + {name}", name, path))
            path = tmp_path / f"{len(cases)}-{DUPLICATE}.json"
            path.write_text(_duplicate(config))
            cases.append((f"{label} + {DUPLICATE}", DUPLICATE, path))
    return cases
