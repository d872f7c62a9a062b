"""Checking on several cores: the same report as serial, byte for byte, and no pool for small runs."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from recipelint import engine, parallel
from recipelint.checkoptions import CheckOptions
from recipelint.settings import Resolver
from tests.helpers import DS_JSON, NODE, REPO, RecipeSpec


def tree(root: Path, copies: int) -> Path:
    """Recipes that differ (workers, shards, a broken JSON, DeepSpeed keys), a profile without
    the CPU count (each recipe would say so; the run says it once)."""
    for i in range(copies):
        spec = RecipeSpec(variables={"num_workers": str(2 + i % 9), "prefetch": "10"}, shards=3 + i % 70, ds=dict(DS_JSON))
        spec.write(root / f"r{i:03d}")
        (root / f"r{i:03d}" / "extra.json").write_text(json.dumps({"train_batch_size": 7 + i, "amp": {"enabled": True}}))
        if i % 7 == 0:
            (root / f"r{i:03d}" / "broken.json").write_text('{"train_batch_size": ')
    profile = root.parent / "node.yaml"
    profile.write_text("".join(f"{k}: {json.dumps(v)}\n" for k, v in NODE.items() if k != "cpus"))
    return profile


def report(result: engine.Result) -> list[Any]:
    return [(d.code, str(d.span), d.severity, d.message, d.evidence, d.fix) for d in result.diagnostics] + [str(e) for e in result.errors]


def test_a_pool_gives_the_serial_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if not parallel.can_fork():
        pytest.skip("worker processes are forked (Linux)")
    profile = tree(tmp_path / "t", 24)

    def check(jobs: int) -> engine.Result:
        return engine.check(
            [tmp_path / "t"],
            CheckOptions(jobs=jobs),
            hardware=engine.ProfileLoader(profile),
            resolver=Resolver(isolated=True),
            keep_recipes=False,
        )

    serial = check(1)
    started: list[int] = []
    real = parallel._shared

    def shared(function: Any, context: Any, items: list[Any], workers: int, tick: Any = None) -> Any:
        started.append(len(items))
        return real(function, context, items, workers, tick)

    monkeypatch.setattr(parallel, "_shared", shared)
    monkeypatch.setattr(parallel, "FORK_SECONDS", 0.0)  # any work pays
    monkeypatch.setattr(parallel, "cpus", lambda: 2)
    pooled = check(2)
    assert started and started[0] > 20  # most targets were shared out
    assert report(pooled) == report(serial)
    assert (pooled.parsed, pooled.files, pooled.failing) == (serial.parsed, serial.files, serial.failing)
    assert [d.code for d in pooled.diagnostics].count("RL001") == 1  # cpus unknown: said once, by the first recipe
    assert pooled.hardware is not None and pooled.hardware.value("memory_gib") == NODE["memory_gib"]


def test_a_small_run_never_starts_a_pool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    profile = tree(tmp_path / "t", 3)

    def refuse(*args: Any) -> Any:
        raise AssertionError("a pool for a few files")

    monkeypatch.setattr(parallel, "_shared", refuse)
    result = engine.check(
        [tmp_path / "t"], CheckOptions(jobs=0), hardware=engine.ProfileLoader(profile), resolver=Resolver(isolated=True), keep_recipes=False
    )
    assert result.parsed >= 6


def test_run_keeps_the_order_and_measures_before_it_forks(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    if not parallel.can_fork():
        pytest.skip("helper processes are forked (Linux)")
    monkeypatch.setattr(parallel, "cpus", lambda: 3)
    monkeypatch.setattr(parallel, "FORK_SECONDS", 0.0)
    seen: list[int] = []
    parent, helper_ran = os.getpid(), tmp_path / "helper-ran"

    def work(context: list[int], item: int) -> tuple[int, int]:
        if os.getpid() != parent:
            helper_ran.touch()
        elif item >= 3:  # forked by now: on a busy machine the parent alone could empty the queue first
            deadline = time.monotonic() + 10
            while not helper_ran.exists() and time.monotonic() < deadline:
                time.sleep(0.001)
        context.append(item)  # the parent's list: only what the parent checks lands here
        return item, os.getpid()

    results = list(parallel.run(work, seen, list(range(60)), jobs=0))
    assert [item for item, _ in results] == list(range(60))
    assert seen[0] == 0 and sorted(seen) == seen
    helpers = {pid for item, pid in results if item not in seen}
    assert helpers and os.getpid() not in helpers  # the queue shares the blocks out as each process is free
    assert parallel.blocks(10) == [range(0, 4), range(4, 8), range(8, 10)]


def test_items_are_counted_as_they_finish_in_any_process(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The progress line's feed: every item a helper finishes is ticked before the parent hands
    back the first result of the shared part (which waits for the helpers), so the count moves
    while they work instead of jumping at the end."""
    if not parallel.can_fork():
        pytest.skip("helper processes are forked (Linux)")
    monkeypatch.setattr(parallel, "cpus", lambda: 2)
    monkeypatch.setattr(parallel, "FORK_SECONDS", 0.0)
    parent, helper_ran = os.getpid(), tmp_path / "helper-ran"
    ticked: list[int] = []

    def work(context: None, item: int) -> int:
        if os.getpid() != parent:
            helper_ran.touch()
        elif item >= 3:
            deadline = time.monotonic() + 10
            while not helper_ran.exists() and time.monotonic() < deadline:
                time.sleep(0.001)
        return os.getpid()

    seen_at: list[int] = []
    for _ in parallel.run(work, None, list(range(40)), jobs=0, tick=ticked.append):
        seen_at.append(sum(ticked))
    assert sum(ticked) == 40 and helper_ran.exists()
    assert seen_at[:3] == [1, 2, 3]  # the serial start: one tick per item
    assert seen_at[3] == 40  # the shared part: the helpers' items were counted before any result came back


