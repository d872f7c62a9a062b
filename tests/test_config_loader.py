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
from tests.helpers import clone

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


def _torchtitan(tmp_path: Path, table: str | None) -> list[Diagnostic]:
    root = clone("slurm/torchtitan-v0.2.2", tmp_path)
    config = root / "torchtitan/models/llama3/train_configs/llama3_8b.toml"
    if table is not None:  # the table torchtitan's job_config.py docstring shows, after [training]
        config.write_text(config.read_text().replace('dataset = "c4"\n', f'dataset = "c4"\n\n{table}', 1))
    result = engine.check([root / "multinode_trainer.slurm"], hardware=None, files=FileCache(), resolver=Resolver(isolated=True))
    assert not result.errors
    return [d for d in result.diagnostics if d.code != "RL004"]


def test_a_toml_config_torchtitan_reads(tmp_path: Path) -> None:
    """torchtitan v0.2.2's multinode_trainer.slurm (slurm/torchtitan-v0.2.2; slurm/torchtitan is HEAD's, which names a Python config) runs `-m torchtitan.train --job.config_file
    llama3_8b.toml` in 8 ranks a node with 96 CPUs: its TOML has no [training.dataloader], so
    nothing (the upstream files); with `num_workers = 16` there, 8 x 16 = 128 > 96 (RL953 at the
    TOML's line, fixed there), with 12 quiet."""
    assert _torchtitan(tmp_path / "a", None) == []
    [finding] = _torchtitan(tmp_path / "b", "[training.dataloader]\nnum_workers = 16  # per rank\n")
    assert finding.code == "RL953" and finding.span.path.name == "llama3_8b.toml" and finding.span.line == 39
    assert "torchtitan hands to its StatefulDataLoader's num_workers" in finding.evidence[0] and finding.suggested == 12
    assert finding.fix is not None
    edit = finding.fix.edits[0]
    text = edit.span.path.read_bytes()
    assert (text[: edit.span.start] + edit.content.encode() + text[edit.span.end :]).decode().count("num_workers = 12  # per rank") == 1
    assert _torchtitan(tmp_path / "c", "[training.dataloader]\nnum_workers = 12\n") == []


def test_toml_values_keep_their_places(tmp_path: Path) -> None:
    from recipelint.parse.span import SourceText
    from recipelint.parse.tomlfile import parse_toml

    path = tmp_path / "x.toml"
    path.write_text('a = 1\n[t.u]\n"k" = 2 # c\ns = "x # y"\nv = [1,\n  2]\n[[arr]]\nw = 3\n[t]\nz = {p = 4}\n')
    root = parse_toml(SourceText(path, path.read_bytes())).root
    k, s, w = root.get("t.u.k"), root.get("t.u.s"), root.get("arr")
    assert k is not None and (k.value, k.span.line, k.span.column, k.quoted) == (2, 3, 7, False)
    assert s is not None and s.value == "x # y" and s.quoted and s.span.line == 4
    assert w is not None and w.kind == "seq" and w.children[0].get("w") is not None
    p = root.get("t.z.p")
    assert p is not None and p.value == 4 and p.quoted  # inside an inline table: not placed, never edited
    path.write_text("a = [1,\n")
    try:
        parse_toml(SourceText(path, path.read_bytes()))
    except Exception as exc:  # noqa: BLE001 - the error's shape is what is tested
        assert type(exc).__name__ == "SourceError" and "invalid TOML" in str(exc)
    else:
        raise AssertionError("a broken TOML parsed")


