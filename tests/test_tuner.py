"""The tuner's formulas, and the values rules suggest from them."""

from __future__ import annotations

from pathlib import Path

from recipelint import tuner
from recipelint.diagnostics import Diagnostic
from recipelint.records import replace
from tests.helpers import NODE, RecipeSpec


def by_code(diagnostics: list[Diagnostic], code: str) -> Diagnostic:
    return next(d for d in diagnostics if d.code == code)


def _example_model() -> tuner.LoaderModel:
    from recipelint.parse.span import SourceText
    from recipelint.parse.yamlfile import parse_yaml
    from tests.helpers import REPO

    path = REPO / "examples" / "wenet-4node-v100" / "conf" / "train.yaml"
    model = tuner.loader_model(parse_yaml(SourceText(path, path.read_bytes())).root)
    assert model is not None
    return model


def test_documents_case_plan() -> None:
    # 4 nodes x 4 V100, 100 CPUs, 34 shards, num_workers 4, prefetch 250 -> 2 and 125.
    model = _example_model()
    batch = model.batch()
    assert batch is not None
    memory = tuner.MemoryInputs(model, True, tuner.memory_budget(512), None, batch, model.worker())
    plan = tuner.plan_loader(4, 250, 4, 16, tuner.loader_worker_cap(100, 4), 34, memory)
    assert (plan.num_workers, plan.prefetch) == (2, 125)
    # RAM/2 = 256 GiB for 4 ranks: (64 GiB - 2 x 1.38 GB of workers) // (2 x (25.2 MB pinned + 0.22 x 22.3 MB of heap)) = 1096
    assert plan.limits == {"cpu": 25, "shards": 2, "memory": 1096}
    assert plan.prefetch_floor == 11  # 500 sorted samples / (23280 frames / 500 frames per utterance)


def test_example_model_figures() -> None:
    model = _example_model()
    batch = model.batch()
    assert batch is not None and batch.bytes == int(24000 * 0.97 * 960)
    assert batch.pinned == 16 * 2**20 + 8 * 2**20  # pcm 14.9 MB -> 16 MiB, feats 7.4 MB -> 8 MiB
    worker, how = model.worker()
    assert worker == 180_000_000 + 2000 * 500 * 960 + 375 * 500 * 320
    assert "(shuffle 1500 + sort 500) samples x 500 frames x 960 B" in how
    memory = tuner.loader_memory(model, 2, 125, pin=True)
    assert memory is not None and memory.queue == int(250 * (batch.pinned + 0.22 * batch.bytes))
    assert memory.workers == 2 * (worker + 180_000_000)  # and the cv loader's 2 idle workers
    unpinned = tuner.loader_memory(model, 2, 125, pin=False, cv=False)
    assert unpinned is not None and unpinned.queue == int(250 * 1.22 * batch.bytes) and unpinned.workers == 2 * worker


def test_wenet_2_batches_hold_features_only() -> None:
    model = _example_model()
    model.wenet = tuner.WenetData(pcm=False, source_prefetch=0, evidence="WeNet 2.2.1")
    assert model.bytes_per_frame == 320
    batch = model.batch()
    assert batch is not None and batch.bytes == int(24000 * 0.97 * 320)
    assert model.worker()[0] == 180_000_000 + 2000 * 500 * 320


def test_utterance_estimate(tmp_path: Path) -> None:
    from recipelint.parse.span import SourceText
    from recipelint.parse.yamlfile import parse_yaml

    def conf(text: str):  # type: ignore[no-untyped-def]
        return parse_yaml(SourceText(tmp_path / "t.yaml", text.encode())).root.get("dataset_conf")

    default = tuner.utterance_estimate(conf("dataset_conf:\n  filter_conf: {max_length: 2000}\n"))
    assert default.frames == 500 and "5 s assumed" in default.how
    bounded = tuner.utterance_estimate(conf("dataset_conf:\n  filter_conf: {max_length: 400, min_length: 100}\n"))
    assert bounded.frames == 250 and "min_length 100 .. max_length 400" in bounded.how
    assert tuner.utterance_estimate(None, 3.2).how == "mean utterance 3.2 s from mean-utterance-seconds"
    listed = tuner.utterance_estimate(None, None, (12.25, "3 durations in data.list"))
    assert listed.frames == 1225 and listed.how == "mean utterance 12.2 s from 3 durations in data.list"


