"""DeepSpeed's config models per release (schemas/deepspeed/models, tools/build_deepspeed_models.py)
and the rules that follow them (issue 26): each behaviour fires on a real corpus config with one
change made in memory, and stays quiet on the config as upstream wrote it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from recipelint.diagnostics import Diagnostic, Severity
from recipelint.toolkits.deepspeed import models
from tests.helpers import CORPUS
from tests.test_deepspeed import lint_json

REPO = Path(__file__).resolve().parent.parent
TABLES = REPO / "schemas" / "deepspeed" / "models"
DS = CORPUS / "deepspeed"
# DeepSpeedExamples training/DeepSpeed-ZenFlow/finetuning/zf_config.json: ZeRO-2 with ZenFlow.
ZENFLOW = DS / "deepspeedai__DeepSpeedExamples/training/DeepSpeed-ZenFlow/finetuning/zf_config.json"
# axolotl deepspeed_configs/zero2.json: fp16 "auto" with dynamic loss scaling (loss_scale 0).
AXOLOTL_Z2 = DS / "axolotl-ai-cloud__axolotl/deepspeed_configs/zero2.json"
# LLaVA scripts/zero3.json: ZeRO-3 with every bucket "auto" (Hugging Face fills them).
LLAVA_Z3 = DS / "haotian-liu__LLaVA/scripts/zero3.json"


def upstream(path: Path, **changes: Any) -> dict[str, Any]:
    """The corpus file as upstream wrote it, with `a__b=value` changes (None removes a key)."""
    config: dict[str, Any] = json.loads(path.read_text())
    for dotted, value in changes.items():
        node = config
        *parents, leaf = dotted.split("__")
        for part in parents:
            node = node.setdefault(part, {})
        if value is None:
            node.pop(leaf, None)
        else:
            node[leaf] = value
    return config


def found(tmp_path: Path, config: dict[str, Any], code: str, filler: str = "none", target: str = "") -> list[Diagnostic]:
    options = {"target-versions": {"deepspeed": target}} if target else None
    return [d for d in lint_json(tmp_path, config, filler, options=options) if d.code == code]


def only(diagnostics: list[Diagnostic]) -> Diagnostic:
    assert len(diagnostics) == 1, [d.message for d in diagnostics]
    return diagnostics[0]


# ------------------------------------------------------------------------------ the tables


def test_every_table_names_its_source() -> None:
    names = sorted(p.stem for p in TABLES.glob("*.json"))
    assert len(names) >= 8 and "0.19.8" in names and "0.10.0" in names
    for name in names:
        data = json.loads((TABLES / f"{name}.json").read_text())
        assert data["release"] == name and data["generated_by"] == "tools/build_deepspeed_models.py"
        source = data["source"]
        if "tag" in source:
            assert source["repository"] == "deepspeedai/DeepSpeed" and source["tag"] == f"v{name}"
            assert re.fullmatch(r"[0-9a-f]{40}", source["commit"])
        else:
            assert source["sdist"] == f"deepspeed-{name}.tar.gz" and re.fullmatch(r"[0-9a-f]{64}", source["sha256"])
        assert "zero_optimization" in data["blocks"] and data["pydantic"] in (1, 2)


def test_every_validator_of_every_release_is_known() -> None:
    """A validator DeepSpeed adds is implemented by name or declared harmless, never skipped unseen."""
    for release in models.releases():
        for name, spec in models.table(release)["models"].items():
            for check in spec["validators"]:
                assert (name, check["name"]) in models.VALIDATORS, f"{release}: {name}.{check['name']} is not in models.VALIDATORS"


def _git_dir() -> str | None:
    candidate = os.environ.get("RECIPELINT_DEEPSPEED_GIT", "")
    return candidate if candidate and Path(candidate).is_dir() else None


@pytest.mark.slow
def test_the_table_is_what_the_tool_reads_from_the_source(tmp_path: Path) -> None:
    """Regenerated from the tagged source when a clone is at hand (RECIPELINT_DEEPSPEED_GIT), and
    from the sdist when RECIPELINT_DEEPSPEED_SDIST names it."""
    git_dir, sdist = _git_dir(), os.environ.get("RECIPELINT_DEEPSPEED_SDIST", "")
    if git_dir is None and not sdist:
        pytest.skip("no DeepSpeed source at hand (RECIPELINT_DEEPSPEED_GIT / RECIPELINT_DEEPSPEED_SDIST)")
    args = ["--git", git_dir, "--tags", "v0.19.5"] if git_dir else []
    args += ["--sdist", sdist] if sdist else []
    tool = [sys.executable, str(REPO / "tools" / "build_deepspeed_models.py"), *args, "--out", str(tmp_path)]
    subprocess.run(tool, check=True, capture_output=True, timeout=300)
    made = sorted(tmp_path.glob("*.json"))
    assert made
    for path in made:
        assert path.read_text() == (TABLES / path.name).read_text(), path.name


def test_the_tables_follow_deepspeeds_changes() -> None:
    """What the tool read: reduce_bucket_size became gt=0 in 0.19.8; fp16 a model in 0.17.1; the
    fp16 dynamic-scale validator in 0.19.3; pydantic 2 from 0.15.0."""
    zero = {r: models.table(r)["models"]["DeepSpeedZeroConfig"]["fields"]["reduce_bucket_size"] for r in ("0.19.5", "0.19.8")}
    assert zero["0.19.5"].get("ge") == 0 and zero["0.19.8"].get("gt") == 0
    assert "fp16" not in models.table("0.16.4")["blocks"] and models.table("0.17.1")["blocks"]["fp16"]["how"] == "kwargs"
    names = [v["name"] for v in models.table("0.19.3")["models"]["DeepSpeedFP16Config"]["validators"]]
    assert "_validate_dynamic_loss_scale_params" in names
    assert models.table("0.14.0")["pydantic"] == 1 and models.table("0.15.0")["pydantic"] == 2
    assert models.table("0.19.8")["blocks"]["zero_optimization"].get("accepts_bool") is True


# ---------------------------------------------------------------- pydantic's lax coercions


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (True, True),
        (0, False),
        (1, True),
        (1.0, True),
        ("false", False),
        ("Yes", True),
        ("off", False),
        (2, None),
        ("2", None),
        (None, None),
    ],
)
def test_booleans_as_pydantic_2_reads_them(value: Any, expected: bool | None) -> None:
    assert models.coerce_bool(value) is expected


@pytest.mark.parametrize(
    ("value", "expected"), [(3, 3), (3.0, 3), ("3", 3), (" 3 ", 3), ("3.0", 3), (True, 1), (1.5, None), ("3.5", None), ("5e8", None)]
)
def test_integers_as_pydantic_2_reads_them(value: Any, expected: int | None) -> None:
    assert models.coerce_int(value) == expected


def test_pydantic_1_truncates_a_fraction_and_2_rejects_it() -> None:
    config = {"zero_optimization": {"stage3_max_live_parameters": 1.5}}
    assert models.problems(config, "0.14.0") == []
    assert [p.message for p in models.problems(config, "0.19.8")] == [
        "Input should be a valid integer, got a number with a fractional part"
    ]


# ---------------------------------------------------------------- RL413: what the models reject


def test_zenflow_as_written_upstream_is_accepted(tmp_path: Path) -> None:
    assert found(tmp_path, upstream(ZENFLOW), "RL413") == []
    assert found(tmp_path, upstream(ZENFLOW), "RL410") == []


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"zero_optimization__zenflow__update_interval": 0}, "If update_interval is a number, it must be at least 1"),
        ({"zero_optimization__zenflow__select_strategy": "epochs"}, 'select_strategy must be one of "auto", "step", or "epoch"'),
        ({"zero_optimization__zenflow__topk_ratio": 1.5}, "Input should be less than 1.0"),
    ],
)
def test_zenflow_contents_deepspeed_rejects(tmp_path: Path, change: dict[str, Any], words: str) -> None:
    finding = only(found(tmp_path, upstream(ZENFLOW, **change), "RL413"))
    assert finding.severity is Severity.ERROR
    assert words in finding.message and "ZenFlowConfig, deepspeed/runtime/zenflow/zenflow_config.py" in finding.message


def test_an_unknown_zenflow_key_is_rejected(tmp_path: Path) -> None:
    finding = only(found(tmp_path, upstream(ZENFLOW, zero_optimization__zenflow__topk_ration=0.1), "RL410"))
    assert finding.severity is Severity.ERROR and "did you mean 'topk_ratio'" in finding.message


@pytest.mark.parametrize(
    ("change", "path", "words"),
    [
        ({"zero_optimization__allgather_bucket_size": -1}, "zero_optimization.allgather_bucket_size", "greater than or equal to 0"),
        ({"zero_optimization__stage3_max_live_parameters": 2.5}, "zero_optimization.stage3_max_live_parameters", "fractional part"),
        (
            {"zero_optimization__stage3_prefetch_bucket_size": -10},
            "zero_optimization.stage3_prefetch_bucket_size",
            "greater than or equal to 0",
        ),
        ({"zero_optimization__reduce_bucket_size": 0}, "zero_optimization.reduce_bucket_size", "greater than 0"),
        ({"tensor_parallel": {"autotp_size": 2.5}}, "tensor_parallel.autotp_size", "fractional part"),
        ({"tensor_parallel": {"autotp_size": None}}, "tensor_parallel.autotp_size", "Input should be a valid integer"),
        ({"zero_optimization": "stage2"}, "zero_optimization", "argument after ** must be a mapping, not str"),
        ({"bf16": "true"}, "bf16", "argument after ** must be a mapping, not str"),
    ],
)
def test_limits_the_models_enforce(tmp_path: Path, change: dict[str, Any], path: str, words: str) -> None:
    finding = only(found(tmp_path, upstream(ZENFLOW, **change), "RL413"))
    assert finding.severity is Severity.ERROR and finding.setting == path and words in finding.message
    assert "deepspeed/runtime" in finding.message and "; rejected " in finding.message and "sdist" not in finding.message
    assert "model table: the deepspeed-0.19.8 sdist" in finding.evidence


def test_a_bound_only_some_releases_have_is_a_warning_naming_them(tmp_path: Path) -> None:
    config = upstream(ZENFLOW, zero_optimization__reduce_bucket_size=0)
    finding = only(found(tmp_path, config, "RL413", target=">=0.19,<0.20"))
    # Field(gt=0) since 0.19.6 (its sdist's table); 0.19.5 had ge=0
    assert finding.severity is Severity.WARNING and "with deepspeed >= 0.19.6" in finding.message
    assert only(found(tmp_path, config, "RL413", target="==0.19.6")).severity is Severity.ERROR
    assert found(tmp_path, config, "RL413", target="==0.19.5") == []


def test_fp16_dynamic_loss_scale_window_and_floor(tmp_path: Path) -> None:
    """axolotl's zero2.json scales dynamically (loss_scale 0); with fp16 on, a window or floor of 0 is rejected."""
    base = upstream(AXOLOTL_Z2, fp16__enabled=True)
    assert found(tmp_path, base, "RL413") == []
    window = only(found(tmp_path, upstream(AXOLOTL_Z2, fp16__enabled=True, fp16__loss_scale_window=0), "RL413"))
    assert window.severity is Severity.ERROR and "fp16.loss_scale_window must be > 0" in window.message
    floor = only(found(tmp_path, upstream(AXOLOTL_Z2, fp16__enabled=True, fp16__min_loss_scale=0), "RL413"))
    assert "fp16.min_loss_scale must be > 0 when dynamic loss scaling is enabled" in floor.message
    static = upstream(AXOLOTL_Z2, fp16__enabled=True, fp16__loss_scale=128, fp16__loss_scale_window=0)
    assert found(tmp_path, static, "RL413") == []  # a fixed scale never reads the window
    assert found(tmp_path, upstream(AXOLOTL_Z2, fp16__enabled=True, fp16__loss_scale_window=0), "RL413", target="==0.19.2") == []


