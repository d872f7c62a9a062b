"""The Hugging Face Trainer as the run reads it: the flags its HfArgumentParser rejects in the
transformers releases the run installs (RL530), the DeepSpeed values it refuses to disagree with
(RL460, RL461) and the flags a DeepSpeed block replaces (RL470). Upstream files unmodified
(tests/data/upstream/trainer/*/SOURCE.md); the mismatch cases rebuilt from the issue threads that
report them (tests/data/field/trainer-*/SOURCE.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from recipelint.diagnostics import Applicability, Diagnostic, Severity
from tests.helpers import NODE, UPSTREAM, assert_snapshot, clone, lint

EIGHT_GPUS = {**NODE, "gpus": 8}


def found(path: Path, code: str, hardware: dict[str, object] | None = None) -> list[Diagnostic]:
    return [d for d in lint(path, hardware or EIGHT_GPUS) if d.code == code]


def pinned(root: Path, specifier: str | None) -> None:
    """Judge the copy against `specifier` (target-versions) with its own pins removed."""
    (root / "pyproject.toml").unlink()
    if specifier is not None:
        (root / "recipelint.toml").write_text(f'target-versions = {{transformers = "{specifier}"}}\n')


def test_removed_arguments_on_an_unpinned_fastchat_launch(tmp_path: Path) -> None:
    """FastChat's train_vicuna_7b.sh (unmodified): pyproject.toml pins transformers>=4.31.0 in an
    extra, so the newest releases install; each removed flag is a warning naming the releases."""
    root = clone("trainer/FastChat", tmp_path)
    diagnostics = found(root / "scripts/train_vicuna_7b.sh", "RL530")
    said = {d.current: (d.severity, d.span.line) for d in diagnostics}
    assert said == {
        "--evaluation_strategy": (Severity.WARNING, 10),
        "--warmup_ratio": (Severity.WARNING, 17),
        "--fsdp_transformer_layer_cls_to_wrap": (Severity.WARNING, 21),
    }
    first = next(d for d in diagnostics if d.current == "--evaluation_strategy")
    assert "with transformers >= 4.51.0" in first.message
    assert "Some specified arguments are not used by the HfArgumentParser" in first.message
    assert "parser: train.py:259: transformers.HfArgumentParser((ModelArguments, DataArguments, TrainingArguments))" in first.evidence
    assert "TrainingArguments has evaluation_strategy in transformers 4.30 up to 4.51 (excluded)" in first.evidence
    assert first.suggested == "--eval_strategy" and first.fix is not None and first.fix.edits[0].content == "--eval_strategy"
    assert_snapshot("RL530", diagnostics, tmp_path)


@pytest.mark.parametrize(
    ("flag", "line", "removed_in", "before"),
    [
        ("--evaluation_strategy", 10, "4.51", "4.50.3"),
        ("--fsdp_transformer_layer_cls_to_wrap", 21, "5.0", "4.57.6"),
        ("--warmup_ratio", 17, "5.15", "5.14.1"),
    ],
)
def test_each_removed_argument_over_its_release_range(tmp_path: Path, flag: str, line: int, removed_in: str, before: str) -> None:
    """All releases of the range removed the flag: error; none: quiet; some: warning naming them."""
    root = clone("trainer/FastChat", tmp_path)
    script = root / "scripts/train_vicuna_7b.sh"
    pinned(root, f">={removed_in}")
    (error,) = [d for d in found(script, "RL530") if d.current == flag]
    assert error.severity is Severity.ERROR and error.span.line == line
    assert "in any release the run may install" in error.message
    (root / "recipelint.toml").write_text(f'target-versions = {{transformers = "=={before}"}}\n')
    assert [d for d in found(script, "RL530") if d.current == flag] == []
    (root / "recipelint.toml").write_text(
        f'target-versions = {{transformers = ">={before},<{removed_in.split(".")[0]}.{int(removed_in.split(".")[1]) + 1}"}}\n'
    )
    (warning,) = [d for d in found(script, "RL530") if d.current == flag]
    assert warning.severity is Severity.WARNING and f"with transformers >= {removed_in}" in warning.message


def test_a_release_that_has_the_argument_is_quiet(tmp_path: Path) -> None:
    """LLaVA's v1_5/finetune.sh passes --evaluation_strategy "no" and pins transformers==4.37.2,
    which has it; train_mem.py hands on to llava/train/train.py's train(), whose parser is read."""
    root = clone("trainer/LLaVA", tmp_path)
    assert found(root / "scripts/v1_5/finetune.sh", "RL530") == []
    (root / "pyproject.toml").write_text((root / "pyproject.toml").read_text().replace("transformers==4.37.2", "transformers==4.51.3"))
    (finding,) = found(root / "scripts/v1_5/finetune.sh", "RL530")
    assert finding.current == "--evaluation_strategy" and finding.severity is Severity.ERROR