def test_formulas() -> None:
    assert tuner.loader_worker_cap(100, 4) == 25
    assert tuner.loader_worker_cap(2, 4) == 1  # never below 1
    assert tuner.shard_worker_cap(34, 16) == 2
    assert tuner.scale_prefetch(250, 4, 2) == 125
    assert tuner.scale_prefetch(3, 4, 1) == 1  # never below 1
    assert tuner.scale_prefetch(10, 2, 4) == 10  # raising workers does not raise prefetch
    assert tuner.queued_batches(4, 4, 250) == 4000
    assert tuner.memory_budget(100) == (50 * 1024**3, "half of RAM 100 GiB")
    assert tuner.memory_budget(None) is None
    assert tuner.queue_budget(64, pin=True) is None
    assert tuner.queue_budget(64, pin=False) == (64 * 1024**3, "/dev/shm 64 GiB (no --pin_memory: batches wait in shared memory)")
    assert tuner.pinned_bytes((3 * 2**20, 2**20, 1)) == 4 * 2**20 + 2**20 + 1
    assert tuner.plateau_workers({1: 6.0, 2: 10.0, 4: 10.5}) == 2
    assert tuner.plateau_workers({}) is None
    assert tuner.join_timeout("deepspeed", tuner.deepspeed_pg_timeout((0, 19, 5))) == 1200  # 30 min PG timeout
    assert tuner.join_timeout("deepspeed", tuner.deepspeed_pg_timeout((0, 19, 6))) == 300  # 10 min since 0.19.6
    assert tuner.join_timeout("torch_fsdp") == 300


def test_zero_workers_plan_starts_from_upstream_default() -> None:
    plan = tuner.plan_loader(0, 10, 4, 4, tuner.loader_worker_cap(64, 4), 64)
    assert plan.num_workers == 8
    plan = tuner.plan_loader(0, 10, 4, 4, tuner.loader_worker_cap(16, 4), 64)
    assert plan.num_workers == 4  # 16 // 4


def test_batch_bytes_dynamic_and_static(tmp_path: Path) -> None:
    from recipelint.parse.span import SourceText
    from recipelint.parse.yamlfile import parse_yaml

    def estimate(text: str) -> tuner.BatchEstimate | None:
        return tuner.batch_bytes(parse_yaml(SourceText(tmp_path / "t.yaml", text.encode())).root)

    dynamic = estimate("dataset_conf:\n  batch_conf: {batch_type: dynamic, max_frames_in_batch: 12000}\n  fbank_conf: {num_mel_bins: 80}\n")
    assert dynamic is not None and dynamic.bytes == int(12000 * 0.97 * 960)  # 11.2 MB, measured 11.2 MB (bench/fidelity)
    static = estimate("dataset_conf:\n  batch_conf: {batch_type: static, batch_size: 16}\n  filter_conf: {max_length: 500}\n")
    assert static is not None and static.bytes == 16 * 250 * 960  # the middle of the filter's 0 .. 500 frames
    assert estimate("encoder: conformer\n") is None


def test_suggested_values(tmp_path: Path, recipe) -> None:  # type: ignore[no-untyped-def]
    cpu = recipe(replace(RecipeSpec(), hardware={**NODE, "cpus": 12}))
    found = by_code(cpu, "RL102")
    assert found.message == "4 ranks x 4 workers = 16 worker processes per node, but only 12 CPUs are usable"
    assert found.suggested == 3
    # prefetch 10 would scale to 7, but stays at 10: below the sort burst (500 / 16 = 32) workers stall each other
    assert found.fix is not None and [e.content for e in found.fix.edits] == ["3"]
    assert "formula: ranks_per_node x num_workers <= usable CPUs" in found.evidence
    assert "RL102" not in {d.code for d in recipe(replace(RecipeSpec(), hardware={**NODE, "cpus": 16}))}  # 4 x 4 = 16 fits


