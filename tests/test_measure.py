"""`recipelint tune` and `--measure`: the checkout finder, the profile's `measured:` section, the
plan check and fix take from it, and (with torch installed) a real measurement of the example."""

from __future__ import annotations

import importlib.util
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tarfile
import wave
from pathlib import Path
from typing import Any

import pytest

from recipelint import engine, tuner
from recipelint.hardware.profile import fingerprint, from_mapping, load_profile, write_measured
from recipelint.measure import MeasureError, Request, candidates, find_checkout, run_child
from tests.helpers import REPO, RecipeSpec

EXAMPLE = REPO / "examples" / "wenet-4node-v100"
CHECKOUT = REPO / "tests" / "data" / "checkouts" / "wenet-head"
SHIM = REPO / "bench" / "fidelity" / "shim"
NODE = {"nodes": 4, "cpus": 8, "memory_gib": 24, "shm_gib": 12, "gpus": 4, "inter_node_network": "infiniband"}


def cli(*args: str, env: dict[str, str] | None = None, timeout: int = 60) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "recipelint", *args]
    return subprocess.run(command, capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=timeout)


def example_copy(tmp_path: Path) -> Path:
    root = tmp_path / "example"
    shutil.copytree(EXAMPLE, root)
    (root / "node.yaml").write_text("# a test node\n" + "".join(f"{k}: {json.dumps(v)}\n" for k, v in NODE.items()))
    return root


def dataset_conf_key(root: Path) -> str:
    from recipelint.parse.files import FileCache
    from recipelint.parse.yamlfile import parse_yaml

    document = parse_yaml(FileCache().read(root / "conf" / "train.yaml"))
    conf = document.root.get("dataset_conf")
    assert conf is not None
    return fingerprint(conf.plain())


def test_find_checkout_reads_path_sh(tmp_path: Path) -> None:
    from recipelint.parse.files import FileCache

    checkout = tmp_path / "wenet-src"
    (checkout / "wenet" / "dataset").mkdir(parents=True)
    (checkout / "wenet" / "dataset" / "dataset.py").write_text("")
    (checkout / "wenet" / "__init__.py").write_text("")
    recipe_dir = checkout / "examples" / "aishell" / "s0"
    script = RecipeSpec().write(recipe_dir)

    def found(explicit: Path | None = None) -> Path | None:
        (recipe,) = engine.load_target(engine.Target("script", script), FileCache())
        return find_checkout(recipe, explicit)

    assert found() == checkout.resolve()  # no path.sh: the wenet/ package folder above the recipe
    (recipe_dir / "path.sh").write_text("export WENET_DIR=$PWD/../../..\nexport PYTHONPATH=../../../:$PYTHONPATH\n")
    assert found() == checkout.resolve()
    (checkout / "wenet" / "dataset" / "dataset.py").unlink()
    assert found() is None  # a checkout, but without WeNet's dataset code there is nothing to measure
    other = tmp_path / "other"
    (other / "wenet" / "dataset").mkdir(parents=True)
    (other / "wenet" / "dataset" / "dataset.py").write_text("")
    assert found(other) == other.resolve()  # --checkout wins


def test_candidates() -> None:
    assert candidates(1) == [1]
    assert candidates(2) == [1, 2]
    assert candidates(25) == [1, 2, 4, 8, 16, 25]


def test_write_measured_keeps_the_profile_and_replaces_by_dataset_conf(tmp_path: Path) -> None:
    path = tmp_path / "node.yaml"
    path.write_text("# the training node\ncpus: 8  # cgroup\nmemory_gib: 24\n")
    first = {"source": "tune --measure, day 1", "dataset_conf": "sha256:aaaa", "cores": 2, "batch_bytes": 1000, "workers_plateau": 2}
    write_measured(path, first)
    write_measured(path, {**first, "dataset_conf": "sha256:bbbb"})
    write_measured(path, {**first, "source": "tune --measure, day 2"})  # same conf: replaced
    text = path.read_text()
    assert text.startswith("# the training node\ncpus: 8  # cgroup\nmemory_gib: 24\nmeasured:\n")
    hardware = load_profile(path)  # still valid against the schema
    assert [(e["dataset_conf"], e["source"]) for e in hardware.measured] == [
        ("sha256:bbbb", "tune --measure, day 1"),
        ("sha256:aaaa", "tune --measure, day 2"),
    ]
    assert hardware.value("cpus") == 8
    path.write_text(text + "measured_typo: 1\n")
    with pytest.raises(Exception, match="measured_typo"):
        load_profile(path)