def test_a_script_that_keeps_the_remaining_strings_is_not_judged(tmp_path: Path) -> None:
    root = clone("trainer/FastChat", tmp_path)
    train = root / "fastchat/train/train.py"
    train.write_text(
        train.read_text().replace(
            "parser.parse_args_into_dataclasses()", "parser.parse_args_into_dataclasses(return_remaining_strings=True)"
        )
    )
    assert found(root / "scripts/train_vicuna_7b.sh", "RL530") == []


FIELD = Path(__file__).resolve().parent / "data" / "field"


def mismatches(tmp_path: Path, case: str, code: str = "RL460", side: str = "bad") -> list[Diagnostic]:
    """The case's launch (tests/data/field/<case>/bad/run.sh, or good/) on its 8-GPU node."""
    import shutil

    root = tmp_path / case
    shutil.copytree(FIELD / case, root)
    return found(root / side / "run.sh", code)


def fixed(tmp_path: Path, case: str) -> dict[str, bytes]:
    """bad/ after the safe fixes, as recipelint fix writes them: the changed files' bytes by name."""
    import shutil

    from recipelint import engine, fix
    from recipelint.hardware.profile import from_mapping
    from recipelint.parse.files import FileCache
    from recipelint.settings import Resolver

    copy = tmp_path / "fixed"
    shutil.copytree(FIELD / case / "bad", copy)
    profile = from_mapping(dict(EIGHT_GPUS), "profile test")

    def run_check(cache: FileCache) -> list[Diagnostic]:
        return engine.check([copy], hardware=lambda: profile, files=cache, resolver=Resolver(isolated=True)).diagnostics

    outcome = fix.fix_paths(run_check, unsafe=False)
    assert outcome.errors == []
    return {path.name: data for path, data in outcome.changed.items()}


def test_optimizer_scheduler_and_total_batch_of_the_apps_report(tmp_path: Path) -> None:
    """hendrycks/apps #9, with the repository's own tune_apps_gpt.py and deepspeed_config.json: the
    four lines of the report's error, each an error on its key (8 GPUs x 2 x 8 = 128)."""
    diagnostics = mismatches(tmp_path, "trainer-optimizer-apps")
    lines = sorted(d.message.split("values: ", 1)[1].split("'", 1)[0] for d in diagnostics)
    assert lines == [
        "- ds optimizer.params.lr=0.0001 vs hf learning_rate=5e-05",
        "- ds scheduler.params.warmup_max_lr=0.0001 vs hf learning_rate=5e-05",
        "- ds scheduler.params.warmup_num_steps=500 vs hf warmup_steps=0",
        "- ds train_batch_size=8 vs hf train_batch_size (calculated)=128",
    ]
    assert {d.severity for d in diagnostics} == {Severity.ERROR}
    lr = next(d for d in diagnostics if d.setting == "optimizer.params.lr")
    assert lr.evidence[0].startswith("hf learning_rate: argparse default 5e-05 of --lr via TrainingArguments(learning_rate=args.lr)")
    assert lr.fix is not None and lr.fix.edits[0].content == '"auto"'
    assert_snapshot("RL460", diagnostics, tmp_path)
    assert fixed(tmp_path, "trainer-optimizer-apps") == {
        "deepspeed_config.json": (FIELD / "trainer-optimizer-apps/good/deepspeed_config.json").read_bytes()
    }
    assert mismatches(tmp_path / "g", "trainer-optimizer-apps", side="good") == []


