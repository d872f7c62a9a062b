"""`recipelint tune` prints a DataLoader plan for each kind of launch (#46) and `fix` writes the
values it prints: a plain torchrun with the Hugging Face Trainer's flags, a config key its script
hands to its DataLoader, XTuner's config, a Slurm job's and a Kubernetes pod's allocation. One
plan per launch (recipelint.rulekit.workers.WorkerPlan) serves tune, the rules' fix and show."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.helpers import NODE, XTUNER_CONFIG

HF_TRAIN = """import argparse
from torch.utils.data import DataLoader

parser = argparse.ArgumentParser()
parser.add_argument("--dataloader_num_workers", type=int)
parser.add_argument("--dataloader_prefetch_factor", type=int)
args = parser.parse_args()
loader = DataLoader(ds, num_workers=args.dataloader_num_workers, prefetch_factor=args.dataloader_prefetch_factor)
"""
CONFIG_TRAIN = """import argparse
import yaml
from torch.utils.data import DataLoader

parser = argparse.ArgumentParser()
parser.add_argument("--config")
args = parser.parse_args()
cfg = yaml.safe_load(open(args.config))
loader = DataLoader(ds, num_workers=cfg["data"]["num_workers"])
"""
POD = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: train
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
            - name: pytorch
              image: train:latest
              command: ["bash", "-c", "torchrun --nproc_per_node 8 train.py --num_workers 8"]
              resources:
                limits:
                  nvidia.com/gpu: 8
                  cpu: 16
                  memory: 512Gi
"""

# kind -> (files, the target, the file fix rewrites, the node's CPUs, the plan's workers)
CASES: dict[str, tuple[dict[str, str], str, str, int, int]] = {
    "hf-trainer": (
        {
            "train.sh": "torchrun --nproc_per_node 8 train.py --dataloader_num_workers 16 --dataloader_prefetch_factor 4\n",
            "train.py": HF_TRAIN,
        },
        "train.sh",
        "train.sh",
        64,
        8,
    ),
    "config-key": (
        {
            "train.sh": "torchrun --nproc_per_node 8 train.py --config x.yaml\n",
            "train.py": CONFIG_TRAIN,
            "x.yaml": "data:\n  num_workers: 32\n",
        },
        "train.sh",
        "x.yaml",
        96,
        12,
    ),
    "xtuner": (
        {
            "train.sh": "NPROC_PER_NODE=8 xtuner train cfg.py\n",
            "cfg.py": XTUNER_CONFIG.format(sp=1, batch=1, workers=16, varlen=False, dist=""),
        },
        "train.sh",
        "cfg.py",
        64,
        8,
    ),
    "slurm": (
        {
            "job.sbatch": "#!/bin/bash\n#SBATCH --nodes=1 --ntasks-per-node=1 --gres=gpu:8 --cpus-per-task=32\n"
            "srun torchrun --nproc_per_node 8 train.py --dataloader_num_workers 8\n",
            "train.py": HF_TRAIN,
        },
        "job.sbatch",
        "job.sbatch",
        96,  # the job's 32 CPUs plan the workers, not the node's 96
        4,
    ),
    "kubernetes": ({"job.yaml": POD}, "job.yaml", "job.yaml", 96, 2),  # the pod's CPU limit, 16
}


def _write(tmp_path: Path, kind: str) -> tuple[Path, Path, Path]:
    files, target, edited, cpus, _ = CASES[kind]
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    profile = tmp_path / "node.yaml"
    profile.write_text("".join(f"{k}: {json.dumps(v)}\n" for k, v in {**NODE, "cpus": cpus, "gpus": 8}.items()))
    return tmp_path / target, tmp_path / edited, profile


def _invoke(*args: str) -> str:
    from typer.testing import CliRunner

    from recipelint import cli

    result = CliRunner().invoke(cli.app, [*args, "--isolated"])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.stdout