def test_measured_facts_replace_the_estimates(tmp_path: Path) -> None:
    root = example_copy(tmp_path)
    (root / "data" / "train" / "data.list").write_text("".join(f"/data/shards_{i:09d}.tar\n" for i in range(64)))
    profile = load_profile(root / "node.yaml")
    before = {d.code: d for d in engine.check([root], hardware=lambda: profile).diagnostics}
    # estimates: cpus 8 // 4 ranks = 2 workers; (12 GiB / 4 - 2 x 1.29 GB) // (2 x 29.7 MB pinned and heap) = 10
    assert (before["RL102"].suggested, before["RL103"].suggested) == (2, 10)
    assert "formula: ranks_per_node x num_workers <= usable CPUs" in before["RL102"].evidence
    measured: dict[str, Any] = {
        "source": "recipelint tune --measure (test)",
        "dataset_conf": dataset_conf_key(root),
        "cores": 2,
        "batch_bytes": 22_000_000,
        "pinned_batch_bytes": 25_165_824,
        "worker_bytes": 400_000_000,
        "batches_per_s": {"1": 4.1, "2": 4.2},
        "workers_plateau": 1,
    }
    write_measured(root / "node.yaml", measured)
    profile = load_profile(root / "node.yaml")
    after = {d.code: d for d in engine.check([root], hardware=lambda: profile).diagnostics}
    assert after["RL102"].suggested == 1
    assert (
        after["RL102"].message
        == "num_workers 4 is past the measured throughput plateau: 1 worker(s) reach within 10 % of the best batches/s"
    )
    assert "measured batches/s by num_workers on 2 cores (1: 4.1, 2: 4.2), recipelint tune --measure (test)" in after["RL102"].evidence
    # 1 worker: prefetch 250 x 1/4 = 62, under the memory bound (12 GiB / 4 - (0.4 + 0.067) GB) // 29.6 MB = 92
    assert after["RL103"].suggested == 62
    assert "one worker 0.40 GB measured, recipelint tune --measure (test)" in after["RL103"].evidence
    other = {**measured, "dataset_conf": "sha256:0000000000000000"}  # measured for another dataset_conf: not used
    write_measured(root / "node.yaml", other)
    (root / "node.yaml").write_text((root / "node.yaml").read_text().replace(measured["dataset_conf"], "sha256:1111111111111111"))
    profile = load_profile(root / "node.yaml")
    again = {d.code: d for d in engine.check([root], hardware=lambda: profile).diagnostics}
    assert (again["RL102"].suggested, again["RL103"].suggested) == (2, 10)


def test_raw_list_durations_and_setting_name_the_utterance(tmp_path: Path) -> None:
    spec = RecipeSpec(
        variables={"num_workers": "4", "prefetch": "500"},
        data_type="raw",
        shards=[json.dumps({"key": f"u{i}", "wav": f"/w/{i}.wav", "txt": "a", "duration": 2.0 + i}) for i in range(3)],
    )
    root = tmp_path / "r"
    spec.write(root)
    hardware = from_mapping({**NODE, "cpus": 64, "memory_gib": 8}, "profile test.yaml")
    found = next(d for d in engine.check([root], hardware=lambda: hardware).diagnostics if d.code == "RL103")
    assert "mean utterance 3.0 s from 3 durations in data.list" in found.evidence
    (root / "recipelint.toml").write_text("mean-utterance-seconds = 7.5\n")
    found = next(d for d in engine.check([root], hardware=lambda: hardware).diagnostics if d.code == "RL103")
    assert "mean utterance 7.5 s from mean-utterance-seconds" in found.evidence
    (root / "recipelint.toml").write_text('mean-utterance-seconds = "long"\n')
    errors = engine.check([root], hardware=lambda: hardware).errors
    assert any("'mean-utterance-seconds' is the data's mean utterance in seconds" in str(e) for e in errors)


