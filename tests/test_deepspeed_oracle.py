"""Oracle: every config DeepSpeed's own config class rejects, recipelint rejects too.

Runs where `deepspeed` is importable (it installs from PyPI on top of the CPU build of torch:
`pip install torch==2.13.0 deepspeed`); skipped otherwise, so the plain suite stays light.
Each corpus JSON and a set of mutations of it is written to a file and given to
`DeepSpeedConfig(path)` (hjson, duplicate-key check, pydantic blocks, batch assertion with
world size 1, since no process group exists) and to recipelint as a plain DeepSpeed launch
on a 1-GPU node. Where recipelint is stricter, the case is listed with the reason.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import CORPUS

pytestmark = pytest.mark.slow  # DeepSpeed itself judges every corpus config and its mutations
deepspeed = pytest.importorskip("deepspeed", reason="DeepSpeed is not installed (pip install torch==2.13.0 deepspeed)")
os.environ.setdefault("DS_ACCELERATOR", "cpu")

ONE_GPU: dict[str, Any] = {
    "cpus": 16,
    "memory_gib": 256,
    "shm_gib": 64,
    "gpus": 1,
    "nodes": 1,
    "gpu_compute_capability": "9.0",
    "inter_node_network": "infiniband",
}
# Rules whose findings are about the hardware or the launch, not about what DeepSpeedConfig checks.
ENGINE_TIME = {"RL417", "RL420", "RL421", "RL423"}


def mutations(config: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    mbs = config.get("train_micro_batch_size_per_gpu")
    out["batch-mismatch"] = {
        **config,
        "train_batch_size": (mbs if isinstance(mbs, int) else 1) * 3 + 1,
        "train_micro_batch_size_per_gpu": mbs if isinstance(mbs, int) else 1,
        "gradient_accumulation_steps": 3,
    }
    out["no-batch"] = {k: v for k, v in config.items() if k not in ("train_batch_size", "train_micro_batch_size_per_gpu")}
    zero: dict[str, Any] = config["zero_optimization"] if isinstance(config.get("zero_optimization"), dict) else {}
    out["zero-extra-key"] = {**config, "zero_optimization": {**zero, "stage3_prefetch_bucket": 1}}
    out["zero-stage-4"] = {**config, "zero_optimization": {**zero, "stage": 4}}
    out["offload-upper-case"] = {**config, "zero_optimization": {**zero, "stage": 3, "offload_param": {"device": "CPU"}}}
    out["partial-offload-stage-2"] = {
        **config,
        "zero_optimization": {**zero, "stage": 2, "offload_optimizer": {"device": "cpu", "ratio": 0.5}},
    }
    out["cpu-offload-twice"] = {**config, "zero_optimization": {**zero, "cpu_offload": True, "offload_optimizer": {"device": "cpu"}}}
    out["both-precisions"] = {**config, "fp16": {"enabled": True}, "bf16": {"enabled": True}}
    out["fp16-extra-key"] = {**config, "fp16": {"enabled": True, "loss_scale_windw": 100}}
    out["removed-block"] = {**config, "sparse_attention": {"mode": "fixed"}}
    out["removed-zero-key"] = {**config, "zero_optimization": {**zero, "mics_shard_size": 8}}
    out["monitor-extra-key"] = {**config, "tensorboard": {"enabled": True, "output": "x"}}
    return out


def deepspeed_verdict(path: Path) -> str | None:
    from deepspeed.runtime.config import DeepSpeedConfig

    try:
        DeepSpeedConfig(str(path))
    except BaseException as exc:  # noqa: BLE001 - DeepSpeed raises assertion, value and pydantic errors
        return f"{type(exc).__name__}: {str(exc).splitlines()[0][:160]}"
    return None


def recipelint_errors(path: Path) -> list[str]:
    from recipelint.context import Context, Options
    from recipelint.diagnostics import Diagnostic, Severity
    from recipelint.hardware.profile import from_mapping
    from recipelint.model import Recipe
    from recipelint.parse.files import FileCache
    from recipelint.parse.jsonfile import parse_json
    from recipelint.rules import all_rules
    from tests.helpers import deepspeed_launch

    profile = from_mapping(dict(ONE_GPU), "oracle")
    recipe = Recipe(root=path.parent, toolkit="deepspeed", ds_config=parse_json(FileCache().read(path)), ds_filler="none")
    recipe.launch = deepspeed_launch(int(ONE_GPU["gpus"]))  # DeepSpeedConfig is read on one process
    ctx = Context(recipe, lambda: profile, Options(deepspeed_version=deepspeed.__version__))
    found: list[Diagnostic] = []
    for rule in all_rules().values():
        found.extend(d for d in rule.check(ctx) if d is not None and d.severity is Severity.ERROR and d.code not in ENGINE_TIME)
    return [f"{d.code} {d.message}" for d in found]


def test_recipelint_rejects_everything_deepspeed_rejects(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases: list[tuple[str, Path]] = []
    for source in sorted(CORPUS.rglob("*.json")):
        raw = source.read_text(encoding="utf-8")
        cases.append((str(source.relative_to(CORPUS)), source))
        try:
            config = json.loads(raw)
        except ValueError:
            continue  # comments: DeepSpeed's hjson reads the original file above
        for name, mutated in mutations(config).items():
            path = tmp_path / f"{len(cases)}-{name}.json"
            path.write_text(json.dumps(mutated, indent=2))
            cases.append((f"{source.relative_to(CORPUS)} + {name}", path))
    missed, stricter, agreed = [], Counter[str](), Counter[str]()
    for label, path in cases:
        verdict = deepspeed_verdict(path)
        ours = recipelint_errors(path)
        if verdict is not None and not ours:
            missed.append(f"{label}: DeepSpeed {verdict}")
        elif verdict is None and ours:
            stricter[ours[0].split(" ", 1)[0]] += 1
        else:
            agreed["rejected" if verdict else "accepted"] += 1
    with capsys.disabled():
        print(
            f"\noracle (DeepSpeed {deepspeed.__version__}): {len(cases)} configs; both reject {agreed['rejected']}, both accept {agreed['accepted']}, missed {len(missed)}, recipelint stricter {sum(stricter.values())} {dict(stricter)}"
        )
    assert missed == [], "\n".join(missed)


class _DataParallel:
    """An mpu that gives DeepSpeedConfig the data-parallel size of the launch being linted."""

    def __init__(self, size: int) -> None:
        self.size = size

    def get_data_parallel_world_size(self) -> int:
        return self.size


# Broken triples with the GPU count they meet: OpenRLHF #346 (256 on 7 GPUs), the zero cases of
# deepspeed.md 2, and each partial form DeepSpeed derives from.
BROKEN_TRIPLES: list[tuple[dict[str, int], int]] = [
    ({"train_batch_size": 256, "train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 18}, 7),
    ({"train_batch_size": 32, "train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 2}, 16),
    ({"train_batch_size": 32, "train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 2}, 3),
    ({"train_batch_size": 16, "train_micro_batch_size_per_gpu": 4}, 8),
    ({"train_batch_size": 36, "train_micro_batch_size_per_gpu": 4}, 8),
    ({"train_batch_size": 32, "train_micro_batch_size_per_gpu": 4}, 7),
    ({"train_batch_size": 4, "gradient_accumulation_steps": 2}, 8),
    ({"train_batch_size": 30, "gradient_accumulation_steps": 2}, 8),
    ({"train_batch_size": 4}, 8),
    ({"train_batch_size": 12}, 8),
    ({"train_batch_size": 1, "train_micro_batch_size_per_gpu": 1, "gradient_accumulation_steps": 1}, 2),
]


def _fixed_by_recipelint(path: Path, world: int) -> bytes | None:
    from recipelint.context import Context, Options
    from recipelint.fix import apply_edits
    from recipelint.hardware.profile import from_mapping
    from recipelint.model import Recipe
    from recipelint.parse.files import FileCache
    from recipelint.parse.jsonfile import parse_json
    from recipelint.rules import all_rules
    from tests.helpers import deepspeed_launch

    profile = from_mapping({**ONE_GPU, "gpus": world}, "oracle")
    recipe = Recipe(root=path.parent, toolkit="deepspeed", ds_config=parse_json(FileCache().read(path)), ds_filler="none")
    recipe.launch = deepspeed_launch(world)
    ctx = Context(recipe, lambda: profile, Options(deepspeed_version=deepspeed.__version__))
    found = [d for d in all_rules()["RL415"].check(ctx) if d is not None]
    if not found or found[0].fix is None:
        return None
    return apply_edits(path.read_bytes(), list(found[0].fix.edits))


def test_batch_triple_fix_passes_deepspeeds_assertion(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from deepspeed.runtime import config as ds_config

    # DeepSpeedConfig asks the process group for the rank before it reads the mpu's size; there is none here.
    monkeypatch.setattr(ds_config.dist, "get_rank", lambda *args, **kwargs: 0)
    cases = list(BROKEN_TRIPLES)
    for source in sorted(CORPUS.rglob("*.json")):
        try:
            config = json.loads(source.read_text(encoding="utf-8"))
        except ValueError:
            continue
        auto = isinstance(config, dict) and any(v == "auto" for v in config.values())
        if isinstance(config, dict) and not auto and deepspeed_verdict(source) is None:  # configs DeepSpeed accepts as they are
            for world in (7, 16):
                cases.append((mutations(config)["batch-mismatch"], world))
    failed, passed = [], 0
    for number, (config, world) in enumerate(cases):
        path = tmp_path / f"{number}.json"
        path.write_text(json.dumps(config, indent=2))
        with pytest.raises(AssertionError):  # the broken file fails DeepSpeed's own batch assertion
            ds_config.DeepSpeedConfig(str(path), mpu=_DataParallel(world))
        fixed = _fixed_by_recipelint(path, world)
        if fixed is None:
            failed.append(f"{config} on {world}: no fix")
            continue
        path.write_bytes(fixed)
        try:
            ds_config.DeepSpeedConfig(str(path), mpu=_DataParallel(world))
            passed += 1
        except AssertionError as exc:
            failed.append(f"{config} on {world}: {exc}")
    with capsys.disabled():
        print(
            f"\nbatch-triple fix oracle (DeepSpeed {deepspeed.__version__}): {len(cases)} broken configs, {passed} pass DeepSpeed's batch assertion after the fix"
        )
    assert failed == [], "\n".join(failed)


@pytest.mark.parametrize("name", ["OneBitAdam", "ZeroOneAdam", "OneBitLamb"])
def test_removed_optimizers_are_not_supported_by_the_installed_deepspeed(name: str, tmp_path: Path) -> None:
    """RL423's claim, against the installed release: the engine's own support test refuses the name."""
    from deepspeed.runtime.config import DEEPSPEED_OPTIMIZERS, DeepSpeedConfig
    from deepspeed.runtime.engine import DeepSpeedEngine

    from recipelint.versions import parse

    path = tmp_path / "ds.json"
    path.write_text(json.dumps({"train_micro_batch_size_per_gpu": 1, "optimizer": {"type": name, "params": {"lr": 1e-4}}}))
    config = DeepSpeedConfig(str(path))
    supported = DeepSpeedEngine._is_supported_optimizer(None, config.optimizer_name)
    from recipelint.context import Context, Options
    from recipelint.hardware.profile import from_mapping
    from recipelint.model import Recipe
    from recipelint.parse.files import FileCache
    from recipelint.parse.jsonfile import parse_json
    from recipelint.rules import all_rules

    recipe = Recipe(root=tmp_path, toolkit="deepspeed", ds_config=parse_json(FileCache().read(path)), ds_filler="none")
    ctx = Context(recipe, lambda: from_mapping(dict(ONE_GPU), "oracle"), Options(deepspeed_version=deepspeed.__version__))
    ours = [d.message for d in all_rules()["RL423"].check(ctx) if d is not None and str(d.severity) == "error"] + [""]
    if parse(deepspeed.__version__) >= (0, 19, 7):
        assert name.lower() not in DEEPSPEED_OPTIMIZERS and not supported
        assert f"{name} is not a supported DeepSpeed Optimizer" in ours[0]
    else:
        assert supported
