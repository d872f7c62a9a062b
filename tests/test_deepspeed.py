"""DeepSpeed JSON: each rule fires on a config that breaks it and stays quiet on one that does not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from recipelint import engine
from recipelint.checkoptions import CheckOptions
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.hardware.profile import from_mapping
from recipelint.model import Recipe
from recipelint.parse.files import FileCache
from recipelint.parse.jsonfile import parse_json
from recipelint.rules import all_rules
from tests.helpers import A100, CORPUS, NODE, assert_snapshot, clone, deepspeed_launch, lint

BASE: dict[str, Any] = {
    "train_micro_batch_size_per_gpu": 4,
    "gradient_accumulation_steps": 2,
    "zero_optimization": {"stage": 2},
    "bf16": {"enabled": True},
}
V100 = {**NODE, "gpus": 8, "nodes": 1, "gpu_compute_capability": "7.0", "gpu_model": "Tesla V100-SXM2-32GB"}


def lint_json(
    tmp_path: Path,
    config: dict[str, Any] | str,
    filler: str = "unknown",
    hardware: dict[str, Any] | None = None,
    options: dict[str, Any] | None = None,
) -> list:  # type: ignore[type-arg]
    path = tmp_path / "ds.json"
    path.write_text(config if isinstance(config, str) else json.dumps(config, indent=2))
    recipe = Recipe(root=tmp_path, toolkit="deepspeed", ds_config=parse_json(FileCache().read(path)), ds_filler=filler)
    profile = from_mapping(dict(hardware or {**NODE, "gpus": 8, "nodes": 1}), "profile test")
    # launched on every GPU of the profile's nodes: the data-parallel size RL415 judges at
    recipe.launch = deepspeed_launch(profile.value("gpus"), profile.value("nodes") or 1)
    from recipelint.context import Context, Options

    ctx = Context(recipe, lambda: profile, Options.from_keys(options or {}))
    found: list[Diagnostic] = []
    for rule in all_rules().values():
        found.extend(d for d in rule.check(ctx) if d is not None)
    return found


def with_(**changes: Any) -> dict[str, Any]:
    config: dict[str, Any] = json.loads(json.dumps(BASE))
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


# code -> (firing config, quiet config, filler, hardware, options)
CASES: dict[str, tuple[Any, Any, str, dict[str, Any] | None, dict[str, Any] | None]] = {
    "RL410": (with_(gradient_clipp1ng=1.0), with_(gradient_clipping=1.0), "unknown", None, None),
    "RL411": (
        with_(zero_optimization__stage3_gather_fp16_weights_on_model_save=True),
        with_(zero_optimization__stage3_gather_16bit_weights_on_model_save=True),
        "unknown",
        None,
        None,
    ),
    "RL412": (with_(compression_training={}), with_(data_efficiency={"enabled": False}), "unknown", None, None),
    "RL413": (with_(zero_optimization__stage=4), with_(zero_optimization__stage=3), "unknown", None, None),
    "RL414": (with_(zero_optimization__stage="3"), with_(zero_optimization__stage=3), "hf", None, None),
    "RL415": (with_(train_batch_size=32), with_(train_batch_size=64), "none", None, None),
    "RL416": (with_(train_micro_batch_size_per_gpu="auto"), with_(train_micro_batch_size_per_gpu="auto"), "none", None, None),
    "RL417": (BASE, with_(bf16__enabled=False, fp16={"enabled": True}), "unknown", V100, None),
    "RL418": (with_(fp16={"enabled": True}), BASE, "unknown", None, None),
    "RL419": (
        with_(zero_optimization__offload_param={"device": "cpu"}),
        with_(zero_optimization__stage=3, zero_optimization__offload_param={"device": "cpu"}),
        "unknown",
        None,
        None,
    ),
    "RL420": (
        with_(zero_optimization__offload_optimizer={"device": "cpu"}),
        with_(zero_optimization__offload_optimizer={"device": "cpu"}),
        "unknown",
        {**NODE, "memory_gib": 128},
        {"model-params": 7e9},
    ),
    "RL421": (
        with_(optimizer={"type": "Adam", "params": {"lr": 1e-4, "max_grad_norm": 1.0}}),
        with_(optimizer={"type": "Adam", "params": {"lr": 1e-4}}),
        "hf",
        None,
        None,
    ),
    "RL429": (BASE, BASE, "unknown", None, {"deepspeed-version": "0.7.3"}),
    "RL428": (with_(prescale_gradients=True), with_(prescale_gradients=False), "unknown", None, None),
    "RL423": (
        with_(optimizer={"type": "OneBitAdam", "params": {"lr": 1e-4, "freeze_step": 100}}),
        with_(optimizer={"type": "AdamW", "params": {"lr": 1e-4}}),
        "unknown",
        None,
        None,
    ),
    "RL422": (
        '{"train_micro_batch_size_per_gpu": 4, "train_micro_batch_size_per_gpu": 8}',
        '{"train_micro_batch_size_per_gpu": 4}',
        "unknown",
        None,
        None,
    ),
}
# The quiet variants that need a different launch or machine than the firing one.
QUIET_OVERRIDES: dict[str, tuple[str, dict[str, Any] | None, dict[str, Any] | None]] = {
    "RL416": ("hf", None, None),
    "RL420": ("unknown", {**NODE, "memory_gib": 512}, {"model-params": 7e9}),
    "RL429": ("unknown", None, {"deepspeed-version": "0.9.5"}),
}


# Rules that need a launch beside the JSON, tested below on real files instead of a CASES entry.
WITH_A_LAUNCH = ("RL424", "RL425", "RL426", "RL427", "RL439")


def test_every_deepspeed_rule_has_a_case() -> None:
    assert sorted([*CASES, *WITH_A_LAUNCH]) == sorted(
        code for code, rule in all_rules().items() if rule.family == "deepspeed" and code >= "RL410"
    )


@pytest.mark.parametrize("code", sorted(CASES))
def test_fires(code: str, tmp_path: Path) -> None:
    config, _, filler, hardware, options = CASES[code]
    assert_snapshot(code, lint_json(tmp_path, config, filler, hardware, options), tmp_path)


@pytest.mark.parametrize("code", sorted(CASES))
def test_quiet(code: str, tmp_path: Path) -> None:
    _, config, filler, hardware, options = CASES[code]
    filler, hardware, options = QUIET_OVERRIDES.get(code, (filler, hardware, options))
    found = [d.message for d in lint_json(tmp_path, config, filler, hardware, options) if d.code == code]
    assert found == []


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (
            {"train_batch_size": 32, "train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 2},
            "32 != micro batch 4 x accumulation 2 x data-parallel size 8 = 64",
        ),
        ({"train_batch_size": 16, "train_micro_batch_size_per_gpu": 4}, "Gradient accumulation steps: 0 has to be greater than 0"),
        ({"train_batch_size": 36, "train_micro_batch_size_per_gpu": 4}, "derives accumulation 1 and asserts 36 != 4 * 1 * 8"),
        ({"train_batch_size": 4, "gradient_accumulation_steps": 2}, "Micro batch size per gpu: 0 has to be greater than 0"),
        ({"train_batch_size": 30, "gradient_accumulation_steps": 2}, "derives micro batch 1 and asserts 30 != 1 * 2 * 8"),
        ({"train_batch_size": 4}, "alone on data-parallel size 8"),
        ({"train_batch_size": 12}, "12 != 1 * 1 * 8"),
        ({"gradient_accumulation_steps": 2}, "Either train_batch_size or train_micro_batch_size_per_gpu needs to be provided"),
    ],
)
def test_batch_triple_cases(config: dict[str, Any], message: str, tmp_path: Path) -> None:
    messages = [d.message for d in lint_json(tmp_path, config, "none") if d.code == "RL415"]
    assert len(messages) == 1 and message in messages[0]


@pytest.mark.parametrize(
    "config",
    [
        {"train_batch_size": 64, "train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 2},
        {"train_batch_size": 32, "train_micro_batch_size_per_gpu": 4},
        {"train_micro_batch_size_per_gpu": 4},
        {"train_batch_size": 64, "sequence_parallel_size": 2, "train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 4},
    ],
)
def test_batch_triple_accepts(config: dict[str, Any], tmp_path: Path) -> None:
    assert [d.message for d in lint_json(tmp_path, config, "none") if d.code == "RL415"] == []


def test_auto_depends_on_who_launches(tmp_path: Path) -> None:
    config = with_(train_micro_batch_size_per_gpu="auto", zero_optimization__stage3_max_live_parameters="auto")

    def codes(filler: str) -> list[str]:
        return sorted(d.setting or "" for d in lint_json(tmp_path, config, filler) if d.code == "RL416")

    assert codes("none") == ["train_micro_batch_size_per_gpu", "zero_optimization.stage3_max_live_parameters"]
    assert codes("hf") == ["zero_optimization.stage3_max_live_parameters"]
    assert codes("xtuner") == ["zero_optimization.stage3_max_live_parameters"]


def test_removed_keys_follow_the_target_version(tmp_path: Path) -> None:
    config = with_(progressive_layer_drop={"enabled": True})
    newest = [d for d in lint_json(tmp_path, config) if d.code == "RL412"]
    assert str(newest[0].severity) == "error" and "removed in DeepSpeed 0.19.8" in newest[0].message
    older = [d for d in lint_json(tmp_path, config, options={"deepspeed-version": "0.19.7"}) if d.code == "RL412"]
    assert str(older[0].severity) == "info"


EXAMPLES = Path(__file__).parent / "data/corpus/deepspeed/deepspeedai__DeepSpeedExamples"


@pytest.mark.parametrize(
    ("code", "config", "target", "severity", "says"),
    [
        ("RL412", "compression/cifar/config/ds_config_channel_prune.json", None, "error", "(deepspeed 0.19.8, the newest known)"),
        ("RL412", "compression/cifar/config/ds_config_channel_prune.json", ">=0.19", "warning", "with deepspeed >= 0.19.7; "),
        ("RL412", "compression/cifar/config/ds_config_channel_prune.json", "<0.19.7", "info", "works with the target"),
        (
            "RL423",
            "training/bing_bert/1-bit_adam/nccl/deepspeed_bsz4k_onebitadam_config_seq128_nccl.json",
            ">=0.18,<0.20",
            "warning",
            "with deepspeed >= 0.19.7; target-versions allows deepspeed>=0.18,<0.20",
        ),
        ("RL423", "training/bing_bert/1-bit_adam/nccl/deepspeed_bsz4k_onebitadam_config_seq128_nccl.json", "0.19.7", "error", "removed"),
        ("RL423", "training/bing_bert/1-bit_adam/nccl/deepspeed_bsz4k_onebitadam_config_seq128_nccl.json", "0.19.6", "info", "works"),
    ],
)
def test_removed_features_over_the_range_the_run_imports(
    tmp_path: Path, code: str, config: str, target: str | None, severity: str, says: str
) -> None:
    """Unmodified DeepSpeedExamples configs: an error when every release in the range removed the
    feature, a warning naming the releases when some did, info when none did."""
    options = {"target-versions": {"deepspeed": target if target[0] in "<>=!~" else f"=={target}"}} if target else {}
    found = [d for d in lint_json(tmp_path, (EXAMPLES / config).read_text(), options=options) if d.code == code]
    assert found and {str(d.severity) for d in found} == {severity}
    assert says in found[0].message


@pytest.mark.parametrize(
    ("target", "severity"),
    [(None, "warning"), ("<0.16.4", None), (">=0.16,<0.17", "warning")],
)
def test_aio_thread_count_only_where_it_was_renamed(tmp_path: Path, target: str | None, severity: str | None) -> None:
    options = {"target-versions": {"deepspeed": target}} if target else {}
    found = [d for d in lint_json(tmp_path, with_(aio={"thread_count": 2}), options=options) if d.code == "RL411"]
    assert [str(d.severity) for d in found] == ([severity] if severity else [])
    if target and severity:
        assert "(with deepspeed >= 0.16.4; target-versions allows deepspeed>=0.16,<0.17)" in found[0].message


@pytest.mark.parametrize(("target", "severity"), [(None, "error"), ("<0.17.1", "info"), (">=0.17,<0.18", "warning")])
def test_strict_blocks_from_the_release_that_validates_them(tmp_path: Path, target: str | None, severity: str) -> None:
    """bf16 is validated by pydantic from 0.17.1: before, an unknown key in it is ignored."""
    options = {"target-versions": {"deepspeed": target}} if target else {}
    found = [d for d in lint_json(tmp_path, with_(bf16={"enabled": True, "loss_scale_window": 100}), options=options) if d.code == "RL410"]
    assert [str(d.severity) for d in found] == [severity]


def test_schema_is_a_valid_2020_12_schema() -> None:
    from jsonschema import Draft202012Validator

    from recipelint.schemas import load_schema

    schema = load_schema("deepspeed/ds_config.schema.json")
    Draft202012Validator.check_schema(schema)
    assert schema["$id"].endswith("ds_config.schema.json") and schema["title"]
    for key, spec in schema["properties"].items():
        assert spec.get("description"), key


def test_schema_is_generated_from_the_builder() -> None:
    import runpy

    from tests.helpers import REPO

    built = runpy.run_path(str(REPO / "tools" / "build_deepspeed_schema.py"))["schema"]
    assert json.loads((REPO / "schemas/deepspeed/ds_config.schema.json").read_text()) == built


def test_wenet_recipe_runs_the_deepspeed_rules(tmp_path: Path) -> None:
    from tests.helpers import DS_JSON, RecipeSpec

    spec = RecipeSpec(
        flags=["--num_workers 4", "--prefetch 10", "--train_engine deepspeed", "--deepspeed_config conf/ds.json"],
        ds={**DS_JSON, "train_micro_batch_size_per_gpu": "auto"},
    )
    script = spec.write(tmp_path)
    profile = from_mapping(dict(NODE), "p")
    found = {d.code: d for d in engine.check([script], hardware=lambda: profile).diagnostics}
    assert "RL416" in found and str(found["RL416"].severity) == "error"  # WeNet fills nothing
    assert "RL402" in found  # and WeNet's own micro-batch assert


def test_model_params_from_the_command_line_and_the_config(tmp_path: Path) -> None:
    from tests.helpers import cli

    (tmp_path / "ds_config.json").write_text(json.dumps(with_(zero_optimization__offload_optimizer={"device": "cpu"})))
    (tmp_path / "node.yaml").write_text("cpus: 64\nmemory_gib: 128\ngpus: 8\ngpu_compute_capability: '9.0'\n")
    args = ["check", str(tmp_path / "ds_config.json"), "--hardware", str(tmp_path / "node.yaml")]
    assert "RL420" not in cli(*args).stdout  # no parameter count: nothing to compare
    assert "RL420" in cli(*args, "--model-params", "7e9").stdout  # 7e9 x 16 B x 1.5 = 168 GB > 128 GiB
    (tmp_path / "recipelint.toml").write_text("model-params = 7e9\n")
    assert "RL420" in cli(*args).stdout


@pytest.mark.parametrize(
    ("command", "filler_code", "world"),
    [
        ("deepspeed --num_nodes 2 --num_gpus 8 train.py --deepspeed_config ds.json", "RL416", 16),
        ("torchrun --nnodes 1 --nproc_per_node 4 train.py --deepspeed ds.json", None, 4),
        ("accelerate launch --num_machines 2 --num_processes 16 train.py --deepspeed ds.json", "RL416", 16),
    ],
)
def test_other_launches_check_their_json(tmp_path: Path, command: str, filler_code: str | None, world: int | None) -> None:
    config = {
        "train_batch_size": 32,
        "train_micro_batch_size_per_gpu": 4,
        "gradient_accumulation_steps": 1,
        "gradient_clipping": "auto",
        "zero_optimization": {"stage": 2, "stage3_max_live_parameters": "auto"},
    }
    (tmp_path / "ds.json").write_text(json.dumps(config))
    (tmp_path / "train.sh").write_text(command + "\n")
    profile = from_mapping({**NODE, "gpus": 8}, "p")
    found = engine.check([tmp_path / "train.sh"], hardware=lambda: profile).diagnostics
    auto = sorted(d.setting or "" for d in found if d.code == "RL416")
    if filler_code is None:  # Hugging Face fills gradient_clipping, not stage3_max_live_parameters
        assert auto == ["zero_optimization.stage3_max_live_parameters"]
    else:  # nothing fills under plain DeepSpeed; Accelerate raises for any "auto" it has no value for
        assert "zero_optimization.stage3_max_live_parameters" in auto
    triple = [d for d in found if d.code == "RL415"]
    if world is not None:
        assert triple and f"data-parallel size {world}" in triple[0].message  # 32 != 4 x 1 x world


@pytest.mark.parametrize(
    ("filler", "severity", "edit"),
    [
        ("hf", "error", '"stage3_prefetch_bucket_size"'),
        ("accelerate", "error", '"stage3_prefetch_bucket_size"'),
        ("unknown", "warning", '"stage3_prefetch_bucket_size"'),
        ("none", "error", "50000000"),  # nothing fills it: DeepSpeed's own default, which it used anyway
    ],
)
def test_auto_on_a_bare_alias_is_renamed_or_made_explicit(tmp_path: Path, filler: str, severity: str, edit: str) -> None:
    config = with_(zero_optimization__stage=3, zero_optimization__prefetch_bucket_size="auto")
    found = [d for d in lint_json(tmp_path, config, filler) if d.code == "RL416"]
    assert len(found) == 1 and str(found[0].severity) == severity
    assert "bare alias of stage3_prefetch_bucket_size" in found[0].message
    assert found[0].fix is not None and [e.content for e in found[0].fix.edits] == [edit]
    if filler != "none":
        assert "not found in kwargs" in found[0].message
        assert (tmp_path / "ds.json").read_bytes()[found[0].fix.edits[0].span.start :].startswith(b'"prefetch_bucket_size"')


def test_auto_on_an_alias_beside_its_stage3_name_has_no_rename(tmp_path: Path) -> None:
    config = with_(zero_optimization__prefetch_bucket_size="auto", zero_optimization__stage3_prefetch_bucket_size=5e7)
    found = [d for d in lint_json(tmp_path, config, "hf") if d.code == "RL416"]
    assert found[0].fix is None and "remove prefetch_bucket_size" in found[0].message


def test_accelerate_fills_the_hidden_size_keys(tmp_path: Path) -> None:
    config = with_(
        zero_optimization__stage=3, zero_optimization__stage3_prefetch_bucket_size="auto", zero_optimization__reduce_bucket_size="auto"
    )
    assert [d.message for d in lint_json(tmp_path, config, "accelerate") if d.code == "RL416"] == []


def test_removed_optimizer_follows_the_target_version(tmp_path: Path) -> None:
    config = with_(optimizer={"type": "ZeroOneAdam", "params": {"lr": 1e-4, "var_freeze_step": 100, "cuda_aware": False}})
    newest = [d for d in lint_json(tmp_path, config) if d.code == "RL423"]
    assert str(newest[0].severity) == "error"
    assert (
        "removed in DeepSpeed 0.19.7" in newest[0].message and "'ZeroOneAdam is not a supported DeepSpeed Optimizer'" in newest[0].message
    )
    assert "delete cuda_aware, var_freeze_step" in newest[0].message and "pin deepspeed<0.19.7" in newest[0].message
    older = [d for d in lint_json(tmp_path, config, options={"deepspeed-version": "0.19.6"}) if d.code == "RL423"]
    assert str(older[0].severity) == "info"


def test_batch_triple_of_a_json_no_launch_names(tmp_path: Path) -> None:
    """No launch, no data-parallel size: DeepSpeedExamples' compression configs (32 = micro 32 x
    accumulation 1) run on one GPU of an 8-GPU node, so the node's GPU count is not assumed. Only
    a triple that no size satisfies is reported."""
    from recipelint.context import Context

    def alone(config: dict[str, Any]) -> list[str]:
        path = tmp_path / "ds.json"
        path.write_text(json.dumps(config))
        recipe = Recipe(root=tmp_path, toolkit="deepspeed", ds_config=parse_json(FileCache().read(path)), ds_filler="unknown")
        profile = from_mapping({**NODE, "gpus": 8, "nodes": 1}, "profile test")
        ctx = Context(recipe, lambda: profile)
        return [d.message for d in all_rules()["RL415"].check(ctx) if d is not None]

    assert alone({"train_batch_size": 32, "train_micro_batch_size_per_gpu": 32}) == []
    assert alone({"train_batch_size": 4, "gradient_accumulation_steps": 1}) == []
    assert alone({"train_batch_size": 30, "train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 2}) == [
        "train_batch_size 30 is not a multiple of micro batch 4 x accumulation 2 = 8: DeepSpeed's batch assertion fails on every data-parallel size"
    ]
    assert alone({"train_batch_size": 2, "train_micro_batch_size_per_gpu": 4}) == [
        "train_batch_size 2 is not a multiple of micro batch 4 = 4: DeepSpeed's batch assertion fails on every data-parallel size"
    ]


def check_command(root: Path, command: str, monkeypatch: pytest.MonkeyPatch) -> list[Diagnostic]:
    """One launch command line run from `root` (where its relative paths start), on the A100 node."""
    from recipelint.hardware.profile import load_profile
    from recipelint.settings import Resolver

    monkeypatch.chdir(root)
    profile = load_profile(A100)
    result = engine.check([], CheckOptions(command=command), hardware=lambda: profile, files=FileCache(), resolver=Resolver(isolated=True))
    assert not result.errors, result.errors
    return result.diagnostics


def test_accelerate_config_beside_a_deepspeed_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """RL424 on unmodified upstream files put together by a launch line: LMFlow's
    accelerate_dsz3_config.yaml (a deepspeed_config block and mixed_precision bf16) with LMFlow's
    configs/deepspeed/zero3.json, which accelerate's DeepSpeedPlugin refuses both ways;
    accelerate's own template with `--mixed_precision bf16` (what its comment suggests) against
    its fp16 JSON; and a DeepSpeedExamples JSON without zero_optimization."""
    lmflow = clone("deepspeed/LMFlow", tmp_path)
    found = check_command(
        lmflow,
        "accelerate launch --config_file configs/accelerate_dsz3_config.yaml "
        "--deepspeed_config_file configs/deepspeed/zero3.json examples/finetune.py",
        monkeypatch,
    )
    templates = clone("deepspeed/accelerate", tmp_path) / "examples/config_yaml_templates"
    found += check_command(templates, "accelerate launch --mixed_precision bf16 --config_file deepspeed.yaml run_me.py", monkeypatch)
    glue = CORPUS / "deepspeed/deepspeedai__DeepSpeedExamples/training/bing_bert/glue_bert_base.json"
    (tmp_path / "glue").mkdir()
    (tmp_path / "glue" / glue.name).write_bytes(glue.read_bytes())
    command = f"accelerate launch --use_deepspeed --deepspeed_config_file {glue.name} train.py"
    found += check_command(tmp_path / "glue", command, monkeypatch)
    assert_snapshot("RL424", found, tmp_path)


def test_accelerate_deepspeed_pairs_accelerate_accepts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """RL424 stays quiet on the same files launched as their authors do: LMFlow's config without a
    JSON (accelerate builds the DeepSpeed config from its block), accelerate's template without
    --mixed_precision, VideoX-Fun's `--mixed_precision="bf16"` with its bf16 JSON, accelerate's
    sp-alst example, and open-instruct's `--mixed_precision bf16` with its "auto" JSON."""
    lmflow = clone("deepspeed/LMFlow", tmp_path)
    found = check_command(lmflow, "accelerate launch --config_file configs/accelerate_dsz3_config.yaml examples/finetune.py", monkeypatch)
    templates = clone("deepspeed/accelerate", tmp_path) / "examples/config_yaml_templates"
    found += check_command(templates, "accelerate launch --config_file deepspeed.yaml run_me.py", monkeypatch)
    roots = [clone(f"deepspeed/{name}", tmp_path) for name in ("VideoX-Fun", "open-instruct")]
    result = engine.check(roots, hardware=lambda: from_mapping(dict(NODE), "profile test"), files=FileCache())
    assert not result.errors
    found += result.diagnostics
    assert [d.message for d in found if d.code == "RL424"] == []