@pytest.mark.parametrize(
    ("case", "key", "line"),
    [
        (
            "trainer-micro-batch",
            "train_micro_batch_size_per_gpu",
            "- ds train_micro_batch_size_per_gpu=1 vs hf per_device_train_batch_size=8",
        ),
        ("trainer-precision", "fp16.enabled", "- ds fp16.enabled=True vs hf fp16|fp16_full_eval+fp16_backend(amp)=False"),
        ("trainer-clipping", "gradient_clipping", "- ds gradient_clipping=10 vs hf max_grad_norm=0.3"),
    ],
)
def test_each_key_family_as_the_reports_print_it(tmp_path: Path, case: str, key: str, line: str) -> None:
    (finding,) = mismatches(tmp_path, case)
    assert finding.setting == key and finding.severity is Severity.ERROR
    assert f"mismatch TrainingArguments values: {line}'" in finding.message
    assert mismatches(tmp_path / "g", case, side="good") == []  # "auto": the Trainer fills its own value


def test_a_string_through_an_accelerate_config_file(tmp_path: Path) -> None:
    """hiyouga/LlamaFactory #1116: accelerate launch, whose config names the JSON; "8" is not 8."""
    (finding,) = mismatches(tmp_path, "trainer-accumulation-accelerate")
    assert finding.setting == "gradient_accumulation_steps" and finding.severity is Severity.ERROR
    assert finding.message.startswith("gradient_accumulation_steps is '8' (a string) in the DeepSpeed config")
    assert "- ds gradient_accumulation_steps=8 vs hf gradient_accumulation_steps=8'" in finding.message


def test_an_accelerate_config_inline_deepspeed_block(tmp_path: Path) -> None:
    """hiyouga/LlamaFactory #201: gradient_accumulation_steps 4 in the YAML, 2 on the launch;
    gradient_clipping 0.5 equals --max_grad_norm 0.5."""
    (finding,) = mismatches(tmp_path, "trainer-accelerate-inline", code="RL461")
    assert mismatches(tmp_path / "g", "trainer-accelerate-inline", code="RL461", side="good") == []
    assert finding.setting == "gradient_accumulation_steps" and (finding.current, finding.suggested) == (4, 2)
    assert "- ds gradient_accumulation_steps=4 vs hf gradient_accumulation_steps=2'" in finding.message
    assert finding.fix is not None and finding.fix.edits[0].content == "2"
    assert_snapshot("RL461", [finding], tmp_path)


def test_auto_and_agreeing_values_are_quiet(tmp_path: Path) -> None:
    import shutil

    root = tmp_path / "trainer-clipping"
    shutil.copytree(FIELD / "trainer-clipping/bad", root)
    (root / "run.sh").write_text((root / "run.sh").read_text().replace("--max_grad_norm 0.3", "--max_grad_norm 10"))
    assert found(root / "run.sh", "RL460") == []
    llava = clone("trainer/LLaVA", tmp_path)  # every value "auto"
    assert found(llava / "scripts/v1_5/finetune.sh", "RL460") == []


def test_a_scheduler_block_replaces_the_launch_s_scheduler(tmp_path: Path) -> None:
    """Qwen's finetune_ds.sh, unmodified: --lr_scheduler_type cosine with a WarmupLR block."""
    root = clone("trainer/Qwen", tmp_path)
    (finding,) = found(root / "finetune/finetune_ds.sh", "RL470")
    assert finding.setting == "lr_scheduler_type" and finding.severity is Severity.WARNING and finding.span.line == 84
    assert "WarmupLR holds the learning rate at warmup_max_lr after the warmup, where cosine was asked for" in finding.message
    assert_snapshot("RL470", [finding], tmp_path)
    config = root / "finetune/ds_config_zero3.json"
    text = config.read_text()
    config.write_text(text[: text.index('"scheduler"')] + text[text.index('"zero_optimization"') :])
    assert found(root / "finetune/finetune_ds.sh", "RL470") == []


