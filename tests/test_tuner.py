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
    # RAM/2 = 256 GiB for 4 ranks: (64 GiB - 2 x (1.23 GB + 0.067 GB of the idle cv worker))
    # // (2 x (25.2 MB pinned + 0.20 x 22.7 MB of heap)) = 1113
    assert plan.limits == {"cpu": 25, "shards": 2, "memory": 1113}
    assert plan.prefetch_floor == 11  # 500 sorted samples / (23607 frames / 500 frames per utterance)


def test_example_model_figures() -> None:
    model = _example_model()
    batch = model.batch()
    # 24000 frames lack 0.788 utterances of 500 frames on average: fill 1 - 394 / 24000
    assert batch is not None and batch.bytes == int(24000 * (1 - 0.788 * 500 / 24000) * 960)
    assert batch.pinned == 16 * 2**20 + 8 * 2**20  # pcm 15.1 MB -> 16 MiB, feats 7.6 MB -> 8 MiB at every decile
    worker, how = model.worker()
    assert worker == 67_000_000 + 2000 * 500 * 1100 + 375 * 500 * 320
    assert "(shuffle 1500 + sort 500) samples x 500 frames x 1100 B" in how
    memory = tuner.loader_memory(model, 2, 125, pin=True)
    assert memory is not None and memory.queue == int(250 * (batch.pinned + 0.20 * batch.bytes))
    assert memory.workers == 2 * (worker + 67_000_000)  # and the cv loader's 2 idle workers
    unpinned = tuner.loader_memory(model, 2, 125, pin=False, cv=False)
    assert unpinned is not None and unpinned.queue == int(250 * 1.20 * batch.bytes) and unpinned.workers == 2 * worker


def test_wenet_2_batches_hold_features_only() -> None:
    model = _example_model()
    model.pipeline = tuner.Pipeline(pcm=False, source_prefetch=0, evidence="WeNet 2.2.1")
    assert model.bytes_per_frame == 320
    batch = model.batch()
    assert batch is not None and batch.bytes == int(24000 * (1 - 0.788 * 500 / 24000) * 320)
    assert model.worker()[0] == 67_000_000 + 2000 * 500 * 320


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
    # the middle of the filter's 0 .. 500 frames, padded to the longest of 16 sorted by the default buffer (none here: unsorted)
    assert static is not None and static.bytes == int(16 * 250 * tuner.pad_factor(16, 0) * 960)
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
    # no --pin_memory: 48 batches of 16 x 500 frames x 1.14 (padded to the longest, sorted by 500) x 960 B
    # = 8.8 MB wait in /dev/shm per rank, 1.6 GiB for 4 ranks; 1 GiB // (4 ranks x 4 workers x 8.8 MB) = 7
    assert rl103.suggested == 7
    assert rl103.message.startswith("prefetch 500 lets 4 ranks x 48 batches wait in /dev/shm, about 1.6 GiB, over /dev/shm 1 GiB")
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
    # a static batch of 16 x 500 frames x 1.14 padding = 8.8 MB, pinned 8.8 / ln 2 = 12.6 MB (sizes spread
    # over octaves); 64 GiB for 4 ranks: (16 GiB - 4 x (1.23 + 0.067) GB of workers)
    # // (4 x (12.6 MB + 0.20 x 8.8 MB of heap)) = 208; /dev/shm does not bound it
    assert rl103.suggested == 208
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
    assert (
        "one batch about 8.8 MB (batch_size 16 x 500 frames x 1.14 padding to the longest (sorted by 500) x 960 B/frame)" in head.evidence
    )
    package = tmp_path / "wenet"
    (package / "dataset").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "dataset" / "processor.py").write_text(
        "def padding(data):\n    for sample in data:\n        yield {'keys': 1, 'feats': 2, 'target': 3, 'feats_lengths': 4, 'target_lengths': 5}\n"
    )
    (package / "dataset" / "dataset.py").write_text("def Dataset(data_type, data_list_file, symbol_table, conf):\n    pass\n")
    old = by_code(recipe(spec), "RL103")
    assert "one batch about 2.9 MB (batch_size 16 x 500 frames x 1.14 padding to the longest (sorted by 500) x 320 B/frame)" in old.evidence
    assert any("batches hold features only (before #2268)" in e for e in old.evidence)
    assert old.suggested > head.suggested


def test_dynamic_pinned_size_follows_the_spread_of_fills(tmp_path: Path) -> None:
    from recipelint.parse.span import SourceText
    from recipelint.parse.yamlfile import parse_yaml

    def model(frames: int) -> tuner.LoaderModel:
        text = f"dataset_conf:\n  batch_conf: {{batch_type: dynamic, max_frames_in_batch: {frames}}}\n"
        found = tuner.loader_model(parse_yaml(SourceText(tmp_path / "t.yaml", text.encode())).root, tuner.Utterance(490, "bench"))
        assert found is not None
        return found

    # 27000 frames: the waveform tensor crosses 2**24 bytes (26,214 frames) at a fill of 0.971.
    # The mean fill (0.986) is over it, and so are most deciles: most batches pin at 32 MiB.
    at_boundary = model(27000).batch()
    assert at_boundary is not None and at_boundary.pinned > (32 + 16) * 2**20 * 0.8
    # 20000 frames: every decile under 2**24: 16 MiB + 8 MiB.
    below = model(20000).batch()
    assert below is not None and below.pinned == (16 + 8) * 2**20


def test_static_batches_pad_to_their_longest() -> None:
    # Unsorted, E[longest of 32] is about 3 means; sorted by 500, a few tens of percent.
    assert 2.8 < tuner.pad_factor(32, 0) < 3.2
    assert 1.05 < tuner.pad_factor(16, 500) < tuner.pad_factor(32, 500) < 1.4
    assert tuner.pad_factor(1, 0) == 1.0


def test_raw_list_lines_held_by_every_worker(tmp_path: Path) -> None:
    model = _example_model()
    plain, _ = model.worker()
    raw = replace(model, raw=True, list_lines=304_000, list_line_bytes=126.0)
    held, how = raw.worker()
    # + 304,000 lines x (266 + 2 x 126) B, - 375 utterances of audio + 375 text lines read ahead
    line = tuner.LIST_LINE_FIXED + tuner.LIST_LINE_PER_BYTE * 126.0
    assert held == int(plain - 375 * 500 * 320 + 304_000 * line + 375 * line)
    assert "the whole data.list (304000 lines)" in how and "text lines read ahead" in how
