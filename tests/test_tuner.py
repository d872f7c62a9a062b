"""The tuner's formulas, and the values rules suggest from them."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from recipelint import tuner
from tests.conftest import NODE, RecipeSpec


def by_code(diagnostics, code):  # type: ignore[no-untyped-def]
    return next(d for d in diagnostics if d.code == code)


def test_documents_case_plan() -> None:
    # 4 nodes x 4 V100, 100 CPUs, 34 shards, num_workers 4, prefetch 250 -> 2 and 125.
    batch = tuner.BatchEstimate(24000 * 960, "")
    plan = tuner.plan_loader(4, 250, 4, 16, 100, 34, tuner.memory_budget(512, 64), batch)
    assert (plan.num_workers, plan.prefetch) == (2, 125)
    assert plan.limits == {"cpu": 24, "shards": 2, "memory": 372}


def test_formulas() -> None:
    assert tuner.cpu_worker_cap(100, 4) == 24
    assert tuner.shard_worker_cap(34, 16) == 2
    assert tuner.scale_prefetch(250, 4, 2) == 125
    assert tuner.scale_prefetch(3, 4, 1) == 1  # never below 1
    assert tuner.scale_prefetch(10, 2, 4) == 10  # raising workers does not raise prefetch
    assert tuner.queued_batches(4, 4, 250) == 4000
    assert tuner.memory_budget(512, 64) == (64 * 1024**3, "/dev/shm 64 GiB")
    assert tuner.memory_budget(100, 64) == (50 * 1024**3, "half of RAM 100 GiB")
    assert tuner.memory_budget(None, None) is None
    assert tuner.join_timeout("deepspeed", tuner.deepspeed_pg_timeout((0, 19, 5))) == 1200  # 30 min PG timeout
    assert tuner.join_timeout("deepspeed", tuner.deepspeed_pg_timeout((0, 19, 6))) == 300  # 10 min since 0.19.6
    assert tuner.join_timeout("torch_fsdp") == 300


def test_zero_workers_plan_starts_from_upstream_default() -> None:
    plan = tuner.plan_loader(0, 10, 4, 4, 64, 64, None, None)
    assert plan.num_workers == 8
    plan = tuner.plan_loader(0, 10, 4, 4, 16, 64, None, None)
    assert plan.num_workers == 3  # 16 // 4 - 1


def test_batch_bytes_dynamic_and_static(tmp_path: Path) -> None:
    from recipelint.sources.yamlfile import parse_yaml
    from recipelint.span import SourceText

    def estimate(text: str) -> tuner.BatchEstimate | None:
        return tuner.batch_bytes(parse_yaml(SourceText(tmp_path / "t.yaml", text.encode())).root)

    dynamic = estimate("dataset_conf:\n  batch_conf: {batch_type: dynamic, max_frames_in_batch: 12000}\n  fbank_conf: {num_mel_bins: 80}\n")
    assert dynamic is not None and dynamic.bytes == 12000 * 960  # 11.5 MB, reference 3.5
    static = estimate("dataset_conf:\n  batch_conf: {batch_type: static, batch_size: 16}\n  filter_conf: {max_length: 500}\n")
    assert static is not None and static.bytes == 16 * 500 * 960  # capped by max_length
    assert estimate("encoder: conformer\n") is None


def test_suggested_values(tmp_path: Path, recipe) -> None:  # type: ignore[no-untyped-def]
    cpu = recipe(replace(RecipeSpec(), hardware={**NODE, "cpus": 16}))
    assert by_code(cpu, "RL102").suggested == 3
    assert [e.content for e in by_code(cpu, "RL102").fix.edits] == ["3", "7"]  # prefetch 10 x 3/4


def test_memory_suggestion(tmp_path: Path, recipe) -> None:  # type: ignore[no-untyped-def]
    found = recipe(replace(RecipeSpec(), variables={"num_workers": "4", "prefetch": "500"}, hardware={**NODE, "shm_gib": 8}))
    # 8 GiB // (4 ranks x 4 workers x 16 x 1000 x 960 B) = 34
    assert by_code(found, "RL103").suggested == 34


def test_deepspeed_version_changes_the_timeout_suggestion(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from recipelint import versions
    from tests.conftest import DS_JSON

    monkeypatch.setattr(versions, "installed", lambda package: None)
    from tests.test_settings import run

    flags = ["--num_workers 4", "--prefetch 10", "--train_engine deepspeed", "--deepspeed_config conf/ds.json"]
    root = tmp_path / "r"
    RecipeSpec(flags=flags, ds=DS_JSON, nodes=2, rendezvous="head:29400").write(root)
    ethernet = {**NODE, "inter_node_network": "ethernet"}
    newest = [d for d in run(root, ethernet).diagnostics if d.code == "RL301"]
    assert newest[0].suggested == 300 and "10 min for newest deepspeed release known (0.19.8)" in " ".join(newest[0].evidence)
    (root / "recipelint.toml").write_text('deepspeed-version = "0.19.5"\n')
    older = [d for d in run(root, ethernet).diagnostics if d.code == "RL301"]
    assert older[0].suggested == 1200
