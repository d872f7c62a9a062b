"""Which code reads a DeepSpeed JSON, decided from the launched training script read with ast,
and the rules that follow it (RL414, RL416, RL421), on unmodified upstream files:
Megatron-DeepSpeed's `pretrain_gpt.py` and `megatron/training.py`, DeepSpeedExamples'
`compression/cifar` (a plain `deepspeed.initialize`), stanford_alpaca's `train.py` (the Hugging
Face Trainer) and WeNet's `train_utils.py` (tests/data/upstream/deepspeed/*/SOURCE.md).

The one-line launches below are written by the tests: Megatron-DeepSpeed's own launch of the
curriculum config (`examples_deepspeed/curriculum_learning/ds_pretrain_gpt2.sh`) names it in a
value only the run time knows (`eval ${run_cmd}`)."""

from __future__ import annotations

import shutil
from pathlib import Path

from recipelint.diagnostics import Diagnostic, Severity
from recipelint.parse.files import FileCache
from recipelint.toolkits.deepspeed.consumer import read_consumer
from tests.helpers import CHECKOUTS, UPSTREAM, clone, describe, item, items, lint

MEGATRON_JSON = "examples_deepspeed/curriculum_learning/ds_zero_stage_1_config_baseline.json"


def _megatron(tmp_path: Path, config: str = MEGATRON_JSON) -> Path:
    root = clone("deepspeed/Megatron-DeepSpeed", tmp_path)
    (root / "train.sh").write_text(f"deepspeed --num_gpus 8 pretrain_gpt.py --deepspeed --deepspeed_config {config}\n")
    return root / "train.sh"


def _cifar(tmp_path: Path) -> Path:
    root = clone("deepspeed/DeepSpeedExamples", tmp_path)
    return root / "compression/cifar"


def _found(diagnostics: list[Diagnostic], code: str) -> list[Diagnostic]:
    return [d for d in diagnostics if d.code == code]


def test_megatron_passes_its_own_optimizer(tmp_path: Path) -> None:
    consumer = read_consumer(UPSTREAM / "deepspeed/Megatron-DeepSpeed/pretrain_gpt.py", FileCache())
    assert consumer is not None
    assert (consumer.kind, consumer.client_optimizer, consumer.client_scheduler) == ("megatron", True, True)
    assert consumer.evidence[0].startswith(
        "megatron/training.py:606: deepspeed.initialize(optimizer=optimizer, lr_scheduler=opt_param_scheduler"
    )
    assert consumer.evidence[1] == "pretrain_gpt.py:16: imports megatron.training"


def test_megatron_max_grad_norm_is_an_ignored_block_not_an_error(tmp_path: Path) -> None:
    found = _found(lint(_megatron(tmp_path)), "RL421")
    assert [(d.severity, d.setting) for d in found] == [(Severity.WARNING, "optimizer")]
    assert found[0].message.startswith("the optimizer block is ignored: the training code passes its own optimizer")
    assert found[0].span.path.name == "ds_zero_stage_1_config_baseline.json" and found[0].span.line == 8
    assert "megatron/training.py:606" in found[0].evidence[0]


def test_the_same_json_under_a_plain_initialize_is_an_error(tmp_path: Path) -> None:
    cifar = _cifar(tmp_path)
    shutil.copy(UPSTREAM / "deepspeed/Megatron-DeepSpeed" / MEGATRON_JSON, cifar / "baseline.json")
    (cifar / "train.sh").write_text("deepspeed train.py --deepspeed_config baseline.json\n")
    found = _found(lint(cifar / "train.sh"), "RL421")
    assert [(d.severity, d.setting) for d in found] == [(Severity.ERROR, "optimizer.params.max_grad_norm")]
    assert found[0].evidence == [
        "consumer: the training script's own deepspeed.initialize (train.py:116: deepspeed.initialize(model_parameters=...) passes no optimizer and no lr_scheduler)"
    ]


