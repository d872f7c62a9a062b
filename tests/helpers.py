"""What the tests share: a recipe builder (each test states only what differs from a sane WeNet
recipe), the command line as a subprocess, fake machines for the probe, upstream slices, and
the snapshot comparison of diagnostics."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from recipelint import engine
from recipelint.diagnostics import Diagnostic
from recipelint.hardware.probe import probe as real_probe
from recipelint.hardware.profile import Hardware, from_mapping, load_profile
from recipelint.parse.files import FileCache
from recipelint.records import dataclass, field
from recipelint.report import show

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "tests" / "data"
CORPUS = DATA / "corpus"  # real configs of WeNet, XTuner and seven DeepSpeed users (SOURCE.md in each folder)
CHECKOUTS = DATA / "checkouts"
UPSTREAM = DATA / "upstream"
A100 = DATA / "profiles" / "a100-8x-96cpu-ib.yaml"

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
{extra}tokenizer: char
tokenizer_conf:
  symbol_table_path: data/dict/lang_char.txt
  non_lang_syms_path: null
"""

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
    result = engine.check([path], hardware=lambda: profile)
    assert not result.errors, result.errors
    return result.diagnostics


def codes(diagnostics: list[Diagnostic]) -> list[str]:
    return sorted({d.code for d in diagnostics})


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


# The command line, as a user runs it.
def cli(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "recipelint", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        timeout=60,
    )


def check_with(root: Path, hardware: dict[str, Any], **kwargs: Any) -> engine.Result:
    profile = from_mapping(dict(hardware), "profile test")
    return engine.check([root], hardware=lambda: profile, **kwargs)


