"""Issue 42: the classes the DeepSpeed oracle found recipelint judging otherwise than DeepSpeed,
each judged as DeepSpeed's code does (the lines are quoted in the rules' docstrings)."""

from __future__ import annotations

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
from tests.helpers import NODE, deepspeed_launch

SCRIPT = ["train.py:12: deepspeed.initialize(model=model, config=args.deepspeed_config)"]


def lint(
    tmp_path: Path, config: dict[str, Any], client_optimizer: bool | None = False, gpus: int = 1, options: dict[str, Any] | None = None
) -> list[Diagnostic]:
    """A plain `deepspeed` launch on `gpus` GPUs whose script passes (or not) its own optimizer."""
    path = tmp_path / "ds.json"
    path.write_text(json.dumps(config, indent=2))
    recipe = Recipe(root=tmp_path, toolkit="deepspeed", ds_config=parse_json(FileCache().read(path)), ds_filler="none")
    recipe.launch = deepspeed_launch(gpus)
    recipe.consumer = Consumer("deepspeed", client_optimizer=client_optimizer, client_scheduler=False, evidence=SCRIPT)
    profile = from_mapping({**NODE, "gpus": gpus, "nodes": 1}, "test")
    ctx = Context(recipe, lambda: profile, Options.from_keys(options or {}))
    return [d for rule in all_rules().values() for d in rule.check(ctx) if d is not None]


def errors(found: list[Diagnostic]) -> list[str]:
    return [f"{d.code} {d.message}" for d in found if d.severity is Severity.ERROR]


def of(found: list[Diagnostic], code: str) -> list[Diagnostic]:
    return [d for d in found if d.code == code]