def test_the_json_alone_states_the_condition(tmp_path: Path) -> None:
    path = tmp_path / "baseline.json"
    shutil.copy(UPSTREAM / "deepspeed/Megatron-DeepSpeed" / MEGATRON_JSON, path)
    found = _found(lint(path), "RL421")
    assert [d.severity for d in found] == [Severity.WARNING]
    assert found[0].message.endswith(
        "if DeepSpeed builds this optimizer, i.e. the training code passes no optimizer to deepspeed.initialize (no launch names this JSON)"
    )


def test_megatron_json_without_optimizer_block_is_quiet(tmp_path: Path) -> None:
    launch = _megatron(tmp_path)
    config = launch.parent / MEGATRON_JSON
    text = config.read_text()
    start, end = text.index('  "optimizer"'), text.index('  "gradient_clipping"')
    config.write_text(text[:start] + text[end:])
    assert _found(lint(launch), "RL421") == []


def test_auto_in_an_ignored_optimizer_block_is_not_reported(tmp_path: Path) -> None:
    """stanford_alpaca's config has "auto" in its optimizer and scheduler params: nothing fills
    them under Megatron or a plain initialize, but Megatron never reads those blocks."""
    alpaca = UPSTREAM / "deepspeed/stanford_alpaca/configs/default_offload_opt_param.json"
    launch = _megatron(tmp_path / "m")
    shutil.copy(alpaca, launch.parent / "alpaca.json")
    launch.write_text("deepspeed --num_gpus 8 pretrain_gpt.py --deepspeed --deepspeed_config alpaca.json\n")
    megatron = {d.setting for d in _found(lint(launch), "RL416")}
    cifar = _cifar(tmp_path / "c")
    shutil.copy(alpaca, cifar / "alpaca.json")
    (cifar / "train.sh").write_text("deepspeed train.py --deepspeed_config alpaca.json\n")
    plain = {d.setting for d in _found(lint(cifar / "train.sh"), "RL416")}
    assert "optimizer.params.lr" in plain and "scheduler.params.warmup_num_steps" in plain
    assert not any(s and s.startswith(("optimizer.", "scheduler.")) for s in megatron)
    assert "bf16.enabled" in megatron  # the blocks DeepSpeed does read are still judged


def test_string_stage_under_plain_deepspeed_is_not_the_hugging_face_error(tmp_path: Path) -> None:
    cifar = _cifar(tmp_path)
    assert _found(lint(cifar / "run_compress.sh"), "RL414") == []
    config = cifar / "config/ds_config.json"
    config.write_text(config.read_text().replace('"stage": 0', '"stage": "3"'))
    found = _found(lint(cifar / "run_compress.sh"), "RL414")
    assert [d.severity for d in found] == [Severity.INFO]
    assert "pydantic model converts it" in found[0].message and "bool(" not in found[0].message
    assert found[0].fix is not None  # writing the literal stays safe


def test_string_stage_under_the_trainer_is_the_hugging_face_error(tmp_path: Path) -> None:
    root = clone("deepspeed/stanford_alpaca", tmp_path)
    readme = root / "README.md"
    assert _found(lint(readme), "RL414") == []
    config = root / "configs/default_offload_opt_param.json"
    config.write_text(config.read_text().replace('"stage": 3', '"stage": "3"'))
    found = _found(lint(readme), "RL414")
    assert [d.severity for d in found] == [Severity.ERROR]
    assert "Hugging Face/Accelerate read bool('3') = True and compare stage == 3" in found[0].message
    assert found[0].evidence == ["consumer: the Hugging Face Trainer (train.py:24: from transformers import Trainer)"]


