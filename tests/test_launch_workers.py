"""RL506: the DataLoader workers of a plain launch's ranks against the node's CPUs, judged only
where the training script (read with ast) hands the flag to its DataLoader."""

from __future__ import annotations

from pathlib import Path

from recipelint.diagnostics import Severity
from tests.helpers import NODE, assert_snapshot, cli, clone, lint

PROFILE = Path(__file__).parent / "data" / "profiles" / "a100-8x-96cpu-ib.yaml"

EIGHT_GPUS = {**NODE, "gpus": 8}


def workers(path: Path, cpus: int) -> list:  # type: ignore[type-arg]
    return [d for d in lint(path, {**EIGHT_GPUS, "cpus": cpus}) if d.code == "RL506"]


def test_hugging_face_style_workers_past_the_cpus(tmp_path: Path) -> None:
    """VideoX-Fun's cogvideox_fun/train.sh: `accelerate launch` (one process per GPU: 8) with
    `--dataloader_num_workers=8`, which its train.py passes to DataLoader(num_workers=...)."""
    root = clone("deepspeed/VideoX-Fun", tmp_path)
    script = root / "scripts/cogvideox_fun/train.sh"
    (finding,) = workers(script, 32)
    assert finding.severity is Severity.WARNING and (finding.current, finding.suggested) == (8, 4)
    assert finding.message == "8 ranks x 8 workers = 64 worker processes per node, but only 32 CPUs are usable"
    assert finding.fix is not None and finding.fix.edits[0].content == "4"
    assert_snapshot("RL506", [finding], tmp_path)
    assert workers(script, 96) == []  # 64 workers on 96 CPUs


def test_a_flag_the_script_never_hands_to_its_loader_is_not_judged(tmp_path: Path) -> None:
    """mPLUG-Owl v1's train_it.sh passes `--num-workers 32` to 8 ranks; its train.py builds
    TrainingArguments without it (256 workers never start)."""
    root = clone("deepspeed/mPLUG-Owl", tmp_path)
    assert workers(root / "mPLUG-Owl/scripts/train_it.sh", 96) == []


def test_without_the_training_script_the_finding_says_its_condition(tmp_path: Path) -> None:
    root = clone("deepspeed/VideoX-Fun", tmp_path)
    (root / "scripts/cogvideox_fun/train.py").unlink()
    (finding,) = workers(root / "scripts/cogvideox_fun/train.sh", 32)
    assert finding.severity is Severity.INFO
    assert finding.message.endswith(
        "if the training script hands --dataloader_num_workers to its DataLoader (the script was not found to read)"
    )


def test_a_wrapper_is_judged_by_the_module_it_runs(tmp_path: Path) -> None:
    """ViP-LLaVA's finetune_stage2.sh launches llava/train/train_mem.py, whose whole body is
    `from llava.train.train import train; train(...)`: the HfArgumentParser of
    llava/train/train.py reads --dataloader_num_workers 4 for each of the 8 ranks."""
    root = clone("deepspeed/ViP-LLaVA", tmp_path)
    script = root / "scripts/finetune_stage2.sh"
    (finding,) = workers(script, 24)
    assert finding.severity is Severity.WARNING and (finding.current, finding.suggested) == (4, 3)
    assert workers(script, 96) == []  # 32 workers on 96 CPUs
    (root / "llava/train/train.py").unlink()  # the wrapper alone: the code that parses the flag is not here
    (unsure,) = workers(script, 24)
    assert unsure.severity is Severity.INFO and "if the training script hands --dataloader_num_workers" in unsure.message


def test_a_module_launch_is_followed_to_the_module_it_runs(tmp_path: Path) -> None:
    """The same ViP-LLaVA launch run as a module (`deepspeed --module llava.train.train_mem`, as
    `python -m` runs it: the repository's top on the path): the module resolves to
    llava/train/train_mem.py of the checkout, which is followed to llava/train/train.py's
    HfArgumentParser for RL506, and to its Trainer for the DeepSpeed JSON's consumer."""
    root = clone("deepspeed/ViP-LLaVA", tmp_path)
    script = root / "scripts/finetune_stage2.sh"
    script.write_text(script.read_text().replace("llava/train/train_mem.py", "--module llava.train.train_mem"))
    (finding,) = workers(script, 24)
    assert finding.severity is Severity.WARNING and (finding.current, finding.suggested) == (4, 3)
    shown = cli("show", str(script), "--hardware", str(PROFILE)).stdout
    # the evidence names files from the folder the module's imports start from
    assert (
        "DeepSpeed JSON read by the Hugging Face Trainer" in shown and "<- llava/train/train.py:979: transformers.HfArgumentParser" in shown
    )
    (root / "llava/train/train.py").unlink()
    (unsure,) = workers(script, 24)
    assert unsure.severity is Severity.INFO
