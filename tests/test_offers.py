"""A command a recipe's toolkit does not offer (Toolkit.offers) says so in one line, as `tune`
does: `show` for a toolkit that describes nothing of its own, `diagnose` for recipes whose facts
a diagnosis cannot read (issue 37). Never nothing."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from recipelint import cli
from recipelint.toolkits import REGISTRY, registered
from tests.helpers import DATA, UPSTREAM

MINICPM_README = UPSTREAM / "deepspeed" / "MiniCPM" / "minicpm_sala" / "finetune" / "README.md"
LOG = DATA / "logs" / "ciinfra-490-shm-extend.log"


def test_every_builtin_toolkit_says_which_commands_it_offers() -> None:
    offers = {toolkit.name: set(toolkit.offers) for toolkit in REGISTRY}
    assert all("show" in offered for offered in offers.values())
    assert offers["wenet"] == {"show", "diagnose", "tune"}
    assert "diagnose" not in offers["unjudged"]


def test_diagnose_says_which_recipes_it_did_not_read() -> None:
    """MiniCPM's finetune README: its deepspeed and accelerate fences are read for the diagnosis;
    its two `llamafactory-cli` fences are the unjudged toolkit's, which offers no diagnose: one
    line says so instead of nothing."""
    result = CliRunner().invoke(cli.app, ["diagnose", str(LOG), str(MINICPM_README)])
    lines = [line for line in result.output.splitlines() if line.startswith("diagnose:")]
    assert lines == [
        f"diagnose: 2 unjudged recipe(s) ({MINICPM_README}, ...) not read for the diagnosis: the unjudged toolkit offers no diagnose"
    ]
    assert "LOG022" in result.output


def test_show_says_when_a_toolkit_describes_nothing_of_its_own(tmp_path: Path) -> None:
    """tests/tunetool.py offers no show: its recipe is described by what every recipe has, and one
    line says so; the deepspeed launch beside it gets no such line."""
    from tests import tunetool

    (tmp_path / "8B_lora.yaml").write_text("batch_size: 2\n")
    (tmp_path / "train.sh").write_text(
        "tune run lora_finetune_distributed --config 8B_lora.yaml\ndeepspeed --num_gpus 8 train.py --deepspeed_config ds.json\n"
    )
    (tmp_path / "ds.json").write_text('{"train_batch_size": 8}\n')
    with registered(tunetool.Torchtune()):
        result = CliRunner().invoke(cli.app, ["show", "--isolated", str(tmp_path / "train.sh")])
    assert result.exit_code == 0, result.output
    said = [line for line in result.output.splitlines() if line.startswith("show:")]
    assert said == [
        f"show: 1 torchtune recipe(s) ({tmp_path / 'train.sh'}) described by what every recipe has, nothing of their own: "
        "the torchtune toolkit offers no show"
    ]
    assert re.search(r"train\.sh:2 \(deepspeed\)", result.output)