# ---------------------------------------------------------------- no false errors


@pytest.mark.parametrize(
    "change",
    [
        {"zero_optimization__overlap_comm": 1},  # pydantic's lax bool
        {"zero_optimization__contiguous_gradients": 0},
        {"zero_allow_untested_optimizer": 1},  # a dict.get flag tested for truth
        {"wall_clock_breakdown": 0},
        {"train_micro_batch_size_per_gpu": 2, "train_batch_size": None},
        {"train_micro_batch_size_per_gpu": 2, "train_batch_size": None, "gradient_accumulation_steps": None},
        {"zero_optimization": True},  # the legacy form, stage 1
        {"zero_optimization__stage": 3.0},
    ],
)
def test_what_deepspeed_accepts_is_no_error(tmp_path: Path, change: dict[str, Any]) -> None:
    config = upstream(ZENFLOW, **change)
    for key, value in change.items():
        if value is None:
            config[key] = None  # written as null: "not given"
    errors = [d for d in lint_json(tmp_path, config, "none") if d.severity is Severity.ERROR]
    assert errors == [], [d.message for d in errors]


def test_negative_clipping_is_a_warning_and_negative_printing_info(tmp_path: Path) -> None:
    clipping = only(found(tmp_path, upstream(ZENFLOW, gradient_clipping=-1.0), "RL413"))
    assert clipping.severity is Severity.WARNING and "clipping is off" in clipping.message
    printing = only(found(tmp_path, upstream(ZENFLOW, steps_per_print=-10), "RL413"))
    assert printing.severity is Severity.INFO
    assert only(found(tmp_path, upstream(ZENFLOW, steps_per_print=0), "RL413")).severity is Severity.ERROR


