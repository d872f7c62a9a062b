"""DataLoader settings a launch's own config file carries (rulekit/allocated.py
`config_loader`): found where the training script, read with ast, hands a config key to its
DataLoader, and judged with the flags' formula (RL953, RL963, RL506; RL961 takes its
prefetch_factor)."""

from __future__ import annotations

from pathlib import Path

from recipelint import engine
from recipelint.diagnostics import Diagnostic
from recipelint.parse.files import FileCache
from recipelint.settings import Resolver

TRAIN = """import argparse
import yaml
from torch.utils.data import DataLoader

parser = argparse.ArgumentParser()
parser.add_argument("--config")
args = parser.parse_args()
cfg = yaml.safe_load(open(args.config))
loader = DataLoader(ds, batch_size=cfg["data"]["batch_size"], num_workers=cfg["data"]["num_workers"], prefetch_factor=cfg["data"].get("prefetch_factor"))
"""
CONFIG = "data:\n  batch_size: 8\n  num_workers: {workers}\n  prefetch_factor: 8\nmodel:\n  num_workers: 1\n"
JOB = "#!/bin/bash\n#SBATCH --nodes=1\n#SBATCH --gres=gpu:8\n#SBATCH --cpus-per-task=64\nsrun torchrun --nproc_per_node 8 {script} --config conf/x.yaml\n"
POD = """apiVersion: v1
kind: Pod
metadata:
  name: t
spec:
  containers:
    - name: t
      image: x
      command: ["torchrun", "--nproc_per_node", "8", "train.py", "--config", "conf/x.yaml"]
      resources:
        limits:
          nvidia.com/gpu: 8
          cpu: 64
"""


def _diagnostics(tmp_path: Path, name: str, workers: int = 32, script: str = "train.py") -> list[Diagnostic]:
    (tmp_path / "conf").mkdir(exist_ok=True)
    (tmp_path / "conf/x.yaml").write_text(CONFIG.format(workers=workers))
    (tmp_path / "train.py").write_text(TRAIN)
    (tmp_path / "job.sh").write_text(JOB.format(script=script))
    (tmp_path / "pod.yaml").write_text(POD)
    result = engine.check([tmp_path / name], hardware=None, files=FileCache(), resolver=Resolver(isolated=True))
    assert not result.errors
    return [d for d in result.diagnostics if d.code != "RL004"]


def test_config_workers_against_a_slurm_jobs_cpus(tmp_path: Path) -> None:
    [finding] = _diagnostics(tmp_path, "job.sh")
    assert finding.code == "RL953" and finding.span.path.name == "x.yaml" and finding.span.line == 3
    assert finding.message.startswith("8 ranks x 32 workers = 256 worker processes per node, but only 64 CPUs")
    assert finding.suggested == 8 and finding.fix is not None and finding.fix.edits[0].span.path.name == "x.yaml"
    assert "which train.py hands to its DataLoader's num_workers (line 9)" in finding.evidence[0]
    assert _diagnostics(tmp_path, "job.sh", workers=8) == []


def test_config_workers_and_prefetch_in_a_pod(tmp_path: Path) -> None:
    found = {d.code: d for d in _diagnostics(tmp_path, "pod.yaml")}
    assert sorted(found) == ["RL961", "RL963"]
    assert "2048 batches in flight (x prefetch_factor 8)" in found["RL961"].message


def test_a_config_the_script_does_not_read_for_its_loader_is_not_judged(tmp_path: Path) -> None:
    """A script not found (or not handing the key to a DataLoader) leaves the config's
    `num_workers` alone: nothing says it reaches a loader."""
    assert _diagnostics(tmp_path, "job.sh", script="missing.py") == []