def test_accelerate_config_unknown_keys(tmp_path: Path) -> None:
    """RL425 on accelerate's own tests/test_configs/invalid_keys.yaml (its test of the "had unknown
    keys" ValueError), checked alone."""
    root = clone("deepspeed/accelerate", tmp_path)
    result = engine.check(
        [root / "tests/test_configs/invalid_keys.yaml"], hardware=lambda: from_mapping(dict(NODE), "profile test"), files=FileCache()
    )
    assert not result.errors
    assert_snapshot("RL425", result.diagnostics, root)


def test_accelerate_configs_with_known_keys(tmp_path: Path) -> None:
    """RL425 stays quiet on every other real Accelerate config the tests carry: accelerate's
    latest.yaml (TPU and command keys too), its templates and sp-alst config, LLaMA-Factory's,
    LMFlow's (`gpu_ids:` empty, dynamo_config), StableAvatar's (`dynamo_backend`, converted by
    process_config) and alignment-handbook's (14 files)."""
    names = ("accelerate", "LLaMA-Factory", "LMFlow", "StableAvatar", "alignment-handbook")
    roots = [clone(f"deepspeed/{name}", tmp_path) for name in names]
    configs = sorted(p for root in roots for p in root.rglob("*.y*ml") if p.name != "invalid_keys.yaml")
    assert len(configs) == 14
    result = engine.check(configs, hardware=lambda: from_mapping(dict(NODE), "profile test"), files=FileCache())
    assert not result.errors
    assert [d.message for d in result.diagnostics if d.code == "RL425"] == []


