"""The pre-commit path: CPU time of `recipelint check` given pre-commit's file list, beside
`check .` on the same repository and beside yamllint and check-jsonschema on the same lists.

    pip install yamllint check-jsonschema   # the peers; one not installed is skipped
    python bench/precommit.py [--sizes 100,1000,5000] [--trees field,upstream,corpus] [--reps 3] [--timeout 120] [--base DIR]

Repositories, each a git repository with one commit:
- generated: N WeNet-like recipes (`examples/setNNNN/s0/`: run.sh, path.sh, conf/train.yaml,
  conf/ds_stage2.json, data lists, a local/ shell script, a README), the `wenet/` package they
  run, a `gradlew` shebang script and a hardware profile named by recipelint.toml, at every
  size of `--sizes`;
- the project's own test trees (tests/data/<tree>) copied as they are.

Per repository, in one run (medians of `--reps` alternating rounds, CPU time of the child:
user + system, so the shared machine's load mostly cancels out):
(a) `recipelint check --no-cache FILES...` with FILES what `pre-commit run --all-files` passes
    the hook (`git ls-files` filtered by the hook's `types_or: [yaml, json, shell, markdown]`,
    as pre-commit's `identify` tags them when it is installed), and the same with the cache warm;
(b) `recipelint check --no-cache .` and warm;
(c) one changed `conf/train.yaml` (a comment appended before each run, as an edit would), with
    the cache an earlier run filled (what a commit meets) and with --no-cache;
peers: `yamllint -d relaxed` on the YAML files of (a), `check-jsonschema` (a schema that every
JSON and YAML document satisfies: it parses them) on the JSON files of (a); with `--base DIR`
(another revision's source tree, e.g. `git archive main | tar -x -C DIR`), (c) is also run with
that revision's recipelint (`python -m recipelint`, DIR first on PYTHONPATH, its own cache) in
the same alternating rounds, so the machine's load weighs on both alike.
Exit codes other than 0 and 1 are printed: pre-commit fails a commit on them. A command past
`--timeout` seconds is stopped and shown as `> T s`. Nothing here asserts a time: it measures.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "wenet-4node-v100"
BIN = Path(sys.executable).parent
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
RACY_SECONDS = 2.5  # a file younger than this is not cached (recipelint.cache.RACY_SECONDS)
HOOK_TYPES = {"yaml", "json", "shell", "markdown"}  # .pre-commit-hooks.yaml: types_or
NODE = "gpus: 4\ngpu_model: V100-SXM2-32GB\ngpu_memory_gib: 32\ncpus: 32\nmemory_gib: 256\nshm_gib: 64\nnodes: 4\n"
GRADLEW = (
    '#!/bin/sh\n# Gradle start up script\nAPP_HOME=$(cd "$(dirname "$0")" && pwd -P)\nexec java -jar "$APP_HOME/gradle/wrapper.jar" "$@"\n'
)
README = "# Recipe {i}\n\n```sh\nbash run.sh --stage 4 --stop_stage 4\n```\n"
FAILURES: dict[int, list[str]] = {}  # an exit code pre-commit fails on: the first lines that say why
LOCAL = "#!/bin/bash\n# data preparation of set {i}\nset -e\nfor part in train dev; do\n  mkdir -p data/$part\ndone\n"


class Timed:
    """One child process: its CPU seconds (user + system) and exit code."""

    def __init__(self, argv: list[str], cwd: Path, before: Callable[[], None] | None = None, env: dict[str, str] | None = None) -> None:
        self.argv, self.cwd, self.before, self.env = argv, cwd, before, {**ENV, **(env or {})}

    def run(self, timeout: float) -> tuple[float, int]:
        if self.before is not None:
            self.before()
        with tempfile.TemporaryFile() as errors:
            process = subprocess.Popen(self.argv, cwd=self.cwd, stdout=errors, stderr=subprocess.STDOUT, env=self.env)
            seconds, code = self._wait(process, timeout)
            if code not in (0, 1, -9) and self.argv[0].endswith("recipelint"):
                errors.seek(0)
                FAILURES.setdefault(code, [line for line in errors.read().decode(errors="replace").splitlines() if ": " in line][:3])
        return seconds, code

    def _wait(self, process: subprocess.Popen[bytes], timeout: float) -> tuple[float, int]:
        deadline = time.monotonic() + timeout
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                process.returncode = os.waitstatus_to_exitcode(status)
                return usage.ru_utime + usage.ru_stime, process.returncode
            if time.monotonic() > deadline:
                process.kill()
                os.wait4(process.pid, 0)
                return float("inf"), -9
            time.sleep(0.01)


def measure(commands: dict[str, Timed], reps: int, timeout: float) -> dict[str, tuple[float, set[int]]]:
    """Each command in turn, `reps` rounds: median CPU seconds and the exit codes seen. A command
    that timed out once is not run again."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    codes: dict[str, set[int]] = {name: set() for name in commands}
    for _ in range(reps):
        for name, command in commands.items():
            if times[name] and times[name][-1] == float("inf"):
                continue
            seconds, code = command.run(timeout)
            times[name].append(seconds)
            codes[name].add(code)
    return {name: (statistics.median(times[name]), codes[name]) for name in commands}


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def committed(root: Path) -> Path:
    git(root, "init", "-q")
    git(root, "-c", "user.email=b@b", "-c", "user.name=b", "add", "-A")
    git(root, "-c", "user.email=b@b", "-c", "user.name=b", "commit", "-qm", "bench")
    return root