def test_an_unknown_key_whose_value_is_auto_is_ignored_in_a_model_block(tmp_path: Path) -> None:
    """LLaVA's zero3.json with a key ZeRO does not have: rejected; with "auto", dropped before validation."""
    auto = only(found(tmp_path, upstream(LLAVA_Z3, zero_optimization__stage3_prefetch_bucket="auto"), "RL410", filler="hf"))
    assert auto.severity is Severity.WARNING and 'drops every "auto" value' in auto.message
    unfilled = found(tmp_path, upstream(LLAVA_Z3, zero_optimization__stage3_prefetch_bucket="auto"), "RL416", filler="none")
    assert "zero_optimization.stage3_prefetch_bucket" not in [d.setting for d in unfilled]  # RL410's, not RL416's
    rejected = only(found(tmp_path, upstream(LLAVA_Z3, zero_optimization__stage3_prefetch_bucket=100), "RL410", filler="hf"))
    assert rejected.severity is Severity.ERROR
    assert found(tmp_path, upstream(LLAVA_Z3), "RL410", filler="hf") == []


# ---------------------------------------------------------------- RL414, RL415, RL419


def test_string_stage_on_a_plain_launch_is_info(tmp_path: Path) -> None:
    finding = only(found(tmp_path, upstream(ZENFLOW, zero_optimization__stage="2"), "RL414"))
    assert finding.severity is Severity.INFO
    assert found(tmp_path, upstream(ZENFLOW), "RL414") == []