def test_accelerate_processes_against_visible_gpus(tmp_path: Path) -> None:
    """RL426 on LLaMA-Factory v0.6.3's single_node.sh (8 visible GPUs, a config of 4 processes:
    a warning; v0.7.0 fixed the script to 0,1,2,3), and on its current KTransformers guide
    (`CUDA_VISIBLE_DEVICES=0,1` for a config of 4 processes: an error)."""
    root = clone("deepspeed/LLaMA-Factory", tmp_path)
    found = lint(root / "v0.6.3/examples/lora_multi_gpu/single_node.sh")
    found += lint(root / "main-ff6d4d12/docs/en/advanced/ktransformers.md")
    assert_snapshot("RL426", found, tmp_path)


def test_accelerate_processes_on_as_many_visible_gpus(tmp_path: Path) -> None:
    """RL426 stays quiet on v0.7.0's two scripts (4 visible, 4 per machine; 8 over 2 machines),
    on StableAvatar's launch without a process count (one per visible GPU by construction) and its
    64 processes over 8 machines with no CUDA_VISIBLE_DEVICES."""
    llama = clone("deepspeed/LLaMA-Factory", tmp_path) / "v0.7.0"
    avatar = clone("deepspeed/StableAvatar", tmp_path)
    found = [d for path in (llama, avatar) for d in lint(path)]
    assert [d.message for d in found if d.code == "RL426"] == []