@pytest.mark.parametrize("how", ["raises", "killed"])
def test_a_lost_helper_loses_no_result(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], how: str) -> None:
    """A helper that raises, or that the OOM killer ends with SIGKILL, takes its blocks with it:
    the parent checks them again, says so on one line, and every item keeps its result."""
    if not parallel.can_fork():
        pytest.skip("helper processes are forked (Linux)")
    monkeypatch.setattr(parallel, "cpus", lambda: 2)
    monkeypatch.setattr(parallel, "FORK_SECONDS", 0.0)
    parent = os.getpid()

    def work(context: None, item: int) -> int:
        if os.getpid() != parent:
            if how == "killed":
                os.kill(os.getpid(), signal.SIGKILL)
            raise ValueError("boom")  # whichever block the helper takes
        time.sleep(0.002)  # the parent is slow: the helper gets blocks
        return item * 10

    assert list(parallel.run(work, None, list(range(60)), jobs=2)) == [item * 10 for item in range(60)]
    said = capsys.readouterr().err
    expected = "killed by signal 9" if how == "killed" else "ValueError: boom"
    assert said.count("a helper process failed") == 1 and expected in said


@pytest.mark.slow  # five runs of 30 recipes
def test_command_line_jobs_do_not_change_a_byte(tmp_path: Path) -> None:
    profile = tree(tmp_path / "t", 30)
    env = {**os.environ, "PYTHONPATH": str(REPO)}

    def cli(*extra: str) -> tuple[int, str, str]:
        argv = [sys.executable, "-m", "recipelint", "check", "t", "--isolated", "--no-cache", "--hardware", str(profile), *extra]
        done = subprocess.run(argv, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
        return done.returncode, done.stdout, done.stderr

    serial = cli("--jobs", "1")
    assert serial[0] == 2 and "broken.json" in serial[2]
    assert cli() == serial == cli("--jobs", "2", "--format", "text")
    assert cli("--format", "json") == cli("--format", "json", "--jobs", "1")


def test_the_engine_names_the_unknown_fact_rule_by_its_code() -> None:
    from recipelint.rulekit import unknown_fact

    assert engine.UNKNOWN_FACT == unknown_fact.CODE


def test_jobs_and_cache_dir_settings(tmp_path: Path) -> None:
    from recipelint.parse.files import SourceError
    from recipelint.settings import load_settings

    config = tmp_path / "recipelint.toml"
    config.write_text('jobs = 3\ncache-dir = "build/cache"\n')
    settings = load_settings(config)
    assert (settings.jobs, settings.cache_dir) == (3, tmp_path / "build" / "cache")
    for bad, message in (
        ("jobs = 0", "'jobs' is the most worker processes to use, 1 or more"),
        ("jobs = true", "'jobs'"),
        ('cache-dir = ""', "'cache-dir' is a folder"),
    ):
        config.write_text(bad + "\n")
        with pytest.raises(SourceError, match=message):
            load_settings(config)


def test_where_the_cache_lives(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from recipelint.cache import default_folder
    from recipelint.settings import Settings

    monkeypatch.delenv("RECIPELINT_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "repo").mkdir()
    assert default_folder(Settings()) == Path(".recipelint_cache")
    assert default_folder(Settings(source=tmp_path / "repo" / "pyproject.toml")) == tmp_path / "repo" / ".recipelint_cache"
    unwritable = default_folder(Settings(source=tmp_path / "gone" / "pyproject.toml"))  # a folder nothing can be created in
    assert unwritable.parent == tmp_path / "xdg" / "recipelint"
    assert default_folder(Settings(cache_dir=tmp_path / "c")) == tmp_path / "c"
    monkeypatch.setenv("RECIPELINT_CACHE_DIR", str(tmp_path / "env"))
    assert default_folder(Settings()) == tmp_path / "env"


def test_jobs_below_one_is_a_usage_error(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-m", "recipelint", "check", "--jobs", "0", str(tmp_path)], capture_output=True, text=True, env=env
    )
    assert done.returncode == 2 and "--jobs" in done.stderr and "Traceback" not in done.stderr