def test_fsdp_and_deepspeed_together_are_refused(tmp_path: Path) -> None:
    """FastChat's train_vicuna_7b.sh runs FSDP (quiet); given a --deepspeed JSON as well, the
    Trainer refuses the pair at start-up."""
    root = clone("trainer/FastChat", tmp_path)
    script = root / "scripts/train_vicuna_7b.sh"
    assert found(script, "RL471") == []
    (root / "ds.json").write_text('{"zero_optimization": {"stage": 2}, "train_micro_batch_size_per_gpu": "auto"}\n')
    script.write_text(script.read_text().replace("--tf32 True", "--deepspeed ds.json --tf32 True"))
    (finding,) = found(script, "RL471")
    assert finding.severity is Severity.ERROR and finding.span.line == 20 and finding.current == "full_shard auto_wrap"
    assert "Using --fsdp xxx together with --deepspeed is not possible" in finding.message
    assert_snapshot("RL471", [finding], tmp_path)


def test_show_prints_the_trainer_values_with_their_source(tmp_path: Path) -> None:
    """show's `trainer` section: a flag, an argparse default through TrainingArguments(x=args.y),
    a literal keyword, the default of the newest release the run may install."""
    from tests.helpers import describe

    root = tmp_path / "apps"
    import shutil

    shutil.copytree(FIELD / "trainer-optimizer-apps/bad", root)
    (description,) = describe([root / "run.sh"])[0]
    section = next(s for s in description.sections if s.title == "trainer")
    items = {item.label: (item.value, item.source) for item in section.items}
    assert items["per_device_train_batch_size"][0] == "2" and items["per_device_train_batch_size"][1].startswith(
        "flag --batch-size-per-replica 2 (run.sh:10) via"
    )
    assert items["learning_rate"] == (
        "5e-05",
        "argparse default 5e-05 of --lr via TrainingArguments(learning_rate=args.lr) (tune_apps_gpt.py:83)",
    )
    assert items["dataloader_num_workers"] == ("3", "TrainingArguments(dataloader_num_workers=3) (tune_apps_gpt.py:95)")
    assert items["max_grad_norm"] == ("1.0", "transformers 5.24 default 1.0")
    assert items["fp16"][0] == "True" and items["fp16"][1].startswith("flag --fp16 (run.sh:8)")


# -- pins where fine-tuning projects keep them ---------------------------------------------------


def test_a_dockerfile_pip_install_pins_the_release(tmp_path: Path) -> None:
    """`RUN pip install` with continued lines: a quoted specifier pins; an unquoted `deepspeed>=0.14`
    is a shell redirection (the package installs unpinned); options and bare names say nothing."""
    from recipelint.parse import pins

    (tmp_path / "Dockerfile").write_text(
        "FROM nvcr.io/nvidia/pytorch:24.01-py3\n"
        "RUN pip install --no-cache-dir \\\n"
        '    "transformers==4.37.2" \\\n'
        "    deepspeed>=0.14.0 accelerate && \\\n"
        "    pip install flash-attn --no-build-isolation\n"
        "RUN pip3 install -U trl==0.9.6 # the DPO recipe\n"
    )
    assert [(p.name, p.specifier, p.line) for p in pins.read(tmp_path / "Dockerfile")] == [
        ("transformers", "==4.37.2", 3),
        ("trl", "==0.9.6", 6),
    ]


def test_a_setup_py_deps_table_pins_what_it_hands_on(tmp_path: Path) -> None:
    """transformers' own setup.py pattern (a `_deps` table; `deps["x"]` and `deps_list("x")` take
    from it), as cumulo-autumn/StreamDiffusion@f456df40:setup.py copies it: a table entry the file
    takes is a pin (onnx, which it never takes, is not)."""
    from recipelint.parse import pins

    (tmp_path / "setup.py").write_text(
        "import re\nfrom setuptools import setup\n\n"
        '_deps = [\n    "torch",\n    "transformers==4.46.3",\n    "onnx==1.13.1",\n    "deepspeed>=0.14.0",\n]\n\n'
        'deps = {b: a for a, b in (re.findall(r"^(([^!=<>~]+)(?:[!=<>~].*)?$)", x)[0] for x in _deps)}\n\n\n'
        "def deps_list(*pkgs):\n    return [deps[pkg] for pkg in pkgs]\n\n\n"
        'extras = {"train": deps_list("torch", "deepspeed")}\n'
        'setup(name="x", install_requires=[deps["transformers"]], extras_require=extras)\n'
    )
    assert [(p.name, p.specifier, p.line) for p in pins.read(tmp_path / "setup.py")] == [
        ("torch", "", 5),  # a name alone: read, and passed over by the ranges (no release said)
        ("transformers", "==4.46.3", 6),
        ("deepspeed", ">=0.14.0", 8),
    ]
    handbook = {p.name: (p.specifier, p.line) for p in pins.read(UPSTREAM / "deepspeed/alignment-handbook/setup.py")}
    assert handbook["transformers"] == (">=4.53.3", 68) and handbook["deepspeed"] == (">=0.17.2", 48)  # unmodified upstream