def test_string_stage_with_hugging_face_only_inferred_is_a_warning(tmp_path: Path) -> None:
    finding = only(found(tmp_path, upstream(ZENFLOW, zero_optimization__stage="2"), "RL414", filler="hf"))
    assert finding.severity is Severity.WARNING and "if Hugging Face or Accelerate reads this config (inferred" in finding.message


def test_false_string_on_a_flag_dict_get_reads_is_on(tmp_path: Path) -> None:
    """Before 0.17.1 fp16 was read with dict.get: "false" is a true string; a top-level flag always is."""
    old = only(found(tmp_path, upstream(ZENFLOW, bf16__enabled="false"), "RL414", target="==0.16.4"))
    assert old.severity is Severity.WARNING and "so it is on" in old.message
    flag = only(found(tmp_path, upstream(ZENFLOW, zero_allow_untested_optimizer="false"), "RL414"))
    assert flag.severity is Severity.WARNING
    assert only(found(tmp_path, upstream(ZENFLOW, zero_allow_untested_optimizer="true"), "RL414")).severity is Severity.INFO


def test_a_fractional_micro_batch_is_said_as_such(tmp_path: Path) -> None:
    config = upstream(ZENFLOW, train_micro_batch_size_per_gpu=1.5, train_batch_size=None)
    assert found(tmp_path, config, "RL413") == []  # RL415 does DeepSpeed's arithmetic on it
    finding = only(found(tmp_path, config, "RL415"))
    assert finding.severity is Severity.WARNING and "no data loader draws a fraction" in finding.message
    assert only(found(tmp_path, upstream(ZENFLOW, train_batch_size=None), "RL415")).severity is Severity.ERROR  # none given