@pytest.mark.parametrize("kind", sorted(CASES))
def test_tune_prints_the_plan_fix_writes(kind: str, tmp_path: Path) -> None:
    target, edited, profile = _write(tmp_path, kind)
    out = _invoke("tune", "--hardware", str(profile), str(target))
    [plan] = re.findall(r"^\S+: (\S+) (\d+) -> (\d+)$", out, re.M)
    name, before, after = plan[0], int(plan[1]), int(plan[2])
    assert after == CASES[kind][4] and before > after, out
    assert "formula ranks_per_node x num_workers <= usable CPUs" in out and "memory: per-batch memory not modelled" in out
    _invoke("fix", "--write", "--hardware", str(profile), str(target))
    written = re.findall(rf"{re.escape(name.split('.')[-1])}\W+(\d+)", edited.read_text())
    assert written and int(written[0]) == after, edited.read_text()
    # After the fix, the plan keeps the value it wrote.
    assert re.search(rf": {re.escape(name)} {after} -> {after}$", _invoke("tune", "--hardware", str(profile), str(target)), re.M)


def test_hf_flags_prefetch_is_shown_with_its_source(tmp_path: Path) -> None:
    target, _, profile = _write(tmp_path, "hf-trainer")
    out = _invoke("tune", "--hardware", str(profile), str(target))
    assert "prefetch_factor 4 kept: `4` at train.sh:1" in out


def test_tune_on_a_host_that_is_not_the_node_asks_for_a_profile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from recipelint.hardware import probe as probe_module
    from tests.helpers import host

    monkeypatch.setattr(probe_module, "probe", host(tmp_path / "laptop", None, "0-1"))
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    target, _, _ = _write(tmp_path, "hf-trainer")
    out = _invoke("tune", str(target))
    assert "not tuned" in out and "recipelint probe --output node.yaml" in out and "->" not in out


def test_wenet_timeout_plan_is_rl301s(tmp_path: Path) -> None:
    """WeNet's join timeout: tune's line and RL301's suggestion are one plan (`join_plan`)."""
    from recipelint import engine
    from recipelint.hardware.profile import load_profile
    from recipelint.settings import Resolver
    from tests.helpers import REPO

    example = REPO / "examples" / "wenet-4node-v100"
    profile = example / "hardware-v100-node.yaml"
    out = _invoke("tune", "--hardware", str(profile), str(example))
    [(before, after)] = re.findall(r"^  timeout (\d+) -> (\d+): ", out, re.M)
    loaded = load_profile(profile)
    result = engine.check([example], hardware=lambda: loaded, resolver=Resolver(isolated=True))
    [rl301] = [d for d in result.diagnostics if d.code == "RL301"]
    assert (rl301.current, rl301.suggested) == (int(before), int(after)) and int(after) > int(before)


def test_launcher_plan_is_one_rank_per_gpu_of_the_job(tmp_path: Path) -> None:
    """A pod granted 4 GPUs whose torchrun starts 8 ranks: the plan is 4 (RL962's formula), from
    the pod's limit, not the node profile's 8 GPUs."""
    target, _, profile = _write(tmp_path, "kubernetes")
    target.write_text(POD.replace("nvidia.com/gpu: 8", "nvidia.com/gpu: 4"))
    out = _invoke("tune", "--hardware", str(profile), str(target))
    assert "ranks per node 8 -> 4: ranks past the GPUs have none of their own" in out, out
    assert "nvidia.com/gpu: 4 (job.yaml:" in out


@pytest.mark.parametrize("kind", ["hf-trainer", "xtuner", "slurm"])
def test_show_gives_the_plan_tune_prints(kind: str, tmp_path: Path) -> None:
    target, _, profile = _write(tmp_path, kind)
    [(before, after)] = re.findall(r"^\S+: \S+ (\d+) -> (\d+)$", _invoke("tune", "--hardware", str(profile), str(target)), re.M)
    shown = _invoke("show", "--hardware", str(profile), str(target))
    assert re.search(rf"^    DataLoader workers {before} -> {after}$", shown, re.M), shown


def test_a_flag_the_script_never_hands_to_a_dataloader_is_kept(tmp_path: Path) -> None:
    """The script parses --dataloader_num_workers and builds its DataLoader without it: RL506 is
    silent, so the plan keeps the value (tune, show) and fix writes nothing."""
    target, edited, profile = _write(tmp_path, "hf-trainer")
    (tmp_path / "train.py").write_text(HF_TRAIN.replace("num_workers=args.dataloader_num_workers", "num_workers=2"))
    out = _invoke("tune", "--hardware", str(profile), str(target))
    assert "dataloader_num_workers 16 -> 16" in out and "hands it to no DataLoader" in out, out
    before = edited.read_text()
    _invoke("fix", "--write", "--hardware", str(profile), str(target))
    assert edited.read_text() == before