def test_show_prints_the_consumer_with_its_evidence(tmp_path: Path) -> None:
    descriptions, _ = describe([_megatron(tmp_path / "m")])
    (megatron,) = [d for d in descriptions if d.path.name == "train.sh"]
    row = item(megatron, "run", "DeepSpeed JSON read by")
    assert row.value == "Megatron-DeepSpeed"
    assert row.source.startswith("megatron/training.py:606: deepspeed.initialize(optimizer=optimizer")
    assert item(megatron, "run", "JSON optimizer block").value == "ignored: the training code passes its own"
    descriptions, _ = describe([clone("deepspeed/stanford_alpaca", tmp_path / "a") / "README.md"])
    (alpaca,) = [d for d in descriptions if d.toolkit == "deepspeed"]  # the README's one DeepSpeed launch
    assert item(alpaca, "run", "DeepSpeed JSON read by").value == "the Hugging Face Trainer"
    assert item(alpaca, "run", "JSON scheduler block").value == "built by DeepSpeed"


def test_a_script_not_found_falls_back_to_the_flag(tmp_path: Path) -> None:
    root = clone("deepspeed/stanford_alpaca", tmp_path)
    (root / "train.py").unlink()
    descriptions, _ = describe([root / "README.md"])
    (alpaca,) = [d for d in descriptions if d.toolkit == "deepspeed"]
    row = item(alpaca, "run", "DeepSpeed JSON read by")
    assert row.value == "the Hugging Face Trainer"
    assert row.source == "the training script train.py is not found here; from the flag --deepspeed: Hugging Face TrainingArguments"


def test_a_launch_through_eval_is_read() -> None:
    """ds_pretrain_gpt2.sh runs `eval ${run_cmd}` (run_cmd="deepspeed ... ../../pretrain_gpt.py
    ${full_options} ..."): the launch is read as the shell reads it again, so its training script
    decides who reads the JSON (it was "not decided": the launch in a value only the run time knows)."""
    launch = UPSTREAM / "deepspeed/Megatron-DeepSpeed/examples_deepspeed/curriculum_learning/ds_pretrain_gpt2.sh"
    descriptions, _ = describe([launch])
    row = item(descriptions[0], "run", "DeepSpeed JSON read by")
    assert row.value == "Megatron-DeepSpeed" and row.source.endswith("pretrain_gpt.py:16: imports megatron.training")


def test_wenet_drops_its_optimizer_when_the_json_has_one() -> None:
    """train_utils.py sets optimizer = None under `if "optimizer" in ds_configs`: DeepSpeed builds the block."""
    consumer = read_consumer(CHECKOUTS / "wenet-head/wenet/utils/train_utils.py", FileCache())
    assert consumer is not None and consumer.kind == "deepspeed"
    assert (consumer.client_optimizer, consumer.client_scheduler) == (False, False)
    train = read_consumer(CHECKOUTS / "wenet-head/wenet/bin/train.py", FileCache())
    assert train is not None and (train.kind, train.builds("optimizer")) == ("wenet", True)


def test_megatron_reads_the_json_with_strict_json(tmp_path: Path) -> None:
    """megatron/training.py `_create_ds_config_dict` parses the file with json.load before
    DeepSpeed sees the dict: a trailing comma DeepSpeed's hjson accepts stops it."""
    launch = _megatron(tmp_path / "m")
    assert _found(lint(launch), "RL422") == []
    config = launch.parent / MEGATRON_JSON
    config.write_text(config.read_text().replace('"min_loss_scale": 1', '"min_loss_scale": 1,'))
    found = _found(lint(launch), "RL422")
    assert [d.severity for d in found] == [Severity.ERROR]
    assert "Megatron-DeepSpeed reads the file (json.load" in found[0].message
    cifar = _cifar(tmp_path / "c")
    shutil.copy(config, cifar / "baseline.json")
    (cifar / "train.sh").write_text("deepspeed train.py --deepspeed_config baseline.json\n")
    assert _found(lint(cifar / "train.sh"), "RL422") == []  # a plain initialize: only DeepSpeed's hjson reads it
    (tmp_path / "alone").mkdir()
    alone = _found(lint(Path(shutil.copy(config, tmp_path / "alone/baseline.json"))), "RL422")
    assert [d.severity for d in alone] == [Severity.WARNING]
    assert "if Hugging Face, Accelerate or Megatron-DeepSpeed reads this config" in alone[0].message