def test_the_training_script_s_folder_pins_before_the_repository_s(tmp_path: Path) -> None:
    """FastChat's pyproject.toml allows transformers>=4.31.0; a requirements.txt beside the training
    code pinning 4.50.3 applies first: that release still has --evaluation_strategy."""
    root = clone("trainer/FastChat", tmp_path)
    script = root / "scripts/train_vicuna_7b.sh"
    (root / "fastchat/train/requirements.txt").write_text("transformers==4.50.3\n")
    assert [d.current for d in found(script, "RL530")] == []
    (root / "fastchat/train/requirements.txt").write_text("transformers==4.51.3\n")
    assert [d.current for d in found(script, "RL530") if d.severity is Severity.ERROR] == ["--evaluation_strategy"]


# -- trl's config classes ------------------------------------------------------------------------


def test_trl_config_fields_by_release() -> None:
    """schemas/transformers/trl_configs.json (trl 0.9.6 ... 1.16.0): SFTConfig sets its own
    learning_rate from 0.12 (2e-5; TrainingArguments' 5e-5 before), so over all releases read its
    default is not one value; DPOConfig's beta is 0.1 throughout."""
    from recipelint import trainingargs

    sft = trainingargs.trl_fields("SFTConfig")
    assert sft is not None and sft["learning_rate"] == () and "dataset_text_field" in sft
    dpo = trainingargs.trl_fields("DPOConfig")
    assert dpo is not None and dpo["beta"] == (0.1,)
    model = trainingargs.trl_fields("ModelConfig")  # not a TrainingArguments: its own fields, for TrlParser
    assert model is not None and "model_name_or_path" in model and "learning_rate" not in model
    assert trainingargs.trl_fields("AutoModelForCausalLMWithValueHead") is None


def test_a_trl_default_is_not_taken_for_transformers(tmp_path: Path) -> None:
    """A JSON lr of 2e-5 under SFTConfig: trl >= 0.12 defaults to 2e-5, TrainingArguments to 5e-5;
    with the trl release unknown the Trainer's value is not known and nothing is said (a flag that
    states it is judged)."""
    import shutil

    root = tmp_path / "sft"
    shutil.copytree(FIELD / "trainer-clipping/bad", root)
    train = root / "train.py"
    train.write_text(
        train.read_text()
        .replace(
            "from transformers import HfArgumentParser, Trainer",
            "from transformers import HfArgumentParser, Trainer\nfrom trl import SFTConfig",
        )
        .replace("transformers.Seq2SeqTrainingArguments", "SFTConfig")
    )
    config = root / "zero2.json"
    config.write_text(
        config.read_text().replace(
            '"gradient_clipping": 10', '"gradient_clipping": "auto", "optimizer": {"type": "AdamW", "params": {"lr": 2e-5}}'
        )
    )
    assert found(root / "run.sh", "RL460") == []
    (root / "run.sh").write_text((root / "run.sh").read_text().replace("--max_grad_norm 0.3", "--learning_rate 1e-4"))
    (finding,) = found(root / "run.sh", "RL460")
    assert finding.setting == "optimizer.params.lr" and "- ds optimizer.params.lr=2e-05 vs hf learning_rate=0.0001'" in finding.message


def test_values_built_in_code_are_read_as_the_code_computes_them(tmp_path: Path) -> None:
    """mPLUG-Owl v1's train.py (unmodified): `--bf16` is `store_true` with default True, and
    TrainingArguments gets `bf16=args.bf16, fp16=not args.bf16`: given, bf16 is True; fp16 is
    computed in code, so not known (never the release's default)."""
    from tests.helpers import describe

    root = clone("deepspeed/mPLUG-Owl", tmp_path)
    descriptions, _ = describe([root / "mPLUG-Owl/scripts/train_it.sh"])
    section = next(s for d in descriptions for s in d.sections if s.title == "trainer")
    items = {item.label: (item.value, item.source) for item in section.items}
    assert items["bf16"][0] == "True" and items["bf16"][1].startswith("flag --bf16 (train_it.sh:66) via TrainingArguments(bf16=args.bf16)")
    assert items["fp16"] == ("decided at run time", "TrainingArguments(fp16=...) computed in code (train.py:199)")