def test_offload_param_below_stage_3_names_the_key_at_its_span(tmp_path: Path) -> None:
    config = upstream(ZENFLOW, zero_optimization__offload_param={"device": "cpu"})
    finding = only(found(tmp_path, config, "RL419"))
    assert (
        finding.setting == "zero_optimization.offload_param"
        and finding.span.line == json.dumps(config, indent=2).split("\n").index('    "offload_param": {') + 1
    )
    assert (
        found(tmp_path, upstream(ZENFLOW, zero_optimization__offload_param={"device": "cpu"}, zero_optimization__stage="3"), "RL419") == []
    )


# ------------------------------------------- against DeepSpeed's own models, where they can load
# DeepSpeed's config modules import torch only for `torch.dtype`: with a stand-in for it, the
# models of an unpacked sdist load under pydantic alone (no GPU, no torch wheel). Runs where
# pydantic is importable and RECIPELINT_DEEPSPEED_SDIST_DIR names the unpacked deepspeed-0.19.8.
_ORACLE_VALUES: list[Any] = [0, 1, -1, 2, 1.5, 2.0, "3", "true", "false", "x", None, True, "auto", [], {}, 5e8, -0.5, "CPU", 1e20]


def _deepspeed_models(root: Path) -> dict[str, Any]:
    import importlib
    import logging
    import types

    torch = types.ModuleType("torch")
    torch.dtype = type("dtype", (), {})  # type: ignore[attr-defined]
    torch.float16 = torch.bfloat16 = torch.float32 = torch.dtype()  # type: ignore[attr-defined]
    stubs: dict[str, Any] = {"torch": torch}
    for name in ("deepspeed", "deepspeed.runtime", "deepspeed.runtime.zero", "deepspeed.runtime.zenflow", "deepspeed.runtime.fp16"):
        stubs[name] = types.ModuleType(name)
        stubs[name].__path__ = [str(root / name.replace(".", "/"))]
    stubs["deepspeed.runtime.tensor_parallel"] = types.ModuleType("deepspeed.runtime.tensor_parallel")
    stubs["deepspeed.runtime.tensor_parallel"].__path__ = [str(root / "deepspeed/runtime/tensor_parallel")]
    stubs["deepspeed.utils"] = types.ModuleType("deepspeed.utils")
    stubs["deepspeed.utils"].logger = logging.getLogger("deepspeed-oracle")
    scaler = types.ModuleType("deepspeed.runtime.fp16.loss_scaler")
    for name in ("INITIAL_LOSS_SCALE", "SCALE_WINDOW", "DELAYED_SHIFT", "CONSECUTIVE_HYSTERESIS", "MIN_LOSS_SCALE"):
        setattr(scaler, name, name.lower())
    stubs["deepspeed.runtime.fp16.loss_scaler"] = scaler
    saved = {name: sys.modules.get(name) for name in stubs}
    sys.modules.update(stubs)
    try:
        zero = importlib.import_module("deepspeed.runtime.zero.config")
        precision = importlib.import_module("deepspeed.runtime.precision_config")
        tp = importlib.import_module("deepspeed.runtime.tensor_parallel.config")
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
    return {
        "zero_optimization": (zero.get_zero_config, "DeepSpeedZeroConfig"),
        "fp16": (precision.get_float16_config, "DeepSpeedFP16Config"),
        "bf16": (precision.get_bfloat16_config, "DeepSpeedBF16Config"),
        "tensor_parallel": (tp.get_tensor_parallel_config, "TPTrainingConfig"),
    }


def _rejected(build: Any, config: dict[str, Any]) -> bool:
    try:
        build(config)
    except Exception as exc:  # noqa: BLE001 - pydantic, assertion and TypeError alike
        errors = exc.errors() if hasattr(exc, "errors") else None
        return not errors or any(e["type"] != "extra_forbidden" for e in errors)  # extra keys are RL410's
    return False


