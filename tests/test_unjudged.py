"""Launches of trainers recipelint does not judge are said as such (RL013, info, exit 0), not
checked as "No problems found". On LLaMA-Factory's unmodified READMEs at ff6d4d12
(tests/data/upstream/deepspeed/LLaMA-Factory/SOURCE.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from recipelint import engine
from recipelint.checkoptions import CheckOptions
from tests.helpers import UPSTREAM, assert_snapshot, cli, describe, item

LLAMA_FACTORY = UPSTREAM / "deepspeed" / "LLaMA-Factory"


def _lines_launching(path: Path) -> list[int]:
    """The lines of the file that start `llamafactory-cli train`, as its text says."""
    return [n for n, line in enumerate(path.read_text().splitlines(), 1) if "llamafactory-cli train" in line]


@pytest.mark.parametrize("readme", ["main-ff6d4d12/examples/README.md", "main-ff6d4d12/README.md"])
def test_each_llamafactory_launch_is_one_info(readme: str) -> None:
    path = LLAMA_FACTORY / readme
    found = engine.check([path]).diagnostics
    assert [d.span.line for d in found if d.code == "RL013"] == _lines_launching(path)
    assert {d.code for d in found} == {"RL013"}
    assert all(d.message == "launch of LLaMA-Factory (`llamafactory-cli train`): not judged by recipelint" for d in found)


def test_chat_export_and_webui_are_no_launch() -> None:
    readme = LLAMA_FACTORY / "main-ff6d4d12" / "README.md"
    assert_snapshot("RL013", engine.check([readme]).diagnostics, LLAMA_FACTORY)
    text = readme.read_text()
    assert "llamafactory-cli chat" in text and "llamafactory-cli export" in text and "llamafactory-cli webui" in text
    assert len(_lines_launching(LLAMA_FACTORY / "main-ff6d4d12" / "README.md")) == 1  # only train is reported (above)


def test_the_command_line_says_it_and_exits_0(tmp_path: Path) -> None:
    result = cli("check", "--no-cache", "--command", "FORCE_TORCHRUN=1 NNODES=2 llamafactory-cli train x.yaml", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "RL013 [info] launch of LLaMA-Factory (`llamafactory-cli train`): not judged by recipelint" in result.stdout
    assert "No problems found" not in result.stdout and "no recipes found" not in result.stderr


@pytest.mark.parametrize(
    ("command", "trainer"),
    [
        ("python -m axolotl.cli.train examples/llama-3/lora-1b.yml", "Axolotl (`python -m axolotl.cli.train`)"),
        ("axolotl train examples/llama-3/lora-1b.yml", "Axolotl (`axolotl train`)"),
        ("tune run --nproc_per_node 8 full_finetune_distributed --config llama3_1/8B_full", "torchtune (`tune run`)"),
        ("CUDA_VISIBLE_DEVICES=0,1 NPROC_PER_NODE=2 swift sft --model Qwen/Qwen2.5-7B-Instruct", "ms-swift (`swift sft`)"),
    ],
)
def test_other_trainers(command: str, trainer: str) -> None:
    found = engine.check([], CheckOptions(command=command)).diagnostics
    assert [d.message for d in found] == [f"launch of {trainer}: not judged by recipelint"]


@pytest.mark.parametrize(
    "command",
    ["llamafactory-cli webui", "tune download meta-llama/Llama-3.2-1B", "swift infer --model x", "python -m axolotl.cli.preprocess x.yml"],
)
def test_what_starts_no_training_is_not_reported(command: str) -> None:
    assert not any(d.code == "RL013" for d in engine.check([], CheckOptions(command=command)).diagnostics)


def test_a_launch_another_toolkit_reads_is_judged_by_it() -> None:
    # LLaMA-Factory v0.7.0's own `accelerate launch` script: read by the launchers it uses, no RL013.
    result = engine.check([LLAMA_FACTORY / "v0.7.0" / "examples" / "lora_multi_gpu" / "single_node.sh"])
    assert result.recipes and all(recipe.toolkit != "unjudged" for recipe in result.recipes)
    assert not any(d.code == "RL013" for d in result.diagnostics)


def test_show_names_the_trainer_and_no_release() -> None:
    readme = LLAMA_FACTORY / "main-ff6d4d12" / "README.md"
    (description,) = describe([readme])[0]
    assert description.toolkit == "unjudged"
    trainer = item(description, "launch", "trainer")
    assert trainer.value == "LLaMA-Factory (`llamafactory-cli train`)"
    assert trainer.source == f"line {_lines_launching(readme)[0]}: not judged by recipelint (RL013)"
    assert [section.title for section in description.sections] == ["launch", "findings"]  # no release is read
