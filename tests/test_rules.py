"""Every rule: one recipe that makes it fire, one that keeps it quiet."""

from __future__ import annotations

import gzip
from collections.abc import Callable
from pathlib import Path

import pytest

from recipelint.records import replace
from tests.helpers import DS_JSON, NODE, RecipeSpec, assert_snapshot, codes

Spec = Callable[[Path], RecipeSpec]

MULTI = {"nodes": 4, "rendezvous": "head.cluster:29400"}
DEEPSPEED_FLAGS = ["--num_workers ${num_workers}", "--prefetch ${prefetch}", "--train_engine deepspeed", "--deepspeed_config conf/ds.json"]


def spec(**changes: object) -> Spec:
    return lambda root: replace(RecipeSpec(), **changes)


def hardware(**changes: object) -> dict[str, object]:
    data = dict(NODE)
    data.update(changes)
    return {k: v for k, v in data.items() if v is not None}


def gzip_shard(root: Path) -> RecipeSpec:
    shard = root / "shards_000000000.tar"  # compressed, but the name says plain tar
    root.mkdir(parents=True, exist_ok=True)
    shard.write_bytes(gzip.compress(b"tar bytes"))
    return RecipeSpec(shards=[str(shard)] * 16)


CASES: dict[str, tuple[Spec, Spec]] = {
    "RL001": (spec(hardware=hardware(cpus=None)), spec()),
    "RL002": (
        spec(variables={"num_workers": "4  # recipelint: ignore[RL102] node has 96 cores", "prefetch": "10"}),
        spec(variables={"num_workers": "4  # recipelint: ignore[RL102] node has 96 cores", "prefetch": "10"}, hardware=hardware(cpus=12)),
    ),
    "RL003": (
        spec(variables={"num_workers": "4  # recipelint: ignore[RL102]", "prefetch": "10"}, hardware=hardware(cpus=12)),
        spec(
            variables={"num_workers": "4  # recipelint: ignore[RL102] cgroup is lifted at launch", "prefetch": "10"},
            hardware=hardware(cpus=12),
        ),
    ),
    "RL005": (
        spec(
            variables={"num_workers": "4  # recipelint: ignore[RL1002] the job gets 96 cores", "prefetch": "10"}, hardware=hardware(cpus=12)
        ),
        spec(
            variables={"num_workers": "4  # recipelint: ignore[RL102] the job gets 96 cores", "prefetch": "10"}, hardware=hardware(cpus=12)
        ),
    ),
    "RL101": (spec(variables={"num_workers": "0", "prefetch": "10"}), spec()),
    "RL102": (spec(hardware=hardware(cpus=12)), spec(hardware=hardware(cpus=16))),
    "RL103": (spec(variables={"num_workers": "4", "prefetch": "500"}, hardware=hardware(shm_gib=1)), spec(hardware=hardware(shm_gib=2))),
    "RL104": (
        spec(variables={"num_workers": "4"}, flags=["--num_workers ${num_workers}"], hardware=hardware(memory_gib=64)),
        spec(variables={"num_workers": "4"}, flags=["--num_workers ${num_workers}"]),
    ),
    "RL105": (
        spec(shards=34, hardware=hardware(inter_node_network="ethernet"), **MULTI),
        spec(shards=34, hardware=hardware(inter_node_network="infiniband"), **MULTI),
    ),
    "RL106": (
        spec(variables={"num_workers": "1", "prefetch": "200"}),
        spec(variables={"num_workers": "1", "prefetch": "200"}, hardware=hardware(cpus=4)),  # 4 ranks: 1 CPU each
    ),
    "RL201": (spec(shards=10), spec(shards=16)),
    "RL205": (
        spec(flags=DEEPSPEED_FLAGS, ds=DS_JSON, shards=66),
        spec(flags=DEEPSPEED_FLAGS, ds=DS_JSON, shards=68),
    ),
    "RL202": (spec(shards=3), spec(shards=4)),
    "RL203": (
        spec(shards=[f"https://host/shards_{i}.tar" for i in range(16)]),
        spec(data_type="raw", shards=[f"https://host/shards_{i}.tar" for i in range(16)]),
    ),
    "RL204": (gzip_shard, spec(shards=[f"/data/s_{i}.tar" for i in range(16)])),
    "RL301": (
        spec(flags=DEEPSPEED_FLAGS, ds=DS_JSON, hardware=hardware(inter_node_network="ethernet"), **MULTI),
        spec(flags=DEEPSPEED_FLAGS + ["--timeout 1200"], ds=DS_JSON, hardware=hardware(inter_node_network="ethernet"), **MULTI),
    ),
    "RL302": (spec(flags=["--num_workers 4", "--prefetch 10", "--timeout 300"]), spec()),
    "RL303": (
        spec(flags=["--num_workers 4", "--prefetch 10", "--train_engine torch_fsdp", "--timeout 900"]),
        spec(flags=["--num_workers 4", "--prefetch 10", "--train_engine torch_fsdp", "--timeout 300"]),
    ),
    "RL401": (spec(flags=DEEPSPEED_FLAGS), spec(flags=DEEPSPEED_FLAGS, ds=DS_JSON)),
    "RL402": (spec(flags=DEEPSPEED_FLAGS, ds={**DS_JSON, "gradient_accumulation_steps": 1}), spec(flags=DEEPSPEED_FLAGS, ds=DS_JSON)),
    "RL501": (spec(nodes=2, rendezvous="localhost:0"), spec(nodes=2, rendezvous="head.cluster:29400")),
    "RL502": (
        spec(exports={"NCCL_IB_DISABLE": "1"}, **MULTI),
        spec(exports={"NCCL_IB_DISABLE": "1"}, hardware=hardware(inter_node_network="ethernet"), **MULTI),
    ),
    "RL503": (
        spec(exports={"NCCL_SOCKET_IFNAME": "ens4f1"}, hardware=hardware(interfaces={"eth0": "up", "ib0": "up"})),
        spec(exports={"NCCL_SOCKET_IFNAME": "^docker,lo"}, hardware=hardware(interfaces={"eth0": "up", "lo": "unknown"})),
    ),
    "RL504": (
        spec(hardware=hardware(inter_node_network="ethernet"), **MULTI),
        spec(exports={"NCCL_SOCKET_IFNAME": "eth0"}, hardware=hardware(inter_node_network="ethernet"), **MULTI),
    ),
    "RL505": (
        spec(flags=["--num_workers 4", "--prefetch 10", "--ddp.dist_backend gloo"]),
        spec(flags=["--num_workers 4", "--prefetch 10", "--ddp.dist_backend gloo", "--device cpu"]),
    ),
    "RL601": (
        spec(flags=["--num_workers 4", "--prefetch 10", "--gpu 0"]),
        spec(flags=["--num_workers 4", "--prefetch 10", "--pin_memory"]),
    ),
    "RL602": (
        spec(flags=["--num_workers 4", "--prefetch 10", "--use_lora False"]),
        spec(flags=["--num_workers 4", "--prefetch 10", "--use_lora True"]),
    ),
    "RL701": (spec(yaml_extra="grad_clipp: 5\n"), spec()),
    "RL702": (
        spec(batch="    batch_type: dynamc\n    max_frames_in_batch: 12000"),
        spec(batch="    batch_type: dynamic\n    max_frames_in_batch: 12000"),
    ),
    "RL703": (spec(sort_size=2000), spec(sort_size=1500)),
    "RL704": (
        spec(batch="    batch_type: dynamic\n    max_frames_in_batch: 4000", max_length=10000),
        spec(batch="    batch_type: dynamic\n    max_frames_in_batch: 12000", max_length=40960),
    ),
}


@pytest.mark.parametrize("code", sorted(CASES))
def test_rule_fires(code: str, tmp_path: Path, recipe) -> None:  # type: ignore[no-untyped-def]
    assert_snapshot(code, recipe(CASES[code][0](tmp_path)), tmp_path)


@pytest.mark.parametrize("code", sorted(CASES))
def test_rule_stays_quiet(code: str, tmp_path: Path, recipe) -> None:  # type: ignore[no-untyped-def]
    diagnostics = recipe(CASES[code][1](tmp_path))
    assert code not in codes(diagnostics), [d.message for d in diagnostics if d.code == code]


def test_baseline_recipe_is_clean(recipe) -> None:  # type: ignore[no-untyped-def]
    assert recipe() == []