def test_accelerate_launch_unknown_options(tmp_path: Path) -> None:
    """RL427 on accelerate's own examples/README.md (`--mixed_precison fp16`) and LMFlow's
    contrib/text2image/finetune_t2i.sh (`--main_port=`, accelerate's is --main_process_port)."""
    accelerate = clone("deepspeed/accelerate", tmp_path)
    lmflow = clone("deepspeed/LMFlow", tmp_path)
    found = lint(accelerate / "examples/README.md") + lint(lmflow / "contrib/text2image/finetune_t2i.sh")
    assert_snapshot("RL427", found, tmp_path)


def test_accelerate_launch_known_options(tmp_path: Path) -> None:
    """RL427 stays quiet on every other real accelerate launch the tests carry: `--num-processes=8`
    (VideoX-Fun), `--use_deepspeed --deepspeed_config_file` and `--deepspeed_multinode_launcher`
    (open-instruct), `--machine_rank`/`--main_process_ip`/`--main_process_port` (StableAvatar),
    python -m accelerate.commands.launch with `--rdzv_conf` (accelerate's sp-alst)."""
    names = ("VideoX-Fun", "open-instruct", "StableAvatar", "LLaMA-Factory", "alignment-handbook", "MindSpeed-MM")
    found = [d for name in names for d in lint(clone(f"deepspeed/{name}", tmp_path))]
    accelerate = clone("deepspeed/accelerate", tmp_path)
    found += lint(accelerate / "examples/alst_ulysses_sequence_parallelism")
    assert [d.message for d in found if d.code == "RL427"] == []


