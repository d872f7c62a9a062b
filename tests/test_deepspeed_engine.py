"""RL421's engine checks: what `deepspeed.initialize` refuses when it builds the JSON's optimizer
and scheduler (deepspeed/runtime/engine.py), judged per DeepSpeed release from
schemas/deepspeed/engine.json.

Each firing case is a real config (DeepSpeed's own examples/sdma_allgather/ds_config_zero3.json,
tests/data/corpus/deepspeed, unmodified) with the one change the issue names; the real configs
as they are (the corpus and the 12 repositories of tests/data/upstream/deepspeed-configs) stay
quiet. tests/test_deepspeed_oracle.py checks the same verdicts against DeepSpeed's own code."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest

from recipelint.context import Context, Options
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.hardware.profile import from_mapping
from recipelint.model import Consumer, Recipe
from recipelint.parse.files import FileCache
from recipelint.parse.jsonfile import parse_json
from recipelint.rules import all_rules
from tests.helpers import CORPUS, UPSTREAM, deepspeed_launch

BASE = CORPUS / "deepspeed" / "deepspeedai__DeepSpeed" / "examples" / "sdma_allgather" / "ds_config_zero3.json"
PLAIN = Consumer(
    "deepspeed",
    client_optimizer=False,
    client_scheduler=False,
    evidence=["train.py:40: deepspeed.initialize(model=model, config=args.deepspeed_config)"],
)
OWN = Consumer(
    "deepspeed",
    client_optimizer=True,
    client_scheduler=True,
    evidence=["train.py:40: deepspeed.initialize(model=model, optimizer=optimizer, lr_scheduler=scheduler)"],
)


def rl421(path: Path, consumer: Consumer | None = PLAIN, options: dict[str, Any] | None = None) -> list[Diagnostic]:
    recipe = Recipe(
        root=path.parent, toolkit="deepspeed", ds_config=parse_json(FileCache().read(path)), ds_filler="none" if consumer else "unknown"
    )
    recipe.launch = deepspeed_launch(8)
    recipe.consumer = consumer
    profile = from_mapping({"gpus": 8, "nodes": 1, "cpus": 64, "memory_gib": 512}, "engine test")
    ctx = Context(recipe, lambda: profile, Options.from_keys(options or {}))
    return [d for d in all_rules()["RL421"].check(ctx) if d is not None]


def real_with(tmp_path: Path, change: dict[str, Any]) -> Path:
    config = json.loads(BASE.read_text(encoding="utf-8"))
    for dotted, value in change.items():
        node = config
        *parents, leaf = dotted.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    path = tmp_path / "ds_config_zero3.json"
    path.write_text(json.dumps(config, indent=2))
    return path


# (change to the real config, setting, words the message must hold)
FIRES: dict[str, tuple[dict[str, Any], str, str]] = {
    "deepspeed-class-name": (
        {"optimizer.type": "FusedAdam"},
        "optimizer.type",
        "the engine asserts 'FusedAdam is not a supported DeepSpeed Optimizer'",
    ),
    "snake-case": ({"optimizer.type": "adam_w"}, "optimizer.type", "'adam_w is not a supported DeepSpeed Optimizer'"),
    "bitsandbytes": ({"optimizer.type": "AdamW8bit"}, "optimizer.type", "'AdamW8bit is not a supported DeepSpeed Optimizer'"),
    "torch-case": ({"optimizer.type": "sgd"}, "optimizer.type", "torch.optim spells it 'SGD'"),
    "torch-under-zero": (
        {"optimizer": {"type": "SGD", "params": {"lr": 0.1, "momentum": 0.9}}},
        "optimizer.type",
        "optimizer SGD under ZeRO stage 3: DeepSpeed builds torch.optim.SGD (torch 2.13.0 and 2.14.1), which is not in ZeRO's tested optimizers",
    ),
    "lamb-under-zero": (
        {"optimizer": {"type": "Lamb", "params": {"lr": 1e-3}}},
        "optimizer.type",
        "DeepSpeed builds DeepSpeed's FusedLamb (deepspeed/ops/lamb/fused_lamb.py), which is not in ZeRO's tested optimizers",
    ),
    "foreign-optimizer-param": (
        {"optimizer": {"type": "RMSprop", "params": {"lr": 1e-3, "betas": [0.9, 0.999]}}, "zero_allow_untested_optimizer": True},
        "optimizer.params.betas",
        "TypeError: RMSprop.__init__() got an unexpected keyword argument 'betas'",
    ),
    "adam-params-on-lion": (
        {"optimizer.type": "Lion"},
        "optimizer.params.eps",
        "DeepSpeed's FusedLion (deepspeed/ops/lion/fused_lion.py) with **optimizer.params, which raises TypeError: FusedLion.__init__() got an unexpected keyword argument 'eps'",
    ),
    "amsgrad-on-fused-adam": (
        {"optimizer.params.amsgrad": True},
        "optimizer.params.amsgrad",
        "DeepSpeed's FusedAdam (deepspeed/ops/adam/fused_adam.py) with **optimizer.params, which raises RuntimeError: FusedAdam does not support the AMSGrad variant.",
    ),
    "amsgrad-on-cpu-adam": (
        {"optimizer.params.amsgrad": True, "zero_optimization.offload_optimizer": {"device": "cpu"}},
        "optimizer.params.amsgrad",
        "RuntimeError: DeepSpeedCPUAdam does not support the AMSGrad variant.",  # add_param_group, from 0.19.8
    ),
    "engine-passes-it-too": (
        {"optimizer.params.adamw_mode": True, "zero_optimization.offload_optimizer": {"device": "cpu"}},
        "optimizer.params.adamw_mode",
        "DeepSpeedCPUAdam() got multiple values for keyword argument 'adamw_mode'",
    ),
    "foreign-scheduler-param": (
        {"scheduler": {"type": "WarmupCosineLR", "params": {"warmup_max_lr": 1e-4, "total_num_steps": 100}}},
        "scheduler.params.warmup_max_lr",
        "DeepSpeed's WarmupCosineLR (deepspeed/runtime/lr_schedules.py) with **scheduler.params, which raises TypeError: WarmupCosineLR.__init__() got an unexpected keyword argument 'warmup_max_lr'",
    ),
    "scheduler-required": (
        {"scheduler": {"type": "WarmupDecayLR", "params": {"warmup_num_steps": 10}}},
        "scheduler.params.total_num_steps",
        "missing 1 required positional argument: 'total_num_steps'",
    ),
}


@pytest.mark.parametrize("case", sorted(FIRES))
def test_engine_check_fires_on_a_real_config_with_one_change(case: str, tmp_path: Path) -> None:
    change, setting, words = FIRES[case]
    found = [d for d in rl421(real_with(tmp_path, change)) if d.setting == setting]
    assert len(found) == 1, [d.message for d in rl421(real_with(tmp_path, change))]
    assert found[0].severity is Severity.ERROR and words in found[0].message
    assert "deepspeed 0.19.8" in found[0].message  # the release it was judged at


def test_unknown_consumer_is_a_warning_with_its_condition(tmp_path: Path) -> None:
    found = rl421(real_with(tmp_path, {"optimizer.type": "FusedAdam"}), consumer=None)
    assert [d.severity for d in found] == [Severity.WARNING]
    assert "if DeepSpeed builds this optimizer" in found[0].message


def test_client_optimizer_skips_the_engine_checks(tmp_path: Path) -> None:
    found = rl421(real_with(tmp_path, {"optimizer.type": "FusedAdam", "scheduler.params.bogus": 1}), consumer=OWN)
    assert [(d.severity, d.setting) for d in found] == [(Severity.WARNING, "optimizer"), (Severity.WARNING, "scheduler")]


def test_allowed_untested_optimizer_and_tested_ones_stay_quiet(tmp_path: Path) -> None:
    allowed = {"optimizer": {"type": "SGD", "params": {"lr": 0.1, "momentum": 0.9}}, "zero_allow_untested_optimizer": True}
    assert rl421(real_with(tmp_path, allowed)) == []
    for kind in ("Adam", "adamw", "AdamW"):
        assert rl421(real_with(tmp_path, {"optimizer.type": kind})) == [], kind
    adagrad = {"optimizer": {"type": "Adagrad", "params": {"lr": 1e-2, "eps": 1e-10, "weight_decay": 0.0}}}
    assert rl421(real_with(tmp_path, adagrad)) == []
    lion = {"optimizer": {"type": "Lion", "params": {"lr": 1e-4, "betas": [0.9, 0.99], "weight_decay": 0.0}}}
    assert rl421(real_with(tmp_path, lion)) == []
    torch_amsgrad = {"optimizer.params.amsgrad": True, "optimizer.params.torch_adam": True}  # torch's AdamW takes it
    assert rl421(real_with(tmp_path, torch_amsgrad)) == []
    cpu = {"zero_optimization.offload_optimizer": {"device": "cpu"}, "optimizer.params.fp32_optimizer_states": False}
    assert rl421(real_with(tmp_path, cpu)) == []


def test_release_without_the_class_is_a_warning_naming_the_releases(tmp_path: Path) -> None:
    """WarmupCosineLR exists from DeepSpeed 0.12.3 on (engine.json): a range reaching below it is
    judged release by release."""
    path = real_with(tmp_path, {"scheduler": {"type": "WarmupCosineLR", "params": {"warmup_max_lr": 1e-4, "total_num_steps": 100}}})
    found = rl421(path, options={"target-versions": {"deepspeed": ">=0.11.0"}})
    assert [d.severity for d in found] == [Severity.WARNING]
    assert "with deepspeed >= 0.12.3" in found[0].message


def _real_configs() -> list[Path]:
    return sorted(p for top in (CORPUS / "deepspeed", UPSTREAM / "deepspeed-configs") for p in top.rglob("*.json"))


def test_real_configs_get_no_engine_finding() -> None:
    """The 158 real configs as they are: the engine builds each optimizer and scheduler (the 1-bit
    optimizers are RL423's; `max_grad_norm` in DeepSpeedExamples is RL421's first check)."""
    found = {}
    for path in _real_configs():
        engine = [d for d in rl421(path) if "DeepSpeed builds" in d.message or "is not a supported" in d.message]
        if engine:
            found[str(path)] = [d.message for d in engine]
    assert found == {}


def test_table_records_where_each_release_was_read() -> None:
    from recipelint.schemas import load_schema

    table = load_schema("deepspeed/engine.json")
    ds = table["deepspeed"]
    assert set(ds["releases"]) == set(ds["sources"]) and ds["releases"][-1] == "0.19.8"
    assert all("sha256" in ds["sources"][r] or "@" in ds["sources"][r] for r in ds["releases"])
    assert table["torch"]["releases"] == ["2.13.0", "2.14.1"]
    # The 1-bit optimizers leave DEEPSPEED_OPTIMIZERS in 0.19.7 (RL423's fact, read from source here).
    assert "onebitadam" in dict(map(tuple, ds["optimizers"]))["0.17.6"] and "onebitadam" not in ds["optimizers"][-1][1]
    from recipelint.toolkits.deepspeed.rules import _engine

    assert [_engine.removed_in(n) for n in ("onebitadam", "zerooneadam", "onebitlamb", "adam")] == ["0.19.7", "0.19.7", "0.19.7", None]


def test_generator_reads_signatures_with_ast() -> None:
    from tools.build_deepspeed_engine_table import signature

    tree = ast.parse(
        "class Base:\n    def __init__(self, params, lr=1e-3, *, foreach=None): ...\nclass Child(Base): pass\nclass Sched:\n    def __init__(self, optimizer, total_num_steps, warmup=10, **kw): ...\n"
    )
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    assert signature(classes, "Child", 1) == {"params": ["lr", "foreach"], "required": [], "kwargs": False}
    assert signature(classes, "Sched", 1) == {"params": ["total_num_steps", "warmup"], "required": ["total_num_steps"], "kwargs": True}
    assert signature(classes, "Missing", 1) is None
    refusing = ast.parse(
        "class Fused:\n    def __init__(self, params, amsgrad=False):\n        if amsgrad:\n            raise RuntimeError('no AMSGrad')\n"
        "class Cpu:\n    def __init__(self, params, amsgrad=False): ...\n    def add_param_group(self, group):\n"
        "        if group.get('amsgrad', False):\n            raise RuntimeError('Cpu: no AMSGrad')\n"
    )
    classes = {n.name: n for n in refusing.body if isinstance(n, ast.ClassDef)}
    assert signature(classes, "Fused", 1)["refuses"] == {"amsgrad": "RuntimeError: no AMSGrad"}  # type: ignore[index]
    assert signature(classes, "Cpu", 1)["refuses"] == {"amsgrad": "RuntimeError: Cpu: no AMSGrad"}  # type: ignore[index]
