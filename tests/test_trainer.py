"""The Hugging Face Trainer as the run reads it: the flags its HfArgumentParser rejects in the
transformers releases the run installs (RL530), the DeepSpeed values it refuses to disagree with
(RL460, RL461) and the flags a DeepSpeed block replaces (RL470). Upstream files unmodified
(tests/data/upstream/trainer/*/SOURCE.md); the mismatch cases rebuilt from the issue threads that
report them (tests/data/field/trainer-*/SOURCE.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from recipelint.diagnostics import Diagnostic, Severity
from tests.helpers import NODE, assert_snapshot, clone, lint

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
    [("--evaluation_strategy", 10, "4.51", "4.50.3"), ("--fsdp_transformer_layer_cls_to_wrap", 21, "5.0", "4.57.6"), ("--warmup_ratio", 17, "5.15", "5.14.1")],
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
    (root / "recipelint.toml").write_text(f'target-versions = {{transformers = ">={before},<{removed_in.split(".")[0]}.{int(removed_in.split(".")[1]) + 1}"}}\n')
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
    train.write_text(train.read_text().replace("parser.parse_args_into_dataclasses()", "parser.parse_args_into_dataclasses(return_remaining_strings=True)"))
    assert found(root / "scripts/train_vicuna_7b.sh", "RL530") == []