def _steps_case(tmp_path: Path, flags: str) -> Path:
    """bigscience-metadata's deepspeed_configs/v2.json (unmodified: WarmupDecayLR, total_num_steps
    100000, warmup_num_steps 6000) handed by a launch with `flags` to the hand-written Trainer
    script of the field cases."""
    import shutil

    root = tmp_path / "steps"
    root.mkdir(parents=True)
    shutil.copy(UPSTREAM / "deepspeed-pins/bigscience-metadata/bsmetadata/deepspeed_configs/v2.json", root / "v2.json")
    shutil.copy(FIELD / "trainer-clipping/bad/train.py", root / "train.py")
    (root / "run.sh").write_text(f"torchrun --nproc_per_node 8 train.py --output_dir out {flags} --deepspeed v2.json\n")
    return root / "run.sh"


@pytest.mark.parametrize(
    ("flags", "release", "lines"),
    [
        (
            "--max_steps 2000 --warmup_ratio 0.03 --learning_rate 5e-5",
            "4.46.3",
            [
                "- ds scheduler.params.total_num_steps=100000 vs hf num_training_steps (calculated)=2000",
                "- ds scheduler.params.warmup_num_steps=6000 vs hf warmup_steps=60",
            ],
        ),
        # from 5.0 a warmup_steps below 1 is a ratio of the step count: ceil(2000 x 0.05) = 100
        (
            "--max_steps 2000 --warmup_steps 0.05",
            "5.20.2",
            [
                "- ds scheduler.params.total_num_steps=100000 vs hf num_training_steps (calculated)=2000",
                "- ds scheduler.params.warmup_num_steps=6000 vs hf warmup_steps=100",
            ],
        ),
    ],
)
def test_total_and_warmup_steps_from_max_steps(tmp_path: Path, flags: str, release: str, lines: list[str]) -> None:
    """`--max_steps` above 0 is the num_training_steps the Trainer hands trainer_config_finalize:
    total_num_steps and a warmup from a ratio are then known and compared."""
    script = _steps_case(tmp_path, flags)
    (script.parent / "recipelint.toml").write_text(f'target-versions = {{transformers = "=={release}"}}\n')
    diagnostics = [d for d in found(script, "RL460") if str(d.setting).endswith("num_steps")]
    assert sorted(d.message.split("values: ", 1)[1].split("'", 1)[0] for d in diagnostics) == lines
    assert {d.severity for d in diagnostics} == {Severity.ERROR}


def test_steps_that_agree_or_need_the_dataset_are_quiet(tmp_path: Path) -> None:
    """The same JSON with the launch's own 100000 steps and 6000 warmup; and without --max_steps,
    where the step count comes from the dataset's length (not judged)."""
    agreeing = _steps_case(tmp_path / "a", "--max_steps 100000 --warmup_steps 6000 --learning_rate 5e-5")
    assert [d.setting for d in found(agreeing, "RL460") if str(d.setting).endswith("num_steps")] == []
    epochs = _steps_case(tmp_path / "b", "--num_train_epochs 3 --warmup_ratio 0.03 --learning_rate 5e-5")
    assert [d.setting for d in found(epochs, "RL460") if str(d.setting).endswith("num_steps")] == []