def test_tune_prints_the_plan() -> None:
    result = cli("tune", str(EXAMPLE), "--hardware", str(EXAMPLE / "hardware-v100-node.yaml"))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].endswith("run.sh: num_workers 4 -> 2, prefetch 250 -> 125")
    assert "  shards bound: 2" in lines and "  memory bound: 1113" in lines
    assert "  loader memory per node with the plan: 37.3 GiB of 256.0 GiB (half of RAM 512 GiB)" in lines


def test_tune_measure_needs_a_profile_to_write() -> None:
    result = cli("tune", "--measure", str(EXAMPLE))
    assert result.returncode == 2
    assert "pass --hardware node.yaml" in result.stderr and "Traceback" not in result.stderr


def test_measurement_past_its_time_limit_is_stopped(tmp_path: Path) -> None:
    request = Request(tmp_path, tmp_path, {}, "shard", "data.list", 10, 1)
    sleeper = [sys.executable, "-c", "import time; print('started', flush=True); time.sleep(60)"]
    with pytest.raises(MeasureError, match="ran past its time limit"):
        run_child(request, 0.5, lambda done, total: None, command=sleeper)
    broken = [sys.executable, "-c", "import sys; sys.exit('ImportError: no module named torch')"]
    with pytest.raises(MeasureError, match="no module named torch"):
        run_child(request, 10.0, lambda done, total: None, command=broken)


def _wav(seconds: float, rng: random.Random) -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as handle:
        handle.setnchannels(1)
        handle.setsampwidth(2)
        handle.setframerate(16000)
        handle.writeframes(bytes(rng.getrandbits(8) for _ in range(int(seconds * 16000) * 2)))
    return buffer.getvalue()


def tiny_dataset(root: Path, shards: int = 4, per_shard: int = 8, lines: int = 64) -> None:
    """Shards as tools/make_shard_list.py writes them (key.txt + key.wav), a char dictionary."""
    rng = random.Random(7)
    chars = [chr(0x4E00 + i) for i in range(50)]
    paths = []
    for s in range(shards):
        path = root / "shards" / f"shards_{s:09d}.tar"
        path.parent.mkdir(parents=True, exist_ok=True)
        with tarfile.open(path, "w") as tar:
            for u in range(per_shard):
                for suffix, data in (("txt", "".join(rng.choices(chars, k=4)).encode()), ("wav", _wav(rng.uniform(0.3, 1.5), rng))):
                    info = tarfile.TarInfo(f"utt{s}_{u}.{suffix}")
                    info.size = len(data)
                    tar.addfile(info, io.BytesIO(data))
        paths.append(str(path))
    (root / "data" / "train" / "data.list").write_text("".join(paths[i % shards] + "\n" for i in range(lines)))
    (root / "data" / "dict").mkdir(parents=True, exist_ok=True)
    symbols = ["<blank> 0", "<unk> 1", "<sos/eos> 2"] + [f"{c} {i + 3}" for i, c in enumerate(chars)]
    (root / "data" / "dict" / "lang_char.txt").write_text("\n".join(symbols) + "\n")