def test_a_fractional_triple_deepspeed_rejects_is_an_error(tmp_path: Path) -> None:
    found = of(lint(tmp_path, {"train_batch_size": 16.5, "train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 4}), "RL415")
    assert len(found) == 1 and found[0].severity is Severity.ERROR
    assert "16.5 != 4 * 4 * 1" in found[0].message  # DeepSpeed's own assertion text, float as written


def test_a_fractional_micro_batch_derives_a_float_accumulation(tmp_path: Path) -> None:
    # 16.5 // 4 // 1 = 4.0: DeepSpeed asserts 16.5 != 4 * 4.0 * 1
    found = of(lint(tmp_path, {"train_batch_size": 16.5, "train_micro_batch_size_per_gpu": 4}), "RL415")
    assert len(found) == 1 and "16.5 != 4 * 4.0 * 1" in found[0].message


def test_a_consistent_fractional_triple_starts_and_is_a_warning(tmp_path: Path) -> None:
    found = lint(tmp_path, {"train_batch_size": 16.5, "train_micro_batch_size_per_gpu": 5.5, "gradient_accumulation_steps": 3})
    assert errors(found) == []
    assert [d.severity for d in of(found, "RL415")] == [Severity.WARNING]


@pytest.mark.parametrize(
    ("config", "key", "operands"),
    [
        ({"wall_clock_breakdown": "false"}, "wall_clock_breakdown", "'str' and 'bool'"),
        ({"wall_clock_breakdown": None}, "wall_clock_breakdown", "'NoneType' and 'bool'"),
        ({"wall_clock_breakdown": 1.0}, "wall_clock_breakdown", "'float' and 'bool'"),
        ({"flops_profiler": {"enabled": "true"}}, "flops_profiler.enabled", "'bool' and 'str'"),
    ],
)
def test_flags_deepspeed_combines_with_bitor_are_a_type_error(tmp_path: Path, config: dict[str, Any], key: str, operands: str) -> None:
    found = lint(tmp_path, {"train_micro_batch_size_per_gpu": 2, **config})
    assert [d.setting for d in found if d.severity is Severity.ERROR] == [key]
    assert f"unsupported operand type(s) for |: {operands}" in of(found, "RL413")[0].message
    assert of(found, "RL414") == []  # not "a non-empty string is true"


def test_an_integer_flag_passes_the_bitor(tmp_path: Path) -> None:
    assert errors(lint(tmp_path, {"train_micro_batch_size_per_gpu": 2, "wall_clock_breakdown": 1})) == []


@pytest.mark.parametrize("extra", [{"prescale_gradients": True}, {"gradient_predivide_factor": 2.0}])
def test_zero2_reduce_scatter_refuses_prescaling(tmp_path: Path, extra: dict[str, Any]) -> None:
    config = {
        "train_micro_batch_size_per_gpu": 2,
        "zero_optimization": {"stage": 2},
        "optimizer": {"type": "AdamW", "params": {"lr": 1e-4}},
        **extra,
    }
    found = of(lint(tmp_path, config), "RL428")
    assert len(found) == 1 and found[0].severity is Severity.ERROR and "with reduce scatter enabled" in found[0].message
    quiet = {**config, "zero_optimization": {"stage": 2, "reduce_scatter": False}}
    assert of(lint(tmp_path, quiet), "RL428") == []


def test_zero1_prescaling_by_release(tmp_path: Path) -> None:
    config = {
        "train_micro_batch_size_per_gpu": 2,
        "zero_optimization": {"stage": 1},
        "optimizer": {"type": "AdamW"},
        "prescale_gradients": True,
    }
    assert of(lint(tmp_path, config), "RL428") == []  # 0.19.8: stage 2 only (since 0.13.0)
    old = of(lint(tmp_path, config, options={"deepspeed-version": "0.12.6"}), "RL428")
    assert [d.severity for d in old] == [Severity.ERROR]
    both = of(lint(tmp_path, config, options={"target-versions": {"deepspeed": ">=0.12,<0.14"}}), "RL428")
    assert [d.severity for d in both] == [Severity.WARNING] and "deepspeed < 0.13" in both[0].message


def test_a_sum_allreduce_skips_the_assertions_since_0_19_6(tmp_path: Path) -> None:
    config = {
        "train_micro_batch_size_per_gpu": 2,
        "zero_optimization": {"stage": 2},
        "prescale_gradients": True,
        "gradient_allreduce_op": "sum",
    }
    assert of(lint(tmp_path, config, client_optimizer=True), "RL428") == []
    assert [d.severity for d in of(lint(tmp_path, config, client_optimizer=True, options={"deepspeed-version": "0.19.5"}), "RL428")] == [
        Severity.ERROR
    ]


def test_max_grad_norm_null_fails_whoever_builds_the_optimizer(tmp_path: Path) -> None:
    config = {"train_micro_batch_size_per_gpu": 2, "optimizer": {"type": "AdamW", "params": {"lr": 1e-4, "max_grad_norm": None}}}
    for client in (False, True):
        found = [d for d in of(lint(tmp_path, config, client_optimizer=client), "RL421") if d.severity is Severity.ERROR]
        assert len(found) == 1 and "'>' not supported between instances of 'NoneType' and 'int'" in found[0].message


def test_a_fractional_steps_per_print_is_no_error(tmp_path: Path) -> None:
    found = lint(tmp_path, {"train_micro_batch_size_per_gpu": 2, "steps_per_print": 50.5})
    assert errors(found) == []
    assert [d.severity for d in of(found, "RL413")] == [Severity.WARNING] and "every 101 steps" in of(found, "RL413")[0].message


def test_auto_in_a_block_deepspeed_never_reads_is_ignored(tmp_path: Path) -> None:
    found = lint(tmp_path, {"train_micro_batch_size_per_gpu": 2, "zero_optimisation": {"stage": "auto"}})
    assert errors(found) == []
    assert [(d.severity, "never reads" in d.message) for d in of(found, "RL416")] == [(Severity.INFO, True)]


def test_zero_without_an_optimizer_is_what_fails(tmp_path: Path) -> None:
    config = {
        "train_micro_batch_size_per_gpu": 2,
        "zero_optimization": {"stage": 2},
        "optimizer": {"params": {"lr": 1e-4, "max_grad_norm": 1.0}},
    }
    found = of(lint(tmp_path, config), "RL421")
    assert [d.message.split(":")[0] for d in found] == ["the JSON names no optimizer (no optimizer.type) under ZeRO stage 2"]
    assert "'zero stage 2 requires an optimizer'" in found[0].message and found[0].severity is Severity.ERROR
    passed = of(lint(tmp_path, config, client_optimizer=True), "RL421")  # the script's own: the block is ignored, no failure
    assert [d.severity for d in passed] == [Severity.WARNING] and "requires an optimizer" not in passed[0].message
    assert errors(lint(tmp_path, {**config, "zero_optimization": {"stage": 3}})) == []  # DeepSpeedZeRoOffload needs none
    assert of(lint(tmp_path, config, client_optimizer=None), "RL421") == []  # the script not read: not judged


V100 = {"gpu_compute_capability": "7.0", "gpu_model": "Tesla V100-SXM2-32GB"}
BF16 = {"train_micro_batch_size_per_gpu": 2, "bf16": {"enabled": True}}


def lint_on(tmp_path: Path, config: dict[str, Any], hardware: dict[str, Any], options: dict[str, Any]) -> list[Diagnostic]:
    from tests.test_deepspeed import lint_json

    found: list[Diagnostic] = lint_json(tmp_path, config, "none", {**NODE, "gpus": 8, "nodes": 1, **hardware}, options)
    return found


@pytest.mark.parametrize(
    ("targets", "severity", "words"),
    [
        ({"torch": "==2.1.2"}, Severity.ERROR, "Type bf16 is not supported on your device"),
        ({"torch": "==2.4.0"}, Severity.WARNING, "passes through emulation"),
        ({}, Severity.WARNING, "passes through emulation"),  # no pin: the releases since 2.3.0 behave alike
        ({"torch": ">=2.0,<2.5"}, Severity.WARNING, "with torch < 2.3.0"),
        ({"torch": "==2.1.2", "deepspeed": "==0.15.4"}, Severity.WARNING, "before 0.16.0 has no bf16 check"),
    ],
)
def test_bf16_below_ampere_by_the_torch_the_run_pins(tmp_path: Path, targets: dict[str, str], severity: Severity, words: str) -> None:
    found = of(lint_on(tmp_path, BF16, V100, {"target-versions": targets}), "RL417")
    assert [d.severity for d in found] == [severity] and words in found[0].message


def test_fp16_below_volta_by_release(tmp_path: Path) -> None:
    fp16 = {"train_micro_batch_size_per_gpu": 2, "fp16": {"enabled": True}}
    p100 = {"gpu_compute_capability": "6.0", "gpu_model": "Tesla P100"}
    assert [d.severity for d in of(lint_on(tmp_path, fp16, p100, {}), "RL417")] == [Severity.ERROR]
    old = of(lint_on(tmp_path, fp16, p100, {"deepspeed-version": "0.12.6"}), "RL417")
    assert [d.severity for d in old] == [Severity.WARNING]


def test_a_release_older_than_the_tables_is_said_once_and_not_judged(tmp_path: Path) -> None:
    config = {"train_batch_size": 30, "train_micro_batch_size_per_gpu": 4, "zero_optimization": {"stage": 4, "zero_hpz_partition_size": 8}}
    found = lint(tmp_path, config, options={"deepspeed-version": "0.7.3"})
    said = of(found, "RL429")
    assert len(said) == 1 and said[0].severity is Severity.INFO
    assert (
        "DeepSpeed 0.7.3 is older than the releases recipelint knows (0.8.0 to 0.19.8): version-dependent checks skipped" in said[0].message
    )
    assert of(found, "RL413") == [] and of(found, "RL410") == []  # no table of theirs: not judged by 0.8.0's
    assert [d.severity for d in of(found, "RL415")] == [Severity.ERROR]  # the batch arithmetic is 0.7.0's too
    partly = of(lint(tmp_path, config, options={"target-versions": {"deepspeed": ">=0.6,<0.10"}}), "RL429")
    assert len(partly) == 1 and "the releases before 0.8.0" in partly[0].message
    assert of(lint(tmp_path, config, options={"deepspeed-version": "0.9.5"}), "RL429") == []


def test_zero_plus_plus_keys_on_0_9_5(tmp_path: Path) -> None:
    config = {"train_micro_batch_size_per_gpu": 2, "zero_optimization": {"stage": 3, "zero_hpz_partition_size": 8}}
    found = of(lint(tmp_path, config, options={"deepspeed-version": "0.9.5"}), "RL410")
    assert [d.severity for d in found] == [Severity.ERROR] and "from DeepSpeed 0.10.0" in found[0].message
    assert of(lint(tmp_path, config, options={"deepspeed-version": "0.10.0"}), "RL410") == []


def test_model_findings_name_the_releases_they_hold_for(tmp_path: Path) -> None:
    config = {"train_micro_batch_size_per_gpu": 2, "fp16": {"enabled": True, "min_loss_scale": 0.5}, "zero_optimization": {"stage": 4}}
    messages = [d.message for d in of(lint(tmp_path, config), "RL413")]
    assert any("rejected since 0.17.1" in m for m in messages)
    assert any("rejected in every release from 0.8.0 to 0.19.8" in m for m in messages)
    assert not any("sdist" in m for m in messages)


def test_the_tables_and_the_judged_floor_agree() -> None:
    from recipelint import versions
    from recipelint.toolkits.deepspeed import models
    from recipelint.toolkits.deepspeed.rules import _engine

    assert versions.JUDGED_FROM["deepspeed"] == models.releases()[0] == _engine.table()["deepspeed"]["releases"][0]


def test_held_in_words() -> None:
    from recipelint import versions

    releases = ["0.8.0", "0.10.0", "0.17.1", "0.19.8"]
    assert versions.held(releases, lambda v: v >= (0, 17, 1)) == "since 0.17.1"
    assert versions.held(releases, lambda v: v < (0, 17, 1)) == "from 0.8.0 until 0.17.1"
    assert versions.held(releases, lambda v: True) == "in every release from 0.8.0 to 0.19.8"
    assert versions.held(releases, lambda v: v == (0, 10, 0)) == "from 0.10.0 until 0.17.1"


PINS = Path(__file__).resolve().parent / "data" / "upstream" / "deepspeed-pins"


def _copy(name: str, tmp_path: Path) -> Path:
    import shutil

    return Path(shutil.copytree(PINS / name, tmp_path / name))


def test_video_llava_on_its_pinned_0_9_5(tmp_path: Path) -> None:
    """pyproject.toml pins deepspeed==0.9.5: its ZeRO configs are judged by 0.9.5's table and pass;
    a ZeRO++ key, which 0.9.5's model forbids, would not."""
    from tests.helpers import lint as lint_path

    assert lint_path(PINS / "Video-LLaVA") == []
    root = _copy("Video-LLaVA", tmp_path)
    config = json.loads((root / "scripts/zero2_offload.json").read_text())
    config["zero_optimization"]["zero_hpz_partition_size"] = 8
    (root / "scripts/zero2_offload.json").write_text(json.dumps(config, indent=4))
    found = [d for d in lint_path(root) if d.code == "RL410"]
    assert [d.severity for d in found] == [Severity.ERROR]
    assert (
        "deepspeed 0.9.5 (" in found[0].message and "pyproject.toml:26" in found[0].message and "from DeepSpeed 0.10.0" in found[0].message
    )


def test_gisting_on_its_pinned_0_8_3(tmp_path: Path) -> None:
    from tests.helpers import lint as lint_path

    assert lint_path(PINS / "gisting") == []
    root = _copy("gisting", tmp_path)
    config = json.loads((root / "ds_configs/stage3.json").read_text())
    config["zero_optimization"]["zero_quantized_weights"] = True
    (root / "ds_configs/stage3.json").write_text(json.dumps(config, indent=2))
    found = [d for d in lint_path(root) if d.code == "RL410"]
    assert [d.severity for d in found] == [Severity.ERROR] and "deepspeed 0.8.3" in found[0].message


def test_a_pin_that_admits_0_6_and_0_7_is_said_not_silent() -> None:
    """bigscience-workshop/metadata: requirements.txt deepspeed>=0.6.1 (its README trained on 0.7.7)."""
    from tests.helpers import lint as lint_path

    found = lint_path(PINS / "bigscience-metadata")
    assert [(d.code, d.severity) for d in found] == [("RL429", Severity.INFO), ("RL411", Severity.INFO)]
    assert "allows deepspeed>=0.6.1: the releases before 0.8.0 are older than the releases recipelint knows" in found[0].message