def test_show_on_a_json_alone(tmp_path: Path) -> None:
    """A DeepSpeed JSON no launch names: not decided, and why; ms-swift's trainer-arguments
    sft.json is no DeepSpeed config: no row."""
    (tmp_path / "alone").mkdir()
    config = Path(shutil.copy(UPSTREAM / "deepspeed/Megatron-DeepSpeed" / MEGATRON_JSON, tmp_path / "alone/baseline.json"))
    descriptions, _ = describe([config, UPSTREAM / "deepspeed/ms-swift/examples/yaml/deepspeed/sft.json"])
    rows = {d.path.name: items(d, "run").get("DeepSpeed JSON read by") for d in descriptions}
    baseline = rows["baseline.json"]
    assert baseline is not None and (baseline[0].value, baseline[0].source) == ("not decided", "no launch names this JSON")
    assert rows["sft.json"] is None


def test_a_script_under_the_working_folder_variable(tmp_path: Path) -> None:
    """rebase/ds_pretrain_gpt_125M.sh runs `deepspeed ${dir}/../../pretrain_gpt.py` with dir=`pwd`:
    the path is relative to the folder the launch runs from."""
    root = clone("deepspeed/Megatron-DeepSpeed", tmp_path)
    descriptions, _ = describe([root / "examples_deepspeed/rebase/ds_pretrain_gpt_125M.sh"])
    (launch,) = [d for d in descriptions if d.toolkit == "deepspeed"]
    assert item(launch, "run", "DeepSpeed JSON read by").value == "Megatron-DeepSpeed"
    (root / "pretrain_gpt.py").unlink()
    descriptions, _ = describe([root / "examples_deepspeed/rebase/ds_pretrain_gpt_125M.sh"])
    (launch,) = [d for d in descriptions if d.toolkit == "deepspeed"]
    # the launch's --deepspeed_config (in ${deepspeed_options}, on every branch) says what reads it
    assert item(launch, "run", "DeepSpeed JSON read by").source == (
        "the training script ../../pretrain_gpt.py is not found here; "
        "from the flag --deepspeed_config: DeepSpeed's own argument, read by the script's deepspeed.initialize"
    )


def test_xtuner_hands_the_json_to_hf_deepspeed_config(tmp_path: Path) -> None:
    """XTuner's DeepSpeedStrategy builds transformers' HfDeepSpeedConfig from the JSON (its
    deepspeed_zero2.json, copied verbatim from XTuner v0.2.0 in tests/data/diagnose)."""
    root = Path(shutil.copytree(UPSTREAM.parent / "diagnose/xtuner-multinode", tmp_path / "xtuner"))
    assert _found(lint(root / "train.sh"), "RL414") == []
    config = root / "deepspeed_zero2.json"
    config.write_text(config.read_text().replace('"stage": 2', '"stage": "2"'))
    (found,) = _found(lint(root / "train.sh"), "RL414")
    assert found.severity is Severity.ERROR
    assert "also hands the JSON to transformers' HfDeepSpeedConfig (xtuner/engine/_strategy/deepspeed.py" in found.message


def test_a_removed_optimizer_in_an_ignored_block(tmp_path: Path) -> None:
    """DeepSpeedExamples' 1-bit Adam config (tests/data/field/onebitadam-removed/bad): RL423 under
    a plain initialize, the ignored block (RL421) under Megatron's own optimizer."""
    onebit = UPSTREAM.parent / "field/onebitadam-removed/bad/deepspeed_onebitadam_bsz96_config.json"
    launch = _megatron(tmp_path / "m", "onebit.json")
    shutil.copy(onebit, launch.parent / "onebit.json")
    megatron = lint(launch)
    assert _found(megatron, "RL423") == []
    assert [(d.severity, d.setting) for d in _found(megatron, "RL421")] == [(Severity.WARNING, "optimizer")]
    cifar = _cifar(tmp_path / "c")
    shutil.copy(onebit, cifar / "onebit.json")
    (cifar / "train.sh").write_text("deepspeed train.py --deepspeed_config onebit.json\n")
    assert [d.severity for d in _found(lint(cifar / "train.sh"), "RL423")] == [Severity.ERROR]


