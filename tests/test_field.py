"""Field cases: recipes rebuilt from public reports (tests/data/field/<case>/SOURCE.md cites each
thread). Each fires on the reported recipe (bad/) and stays quiet on the corrected one (good/);
where the rule has a fix, the fix turns bad/ into good/ byte for byte. Hardware comes from the
case's saved node profile: the machine running the tests is not the training node."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from recipelint import engine, fix
from recipelint.diagnostics import Diagnostic
from recipelint.hardware.profile import from_mapping, load_profile
from recipelint.parse.files import FileCache
from recipelint.settings import Resolver
from tests.helpers import NODE

FIELD = Path(__file__).parent / "data" / "field"


def lint(case: str, side: str, target: str | None = None, config: Path | None = None) -> list[Diagnostic]:
    root = FIELD / case
    profile = load_profile(root / "node.yaml") if (root / "node.yaml").exists() else from_mapping(dict(NODE), "profile test")
    path = root / side / target if target else root / side
    result = engine.check([path], hardware=lambda: profile, resolver=Resolver(config) if config else Resolver(isolated=True))
    assert result.errors == []
    return result.diagnostics


def only(found: list[Diagnostic], code: str) -> list[Diagnostic]:
    return [d for d in found if d.code == code]


def fixed(case: str, tmp_path: Path, unsafe: bool = False) -> dict[str, bytes]:
    """Copy bad/ and apply `fix` (in memory): the changed files' new bytes by name."""
    root = FIELD / case
    copy = tmp_path / "bad"
    shutil.copytree(root / "bad", copy)
    profile = load_profile(root / "node.yaml") if (root / "node.yaml").exists() else from_mapping(dict(NODE), "profile test")

    def run_check(cache: FileCache) -> list[Diagnostic]:
        return engine.check([copy], hardware=lambda: profile, files=cache, resolver=Resolver(isolated=True)).diagnostics

    outcome = fix.fix_paths(run_check, unsafe=unsafe)
    assert outcome.errors == []
    return {path.name: data for path, data in outcome.changed.items()}


def test_every_case_cites_its_report() -> None:
    cases = sorted(p for p in FIELD.iterdir() if p.is_dir())
    assert len(cases) == 14
    for case in cases:
        source = (case / "SOURCE.md").read_text()
        assert "https://github.com/" in source and "## What was taken" in source, case.name
        assert (case / "bad").is_dir() and (case / "good").is_dir(), case.name


def test_batch_triple_on_7_gpus(tmp_path: Path) -> None:  # OpenRLHF #346
    found = only(lint("batch-triple-7-gpus", "bad"), "RL415")
    assert len(found) == 1, [d.message for d in found]
    assert "train_batch_size 256 != micro batch 2 x accumulation 18 x data-parallel size 7 = 252" in found[0].message
    assert found[0].suggested == 252 and found[0].fix is not None and str(found[0].fix.applicability.value) == "unsafe"
    assert "alternative: train_batch_size 266 = micro 2 x accumulation 19 x 7" in found[0].evidence
    assert fixed("batch-triple-7-gpus", tmp_path) == {}  # unsafe: not applied by default
    assert fixed("batch-triple-7-gpus", tmp_path / "u", unsafe=True) == {
        "ds_config.json": (FIELD / "batch-triple-7-gpus/good/ds_config.json").read_bytes()
    }
    assert only(lint("batch-triple-7-gpus", "good"), "RL415") == []


def test_auto_on_bare_aliases(tmp_path: Path) -> None:  # axolotl #2964
    found = only(lint("alias-auto-axolotl", "bad"), "RL416")
    assert sorted(d.setting or "" for d in found) == [
        "zero_optimization.param_persistence_threshold",
        "zero_optimization.prefetch_bucket_size",
    ]
    assert all("not found in kwargs" in d.message for d in found)
    assert fixed("alias-auto-axolotl", tmp_path) == {"zero3_bf16.json": (FIELD / "alias-auto-axolotl/good/zero3_bf16.json").read_bytes()}
    assert only(lint("alias-auto-axolotl", "good"), "RL416") == []


def test_removed_one_bit_optimizer() -> None:  # DeepSpeed #5046
    found = only(lint("onebitadam-removed", "bad"), "RL423")
    assert len(found) == 1 and str(found[0].severity) == "error"
    assert "optimizer OnebitAdam was removed in DeepSpeed 0.19.7" in found[0].message
    assert "use Adam or AdamW and delete freeze_step, cuda_aware, comm_backend_name, or pin deepspeed<0.19.7" in found[0].message
    assert (found[0].span.line, found[0].span.column) == (6, 13)
    assert only(lint("onebitadam-removed", "good"), "RL423") == []