# Fake machines for the probe.
def fake_root(tmp_path: Path, cgroup: dict[str, str], cpus: str = "0-95", mem_kib: int = 512 * 1024 * 1024) -> Path:
    root = tmp_path / "root"
    files = {
        "proc/self/cgroup": "0::/job\n",
        "proc/self/status": f"Name:\tpython\nCpus_allowed_list:\t{cpus}\n",
        "proc/meminfo": f"MemTotal:       {mem_kib} kB\n",
        **{f"sys/fs/cgroup/job/{k}": v for k, v in cgroup.items()},
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (root / "dev/shm").mkdir(parents=True)
    return root


class FakeNvml:
    def __init__(self, count: int = 2, fail: str | None = None) -> None:
        self.count, self.fail, self.calls = count, fail, list[str]()

    def nvmlInit(self) -> None:
        self.calls.append("init")
        if self.fail == "init":
            raise RuntimeError("NVML Shared Library Not Found")

    def nvmlShutdown(self) -> None:
        self.calls.append("shutdown")

    def nvmlDeviceGetCount(self) -> int:
        if self.fail == "count":
            raise RuntimeError("Insufficient Permissions")
        return self.count

    def nvmlDeviceGetHandleByIndex(self, i: int) -> int:
        return i

    def nvmlDeviceGetName(self, h: int) -> bytes:
        return b"Tesla V100-SXM2-32GB"

    def nvmlDeviceGetMemoryInfo(self, h: int) -> SimpleNamespace:
        return SimpleNamespace(total=32 * 1024**3)

    def nvmlDeviceGetCudaComputeCapability(self, h: int) -> tuple[int, int]:
        return (7, 0)

    def nvmlSystemGetDriverVersion(self) -> str:
        return "550.54.15"

    def nvmlDeviceGetNvLinkState(self, h: int, link: int) -> int:
        if link >= 6:
            raise RuntimeError("not supported")
        return 1


def host(tmp_path: Path, gpus: int | None, cpus: str = "0-1", mem_kib: int = 24 * 1024 * 1024) -> Callable[..., Hardware]:
    """The probe of a fake machine: `cpus` online, `gpus` through a fake NVML (None: no NVML)."""
    root = fake_root(tmp_path / "host", {}, cpus=cpus, mem_kib=mem_kib)
    nvml = FakeNvml(gpus) if gpus is not None else FakeNvml(fail="init")
    return lambda *args, **kwargs: real_probe(root, nvml)


# Unmodified upstream files (tests/data/upstream, tests/data/checkouts).
def copy_upstream(folder: str, repo: Path) -> Path:
    """A checkout made of the real upstream files in tests/data/checkouts/<folder>."""
    shutil.copytree(CHECKOUTS / folder, repo, dirs_exist_ok=True)
    return repo


def clone(name: str, target: Path) -> Path:
    """A copy of one upstream slice, with the `.git` folder a clone has at its root."""
    root = target / name
    shutil.copytree(UPSTREAM / name, root, symlinks=True)
    (root / ".git").mkdir()
    return root


def describe(paths: list[Path], profile: Path = A100) -> tuple[list[show.Description], engine.Result]:
    """What `recipelint show` prints for these paths, as data."""
    hardware = load_profile(profile)
    found: list[show.Description] = []
    result = engine.check(
        paths, hardware=lambda: hardware, files=FileCache(), observe=lambda ctx, kept: found.append(show.describe(ctx, kept))
    )
    return found, result


def items(description: show.Description, title: str) -> dict[str, list[show.Item]]:
    """The items of one section by label (a label may repeat: two train lists)."""
    out: dict[str, list[show.Item]] = {}
    for section in description.sections:
        if section.title == title:
            for item in section.items:
                out.setdefault(item.label, []).append(item)
    return out


def item(description: show.Description, title: str, label: str) -> show.Item:
    return items(description, title)[label][0]


def write_lines(path: Path, count: int, line: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{line(i)}\n" for i in range(count)))


# The WeNet recipes' train lists (tests/test_upstream_wenet.py says where the counts come from):
# recipe folder -> (train list the launch names, relative to the folder; lines).
STAND_IN = 1000
TRAIN_LISTS: dict[str, tuple[str, int]] = {
    "aishell/NST": ("data/train/data_aishell.list", STAND_IN),
    "aishell/paraformer": ("data/train/data.list", 121),
    "aishell/rnnt": ("data/train/data.list", STAND_IN),
    "aishell/s0": ("data/train/data.list", STAND_IN),
    "aishell/whisper": ("data/train/data.list", 121),
    "aishell2/rnnt": ("data/train/data.list", STAND_IN),
    "aishell2/s0": ("data/train/data.list", STAND_IN),
    "aishell4/s0": ("data/aishell4_train/data.list", 60),
    "chime4/s0": ("data/chime4/train/data.list", STAND_IN),
    "commonvoice/fr": ("data/train/data.list", STAND_IN),
    "csj/s0": ("data/train/data.list", STAND_IN),
    "gigaspeech/s0": ("data/train_xl/data.list", 8283),
    "hkust/s0": ("raw_wav_bpe/train_nodev/data.list", STAND_IN),
    "librispeech/rnnt": ("data/train_960/data.list", STAND_IN),
    "librispeech/s0": ("data/train_960/data.list", STAND_IN),
    "multi_cn/s0": ("data_bpe/train/data.list", STAND_IN),
    "openasr2021/s0": ("data/train_sp/data.list", STAND_IN),
    "swbd/s0": ("raw_wav/train_nodup/data.list", STAND_IN),
    "tedlium3/s0": ("raw_wav/train/data.list", STAND_IN),
    "timit/s0": ("data/train/data.list", STAND_IN),
    "vkw2021/s0": ("data/train/data.list", STAND_IN),
    "wenetspeech/paraformer": ("data/train_l-aishell4/data.list", STAND_IN),
    "wenetspeech/s0": ("data/train_l/data.list", STAND_IN),
    "wenetspeech/whisper": ("data/train_l/data.list", STAND_IN),
    "wsj/s0": ("data/train_si284/data.list", STAND_IN),
}
SHARD_LISTS = {
    "aishell/paraformer",
    "aishell/whisper",
    "aishell4/s0",
    "gigaspeech/s0",
    "swbd/s0",
    "wenetspeech/paraformer",
    "wenetspeech/s0",
    "wenetspeech/whisper",
}


def write_train_lists(root: Path) -> None:
    """The data lists the recipes' earlier stages would write, with the line counts above."""
    for folder, (name, lines) in TRAIN_LISTS.items():
        if folder in SHARD_LISTS:
            write_lines(root / "examples" / folder / name, lines, lambda i: f"/data/shards/shards_{i:09d}.tar")
        else:
            write_lines(root / "examples" / folder / name, lines, lambda i: f'{{"key": "U{i}", "wav": "/data/wav/U{i}.wav", "txt": "x"}}')


# An XTuner config (mmengine Python), formatted by the tests.
XTUNER_CONFIG = """from xtuner.dataset import process_hf_dataset
max_length = 2048
pack_to_max_length = True
sequence_parallel_size = {sp}
batch_size = {batch}  # per_device
accumulative_counts = 16
accumulative_counts *= sequence_parallel_size
dataloader_num_workers = {workers}
use_varlen_attn = {varlen}
train_dataset = dict(type=process_hf_dataset, max_length=max_length, pack_to_max_length=pack_to_max_length)
train_dataloader = dict(batch_size=batch_size, num_workers=dataloader_num_workers, dataset=train_dataset)
env_cfg = dict(cudnn_benchmark=False, dist_cfg=dict(backend="nccl"{dist}))
"""


# Snapshots: each rule's full diagnostic (tests/snapshots/<CODE>.txt), compared as text.
SNAPSHOTS = REPO / "tests" / "snapshots"
UPDATE_SNAPSHOTS = os.environ.get("RECIPELINT_UPDATE_SNAPSHOTS") == "1"


def _relative(path: Path, root: Path) -> str:
    for base in (root, root.resolve()):
        if path.is_relative_to(base):
            return path.relative_to(base).as_posix()
    return path.as_posix()


def _scrub(text: str, root: Path) -> str:
    """A message with the test's temporary folder as <tmp>: the same text on every run."""
    for base in sorted({str(root.resolve()), str(root)}, key=len, reverse=True):
        text = text.replace(base, "<tmp>")
    # with no repository root, the folders above a script are searched too: name them by the tmp folder
    for above, name in ((root.parent, "<tmp>/.."), (root.parent.parent, "<tmp>/../..")):
        text = text.replace(str(above), name)
    return text


def render_diagnostic(diagnostic: Diagnostic, root: Path) -> str:
    """A diagnostic as a reviewer reads it: where, what, why, and the exact bytes its fix writes."""
    span = diagnostic.span
    where = f"{_relative(span.path, root)}:{span.line}:{span.column}-{span.end_line}:{span.end_column}"
    lines = [f"{diagnostic.code} {diagnostic.severity} {where}", f"message: {_scrub(diagnostic.message, root)}"]
    if diagnostic.setting is not None:
        lines.append(f"setting: {diagnostic.setting}")
    if diagnostic.current is not None or diagnostic.suggested is not None:
        lines.append(f"current: {_scrub(repr(diagnostic.current), root)} suggested: {_scrub(repr(diagnostic.suggested), root)}")
    lines += [f"evidence: {_scrub(item, root)}" for item in diagnostic.evidence]
    if diagnostic.fix is None:
        lines.append("fix: none")
        return "\n".join(lines)
    lines.append(f"fix ({diagnostic.fix.applicability.value}): {_scrub(diagnostic.fix.title, root)}")
    for edit in diagnostic.fix.edits:
        old = edit.span.path.read_bytes()[edit.span.start : edit.span.end].decode()
        at = f"{_relative(edit.span.path, root)}:{edit.span.line}:{edit.span.column}-{edit.span.end_line}:{edit.span.end_column}"
        lines.append(f"  edit {at}: {json.dumps(old)} -> {json.dumps(_scrub(edit.content, root))}")
    return "\n".join(lines)


def assert_snapshot(code: str, diagnostics: list[Diagnostic], root: Path) -> None:
    """Every `code` diagnostic, rendered, equals tests/snapshots/<code>.txt (RECIPELINT_UPDATE_SNAPSHOTS=1 rewrites it)."""
    found = sorted((d for d in diagnostics if d.code == code), key=lambda d: (str(d.span.path), d.span.start, d.message))
    assert found, f"{code} did not fire"
    text = "\n\n".join(render_diagnostic(d, root) for d in found) + "\n"
    path = SNAPSHOTS / f"{code}.txt"
    if UPDATE_SNAPSHOTS:
        SNAPSHOTS.mkdir(exist_ok=True)
        path.write_text(text)
        return
    assert path.is_file(), f"no snapshot {path.relative_to(REPO)}: run with RECIPELINT_UPDATE_SNAPSHOTS=1 and review it"
    assert text == path.read_text(), f"{code} differs from {path.relative_to(REPO)} (RECIPELINT_UPDATE_SNAPSHOTS=1 rewrites it)"