def test_pinned_batches_leave_the_pods_shared_memory(tmp_path: Path) -> None:
    """RL961 with pin_memory: the pin thread copies each batch out of /dev/shm as it arrives
    (torch's _MultiProcessingDataLoaderIter), so ranks x workers batches are there at once, not
    x prefetch_factor. From the config key the script hands to pin_memory, or a `--pin_memory`
    switch; `pin_memory: false` keeps the unpinned count."""
    (tmp_path / "conf").mkdir()
    (tmp_path / "train.py").write_text(
        TRAIN.replace('.get("prefetch_factor"))', '.get("prefetch_factor"), pin_memory=cfg["data"]["pin_memory"])')
    )
    (tmp_path / "pod.yaml").write_text(POD)
    messages = {}
    for pinned in ("true", "false"):
        (tmp_path / "conf/x.yaml").write_text(f"data:\n  num_workers: 4\n  prefetch_factor: 8\n  pin_memory: {pinned}\n")
        result = engine.check([tmp_path / "pod.yaml"], hardware=None, files=FileCache(), resolver=Resolver(isolated=True))
        [messages[pinned]] = [d.message for d in result.diagnostics if d.code == "RL961"]
    assert "32 batches on their way to the pin thread (pin_memory: the 256 queued wait in pinned RAM)" in messages["true"]
    assert messages["true"].endswith("once a batch passes 2048 KiB")
    assert "256 batches in flight (x prefetch_factor 8)" in messages["false"] and messages["false"].endswith("passes 256 KiB")
    (tmp_path / "pod.yaml").write_text(POD.replace('"--config", "conf/x.yaml"]', '"--pin_memory", "--num_workers", "4"]'))
    result = engine.check([tmp_path / "pod.yaml"], hardware=None, files=FileCache(), resolver=Resolver(isolated=True))
    [switch] = [d for d in result.diagnostics if d.code == "RL961"]
    assert "32 batches on their way to the pin thread (pin_memory: the 64 queued" in switch.message
    assert any(e.startswith("pin_memory: --pin_memory (pod.yaml:") for e in switch.evidence)


def test_an_upstream_toml_reads_as_tomllib_reads_it() -> None:
    """torchtitan's llama3_8b.toml: the tree holds tomllib's values, and each bare value's span
    reads back as that value (so a fix edits the right bytes). Tried on 36 TOML files (torchtitan
    v0.2.2's 24, pyproject.toml and others): the same."""
    import tomllib

    from recipelint.parse.span import SourceText
    from recipelint.parse.tomlfile import parse_toml
    from tests.helpers import UPSTREAM

    path = UPSTREAM / "slurm/torchtitan-v0.2.2/torchtitan/models/llama3/train_configs/llama3_8b.toml"
    source = SourceText(path, path.read_bytes())
    root = parse_toml(source).root
    assert root.plain() == tomllib.loads(source.text)
    placed = [n for n in root.walk() if n.kind == "scalar" and not n.quoted]
    assert len(placed) > 20
    for node in placed:
        assert tomllib.loads("x = " + source.slice(node.span))["x"] == node.value, node.path


def _olmo(tmp_path: Path, cpus: int = 96) -> list[Diagnostic]:
    from recipelint.hardware.profile import load_profile
    from tests.helpers import A100

    tmp_path.mkdir()
    profile = tmp_path / "node.yaml"
    profile.write_text(A100.read_text().replace("\ncpus: 96\n", f"\ncpus: {cpus}\n"))
    hardware = load_profile(profile)
    root = clone("beaker/OLMo", tmp_path)
    paths = [root / "scripts/beaker/tiny/torchrun-script.sh", root / "scripts/augusta/peteish1.sh"]
    result = engine.check(paths, hardware=lambda: hardware, files=FileCache(), resolver=Resolver(isolated=True))
    assert not result.errors
    return [d for d in result.diagnostics if d.code == "RL506"]


def test_olmo_configs_carry_the_loader_workers(tmp_path: Path) -> None:
    """allenai/OLMo's Beaker jobs: `torchrun --nproc-per-node 8 scripts/train.py
    configs/tiny/OLMo-300M.yaml` (the config a positional word), whose `data.num_workers: 32`
    reaches the DataLoader olmo/data/__init__.py builds (an import of train.py; the train
    loader's `train_config.data.num_workers`, not an evaluator's `num_workers: 0`): 8 x 32 = 256
    on 96 CPUs, RL506 at the YAML's line. peteish1.sh repeats it as `--data.num_workers=32` after
    its config (OmegaConf's dotlist wins): the finding is at that flag. Quiet on 256 CPUs."""
    tiny, peteish = _olmo(tmp_path / "a")
    assert (tiny.span.path.name, tiny.span.line, tiny.suggested) == ("OLMo-300M.yaml", 208, 12)
    assert tiny.evidence[0].startswith("workers: OLMo-300M.yaml: data.num_workers: 32, which __init__.py hands to its DataLoader")
    assert (peteish.span.path.name, peteish.span.line) == ("peteish1.sh", 84)
    assert peteish.evidence[0].startswith("workers: --data.num_workers 32 over peteish1-google.yaml: data.num_workers: 32")
    assert _olmo(tmp_path / "b", cpus=256) == []