def test_localhost_rendezvous_in_a_hugging_face_launch() -> None:  # ms-swift #2485
    found = only(lint("localhost-rendezvous-hf", "bad"), "RL501")
    assert len(found) == 1 and found[0].span.line == 6
    assert "2 nodes but the rendezvous is 127.0.0.1:29500" in found[0].message
    assert lint("localhost-rendezvous-hf", "good") == []


def test_gloo_on_64_gpus(tmp_path: Path) -> None:  # WeNet #812
    found = only(lint("wenet-gloo-8x8", "bad"), "RL505")
    assert len(found) == 1 and "--ddp.dist_backend gloo on 64 CUDA ranks" in found[0].message
    assert found[0].setting == "dist_backend" and found[0].suggested == "nccl"
    assert found[0].fix is not None and [(e.span.line, e.content) for e in found[0].fix.edits] == [(132, "nccl")]
    assert fixed("wenet-gloo-8x8", tmp_path, unsafe=True) == {"run.sh": (FIELD / "wenet-gloo-8x8/good/run.sh").read_bytes()}
    assert lint("wenet-gloo-8x8", "good") == []


def test_shards_not_divisible_by_the_world_size() -> None:  # OSUM #9
    found = only(lint("wenet-uneven-shards", "bad"), "RL205")
    assert len(found) == 1 and found[0].suggested == 16
    assert "15 shards on 2 ranks: 1 rank(s) get 8 shards and 1 get 7; under deepspeed" in found[0].message
    assert "tools/make_shard_list.py --num_utts_per_shard 937 (= 1000 x 15 / 16, for shards of the default 1000)" in found[0].evidence
    assert lint("wenet-uneven-shards", "good") == []


def test_one_worker_with_a_large_prefetch() -> None:  # WeNet #988
    found = only(lint("wenet-one-worker", "bad"), "RL106")
    assert len(found) == 1 and str(found[0].severity) == "info" and found[0].suggested == 6  # 48 CPUs // 8 ranks
    assert "num_workers 1 with prefetch 200" in found[0].message and "The loader plan: num_workers 6, prefetch 33" in found[0].message
    assert "loader plan headroom 6 (cpu cap 6, shards cap 15, upstream 8)" in found[0].evidence
    assert lint("wenet-one-worker", "good") == []


@pytest.mark.parametrize(
    ("target", "severity", "says"),
    [
        (None, "warning", "ignores it under --launcher slurm"),  # the newest known, 0.2.0
        ("0.1.19", "error", "XTuner 0.1.19 (target-versions in recipelint.toml) starts torchrun inside every srun task"),
        (">=0.1.15", "warning", "with xtuner < 0.1.20; target-versions in recipelint.toml allows xtuner>=0.1.15"),
    ],
)
def test_xtuner_env_beside_the_slurm_launcher(tmp_path: Path, target: str | None, severity: str, says: str) -> None:
    config = tmp_path / "recipelint.toml"
    config.write_text(f'target-versions = {{xtuner = "{target}"}}\n' if target else "")
    found = only(lint("xtuner-slurm-env", "bad", config=config), "RL810")
    assert [d.setting for d in found] == ["NPROC_PER_NODE", "NNODES"] and {str(d.severity) for d in found} == {severity}
    assert says in found[0].message
    assert fixed("xtuner-slurm-env", tmp_path) == {"train.sh": (FIELD / "xtuner-slurm-env/good/train.sh").read_bytes()}
    assert only(lint("xtuner-slurm-env", "good"), "RL810") == []


@pytest.mark.parametrize(
    ("command", "endpoint"),
    [
        ("torchrun --nnodes 2 --nproc_per_node 8 --master_addr localhost train.py --per_device_train_batch_size 4", "localhost:29500"),
        ("accelerate launch --num_machines 2 --num_processes 16 --main_process_ip 127.0.0.1 train.py", "127.0.0.1:29500"),
        ("export MASTER_ADDR=localhost\nsrun --nodes=2 --ntasks-per-node=8 xtuner train cfg.py --launcher slurm", "localhost"),
        ("accelerate launch --num_machines 2 --num_processes 16 train.py", None),  # the address is in Accelerate's config file
        ("deepspeed --num_nodes 2 --num_gpus 8 train.py", None),  # the hostfile's first host
    ],
)
def test_local_rendezvous_on_every_launcher(tmp_path: Path, command: str, endpoint: str | None) -> None:
    (tmp_path / "train.sh").write_text(command + "\n")
    profile = from_mapping({**NODE, "gpus": 8}, "profile test")
    found = only(engine.check([tmp_path / "train.sh"], hardware=lambda: profile).diagnostics, "RL501")
    assert [d.current for d in found] == ([endpoint] if endpoint else [])
