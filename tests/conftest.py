"""A small recipe builder: each test states only what differs from a sane WeNet recipe."""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from recipelint import engine
from recipelint.diagnostics import Diagnostic
from recipelint.hardware.profile import from_mapping

REPO = Path(__file__).resolve().parent.parent


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--network", action="store_true", help="also run the tests marked `network` (they install from PyPI)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "network: needs the network; skipped unless --network or RECIPELINT_NETWORK=1")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--network") or os.environ.get("RECIPELINT_NETWORK") == "1":
        return
    skip = pytest.mark.skip(reason="needs the network: run with --network or RECIPELINT_NETWORK=1")
    for item in items:
        if "network" in item.keywords:
            item.add_marker(skip)


CORPUS = REPO.parent / "shared" / "corpus"
# The command line caches results by default: the tests' runs keep theirs out of the checkout.
os.environ.setdefault("RECIPELINT_CACHE_DIR", tempfile.mkdtemp(prefix="recipelint-test-cache-"))

RUN_SH = """#!/bin/bash
. ./path.sh || exit 1;
export CUDA_VISIBLE_DEVICES="{devices}"
{exports}num_nodes={nodes}
HOST_NODE_ADDR="{rendezvous}"
{assignments}
train_config=conf/train.yaml
if [ ${{stage}} -le 4 ] && [ ${{stop_stage}} -ge 4 ]; then
  num_gpus=$(echo $CUDA_VISIBLE_DEVICES | awk -F "," '{{print NF}}')
  torchrun --nnodes=$num_nodes --nproc_per_node=$num_gpus \\
           --rdzv_id=2023 --rdzv_backend="c10d" --rdzv_endpoint=$HOST_NODE_ADDR \\
    wenet/bin/train.py \\
      --config $train_config \\
      --data_type {data_type} \\
      --train_data data/train/data.list \\
      --cv_data data/dev/data.list \\
      --model_dir exp/x{flags}
fi
"""

TRAIN_YAML = """encoder: conformer
encoder_conf:
  output_size: 256
dataset_conf:
  filter_conf:
    max_length: {max_length}
  resample_conf:
    resample_rate: 16000
  fbank_conf:
    num_mel_bins: 80
    frame_shift: 10
  shuffle: true
  shuffle_conf:
    shuffle_size: {shuffle_size}
  sort: true
  sort_conf:
    sort_size: {sort_size}
  batch_conf:
{batch}
grad_clip: 5
accum_grad: 4
max_epoch: 10
log_interval: 100
{extra}"""

DS_JSON: dict[str, Any] = {
    "train_micro_batch_size_per_gpu": 1,
    "gradient_accumulation_steps": 4,
    "steps_per_print": 100,
    "gradient_clipping": 5,
    "fp16": {"enabled": True},
    "zero_optimization": {"stage": 2},
}

# A node the default recipe fits comfortably: 64 CPUs, 512 GiB, 64 GiB shm, InfiniBand.
NODE: dict[str, Any] = {
    "cpus": 64,
    "memory_gib": 512,
    "shm_gib": 64,
    "gpus": 4,
    "gpu_model": "NVIDIA A100-SXM4-80GB",
    "gpu_compute_capability": "8.0",
    "inter_node_network": "infiniband",
}


@dataclass
class RecipeSpec:
    devices: str = "0,1,2,3"
    nodes: int = 1
    rendezvous: str = "localhost:0"
    variables: dict[str, str] = field(default_factory=lambda: {"num_workers": "4", "prefetch": "10"})
    flags: list[str] = field(default_factory=lambda: ["--num_workers ${num_workers}", "--prefetch ${prefetch}"])
    data_type: str = "shard"
    shards: list[str] | int = 64
    batch: str = "    batch_type: static\n    batch_size: 16"
    max_length: int = 2000
    shuffle_size: int = 1500
    sort_size: int = 500
    yaml_extra: str = ""
    ds: dict[str, Any] | None = None
    hardware: dict[str, Any] = field(default_factory=lambda: dict(NODE))
    exports: dict[str, str] = field(default_factory=dict)

    def write(self, root: Path) -> Path:
        (root / "conf").mkdir(parents=True, exist_ok=True)
        (root / "data/train").mkdir(parents=True, exist_ok=True)
        (root / "data/dev").mkdir(parents=True, exist_ok=True)
        assignments = "\n".join(f"{k}={v}" for k, v in self.variables.items())
        flags = "".join(f" \\\n      {f}" for f in self.flags)
        (root / "run.sh").write_text(
            RUN_SH.format(
                exports="".join(f"export {k}={v}\n" for k, v in self.exports.items()),
                devices=self.devices,
                nodes=self.nodes,
                rendezvous=self.rendezvous,
                assignments=assignments,
                data_type=self.data_type,
                flags=flags,
            )
        )
        (root / "conf/train.yaml").write_text(
            TRAIN_YAML.format(
                max_length=self.max_length,
                shuffle_size=self.shuffle_size,
                sort_size=self.sort_size,
                batch=self.batch,
                extra=self.yaml_extra,
            )
        )
        if self.ds is not None:
            (root / "conf/ds.json").write_text(json.dumps(self.ds, indent=2) + "\n")
        lines = self.shards if isinstance(self.shards, list) else [f"/data/shards/shards_{i:09d}.tar" for i in range(self.shards)]
        (root / "data/train/data.list").write_text("".join(f"{line}\n" for line in lines))
        (root / "data/dev/data.list").write_text("/data/shards/dev_000000000.tar\n")
        return root / "run.sh"


def lint(path: Path, hardware: dict[str, Any] | None = None) -> list[Diagnostic]:
    profile = from_mapping(dict(hardware if hardware is not None else NODE), "profile test.yaml")
    result = engine.check([path], lambda: profile)
    assert not result.errors, result.errors
    return result.diagnostics


def codes(diagnostics: list[Diagnostic]) -> list[str]:
    return sorted({d.code for d in diagnostics})


@pytest.fixture
def recipe(tmp_path: Path):  # type: ignore[no-untyped-def]
    """Write a recipe from a RecipeSpec and lint it: `recipe(spec)` -> diagnostics."""

    def build(spec: RecipeSpec | None = None) -> list[Diagnostic]:
        spec = spec or RecipeSpec()
        script = spec.write(tmp_path)
        return lint(script, spec.hardware)

    return build


def deepspeed_launch(gpus: int, nodes: int = 1) -> Any:
    """A `deepspeed --num_nodes N --num_gpus G train.py` launch, read from memory (nothing is
    written beside the config): the data-parallel size a DeepSpeed JSON is judged at (a JSON no
    launch names has none)."""
    from recipelint.parse.shell import parse_shell
    from recipelint.parse.span import SourceText
    from recipelint.toolkits.launchers import parse_deepspeed_launcher

    line = f"deepspeed --num_nodes {nodes} --num_gpus {gpus} train.py --deepspeed ds.json\n"
    script = parse_shell(SourceText(Path("<launch>"), line.encode()))
    (command,) = script.commands
    return parse_deepspeed_launcher(script, command, 5)
