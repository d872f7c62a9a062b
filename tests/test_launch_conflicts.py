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
        "torchrun --nproc_per_node 8 --rdzv_id $RANDOM --rdzv_backend c10d train.py\n",  # bash sets RANDOM
        "torchrun --nproc_per_node 8 train.py --node_rank $NODE_RANK --x 1\n",  # given per node
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


def _with_script(tmp_path: Path, train: str, launch: str) -> list[Diagnostic]:
    (tmp_path / ".git").mkdir(exist_ok=True)
    (tmp_path / "train.py").write_text(train)
    script = tmp_path / "run.sh"
    script.write_text(launch)
    return [d for d in lint(script) if d.code == "RL509"]


HF_SCRIPT = "from transformers import HfArgumentParser, TrainingArguments\nargs = HfArgumentParser(TrainingArguments).parse_args_into_dataclasses()\n"
LAUNCH = "accelerate launch --config_file zero2.yaml train.py --output_dir out --num_processes 8\n"


def test_rl509_a_launcher_option_after_a_strict_script_is_an_error(tmp_path: Path) -> None:
    (finding,) = _with_script(tmp_path, HF_SCRIPT, LAUNCH)
    assert finding.severity is Severity.ERROR and finding.setting == "num_processes"
    assert "Some specified arguments are not used by the HfArgumentParser" in finding.message
    assert_snapshot("RL509", [finding], tmp_path)


def test_rl509_a_warning_when_the_parser_is_not_known(tmp_path: Path) -> None:
    (finding,) = _with_script(tmp_path, "import fire\nfire.Fire(main)\n", LAUNCH)
    assert finding.severity is Severity.WARNING and "if train.py rejects arguments it does not define" in finding.message


def test_rl509_quiet_before_the_script_when_the_script_takes_it_or_takes_unknowns(tmp_path: Path) -> None:
    cases = [
        (HF_SCRIPT, "accelerate launch --num_processes 8 train.py --output_dir out\n"),
        ("import argparse\np = argparse.ArgumentParser()\np.add_argument('--num_processes')\nargs = p.parse_args()\n", LAUNCH),
        ("import argparse\nargs, rest = argparse.ArgumentParser().parse_known_args()\n", LAUNCH),
        (HF_SCRIPT, "accelerate launch train.py --gradient_accumulation_steps 4\n"),
    ]
    for train, launch in cases:
        assert _with_script(tmp_path, train, launch) == [], (train, launch)


def test_rl016_an_assignment_bash_runs_as_a_command(tmp_path: Path) -> None:
    (finding,) = _found(tmp_path, "RL016", "NGPU = 8\ntorchrun --nproc_per_node $NGPU train.py\n")
    assert finding.severity is Severity.WARNING and finding.setting == "NGPU" and finding.span.line == 1
    assert "NGPU: command not found" in finding.message and "is empty" in finding.message
    assert_snapshot("RL016", [finding], tmp_path)
    (dollar,) = _found(tmp_path, "RL016", "P=1\n$P=29501\ntorchrun --nproc_per_node 8 --master_port $P train.py\n")
    assert "1=29501: command not found" in dollar.message and "keeps its value from line 1" in dollar.message


def test_rl016_quiet_for_a_real_assignment_a_test_or_a_variable_the_launch_does_not_use(tmp_path: Path) -> None:
    for text in (
        "NGPU=8\ntorchrun --nproc_per_node $NGPU train.py\n",
        'NGPU=8\ntest "$NGPU" = 8 && torchrun --nproc_per_node $NGPU train.py\n',
        "OTHER = 8\ntorchrun --nproc_per_node 8 train.py\n",
        "torchrun --nproc_per_node 8 train.py\nNGPU = 8\n",
    ):
        assert _found(tmp_path, "RL016", text) == [], text


def test_rl508_on_deepspeed_s_own_example_and_quiet_beside_it() -> None:
    """deepspeedai/DeepSpeed@f6cfd682's examples/opsd: its README's vLLM smoke test and
    scripts/train_opsd_vllm.sh pass --num_gpus with --include, which the runner of the same commit
    refuses (launcher/runner.py:464); train_opsd_hybrid.sh and the README's other launch pass
    --num_gpus alone."""
    folder = Path(__file__).parent / "data" / "upstream" / "deepspeed-opsd" / "examples" / "opsd"
    readme = [d for d in lint(folder / "README.md") if d.code == "RL508"]
    assert [(d.span.line, d.severity) for d in readme] == [(107, Severity.ERROR)]
    (script,) = [d for d in lint(folder / "scripts" / "train_opsd_vllm.sh") if d.code == "RL508"]
    assert script.severity is Severity.ERROR and "--include localhost:0,1,2,3,4,5 with --num_gpus 6" in script.message
    assert [d for d in lint(folder / "scripts" / "train_opsd_hybrid.sh") if d.code == "RL508"] == []


def test_rl509_on_diffusers_distributed_inference_guide() -> None:
    """huggingface/diffusers@58eb52c0's docs/source/en/training/distributed_inference.md tells users
    to set the GPU count with `accelerate launch run_distributed.py --num_processes=2`: the script
    gets the option and accelerate runs its default. The script is not in the guide, so its parser
    is unknown: a warning. Its `torchrun --nproc_per_node=2 run_distributed.py` is quiet."""
    guide = Path(__file__).parent / "data/upstream/diffusers-docs/docs/source/en/training/distributed_inference.md"
    (finding,) = [d for d in lint(guide) if d.code == "RL509"]
    assert (finding.span.line, finding.severity, finding.setting) == (56, Severity.WARNING, "num_processes")
    assert "the script was not found to read" in finding.message
