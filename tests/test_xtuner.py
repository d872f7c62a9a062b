"""XTuner: launch commands (from scripts, Markdown and --command), Python configs, rules and fixes."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from recipelint import engine, fix
from recipelint.checkoptions import CheckOptions
from recipelint.hardware.profile import from_mapping
from recipelint.settings import Resolver
from tests.helpers import NODE, REPO, XTUNER_CONFIG, assert_snapshot

COMMANDS = REPO / "tests" / "data" / "reference" / "xtuner-commands.md"
HW = {**NODE, "gpus": 8, "cpus": 64}


def project(
    tmp_path: Path, command: str, name: str = "cfg.py", sp: int = 1, batch: int = 1, workers: int = 0, varlen: bool = False, dist: str = ""
) -> Path:
    (tmp_path / name).write_text(XTUNER_CONFIG.format(sp=sp, batch=batch, workers=workers, varlen=varlen, dist=dist))
    script = tmp_path / "train.sh"
    script.write_text("#!/bin/bash\n" + command + "\n")
    return script


def lint(path: Path | None = None, command: str | None = None, hardware: dict[str, Any] | None = None) -> list:  # type: ignore[type-arg]
    profile = from_mapping(dict(hardware or HW), "p")
    result = engine.check([path] if path else [], CheckOptions(command=command), hardware=lambda: profile, resolver=Resolver(isolated=True))
    assert not result.errors, result.errors
    return result.diagnostics


def codes(found: list) -> list[str]:  # type: ignore[type-arg]
    return sorted({d.code for d in found if str(d.severity) != "info"})


MULTI = "NPROC_PER_NODE=8 NNODES=2 PORT=29600 ADDR=head NODE_RANK=0"
CASES: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "RL801": (
        {"command": "torchrun --nproc_per_node 8 xtuner/tools/train.py cfg.py --deepspeed deepspeed_zero2"},
        {"command": "torchrun --nproc_per_node 8 xtuner/tools/train.py cfg.py --launcher pytorch"},
    ),
    "RL802": (
        {"command": "xtuner train cfg.py --launcher pytorch"},
        {"command": "NPROC_PER_NODE=8 xtuner train cfg.py --launcher pytorch --deepspeed deepspeed_zero2"},
    ),
    "RL803": (
        {"command": "srun --nodes=2 --ntasks-per-node=8 xtuner train cfg.py --launcher=slurm"},
        {"command": "srun --nodes=2 --ntasks-per-node=8 xtuner train cfg.py --launcher slurm"},
    ),
    "RL804": ({"command": "NPROC_PER_NODE=8 NNODES=2 NODE_RANK=0 xtuner train cfg.py"}, {"command": f"{MULTI} xtuner train cfg.py"}),
    "RL810": (
        {"command": "NPROC_PER_NODE=8 srun --nodes=2 --ntasks-per-node=8 xtuner train cfg.py --launcher slurm"},
        {"command": "srun --nodes=2 --ntasks-per-node=8 xtuner train cfg.py --launcher slurm"},
    ),
    "RL806": ({"command": f"{MULTI} xtuner train cfg.py"}, {"command": f"HF_DATASETS_CACHE=/shared/hf {MULTI} xtuner train cfg.py"}),
    "RL807": (
        {"command": "NPROC_PER_NODE=8 xtuner train cfg.py", "workers": 16},
        {"command": "NPROC_PER_NODE=8 xtuner train cfg.py", "workers": 4},
    ),
    "RL808": (
        {"command": "NPROC_PER_NODE=8 xtuner train cfg.py", "sp": 4},
        {"command": "NPROC_PER_NODE=8 xtuner train cfg.py --deepspeed deepspeed_zero2", "sp": 4},
    ),
    "RL809": ({"command": "NPROC_PER_NODE=8 xtuner train missing.py"}, {"command": "NPROC_PER_NODE=8 xtuner train cfg.py"}),
}


@pytest.mark.parametrize("code", sorted(CASES))
def test_fires(code: str, tmp_path: Path) -> None:
    case = dict(CASES[code][0])
    assert_snapshot(code, lint(project(tmp_path, case.pop("command"), **case)), tmp_path)


@pytest.mark.parametrize("code", sorted(CASES))
def test_quiet(code: str, tmp_path: Path) -> None:
    case = dict(CASES[code][1])
    assert code not in codes(lint(project(tmp_path, case.pop("command"), **case)))


def test_varlen_batch_and_gpu_name(tmp_path: Path) -> None:
    found = lint(
        project(
            tmp_path,
            "NPROC_PER_NODE=4 xtuner train cfg_e1_gpu8.py --deepspeed deepspeed_zero2",
            name="cfg_e1_gpu8.py",
            varlen=True,
            batch=8,
        )
    )
    messages = [d.message for d in found if d.code == "RL808"]
    assert any("use_varlen_attn needs batch_size 1" in m for m in messages)
    assert any("named for 8 GPUs but the launch starts 4 processes" in m for m in messages)


def _blocks() -> list[tuple[str, str]]:
    text = COMMANDS.read_text()
    blocks = re.findall(r"^(\d+)\. .*?\n\n```\n(.*?)```", text, re.S | re.M)

    def strip(block: str) -> str:
        return re.sub(r"^(\s*)(\$ |\(DIST\) |\(SLURM\) )", lambda m: m.group(1) + " " * len(m.group(2)), block, flags=re.M)

    return [(num, strip(block)) for num, block in blocks]


def test_every_documented_command_parses_and_correct_ones_pass() -> None:
    blocks = _blocks()
    assert len(blocks) >= 66
    profile = from_mapping(dict(HW), "p")
    for num, block in blocks:
        result = engine.check([], CheckOptions(command=block), hardware=lambda: profile, resolver=Resolver(isolated=True))
        if num == "60":  # commented out in the doc itself
            assert result.recipes == []
            continue
        assert result.recipes, f"command {num} did not parse into a launch"
        problems = [(d.code, d.message) for d in result.diagnostics if str(d.severity) == "error"]
        if num == "71":  # NNODES=4 with ADDR="0.0.0.0" on one machine: the documented anti-pattern
            assert [c for c, _ in problems] == ["RL501"]
        else:
            assert problems == [], (num, problems)


@pytest.mark.parametrize("drop", ["PORT", "ADDR", "NODE_RANK"])
def test_multinode_commands_without_port_or_addr_are_flagged(drop: str) -> None:
    multi = [
        (num, block) for num, block in _blocks() if (nodes := re.search(r"NNODES=(\d+)", block)) and int(nodes.group(1)) > 1 and num != "71"
    ]
    assert len(multi) >= 7
    for num, block in multi:
        broken = re.sub(rf"\b{drop}=\S+ ", "", block)
        found = [d for d in lint(command=broken) if d.code == "RL804"]
        assert found and drop in found[0].message, (num, broken)


def test_config_is_never_executed(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    (tmp_path / "cfg.py").write_text(
        f'import os; os.system("touch {marker}")\n__import__("os").system("touch {marker}")\ndataloader_num_workers = 0\n'
    )
    (tmp_path / "train.sh").write_text("NPROC_PER_NODE=8 xtuner train cfg.py\n")
    lint(tmp_path / "train.sh")
    lint(tmp_path / "cfg.py")
    assert not marker.exists()


def test_markdown_blocks_keep_their_line_numbers(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(
        "# Train\n\nOn two nodes:\n\n```bash\n$ NPROC_PER_NODE=8 NNODES=2 NODE_RANK=0 xtuner train cfg.py\n```\n\n```python\nx = 1\n```\n"
    )
    found = [d for d in lint(readme) if d.code == "RL804"]
    assert found and (found[0].span.path, found[0].span.line) == (readme, 6)


def test_fix_appends_and_rewrites_launcher_and_touches_nothing_else(tmp_path: Path) -> None:
    script = project(
        tmp_path,
        "# start all ranks\ntorchrun --nproc_per_node 8 \\\n  xtuner/tools/train.py cfg.py --deepspeed deepspeed_zero2  # zero2\nsrun --nodes=2 --ntasks-per-node=8 xtuner train cfg.py --launcher=slurm",
    )
    before = script.read_bytes()
    profile = from_mapping(dict(HW), "p")
    outcome = fix.fix_paths(
        lambda files: engine.check([script], hardware=lambda: profile, files=files, resolver=Resolver(isolated=True)).diagnostics,
        unsafe=False,
    )
    after = outcome.changed[script]
    assert after == before.replace(b"deepspeed_zero2  # zero2", b"deepspeed_zero2 --launcher pytorch  # zero2").replace(
        b"--launcher=slurm", b"--launcher slurm"
    )


def test_fix_raises_the_dist_timeout_in_the_config(tmp_path: Path) -> None:
    """XTuner v0.1.13 (no rank-0 barrier): the broadcast waits for the preprocessing (RL805)."""
    from tests.helpers import copy_upstream

    copy_upstream("xtuner-v0.1.13", tmp_path)
    (tmp_path / "xtuner" / "__init__.py").write_text("")
    (tmp_path / "recipe").mkdir()
    script = project(tmp_path / "recipe", "NPROC_PER_NODE=8 xtuner train cfg.py")
    profile = from_mapping(dict(HW), "p")
    outcome = fix.fix_paths(
        lambda files: engine.check([script], hardware=lambda: profile, files=files, resolver=Resolver(isolated=True)).diagnostics,
        unsafe=False,
    )
    config = tmp_path / "recipe" / "cfg.py"
    assert outcome.changed[config].decode().endswith('dist_cfg=dict(backend="nccl", timeout=3600))\n')


def test_dataset_timeout_is_not_compared_with_the_broadcast(tmp_path: Path) -> None:
    """From v0.1.14 the barrier waits for the preprocessing; the broadcast after it only for the
    pickling. An unmodified multi-process launch and a raised XTUNER_DATASET_TIMEOUT are quiet; a
    value over a day reads like seconds (info)."""
    assert "RL805" not in {d.code for d in lint(project(tmp_path, "NPROC_PER_NODE=8 xtuner train cfg.py"))}
    assert "RL805" not in {d.code for d in lint(project(tmp_path, "XTUNER_DATASET_TIMEOUT=120 NPROC_PER_NODE=8 xtuner train cfg.py"))}
    (seconds,) = [
        d for d in lint(project(tmp_path, "XTUNER_DATASET_TIMEOUT=7200 NPROC_PER_NODE=8 xtuner train cfg.py")) if d.code == "RL805"
    ]
    assert str(seconds.severity) == "info" and seconds.fix is None
    assert seconds.message == "XTUNER_DATASET_TIMEOUT=7200 is in minutes (5 days): if seconds were meant, that is 120"


def test_deepspeed_json_named_by_xtuner_is_checked_with_xtuner_filling_auto(tmp_path: Path) -> None:
    (tmp_path / "ds.json").write_text(
        '{"train_micro_batch_size_per_gpu": "auto", "gradient_accumulation_steps": "auto", "train_batch_size": "auto", "zero_optimization": {"stage": 2}}\n'
    )
    found = lint(project(tmp_path, "NPROC_PER_NODE=8 xtuner train cfg.py --deepspeed ds.json"))
    auto = [d.setting for d in found if d.code == "RL416"]
    assert auto == ["train_batch_size"]  # XTuner fills the micro batch and accumulation, not this one


LLAVA_CONFIG = """from xtuner.dataset import LLaVADataset
llava_dataset = dict(type=LLaVADataset, data_path='data/llava_v1_5_mix665k.json', image_folder='data/images')
train_dataloader = dict(batch_size=16, num_workers=4, dataset=llava_dataset)
env_cfg = dict(cudnn_benchmark=False, dist_cfg=dict(backend='nccl'))
"""


def test_llava_broadcast_of_an_in_memory_dataset_is_info(tmp_path: Path) -> None:
    """LLaVADataset builds its table with Dataset.from_list: the broadcast after the barrier
    pickles the data itself, under the process-group timeout (xtuner#768). Info, with the fix
    diagnose applies when a log shows that broadcast timing out."""
    (tmp_path / "llava.py").write_text(LLAVA_CONFIG)
    script = tmp_path / "train.sh"
    script.write_text("#!/bin/bash\nNPROC_PER_NODE=8 xtuner train llava.py --deepspeed deepspeed_zero2\n")
    (finding,) = [d for d in lint(script) if d.code == "RL805"]
    assert str(finding.severity) == "info"
    assert finding.message.startswith(
        "LLaVADataset keeps the processed dataset in memory: after the barrier rank 0 pickles and broadcasts all of it, "
        "and the other ranks wait for that under the 10 min process-group timeout"
    )
    assert (finding.current, finding.suggested) == (600, 3600)
    assert finding.fix is not None and [e.content for e in finding.fix.edits] == [", timeout=3600"]
    (tmp_path / "llava.py").write_text(LLAVA_CONFIG.replace("backend='nccl'", "backend='nccl', timeout=3600"))
    assert "RL805" not in {d.code for d in lint(script)}
    single = tmp_path / "single.sh"
    single.write_text("#!/bin/bash\nxtuner train llava.py --deepspeed deepspeed_zero2\n")
    (tmp_path / "llava.py").write_text(LLAVA_CONFIG)
    assert "RL805" not in {d.code for d in lint(single)}  # one process: nobody waits


@pytest.mark.parametrize(("pin", "fires"), [("xtuner==0.1.13", True), ("xtuner==0.1.19", False), ("xtuner>=0.1.10", False)])
def test_dataset_timeout_by_the_pinned_release(tmp_path: Path, pin: str, fires: bool) -> None:
    """No checkout: an exact release pinned beside the recipe decides whether a rank-0 barrier
    exists (v0.1.14); a range or no pin keeps the current behaviour (the barrier)."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "requirements.txt").write_text(f"torch>=2.2\n{pin}\n")
    found = [d for d in lint(project(tmp_path, "NPROC_PER_NODE=8 xtuner train cfg.py --deepspeed deepspeed_zero2")) if d.code == "RL805"]
    assert bool(found) is fires
    if fires:
        assert found[0].message.startswith(f"XTuner 0.1.13 has no rank-0 barrier ({tmp_path / 'requirements.txt'}:2)")