def generate(root: Path, recipes: int) -> Path:
    """A repository of `recipes` WeNet-like recipes, each its own folder as WeNet's examples/ are."""
    run = (EXAMPLE / "run.sh").read_text()
    train = (EXAMPLE / "conf" / "train.yaml").read_text()
    ds = (EXAMPLE / "conf" / "ds_stage2.json").read_text()
    data = (EXAMPLE / "data" / "dev" / "data.list").read_text()
    for i in range(recipes):
        recipe = root / "examples" / f"set{i:04d}" / "s0"
        for folder in ("conf", "local", "data/train", "data/dev"):
            (recipe / folder).mkdir(parents=True)
        (recipe / "run.sh").write_text(run)
        (recipe / "path.sh").write_text("export PYTHONPATH=../../../:$PYTHONPATH\n")
        (recipe / "conf" / "train.yaml").write_text(train)
        (recipe / "conf" / "ds_stage2.json").write_text(ds)
        (recipe / "data" / "train" / "data.list").write_text(data)
        (recipe / "data" / "dev" / "data.list").write_text(data)
        (recipe / "local" / "prepare_data.sh").write_text(LOCAL.format(i=i))
        (recipe.parent / "README.md").write_text(README.format(i=i))
    (root / "wenet" / "bin").mkdir(parents=True)  # the checkout the recipes run, as in WeNet's own repository
    (root / "wenet" / "__init__.py").write_text("")
    (root / "wenet" / "bin" / "train.py").write_text("import argparse\n\n\ndef main():\n    parser = argparse.ArgumentParser()\n")
    (root / "gradlew").write_text(GRADLEW)
    (root / "gradlew").chmod(0o755)
    (root / "node.yaml").write_text(NODE)
    (root / "recipelint.toml").write_text('hardware = "node.yaml"\n')
    return committed(root)


def copied(root: Path, tree: Path) -> Path:
    shutil.copytree(tree, root, ignore=shutil.ignore_patterns(".recipelint_cache"))
    return committed(root)


def hook_files(root: Path) -> list[str]:
    """The files `pre-commit run --all-files` passes the recipelint hook: tracked files whose
    identify tags meet `types_or` (identify reads a shebang, as pre-commit does)."""
    names = git(root, "ls-files").splitlines()
    try:
        from identify.identify import tags_from_path
    except ImportError:  # without pre-commit's identify: the suffixes, and a shebang for shell
        return [name for name in names if _tags(root / name) & HOOK_TYPES]
    return [name for name in names if tags_from_path(str(root / name)) & HOOK_TYPES]


def _tags(path: Path) -> set[str]:
    suffix = {".yaml": "yaml", ".yml": "yaml", ".json": "json", ".sh": "shell", ".md": "markdown"}.get(path.suffix)
    if suffix is not None:
        return {suffix}
    with open(path, "rb") as handle:
        start = handle.read(64)
    return {"shell"} if start.startswith(b"#!") and any(s in start.split(b"\n")[0] for s in (b"sh", b"bash")) else set()


def recipelint(*args: str) -> list[str]:
    return [str(BIN / "recipelint"), "check", "--format", "concise", *args]


def base_recipelint(*args: str) -> list[str]:
    return [sys.executable, "-m", "recipelint", "check", "--format", "concise", *args]