def test_a_module_launch(tmp_path: Path) -> None:
    """`torchrun -m pkg.train`: the module's file, pkg/train.py (stanford_alpaca's, unmodified)."""
    alpaca = UPSTREAM / "deepspeed/stanford_alpaca"
    (tmp_path / "pkg").mkdir()
    shutil.copy(alpaca / "train.py", tmp_path / "pkg/train.py")
    shutil.copy(alpaca / "configs/default_offload_opt_param.json", tmp_path / "ds.json")
    (tmp_path / "run.sh").write_text("torchrun --nproc_per_node 8 -m pkg.train --deepspeed ds.json\n")
    descriptions, _ = describe([tmp_path / "run.sh"])
    row = item(descriptions[0], "run", "DeepSpeed JSON read by")
    assert (row.value, row.source.split(";")[0]) == ("the Hugging Face Trainer", "pkg/train.py:24: from transformers import Trainer")
    (tmp_path / "pkg/train.py").unlink()
    descriptions, _ = describe([tmp_path / "run.sh"])
    assert item(descriptions[0], "run", "DeepSpeed JSON read by").source.startswith("the training script pkg.train is not found here")


def test_a_module_launch_through_a_wrapper(tmp_path: Path) -> None:
    """`torchrun -m org.team.project.cli`, a wrapper whose only code is `from
    org.team.project.train import train; train()`: the import is found from the folder that holds
    `org` (what `-m` puts on the path), however deep the module; stanford_alpaca's train.py
    (unmodified) then shows the Trainer."""
    alpaca = UPSTREAM / "deepspeed/stanford_alpaca"
    package = tmp_path / "org/team/project"
    package.mkdir(parents=True)
    shutil.copy(alpaca / "train.py", package / "train.py")
    (package / "cli.py").write_text("from org.team.project.train import train\n\nif __name__ == '__main__':\n    train()\n")
    shutil.copy(alpaca / "configs/default_offload_opt_param.json", tmp_path / "ds.json")
    (tmp_path / "run.sh").write_text("torchrun --nproc_per_node 8 -m org.team.project.cli --deepspeed ds.json\n")
    descriptions, _ = describe([tmp_path / "run.sh"])
    row = item(descriptions[0], "run", "DeepSpeed JSON read by")
    assert row.value == "the Hugging Face Trainer"
    assert row.source.startswith("org/team/project/train.py:24: from transformers import Trainer; org/team/project/cli.py:1: imports")


def test_keys_the_code_writes_and_a_trainer_under_accelerate_fill_auto(tmp_path: Path) -> None:
    """BELLE: the inference backend sets train_batch_size and the micro batch in the dict it hands
    deepspeed.initialize, so the JSON's "auto" there is overwritten; run_rm.sh is `accelerate
    launch` of a trl RewardTrainer, which fills the optimizer's betas and eps before accelerate's
    plugin reads the JSON. Neither is RL416; the consumer row says what the code sets."""
    root = clone("deepspeed/BELLE", tmp_path)
    scripts = root / "train" / "scripts"
    descriptions, result = describe([scripts / "run_zero_inference_backend_without_trainer.sh", scripts / "run_rm.sh"])
    assert [d for d in result.diagnostics if d.code in ("RL416", "RL415")] == []
    backend = next(d for d in descriptions if d.path.name == "run_zero_inference_backend_without_trainer.sh")
    row = item(backend, "run", "DeepSpeed JSON read by")
    assert "the code sets train_batch_size, train_micro_batch_size_per_gpu in the config it passes" in row.source
    rm = next(d for d in descriptions if d.path.name == "run_rm.sh")
    assert item(rm, "run", "DeepSpeed JSON read by").value == "the Hugging Face Trainer"