def test_tune_measure_on_the_example(tmp_path: Path) -> None:
    pytest.importorskip("torch", reason="tune --measure runs WeNet's pipeline: needs torch (pip install '.[measure]')")
    pytest.importorskip("numpy", reason="WeNet's datapipes import numpy")
    pytest.importorskip("langid", reason="WeNet's processor imports langid")
    root = example_copy(tmp_path)
    tiny_dataset(root)
    (root / "path.sh").write_text(f"export PYTHONPATH={CHECKOUT}:$PYTHONPATH\n")
    env = {} if importlib.util.find_spec("torchaudio") else {"RECIPELINT_MEASURE_SHIM": str(SHIM)}
    before = {d.code: d for d in engine.check([root], hardware=lambda: load_profile(root / "node.yaml")).diagnostics}
    assert before["RL103"].suggested == 10  # the estimates: 1.29 GB a worker (5 s utterances, shuffle 1500 + sort 500)
    result = cli("tune", "--measure", str(root), "--hardware", str(root / "node.yaml"), "--batches", "10", env=env, timeout=400)
    assert result.returncode == 0, result.stderr
    assert "measuring" in result.stderr and f"wrote {root / 'node.yaml'}" in result.stderr
    profile = load_profile(root / "node.yaml")
    assert (root / "node.yaml").read_text().startswith("# a test node\n")
    [entry] = profile.measured
    assert entry["source"].startswith(f"recipelint tune --measure {root / 'conf' / 'train.yaml'} with WeNet {CHECKOUT}")
    assert entry["dataset_conf"] == dataset_conf_key(root) and entry["prefetch"] == 250
    assert sorted(entry["batches_per_s"]) == [str(n) for n in candidates(entry["cores"])]
    assert 900 < entry["bytes_per_frame"] < 1000  # feats 320 B + the padded waveform 640 B a frame
    assert entry["workers_plateau"] == tuner.plateau_workers({int(k): v for k, v in entry["batches_per_s"].items()})
    # Short utterances: the worker's buffers are a fraction of the 1.22 GB the estimate assumed.
    assert entry["worker_bytes"] < 0.8e9
    after = {d.code: d for d in engine.check([root], hardware=lambda: profile).diagnostics}
    workers = entry["workers_plateau"]  # the candidates stop at the 2 cores a rank gets: 1 or 2
    assert after["RL102"].suggested == workers and "measured batches/s by num_workers on 2 cores" in after["RL102"].evidence[-1]
    room = 24 * 0.5 * 1024**3 / 4 - workers * (entry["worker_bytes"] + tuner.WORKER_BASE_BYTES)
    per_batch = entry["pinned_batch_bytes"] + tuner.WORKER_HEAP_SHARE * entry["batch_bytes"]
    expected = min(250 * workers // 4, int(room // (workers * per_batch)))
    assert after["RL103"].suggested == expected != before["RL103"].suggested
    assert any("measured, recipelint tune --measure" in line for line in after["RL103"].evidence)


def test_tune_does_not_tune_for_a_host_that_is_not_the_node() -> None:
    """As `check` skips the hardware rules on a GPU-less host without a profile (RL004), `tune`
    says the recipe was not tuned and how to give the node, instead of planning for this host."""
    result = cli("tune", str(EXAMPLE), env={"CUDA_VISIBLE_DEVICES": ""})
    assert result.returncode == 0, result.stderr
    assert "run.sh: not tuned: this host is not the training node" in result.stdout
    assert "--hardware node.yaml" in result.stdout and "num_workers 4 ->" not in result.stdout


def test_tune_and_rl106_give_one_plan(tmp_path: Path) -> None:
    """A loader of one worker per rank on a node with CPUs to spare: RL106 suggests the headroom,
    and `tune` prints the same number (it printed `1 -> 1`, the caps' plan, before)."""
    import json as json_module

    from recipelint import engine
    from recipelint.hardware.profile import from_mapping
    from tests.helpers import NODE

    root = RecipeSpec(variables={"num_workers": "1", "prefetch": "200"}).write(tmp_path / "recipe")
    profile = tmp_path / "node.yaml"
    profile.write_text("".join(f"{key}: {json_module.dumps(value)}\n" for key, value in NODE.items()))
    hardware = from_mapping(dict(NODE), "profile node.yaml")
    (rl106,) = [d for d in engine.check([root], hardware=lambda: hardware).diagnostics if d.code == "RL106"]
    result = cli("tune", str(root), "--hardware", str(profile))
    assert result.returncode == 0, result.stderr
    assert f"num_workers 1 -> {rl106.suggested}," in result.stdout.splitlines()[0]
    assert rl106.suggested is not None and rl106.suggested > 1