@pytest.mark.parametrize("key", ["train_micro_batch_size_per_gpu", "gradient_accumulation_steps", "train_batch_size"])
def test_a_batch_size_below_one_is_one_finding_not_a_crash(tmp_path: Path, key: str) -> None:
    """`{"train_batch_size": 8, "train_micro_batch_size_per_gpu": 0}` under a launch divided by zero
    in the batch-triple rule ("internal error in a rule", the JSON's findings lost)."""
    (tmp_path / "ds.json").write_text(json.dumps({"train_batch_size": 8, "train_micro_batch_size_per_gpu": 2, key: 0}))
    (tmp_path / "run.sh").write_text("deepspeed --num_gpus 8 train.py --deepspeed_config ds.json\n")
    from recipelint.settings import Resolver

    result = engine.check(
        [tmp_path / "run.sh"], hardware=lambda: from_mapping(dict(NODE, gpus=8), "test"), resolver=Resolver(isolated=True)
    )
    assert result.errors == []
    assert [(d.code, d.setting) for d in result.diagnostics if d.severity is Severity.ERROR] == [("RL413", key)]


@pytest.mark.parametrize(
    ("pin", "severity"),
    [("accelerate>=0.4.0,<1", Severity.WARNING), ("accelerate==0.13.2", None), ("accelerate>=1.0", Severity.ERROR)],
)
def test_a_retired_accelerate_option_is_judged_against_the_pinned_releases(tmp_path: Path, pin: str, severity: Severity | None) -> None:
    """RL427 on bigscience-workshop/metadata's README (`accelerate launch --fp16 train.py`; --fp16
    was an option through accelerate 0.15.0): its requirements.txt pins `accelerate>=0.4.0,<1`,
    so some releases take it (a warning naming the pin); with the release its comment expects
    (0.13.2) nothing; with only releases after 0.15.0 the launch stops at start (an error)."""
    root = clone("deepspeed/bigscience-metadata", tmp_path)
    requirements = root / "requirements.txt"
    requirements.write_text(requirements.read_text().replace("accelerate>=0.4.0,<1", pin))
    found = [d for d in lint(root / "README.md") if d.code == "RL427"]
    if severity is None:
        assert found == []
        return
    (finding,) = found
    assert finding.severity is severity and finding.setting == "fp16"
    assert f"requirements.txt:9 allows {pin}" in finding.message


@pytest.mark.parametrize(("pin", "severity"), [("", Severity.WARNING), ("accelerate==1.6.0", None), ("accelerate>=1.7", Severity.ERROR)])
def test_a_retired_accelerate_config_key_is_judged_against_the_pinned_releases(tmp_path: Path, pin: str, severity: Severity | None) -> None:
    """RL425's retired keys go through the same verdict as RL427's options: `tp_config` was a
    ClusterConfig field through accelerate 1.6.0 (a written config: no real one the tests carry has it)."""
    (tmp_path / ".git").mkdir()
    config = tmp_path / "accelerate.yaml"
    config.write_text("compute_environment: LOCAL_MACHINE\ndistributed_type: MULTI_GPU\nnum_processes: 8\ntp_config:\n  tp_size: 2\n")
    if pin:
        (tmp_path / "requirements.txt").write_text(pin + "\n")
    (tmp_path / "run.sh").write_text("accelerate launch --config_file accelerate.yaml train.py\n")
    (tmp_path / "train.py").write_text("import accelerate\n")
    found = [d for d in lint(tmp_path / "run.sh") if d.code == "RL425"]
    assert [d.severity for d in found] == ([severity] if severity else [])