def test_memory_suggestion(tmp_path: Path, recipe) -> None:  # type: ignore[no-untyped-def]
    found = recipe(replace(RecipeSpec(), variables={"num_workers": "4", "prefetch": "500"}, hardware={**NODE, "shm_gib": 1}))
    rl103 = by_code(found, "RL103")
    # no --pin_memory: 48 batches of 16 x 500 frames x 960 B wait in /dev/shm per rank, 1.4 GiB for 4 ranks;
    # 1 GiB // (4 ranks x 4 workers x 7.7 MB) = 8
    assert rl103.suggested == 8
    assert rl103.message.startswith("prefetch 500 lets 4 ranks x 48 batches wait in /dev/shm, about 1.4 GiB, over /dev/shm 1 GiB")
    assert "RL103" not in {
        d.code for d in recipe(replace(RecipeSpec(), variables={"num_workers": "4", "prefetch": "500"}, hardware={**NODE, "shm_gib": 2}))
    }
    assert "mean utterance 5 s assumed (AISHELL-1 4.5 s; set mean-utterance-seconds)" in rl103.evidence


def test_memory_with_pin_memory_uses_ram(tmp_path: Path, recipe) -> None:  # type: ignore[no-untyped-def]
    spec = RecipeSpec(
        variables={"num_workers": "4", "prefetch": "500"},
        flags=["--num_workers ${num_workers}", "--prefetch ${prefetch}", "--pin_memory"],
        hardware={**NODE, "shm_gib": 8, "memory_gib": 128},
    )
    rl103 = by_code(recipe(spec), "RL103")
    # a batch of 16 x 500 frames: feats 2.6 MB -> 4 MiB, pcm 5.1 MB -> 8 MiB pinned
    # 64 GiB for 4 ranks: (16 GiB - 4 x 1.38 GB of workers) // (4 x (12 MiB + 0.22 x 7.7 MB of heap)) = 204;
    # /dev/shm does not bound it
    assert rl103.suggested == 204
    assert "over the loaders' 64.0 GiB (half of RAM 128 GiB)" in rl103.message
    assert any(e.startswith("--pin_memory: each batch pinned as 12.6 MB") for e in rl103.evidence)
    quiet = replace(spec, variables={"num_workers": "4", "prefetch": "200"})
    assert "RL103" not in {d.code for d in recipe(quiet)}


def test_deepspeed_version_changes_the_timeout_suggestion(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from tests.helpers import DS_JSON, check_with

    flags = ["--num_workers 4", "--prefetch 10", "--train_engine deepspeed", "--deepspeed_config conf/ds.json"]
    root = tmp_path / "r"
    RecipeSpec(flags=flags, ds=DS_JSON, nodes=2, rendezvous="head:29400").write(root)
    ethernet = {**NODE, "inter_node_network": "ethernet"}
    newest = [d for d in check_with(root, ethernet).diagnostics if d.code == "RL301"]
    assert newest[0].suggested == 300 and "10 min (deepspeed 0.19.8, the newest known)" in " ".join(newest[0].evidence)
    (root / "recipelint.toml").write_text('deepspeed-version = "0.19.5"\n')
    older = [d for d in check_with(root, ethernet).diagnostics if d.code == "RL301"]
    assert older[0].suggested == 1200


def test_the_recipes_wenet_decides_bytes_per_frame(tmp_path: Path, recipe) -> None:  # type: ignore[no-untyped-def]
    """A WeNet 2.x checkout (padding() returns features only, no new IO) gives 320 B per frame and
    no source prefetch; without a checkout HEAD's 960 B per frame is assumed."""
    spec = RecipeSpec(variables={"num_workers": "4", "prefetch": "500"}, hardware={**NODE, "shm_gib": 0.25})
    head = by_code(recipe(spec), "RL103")
    assert "one batch about 7.7 MB (batch_size 16 x 500 frames x 960 B/frame)" in head.evidence
    package = tmp_path / "wenet"
    (package / "dataset").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "dataset" / "processor.py").write_text(
        "def padding(data):\n    for sample in data:\n        yield {'keys': 1, 'feats': 2, 'target': 3, 'feats_lengths': 4, 'target_lengths': 5}\n"
    )
    (package / "dataset" / "dataset.py").write_text("def Dataset(data_type, data_list_file, symbol_table, conf):\n    pass\n")
    old = by_code(recipe(spec), "RL103")
    assert "one batch about 2.6 MB (batch_size 16 x 500 frames x 320 B/frame)" in old.evidence
    assert any("batches hold features only (before #2268)" in e for e in old.evidence)
    assert old.suggested > head.suggested