@pytest.mark.parametrize(
    ("specifier", "severity"), [(None, Severity.WARNING), (">=4.51", Severity.ERROR), ("==4.50.3", None), ("<4.41", None)]
)
def test_a_removed_training_arguments_keyword_by_release_range(tmp_path: Path, specifier: str | None, severity: Severity | None) -> None:
    """mPLUG-Owl v1's pipeline/train.py (unmodified) builds `TrainingArguments(evaluation_strategy='steps', ...)`:
    a TypeError from 4.51 on; a warning naming those releases when transformers is unpinned, an
    error when the pin admits only them, quiet where every release has the field."""
    root = clone("deepspeed/mPLUG-Owl", tmp_path)
    if specifier is not None:
        (root / "recipelint.toml").write_text(f'target-versions = {{transformers = "{specifier}"}}\n')
    diagnostics = found(root / "mPLUG-Owl/scripts/train_it.sh", "RL531")
    if severity is None:
        assert diagnostics == []
        return
    (finding,) = diagnostics
    assert finding.severity is severity and finding.span.line == 193 and finding.suggested == "eval_strategy"
    assert "unexpected keyword argument 'evaluation_strategy'" in finding.message
    assert finding.fix is not None and finding.fix.edits[0].content == "eval_strategy"
    assert (finding.fix.applicability is Applicability.SAFE) == (specifier == ">=4.51")
    if specifier is None:
        assert_snapshot("RL531", [finding], tmp_path)


def test_minicpm_v_launches_as_published(tmp_path: Path) -> None:
    """MiniCPM-V's two fine-tuning launches, unmodified, with the folder's transformers==4.51.2:
    the LoRA launch's --evaluation_strategy is gone in that release (an error); every choice value
    is one 4.51 accepts; every DeepSpeed value is "auto" (with --max_steps 10000 too)."""
    root = clone("trainer/MiniCPM-V", tmp_path)
    (removed,) = found(root / "finetune/finetune_lora.sh", "RL530")
    assert removed.severity is Severity.ERROR and removed.current == "--evaluation_strategy"
    assert any(e.startswith("transformers: transformers 4.51.2 (") and "requirements.txt:39" in e for e in removed.evidence)
    for launch in ("finetune_ds.sh", "finetune_lora.sh"):
        assert found(root / "finetune" / launch, "RL532") == []
        assert found(root / "finetune" / launch, "RL460") == []
    assert found(root / "finetune/finetune_ds.sh", "RL530") == []


@pytest.mark.parametrize(
    ("value", "pin", "severity"),
    [("best", "==4.46.3", Severity.ERROR), ("best", ">=4.40", Severity.WARNING), ("best", ">=4.47", None), ("steps", "==4.46.3", None)],
)
def test_a_choice_the_release_lacks(tmp_path: Path, value: str, pin: str, severity: Severity | None) -> None:
    """MiniCPM-V's finetune_ds.sh with `--save_strategy "best"` (SaveStrategy.BEST, added in
    4.47): argparse's invalid choice before 4.47."""
    root = clone("trainer/MiniCPM-V", tmp_path)
    script = root / "finetune/finetune_ds.sh"
    script.write_text(script.read_text().replace('--save_strategy "steps"', f'--save_strategy "{value}"'))
    requirements = root / "finetune/requirements.txt"
    requirements.write_text(requirements.read_text().replace("transformers==4.51.2", f"transformers{pin}"))
    diagnostics = found(script, "RL532")
    if severity is None:
        assert diagnostics == []
        return
    (finding,) = diagnostics
    assert finding.severity is severity and finding.current == "best" and finding.span.line == 56
    assert "invalid choice: 'best'" in finding.message and finding.evidence[0] == "choices: no, steps, epoch"
    if severity is Severity.WARNING:
        assert "transformers < 4.47" in finding.message
        assert_snapshot("RL532", [finding], tmp_path)


@pytest.mark.parametrize("config", ["zero3.yaml", "ddp.yaml"])
def test_an_accelerate_deepspeed_config_beside_the_trainer_s_json(tmp_path: Path, config: str) -> None:
    """alignment-handbook's zero3.yaml (DeepSpeed, a deepspeed_config block, mixed_precision bf16)
    launching MiniCPM-V's finetune.py with `--deepspeed ds_config_zero3.json`: the Trainer builds
    DeepSpeedPlugin(hf_ds_config=...) from the JSON, and accelerate's _deepspeed_config_checks
    refuses the config's keys (ACCELERATE_CONFIG_DS_FIELDS) beside it. Under ddp.yaml accelerate
    launch runs no DeepSpeed and sets no such fields: quiet."""
    import shutil

    root = clone("trainer/MiniCPM-V", tmp_path) / "finetune"
    shutil.copy(UPSTREAM / "trainer/alignment-handbook/recipes/accelerate_configs" / config, root / config)
    (root / "run.sh").write_text(
        f"accelerate launch --config_file {config} finetune.py --output_dir out --bf16 true --deepspeed ds_config_zero3.json\n"
    )
    diagnostics = found(root / "run.sh", "RL424")
    if config == "ddp.yaml":
        assert diagnostics == []
        return
    assert [(d.setting, d.severity) for d in diagnostics] == [
        ("deepspeed_config.offload_optimizer_device", Severity.ERROR),
        ("mixed_precision", Severity.ERROR),
    ]
    assert "beside the Trainer's --deepspeed ds_config_zero3.json" in diagnostics[0].message
    assert "zero3_save_16bit_model true, zero_stage 3" in diagnostics[0].message


