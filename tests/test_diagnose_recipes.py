"""Issue 30's recipe runs: a real log excerpt (tests/data/logs) with a real upstream recipe
(tests/data/upstream, each with its SOURCE.md and LICENSE), and the recipe line each cause maps to."""

from __future__ import annotations

import pytest

from recipelint.diagnose import diagnose
from tests.helpers import REPO

LOGS = REPO / "tests" / "data" / "logs"
UP = REPO / "tests" / "data" / "upstream"
DS = UP / "deepspeed"

# log, recipe, the cause, the recipe lines it names ("file:line" suffixes); [] where none is named
RUNS: list[tuple[str, str, str, list[str]]] = [
    (
        "tecogan-31-local-rank.log",
        "deepspeed/DeepSpeedExamples/compression/cifar",
        "local-rank",
        ["cifar/run_compress.sh:6", "cifar/train.py:34"],
    ),
    (
        "chineseclip-74-local-rank.log",
        "deepspeed/DeepSpeedExamples/compression/gpt2",
        "local-rank",
        ["bash_script/run_zero_quant.sh:7", "gpt2/run_clm_no_trainer.py:199"],
    ),
    ("torchdr-249-eaddrinuse.log", "deepspeed/Qwen/finetune/finetune_ds.sh", "shared-port", ["finetune/finetune_ds.sh:64"]),
    (
        "llamacookbook-186-port-29500.log",
        "deepspeed/InternVL/internvl_chat/shell/internvl2.0/2nd_finetune/internvl2_1b_qwen2_0_5b_dynamic_res_2nd_finetune_full.sh",
        "shared-port",
        ["full.sh:30"],
    ),
    ("framepack-382-cuda-oom-new.log", "deepspeed/FastChat/scripts/train_lora.sh", "too-big", ["scripts/train_lora.sh:10"]),
    ("wenet-1678-cuda-oom.log", "wenet/examples/aishell", "too-big", ["conf/train_conformer.yaml:90"]),
    (
        "firefly-154-local-rank-deepspeed.log",
        "deepspeed/LMFlow/scripts/archive/run_finetune.sh",
        "no-local-rank",
        ["archive/run_finetune.sh:56"],
    ),
    # The DeepSpeed launcher's SIGKILL with LMFlow's repository: the offload the rule checks is
    # in a JSON no launch of the first recipe names, so no line is named (counted as a miss).
    ("deepspeed-3232-launcher-sigkill.log", "deepspeed/LMFlow", "offload", []),
]


@pytest.mark.parametrize(("log", "recipe", "key", "lines"), RUNS, ids=[r[0] for r in RUNS])
def test_the_cause_names_the_recipe_line(log: str, recipe: str, key: str, lines: list[str]) -> None:
    report = diagnose([LOGS / log], [UP / recipe])
    cause = next(c for c in report.findings[0].causes if c.key == key)
    named = [where.split(": ")[0] for where in cause.lines] + [str(d.span) for d in cause.diagnostics]
    for suffix in lines:
        assert any(f"{suffix}:" in where for where in named), (suffix, named)
    if lines:
        assert cause.status == "located" and report.findings[0].causes[0].status in ("found", "located")
    else:
        assert not cause.lines


def test_recipe_lines_named_in_at_least_six_of_eight_runs() -> None:
    named = sum(bool(lines) for *_, lines in RUNS)
    assert len(RUNS) == 8 and named >= 6
    assert f"the recipe line named in {named} of {len(RUNS)}" in (REPO / "docs" / "diagnose.md").read_text()


def test_a_launch_that_passes_no_local_rank_says_the_log_came_from_another() -> None:
    """Qwen's finetune_ds.sh launches with torchrun: no --local_rank on its command line."""
    report = diagnose([LOGS / "firefly-154-local-rank-deepspeed.log"], [DS / "Qwen" / "finetune" / "finetune_ds.sh"])
    cause = report.findings[0].causes[0]
    assert cause.key == "no-local-rank" and "passes no --local_rank: the log comes from another launch" in cause.lines[0]


def test_an_oom_without_wenet_in_log_or_recipe_never_offers_dynamic_batching() -> None:
    alone = diagnose([LOGS / "framepack-382-cuda-oom-new.log"], [DS / "FastChat" / "scripts" / "train_lora.sh"])
    assert "dynamic-batch" not in [c.key for c in alone.findings[0].causes]
    wenet = diagnose([LOGS / "wenet-1678-cuda-oom.log"], [UP / "wenet" / "examples" / "aishell"])
    assert "dynamic-batch" in [c.key for c in wenet.findings[0].causes]


def test_xtuner_launcher_cause_only_where_xtuner_shows() -> None:
    """ControlNet#382's store timeout is a plain torch job: XTuner's --launcher pytorch is not offered."""
    plain = diagnose([LOGS / "controlnet-382-client-socket-local.log"], [])
    assert "launcher" not in [c.key for c in plain.findings[0].causes]
    xtuner = diagnose([LOGS / "xtuner-438-client-socket.log"], [])
    assert xtuner.findings[0].causes[0].key == "launcher"


def test_master_addr_warning_is_a_warning_only_where_the_launch_passes_one_to_a_dynamic_rendezvous() -> None:
    """pytorch#114335's warning: without a recipe it says the condition; Qwen's static torchrun
    uses its --master_addr and FastChat's deepspeed launch passes none: both only informative."""
    log = LOGS / "pytorch-114335-master-addr-warning.log"
    alone = diagnose([log], []).findings[0]
    assert str(alone.severity) == "warning" and "if the launch passes them" in alone.explanation.message
    static = diagnose([log], [DS / "Qwen" / "finetune" / "finetune_ds.sh"]).findings[0]
    assert str(static.severity) == "info" and "rendezvous is static and uses it" in static.explanation.message
    none = diagnose([log], [DS / "FastChat" / "scripts" / "train_lora.sh"]).findings[0]
    assert str(none.severity) == "info" and "passes none" in none.explanation.message