def peers(root: Path, files: list[str], schema: Path) -> dict[str, Timed]:
    found: dict[str, Timed] = {}
    yamllint = shutil.which("yamllint", path=str(BIN)) or shutil.which("yamllint")
    yamls = [f for f in files if f.endswith((".yaml", ".yml"))]
    if yamllint and yamls:
        found[f"yamllint -d relaxed ({len(yamls)} YAML)"] = Timed([yamllint, "-d", "relaxed", *yamls], root)
    jsonschema = shutil.which("check-jsonschema", path=str(BIN)) or shutil.which("check-jsonschema")
    jsons = [f for f in files if f.endswith(".json")]
    if jsonschema and jsons:
        found[f"check-jsonschema ({len(jsons)} JSON)"] = Timed([jsonschema, "--schemafile", str(schema), *jsons], root)
    return found


def bench_repository(title: str, root: Path, reps: int, timeout: float, changed: str | None, base: Path | None = None) -> None:
    time.sleep(RACY_SECONDS)  # the files' times must age before the cache trusts them
    files = hook_files(root)
    schema = root.parent / f"{root.name}-schema.json"
    schema.write_text("{}\n")
    cache = root.parent / f"{root.name}-cache"
    env = {"RECIPELINT_CACHE_DIR": str(cache)}
    commands = {
        "(a) check --no-cache FILES (pre-commit's list)": Timed(recipelint("--no-cache", *files), root),
        "(b) check --no-cache .": Timed(recipelint("--no-cache", "."), root),
        **peers(root, files, schema),
    }
    results = measure(commands, reps, timeout)
    Timed(recipelint("."), root, env=env).run(timeout)  # fill the cache as an earlier commit's run did
    Timed(recipelint(*files), root, env=env).run(timeout)
    warm = {
        "(a) check FILES, warm cache": Timed(recipelint(*files), root, env=env),
        "(b) check ., warm cache": Timed(recipelint("."), root, env=env),
    }
    if changed is not None:
        edited = root / changed
        counter = iter(range(1_000_000))

        def edit() -> None:
            with open(edited, "a", encoding="utf-8") as handle:
                handle.write(f"# edit {next(counter)}\n")

        warm[f"(c) check {changed} (edited), cache of earlier runs"] = Timed(recipelint(changed), root, edit, env)
        Timed(recipelint(changed), root, edit, env).run(timeout)  # the commit before this one
        if base is not None:
            base_env = {"RECIPELINT_CACHE_DIR": f"{cache}-base", "PYTHONPATH": str(base)}
            Timed(base_recipelint(changed), root, edit, base_env).run(timeout)  # its cache filled (the index built)
            Timed(base_recipelint(changed), root, edit, base_env).run(timeout)
            warm["(c) the same with --base's recipelint"] = Timed(base_recipelint(changed), root, edit, base_env)
        warm[f"(c) check --no-cache {changed} (edited)"] = Timed(recipelint("--no-cache", changed), root, edit)
    results.update(measure(warm, reps, timeout))
    shown(title, len(git(root, "ls-files").splitlines()), len(files), results, timeout)


def shown(title: str, tracked: int, passed: int, results: dict[str, tuple[float, set[int]]], timeout: float) -> None:
    every = results["(b) check --no-cache ."][0]
    print(f"## {title}: {tracked} files, {passed} passed to the hook\n\n| command | CPU | ratio to (b) | exit |\n|---|---|---|---|")
    for name, (seconds, codes) in results.items():
        cpu = f"> {timeout:.0f} s" if seconds == float("inf") else f"{seconds:.3f} s"
        ratio = "" if seconds == float("inf") or every in (0, float("inf")) else f"{seconds / every:.2f}"
        print(f"| {name} | {cpu} | {ratio} | {','.join(str(c) for c in sorted(codes))} |")
    for code, lines in FAILURES.items():
        print(f"\nexit {code}: " + " / ".join(lines))
    FAILURES.clear()
    print(flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,1000,5000", help="generated repositories, in recipes (empty: none)")
    parser.add_argument("--trees", default="field,upstream,corpus", help="tests/data/<tree> repositories (empty: none)")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds before a command is stopped")
    parser.add_argument("--base", type=Path, help="another revision's source tree: (c) is run with it too, interleaved")
    args = parser.parse_args()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load {load:.2f}, {args.reps} alternating rounds, median CPU time\n")
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        for tree in filter(None, args.trees.split(",")):
            root = copied(work / f"tree-{tree}", REPO / "tests" / "data" / tree)
            bench_repository(f"tests/data/{tree}", root, args.reps, args.timeout, None)
            shutil.rmtree(root)
        for size in (int(s) for s in filter(None, args.sizes.split(","))):
            root = generate(work / f"gen-{size}", size)
            bench_repository(f"generated, {size} recipes", root, args.reps, args.timeout, "examples/set0000/s0/conf/train.yaml", args.base)
            shutil.rmtree(root)


if __name__ == "__main__":
    main()
