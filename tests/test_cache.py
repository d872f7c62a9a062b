"""The result cache: a second run is answered from it, and never with a stale answer. Each kind
of input a check reads is changed in turn; the cached run must then equal a run without cache."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from recipelint import cache as cache_module
from recipelint import engine
from recipelint.cache import ResultCache
from recipelint.hardware.profile import from_mapping
from recipelint.settings import Resolver
from tests.helpers import NODE, REPO, RecipeSpec

CHECKOUT = REPO / "tests" / "data" / "checkouts" / "wenet-head"
_tick = [0]


def edit(path: Path, text: str | None) -> None:
    """Write (or delete, None) a file, then give it a time of its own: the tests run faster than
    a file clock ticks, and the cache's racy-time guard is set aside here (see `Runs`)."""
    if text is None:
        path.unlink()
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    _tick[0] += 1
    stamp = 1_600_000_000_000_000_000 + _tick[0] * 1_000_000_000
    os.utime(path, ns=(stamp, stamp))


def profile_text(**changes: Any) -> str:
    return "".join(f"{k}: {json.dumps(v)}\n" for k, v in {**NODE, **changes}.items())


class Runs:
    """engine.check as `recipelint check` calls it, counting the targets actually checked."""

    def __init__(self, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.folder = root / "cache"
        self.checked = 0
        real = engine.check_target

        def counting(*args: Any) -> Any:
            self.checked += 1
            return real(*args)

        monkeypatch.setattr(engine, "check_target", counting)

    def run(self, paths: list[Path], hardware: Path | None, cached: bool = True, config: Path | None = None) -> engine.Result:
        self.checked = 0
        # Every file is older than this run: its stat is trusted (the racy-time guard has a test of its own).
        store = ResultCache(self.folder, started=time.time() + 60) if cached else None
        loader = engine.ProfileLoader(hardware) if hardware is not None else None
        resolver = Resolver(config=config, isolated=config is None)
        return engine.check(paths, hardware=loader, resolver=resolver, keep_recipes=False, cache=store)


def summary(result: engine.Result) -> list[Any]:
    return [(d.code, str(d.span), d.severity, d.message, d.evidence, d.fix) for d in result.diagnostics] + [str(e) for e in result.errors]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A WeNet checkout with a recipe three levels below it, a DeepSpeed JSON, a requirements pin."""
    repo = tmp_path / "repo"
    shutil.copytree(CHECKOUT, repo)
    recipe = repo / "examples" / "aishell" / "s0"
    RecipeSpec(
        ds={"train_micro_batch_size_per_gpu": 1, "gradient_accumulation_steps": 4, "amp": {"enabled": True}},
        flags=["--num_workers ${num_workers}", "--prefetch ${prefetch}", "--train_engine deepspeed", "--deepspeed_config conf/ds.json"],
    ).write(recipe)
    edit(recipe / "path.sh", "export PYTHONPATH=../../../:$PYTHONPATH\n")
    edit(repo / "requirements.txt", "deepspeed==0.18.0\n")
    edit(tmp_path / "node.yaml", profile_text())
    for path in repo.rglob("*"):
        if path.is_file():
            edit(path, path.read_text())
    return repo


def recipe_of(repo: Path) -> Path:
    return repo / "examples" / "aishell" / "s0"


def test_a_second_run_is_answered_from_the_cache(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runs = Runs(tmp_path, monkeypatch)
    paths = [recipe_of(repo), repo / "examples" / "aishell" / "s0" / "conf" / "ds.json"]
    cold = runs.run(paths, tmp_path / "node.yaml")
    assert runs.checked == 2 and cold.diagnostics  # run.sh and path.sh (the JSON is the run script's)
    warm = runs.run(paths, tmp_path / "node.yaml")
    assert runs.checked == 0
    assert summary(warm) == summary(cold)
    assert (warm.parsed, warm.files) == (cold.parsed, cold.files)
    assert any(d.code == "RL412" and "deepspeed 0.18.0 (" in d.message and "requirements.txt:1)" in d.message for d in warm.diagnostics)
    assert (runs.folder / ".gitignore").read_text().endswith("*\n")


def _train_yaml(repo: Path) -> None:
    path = recipe_of(repo) / "conf" / "train.yaml"
    edit(path, path.read_text().replace("grad_clip: 5", "grad_clip: 3"))


def _ds_json(repo: Path) -> None:
    edit(recipe_of(repo) / "conf" / "ds.json", json.dumps({"train_micro_batch_size_per_gpu": 1, "fp16": {"enabled": "yes"}}))


def _sourced_script(repo: Path) -> None:
    edit(recipe_of(repo) / "path.sh", "export PYTHONPATH=../../../:$PYTHONPATH\nexport NCCL_IB_DISABLE=1\n")


def _sourced_checkout(repo: Path) -> None:
    shutil.copytree(CHECKOUT.parent / "wenet-v2.2.1", repo / "old")
    edit(recipe_of(repo) / "path.sh", "export PYTHONPATH=../../../old:$PYTHONPATH\n")  # another WeNet, other flags


def _checkout_file(repo: Path) -> None:
    path = repo / "wenet" / "utils" / "train_utils.py"
    edit(path, path.read_text().replace("'--prefetch'", "'--prefetch_factor'"))


def _data_list_lines(repo: Path) -> None:
    edit(recipe_of(repo) / "data" / "train" / "data.list", "".join(f"/data/shards/s_{i}.tar\n" for i in range(3)))


def _data_list_remote(repo: Path) -> None:
    edit(recipe_of(repo) / "data" / "train" / "data.list", "".join(f"https://host/s_{i}.tar\n" for i in range(64)))


def _data_list_gone(repo: Path) -> None:
    edit(recipe_of(repo) / "data" / "train" / "data.list", None)


def _config_gone(repo: Path) -> None:
    edit(recipe_of(repo) / "conf" / "train.yaml", None)


def _requirements_pin(repo: Path) -> None:
    edit(repo / "requirements.txt", "deepspeed==0.19.8\n")


def _venv_beside(repo: Path) -> None:
    edit(repo / ".venv" / "pyvenv.cfg", "home = /usr/bin\n")
    edit(repo / ".venv" / "lib" / "python3.11" / "site-packages" / "deepspeed-0.19.7.dist-info" / "METADATA", "Name: deepspeed\n")


def _inline_suppression(repo: Path) -> None:
    path = recipe_of(repo) / "conf" / "ds.json"
    edit(path.with_name("train.yaml"), path.with_name("train.yaml").read_text() + "# recipelint: ignore-file[RL7] reason\n")


MUTATIONS: dict[str, Callable[[Path], None]] = {
    "train YAML": _train_yaml,
    "DeepSpeed JSON": _ds_json,
    "sourced path.sh": _sourced_script,
    "checkout named by path.sh": _sourced_checkout,
    "checkout file": _checkout_file,
    "data.list lines": _data_list_lines,
    "data.list scheme": _data_list_remote,
    "data.list removed": _data_list_gone,
    "config removed": _config_gone,
    "requirements pin": _requirements_pin,
    "virtual environment beside the recipe": _venv_beside,
    "inline suppression": _inline_suppression,
}


# A list an earlier stage writes may be missing: no finding either way. NCCL_IB_DISABLE exported by
# the sourced script: the recipe runs on one node, where NCCL never uses the network (RL502 is quiet).
SILENT = {"data.list removed", "sourced path.sh"}


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_each_input_change_is_seen(name: str, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runs = Runs(tmp_path, monkeypatch)
    paths, node = [recipe_of(repo)], tmp_path / "node.yaml"
    before = summary(runs.run(paths, node))
    assert summary(runs.run(paths, node)) == before and runs.checked == 0
    MUTATIONS[name](repo)
    after = runs.run(paths, node)
    assert runs.checked >= 1
    assert summary(after) == summary(runs.run(paths, node, cached=False))
    assert summary(after) != before or name in SILENT  # the change matters to the findings
    assert summary(runs.run(paths, node)) == summary(after) and runs.checked == 0


def test_hardware_profile_contents(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runs = Runs(tmp_path, monkeypatch)
    node = tmp_path / "node.yaml"
    before = summary(runs.run([recipe_of(repo)], node))
    edit(node, profile_text(cpus=4))  # the workers no longer fit
    after = runs.run([recipe_of(repo)], node)
    assert runs.checked >= 1 and summary(after) != before
    assert summary(after) == summary(runs.run([recipe_of(repo)], node, cached=False))


def test_probed_facts(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from recipelint.hardware import probe

    facts = {"cpus": 64}
    monkeypatch.setattr(probe, "probe", lambda root=Path("/"), nvml=None: from_mapping({**NODE, **facts}, "probe"))
    monkeypatch.setattr(cache_module, "_PROBED", [])
    runs = Runs(tmp_path, monkeypatch)
    before = summary(runs.run([recipe_of(repo)], None))
    runs.run([recipe_of(repo)], None)
    assert runs.checked == 0
    facts["cpus"] = 4
    monkeypatch.setattr(cache_module, "_PROBED", [])  # a new process probes again
    after = runs.run([recipe_of(repo)], None)
    assert runs.checked >= 1 and summary(after) != before


def test_settings_file(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runs = Runs(tmp_path, monkeypatch)
    config, node = repo / "recipelint.toml", tmp_path / "node.yaml"
    edit(config, 'deepspeed-version = "0.18.0"\n')
    before = summary(runs.run([recipe_of(repo)], node, config=config))
    edit(config, 'deepspeed-version = "0.18.0"\nignore = ["RL412"]\n')  # applied after the cache
    ignored = runs.run([recipe_of(repo)], node, config=config)
    assert runs.checked == 0 and not any(d.code == "RL412" for d in ignored.diagnostics)
    edit(config, 'deepspeed-version = "0.19.8"\n')  # part of what the check computes
    edit(repo / "requirements.txt", "")
    after = runs.run([recipe_of(repo)], node, config=config)
    assert runs.checked >= 1 and summary(after) != before
    assert summary(after) == summary(runs.run([recipe_of(repo)], node, cached=False, config=config))


def test_unused_suppressions_stay_right_with_cached_findings(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runs = Runs(tmp_path, monkeypatch)
    ds = recipe_of(repo) / "conf" / "ds.json"
    run_sh = recipe_of(repo) / "run.sh"
    edit(run_sh, run_sh.read_text().replace("num_workers=4", "num_workers=4  # recipelint: ignore[RL802] nothing to hide"))
    first = runs.run([recipe_of(repo), ds], tmp_path / "node.yaml")
    second = runs.run([recipe_of(repo), ds], tmp_path / "node.yaml")
    assert runs.checked == 0
    assert [d.message for d in second.diagnostics if d.code == "RL002"] == [d.message for d in first.diagnostics if d.code == "RL002"]
    assert [d.message for d in second.diagnostics if d.code == "RL002"] == ["unused suppression: ignore[RL802] matches no finding"]


def test_touching_a_file_keeps_the_entry(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runs = Runs(tmp_path, monkeypatch)
    before = summary(runs.run([recipe_of(repo)], tmp_path / "node.yaml"))
    yaml = recipe_of(repo) / "conf" / "train.yaml"
    edit(yaml, yaml.read_text())  # new times, same bytes: compared by content
    assert summary(runs.run([recipe_of(repo)], tmp_path / "node.yaml")) == before and runs.checked == 0


def test_another_recipelint_does_not_read_the_entries(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runs = Runs(tmp_path, monkeypatch)
    runs.run([recipe_of(repo)], tmp_path / "node.yaml")
    monkeypatch.setattr(cache_module, "_code_key", lambda: "9.9.9")
    runs.run([recipe_of(repo)], tmp_path / "node.yaml")
    assert runs.checked >= 1


def test_recent_files_and_files_changed_during_the_check_are_not_stored(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = Runs(tmp_path, monkeypatch)
    yaml = recipe_of(repo) / "conf" / "train.yaml"
    yaml.write_text(yaml.read_text() + "\n")  # written just now: its time cannot tell a change in the same tick
    store = ResultCache(runs.folder)
    engine.check(
        [recipe_of(repo)],
        hardware=engine.ProfileLoader(tmp_path / "node.yaml"),
        resolver=Resolver(isolated=True),
        keep_recipes=False,
        cache=store,
    )
    runs.run([recipe_of(repo)], tmp_path / "node.yaml")
    assert runs.checked == 2  # nothing was stored: every file of the fixture has a fresh ctime
    # A file that changes between the check's read and the store is not stored either.
    shutil.rmtree(runs.folder)
    real = engine.check_target

    def changing(*args: Any) -> Any:
        outcome = real(*args)
        edit(yaml, yaml.read_text() + "# later\n")
        return outcome

    monkeypatch.setattr(engine, "check_target", changing)
    engine.check(
        [recipe_of(repo)],
        hardware=engine.ProfileLoader(tmp_path / "node.yaml"),
        resolver=Resolver(isolated=True),
        keep_recipes=False,
        cache=ResultCache(runs.folder, started=time.time() + 60),
    )
    monkeypatch.setattr(engine, "check_target", real)
    runs = Runs(tmp_path, monkeypatch)
    again = runs.run([recipe_of(repo)], tmp_path / "node.yaml")
    assert runs.checked == 2  # what each target read is not what is there now: neither entry holds
    assert summary(again) == summary(runs.run([recipe_of(repo)], tmp_path / "node.yaml", cached=False))


def test_broken_or_foreign_cache_files_are_misses(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runs = Runs(tmp_path, monkeypatch)
    cold = summary(runs.run([recipe_of(repo)], tmp_path / "node.yaml"))
    for bucket in runs.folder.rglob("?.json"):
        bucket.write_bytes(bucket.read_bytes()[:100])  # cut short
    assert summary(runs.run([recipe_of(repo)], tmp_path / "node.yaml")) == cold and runs.checked >= 1
    for bucket in runs.folder.rglob("?.json"):
        bucket.write_text(
            json.dumps({"format": 3, "inputs": [["read", "/nowhere", "m"]], "entries": {"x": {"deps": [0, 7], "outcome": 5}}})
        )
    assert summary(runs.run([recipe_of(repo)], tmp_path / "node.yaml")) == cold


def test_a_read_only_cache_folder_only_costs_speed(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runs = Runs(tmp_path, monkeypatch)
    runs.folder.write_text("a file where the cache folder should be\n")  # nothing can be created in it
    cold = summary(runs.run([recipe_of(repo)], tmp_path / "node.yaml"))
    assert summary(runs.run([recipe_of(repo)], tmp_path / "node.yaml", cached=False)) == cold
    assert runs.folder.read_text().startswith("a file")


@pytest.mark.slow  # four processes at once
def test_concurrent_runs_leave_whole_files(repo: Path, tmp_path: Path) -> None:
    """Several processes writing the same cache at once: every bucket stays valid JSON, and a
    later run is still right."""
    script = (
        "import sys, time\nfrom pathlib import Path\nfrom recipelint import engine\nfrom recipelint.cache import ResultCache\n"
        "from recipelint.settings import Resolver\n"
        "for _ in range(3):\n"
        "    engine.check([Path(sys.argv[1])], hardware=engine.ProfileLoader(Path(sys.argv[2])), resolver=Resolver(isolated=True),"
        " keep_recipes=False, cache=ResultCache(Path(sys.argv[3]), started=time.time() + 60))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    args = [str(recipe_of(repo)), str(tmp_path / "node.yaml"), str(tmp_path / "cache")]
    workers = [subprocess.Popen([sys.executable, "-c", script, *args], env=env) for _ in range(4)]
    assert all(w.wait(timeout=120) == 0 for w in workers)
    buckets = list((tmp_path / "cache").rglob("?.json"))
    assert buckets and all(json.loads(b.read_text())["format"] == 3 for b in buckets)
    assert not list((tmp_path / "cache").rglob("*.tmp"))


@pytest.mark.slow  # waits out the racy-time guard, three processes
def test_the_command_line_caches_and_says_the_same(repo: Path, tmp_path: Path) -> None:
    """The real thing: files older than the racy-time guard, two runs, the same bytes; --no-cache writes nothing."""
    old = time.time() - 3600
    for path in repo.rglob("*"):
        os.utime(path, (old, old))
    aged = time.time() + cache_module.RACY_SECONDS + 0.2  # the ctime the utime just set must age too
    env = {**os.environ, "RECIPELINT_CACHE_DIR": str(tmp_path / "cli-cache")}

    def cli(*extra: str) -> subprocess.CompletedProcess[str]:
        argv = [
            sys.executable,
            "-m",
            "recipelint",
            "check",
            str(recipe_of(repo)),
            "--isolated",
            "--hardware",
            str(tmp_path / "node.yaml"),
            *extra,
        ]
        return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)

    plain = cli("--no-cache")  # stores nothing: it need not wait for the files to age
    assert not (tmp_path / "cli-cache").exists()
    time.sleep(max(0.0, aged - time.time()))
    cold, warm = cli(), cli()
    assert (
        (cold.returncode, cold.stdout, cold.stderr)
        == (warm.returncode, warm.stdout, warm.stderr)
        == (plain.returncode, plain.stdout, plain.stderr)
    )
    entries = [e for b in (tmp_path / "cli-cache").rglob("?.json") for e in json.loads(b.read_text())["entries"].values()]
    assert any(e["outcome"] and isinstance(e["outcome"], dict) and e["outcome"].get("recipes") for e in entries)


def test_a_file_that_appears_where_a_lookup_found_nothing(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runs = Runs(tmp_path, monkeypatch)
    ds = recipe_of(repo) / "conf" / "ds.json"
    text = ds.read_text()
    edit(ds, None)
    missing = summary(runs.run([recipe_of(repo)], tmp_path / "node.yaml"))
    assert summary(runs.run([recipe_of(repo)], tmp_path / "node.yaml")) == missing and runs.checked == 0
    edit(ds, text)
    found = runs.run([recipe_of(repo)], tmp_path / "node.yaml")
    assert runs.checked >= 1 and summary(found) != missing
    assert summary(found) == summary(runs.run([recipe_of(repo)], tmp_path / "node.yaml", cached=False))


def _rewrite_entries(folder: Path, change: Callable[[dict[str, Any]], Any]) -> None:
    for bucket in folder.rglob("?.json"):
        data = json.loads(bucket.read_bytes())
        data["entries"] = {name: change(entry) for name, entry in data["entries"].items()}
        bucket.write_text(json.dumps(data))


def test_an_entry_with_no_inputs_is_a_miss_not_a_forged_pass(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`all([])` is True: an entry that recorded no input would hold for ever."""
    runs = Runs(tmp_path, monkeypatch)
    runs.run([recipe_of(repo)], tmp_path / "node.yaml")
    _rewrite_entries(runs.folder, lambda entry: {"deps": [], "outcome": entry["outcome"]})
    _train_yaml(repo)
    expected = summary(runs.run([recipe_of(repo)], tmp_path / "node.yaml", cached=False))
    assert summary(runs.run([recipe_of(repo)], tmp_path / "node.yaml")) == expected and runs.checked >= 1


@pytest.mark.parametrize(
    "forged",
    [
        {"deps": ["x", None], "outcome": 5},
        {"deps": [-1], "outcome": {"diagnostics": []}},
        {"deps": [True], "outcome": []},
        {"deps": [0], "outcome": {"diagnostics": "nope", "errors": 3}},
        {"deps": {"a": 1}, "outcome": None},
        "not an entry",
    ],
)
def test_malformed_entries_are_misses(forged: Any, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runs = Runs(tmp_path, monkeypatch)
    cold = summary(runs.run([recipe_of(repo)], tmp_path / "node.yaml"))
    _rewrite_entries(runs.folder, lambda entry: forged)
    assert summary(runs.run([recipe_of(repo)], tmp_path / "node.yaml")) == cold


def test_markers_only_in_a_cache_folder_recipelint_created(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`cache-dir = "."` names a folder the user owns: a `.gitignore` of `*` there would hide
    every new file from git, and CACHEDIR.TAG would make backups skip it."""
    mine = tmp_path / "work"
    mine.mkdir()
    ResultCache(mine)._create()
    assert not (mine / ".gitignore").exists() and not (mine / "CACHEDIR.TAG").exists()
    fresh = tmp_path / "work" / ".recipelint_cache"
    ResultCache(fresh)._create()
    assert (fresh / ".gitignore").read_text().endswith("*\n") and (fresh / "CACHEDIR.TAG").exists()


def test_an_installed_copy_is_keyed_by_its_code_not_its_version(tmp_path: Path) -> None:
    """pre-commit pinned to a commit installs a new copy with the same version string."""
    package = tmp_path / "site-packages" / "recipelint"
    shutil.copytree(Path(cache_module.__file__).parent, package, ignore=shutil.ignore_patterns("__pycache__"))
    before = cache_module._code_key(package)
    rule = package / "engine.py"
    rule.write_text(rule.read_text() + "\n# a newer commit\n")
    assert cache_module._code_key(package) != before


def test_a_forged_entry_is_a_miss_even_when_well_formed(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another user creates the cache folder first and writes an entry with one input that always
    holds (`stat /`) and no findings: without this user's key its MAC cannot be made, so the
    recipe is checked and its warnings are reported."""
    runs = Runs(tmp_path, monkeypatch)
    cold = summary(runs.run([recipe_of(repo)], tmp_path / "node.yaml"))
    assert cold

    def forge(bucket: Path) -> None:
        data = json.loads(bucket.read_bytes())
        data["inputs"] = [["stat", "/", "d"]]
        empty: dict[str, list[Any]] = {"errors": [], "recipes": []}
        data["entries"] = {name: {"deps": [0], "outcome": empty, "mac": "0" * 64} for name in data["entries"]}
        bucket.write_text(json.dumps(data))

    for bucket in runs.folder.rglob("?.json"):
        forge(bucket)
    assert summary(runs.run([recipe_of(repo)], tmp_path / "node.yaml")) == cold and runs.checked >= 1


@pytest.mark.parametrize("kind", ["fifo", "zero", "nested", "string files", "null code"])
def test_a_bucket_that_is_a_device_a_fifo_or_malformed_is_a_miss(
    kind: str, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from recipelint import cache

    runs = Runs(tmp_path, monkeypatch)
    cold = summary(runs.run([recipe_of(repo)], tmp_path / "node.yaml"))
    buckets = sorted(runs.folder.rglob("?.json"))
    for bucket in buckets:
        if kind in ("fifo", "zero", "nested"):
            bucket.unlink()
        if kind == "fifo":
            os.mkfifo(bucket)
        elif kind == "zero":
            bucket.symlink_to("/dev/zero")
        elif kind == "nested":
            bucket.write_text("[" * 100_000 + "]" * 100_000)
        else:
            data = json.loads(bucket.read_bytes())
            for name, entry in data["entries"].items():
                outcome = entry["outcome"]
                for item in outcome["recipes"] if isinstance(outcome, dict) else []:
                    if kind == "string files":
                        item["files"] = "many"
                    else:
                        for d in item["found"]:
                            d["c"] = None
                rows = [data["inputs"][i] for i in entry["deps"]]
                entry["mac"] = cache._mac(name, rows, entry["outcome"])  # signed: only the shape check stops it
            bucket.write_text(json.dumps(data))
    assert summary(runs.run([recipe_of(repo)], tmp_path / "node.yaml")) == cold


def test_cache_folders_are_private_and_the_key_is_outside_them(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runs = Runs(tmp_path, monkeypatch)
    runs.run([recipe_of(repo)], tmp_path / "node.yaml")
    for folder in [runs.folder, *(p for p in runs.folder.rglob("*") if p.is_dir())]:
        assert os.stat(folder).st_mode & 0o777 == 0o700, folder
    key = Path(os.environ["XDG_CONFIG_HOME"]) / "recipelint" / "cache-key"
    assert os.stat(key).st_mode & 0o777 == 0o600 and runs.folder not in key.parents


def test_a_cache_dir_outside_the_project_is_refused(tmp_path: Path) -> None:
    from recipelint.parse.files import SourceError
    from recipelint.settings import load_settings

    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    settings = project / "recipelint.toml"
    settings.write_text('cache-dir = "../elsewhere"\n')
    with pytest.raises(SourceError, match="'cache-dir' ../elsewhere is outside the project"):
        load_settings(settings)
    settings.write_text('cache-dir = "build/cache"\n')
    assert load_settings(settings).cache_dir == project / "build/cache"