@pytest.mark.slow
def test_the_tables_judge_as_deepspeeds_own_models() -> None:
    pytest.importorskip("pydantic")
    root = Path(os.environ.get("RECIPELINT_DEEPSPEED_SDIST_DIR", "/nonexistent"))
    if not (root / "deepspeed" / "runtime" / "zero" / "config.py").is_file():
        pytest.skip("set RECIPELINT_DEEPSPEED_SDIST_DIR to an unpacked deepspeed-0.19.8 sdist")
    oracle = _deepspeed_models(root)
    data = models.table("0.19.8")
    disagree = []
    for path in sorted(DS.rglob("*.json"))[:40]:
        base = json.loads(path.read_text())
        for block, (build, model) in oracle.items():
            for field in sorted(models._fields(data, model)):
                for value in _ORACLE_VALUES:
                    config = {**base, block: {**(base.get(block) if isinstance(base.get(block), dict) else {}), field: value}}
                    mine = any(p.path.split(".")[0] == block for p in models.problems(config, "0.19.8"))
                    if mine != _rejected(build, config):
                        disagree.append(f"{path.name} {block}.{field}={value!r}: recipelint {'rejects' if mine else 'accepts'}")
    assert disagree == [], disagree[:20]


# transformers tests/deepspeed/ds_config_zero3.json writes "reduce_bucket_size": 0, which
# DeepSpeed's DeepSpeedZeroConfig rejects from 0.19.6 (Field(gt=0), the 0.19.6 sdist) and 0.19.5's accepted (ge=0).
TRANSFORMERS_Z3 = DS / "huggingface__transformers/tests/deepspeed/ds_config_zero3.json"


def test_a_real_config_the_newest_release_rejects(tmp_path: Path) -> None:
    config = upstream(TRANSFORMERS_Z3)
    finding = only(found(tmp_path, config, "RL413", filler="hf"))
    assert finding.severity is Severity.ERROR and finding.setting == "zero_optimization.reduce_bucket_size"
    assert "Input should be greater than 0" in finding.message and "rejected since 0.19.6" in finding.message
    some = only(found(tmp_path, config, "RL413", filler="hf", target=">=0.19.5"))
    assert some.severity is Severity.WARNING and "with deepspeed >= 0.19.6" in some.message
    assert found(tmp_path, config, "RL413", filler="hf", target="==0.19.5") == []


def test_a_key_of_a_newer_release_on_an_older_one(tmp_path: Path) -> None:
    """The ZenFlow example as upstream wrote it: `zenflow` is a ZeRO field from 0.17.6 in the tables;
    DeepSpeed 0.16.4's DeepSpeedZeroConfig rejects it."""
    old = only(found(tmp_path, upstream(ZENFLOW), "RL410", target="==0.16.4"))
    assert old.severity is Severity.ERROR and old.setting == "zero_optimization.zenflow"
    assert "the model tables have it from DeepSpeed 0.17.6" in old.message
    span = only(found(tmp_path, upstream(ZENFLOW), "RL410", target=">=0.16,<0.18"))
    assert span.severity is Severity.WARNING and "deepspeed < 0.17.6" in span.message
    assert found(tmp_path, upstream(ZENFLOW), "RL410", target=">=0.18") == []


def test_sum_allreduce_with_zero_3_is_refused_from_0_19_6(tmp_path: Path) -> None:
    """DeepSpeedConfig._do_error_check (0.19.6-0.19.8 sdists): gradient_allreduce_op 'sum' is
    refused with ZeRO stage 3 (or ZenFlow, DeepCompile); with stage 2 it is accepted, and 0.19.5
    has no such key."""
    config = upstream(LLAVA_Z3, gradient_allreduce_op="sum")
    error = only([d for d in found(tmp_path, config, "RL413") if d.setting == "gradient_allreduce_op"])
    assert error.severity is Severity.ERROR and "not supported with ZeRO stage 3" in error.message
    assert [
        d for d in found(tmp_path, upstream(LLAVA_Z3, gradient_allreduce_op="mean"), "RL413") if d.setting == "gradient_allreduce_op"
    ] == []
    stage2 = upstream(LLAVA_Z3, gradient_allreduce_op="SUM", zero_optimization__stage=2)
    assert [d for d in found(tmp_path, stage2, "RL413") if d.setting == "gradient_allreduce_op"] == []
    zenflow = upstream(ZENFLOW, gradient_allreduce_op="sum")
    assert "ZenFlow" in only([d for d in found(tmp_path, zenflow, "RL413") if d.setting == "gradient_allreduce_op"]).message
    older = [d for d in found(tmp_path, config, "RL413", target="==0.19.5") if d.setting == "gradient_allreduce_op"]
    assert older == []
    some = only([d for d in found(tmp_path, config, "RL413", target=">=0.19.5") if d.setting == "gradient_allreduce_op"])
    assert some.severity is Severity.WARNING