def test_trl_parser_launches(tmp_path: Path) -> None:
    """alignment-handbook's smollm3 launches (unmodified): TrlParser((ScriptArguments, SFTConfig,
    ModelConfig)) from src/alignment (re-exported by its __init__.py, trl's classes beneath),
    `--config` (TrlParser's own) and --gradient_accumulation_steps: quiet. The same launch with
    --evaluation_strategy: parse_args_and_config rejects it like HfArgumentParser, an error with
    setup.py's transformers>=4.53.3."""
    root = clone("trainer/alignment-handbook", tmp_path)
    readme = root / "recipes/smollm3/README.md"
    assert found(readme, "RL530") == []
    readme.write_text(readme.read_text().replace("mid.yaml --gradient_accumulation_steps 16", "mid.yaml --evaluation_strategy steps", 1))
    (finding,) = found(readme, "RL530")
    assert finding.severity is Severity.ERROR and finding.span.line == 13 and finding.current == "--evaluation_strategy"
    assert "(ScriptArguments, SFTConfig, ModelConfig)" in finding.message
    assert any("transformers>=4.53.3" in e or "4.53.3" in e for e in finding.evidence)


def test_a_script_of_the_same_name_in_another_folder_is_not_the_launch_s(tmp_path: Path) -> None:
    """FlagEmbedding's LLARA README (unmodified): the second fence runs finetune/run.py, but the
    first fence's `cd ./pretrain` leaves its working folder undecided, and pretrain/run.py (another
    parser) is not taken for it; the first fence's launch keeps its one warning."""
    root = clone("trainer/FlagEmbedding", tmp_path)
    diagnostics = found(root / "research/LLARA/README.md", "RL530")
    assert [(d.span.line, d.current, d.severity) for d in diagnostics] == [(143, "--warmup_ratio", Severity.WARNING)]


def test_setup_py_requirements_read_from_a_file(tmp_path: Path) -> None:
    """transpeeder's setup.py (unmodified): install_requires=fetch_requirements('requirements.txt')
    gives the file's pins, with the file's own lines."""
    from recipelint.parse import pins

    found_pins = {p.name: p for p in pins.read(UPSTREAM / "deepspeed-pins/transpeeder/setup.py")}
    assert found_pins["transformers"].specifier == ">=4.31.0" and found_pins["transformers"].path.name == "requirements.txt"
    assert found_pins["transformers"].line == 3


def test_pyproject_dynamic_dependencies_name_requirements_files(tmp_path: Path) -> None:
    """setuptools' dynamic metadata (written here: the shape setuptools documents): the files named
    for `dependencies` and for each extra are read; a file outside the project's folder is not."""
    from recipelint.parse import pins

    (tmp_path / "requirements").mkdir()
    (tmp_path / "requirements/base.txt").write_text("transformers==4.46.3\n")
    (tmp_path / "requirements/train.txt").write_text("deepspeed>=0.14\n")
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\ndynamic = ["dependencies", "optional-dependencies"]\n\n'
        '[tool.setuptools.dynamic]\ndependencies = {file = ["requirements/base.txt"]}\n'
        'optional-dependencies.train = {file = ["requirements/train.txt", "../outside.txt"]}\n'
    )
    (tmp_path.parent / "outside.txt").write_text("torch==2.0.0\n")
    read = {p.name: p for p in pins.read(tmp_path / "pyproject.toml")}
    assert read["transformers"].specifier == "==4.46.3" and read["transformers"].extra == ""
    assert read["deepspeed"].specifier == ">=0.14" and read["deepspeed"].extra == "train"
    assert "torch" not in read
