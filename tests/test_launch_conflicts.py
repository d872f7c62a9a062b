"""RL015 (a flag whose value is a variable the script never sets), RL508 (deepspeed --include with
--num_gpus), RL510 (a rendezvous port below 1024): each made to fire and kept quiet."""

from __future__ import annotations

from pathlib import Path

from recipelint.diagnostics import Diagnostic, Severity
from tests.helpers import assert_snapshot, lint


def _found(tmp_path: Path, code: str, text: str) -> list[Diagnostic]:
    (tmp_path / ".git").mkdir(exist_ok=True)
    (tmp_path / "train.py").write_text("import deepspeed\n")
    script = tmp_path / "run.sh"
    script.write_text(text)
    return [d for d in lint(script) if d.code == code]


def test_rl015_an_unset_lower_case_variable_before_a_flag_is_an_error(tmp_path: Path) -> None:
    (finding,) = _found(tmp_path, "RL015", "torchrun --nproc_per_node 8 train.py --model_dir $dir --tensorboard_dir runs\n")
    assert finding.severity is Severity.ERROR and finding.setting == "dir"
    assert "`--model_dir --tensorboard_dir`" in finding.message
    assert_snapshot("RL015", [finding], tmp_path)


def test_rl015_an_upper_case_one_may_come_from_the_environment_and_names_the_close_one(tmp_path: Path) -> None:
    text = "MODEL=/models/llama\ntorchrun --nproc_per_node 8 train.py --model_name_or_path $MODEL_PATH --output_dir out\n"
    (finding,) = _found(tmp_path, "RL015", text)
    assert finding.severity is Severity.WARNING and "unless the environment sets MODEL_PATH" in finding.message
    assert finding.message.endswith("the script sets MODEL (line 1)")


def test_rl015_quiet_when_set_quoted_last_before_a_value_or_set_by_a_function(tmp_path: Path) -> None:
    for text in (
        "dir=out\ntorchrun --nproc_per_node 8 train.py --model_dir $dir --tensorboard_dir runs\n",
        'torchrun --nproc_per_node 8 train.py --model_dir "$dir" --tensorboard_dir runs\n',
        "torchrun --nproc_per_node 8 train.py --model_dir $dir runs\n",
        "torchrun --nproc_per_node 8 train.py --nodes $SLURM_NNODES --x 1\n",
        "setup() { dir=out; }\nsetup\ntorchrun --nproc_per_node 8 train.py --model_dir $dir --tensorboard_dir runs\n",
    ):
        assert _found(tmp_path, "RL015", text) == [], text


def test_rl508_include_with_num_gpus_stops_the_deepspeed_runner(tmp_path: Path) -> None:
    (finding,) = _found(tmp_path, "RL508", "deepspeed --include localhost:1,0 --num_gpus 2 train.py --deepspeed ds.json\n")
    assert finding.severity is Severity.ERROR and (finding.setting, finding.current) == ("num_gpus", 2)
    assert "Cannot specify num_nodes/gpus with include/exclude" in finding.message
    assert_snapshot("RL508", [finding], tmp_path)


def test_rl508_a_filter_only_the_run_time_knows_is_a_warning(tmp_path: Path) -> None:
    (finding,) = _found(tmp_path, "RL508", "deepspeed -e $EXCLUDED --num_nodes=1 train.py\n")
    assert finding.severity is Severity.WARNING and "when EXCLUDED is not empty" in finding.message


def test_rl508_quiet_with_one_of_them_or_after_the_script(tmp_path: Path) -> None:
    for text in (
        "deepspeed --include localhost:1,0 train.py\n",
        "deepspeed --num_gpus 2 train.py\n",
        "deepspeed --num_gpus 2 train.py --include x\n",  # the training script's own option
        'deepspeed --include "" --num_gpus 2 train.py\n',
    ):
        assert _found(tmp_path, "RL508", text) == [], text


def test_rl510_a_port_below_1024_needs_root(tmp_path: Path) -> None:
    (finding,) = _found(tmp_path, "RL510", "torchrun --nnodes 1 --nproc_per_node 8 --master_port 443 train.py\n")
    assert finding.severity is Severity.WARNING and (finding.setting, finding.current) == ("master_port", 443)
    assert_snapshot("RL510", [finding], tmp_path)


def test_rl510_quiet_from_1024(tmp_path: Path) -> None:
    for port in ("1024", "29500", "0"):
        assert _found(tmp_path, "RL510", f"torchrun --nproc_per_node 8 --master_port {port} train.py\n") == [], port
