"""The reliability suite: every attack family of issue 47, each run as `recipelint` in a child
process under a memory ceiling, must end in exit 0, 1 or 2 with one-line messages, within the
bounds below, with no traceback, no internal error and no byte of a file that is not a recipe
config in the output. docs/reliability.md lists each promise and the test here that holds it.

Bounds (each attack, on a 2-core CI machine): peak RSS of the recipelint process under
`MEMORY_BOUND` (measured with resource.getrusage of the child, whose address space is also
capped, so a bomb fails this test instead of the machine) and wall time under `TIME_BOUND`.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.helpers import REPO

# Held by their own modules, run here too: the suite is every attack family in one place.
from tests.test_fix_writes import (
    test_a_file_changed_between_check_and_write_is_refused_never_patched as test_fix_with_a_file_changed_mid_run,
)
from tests.test_fix_writes import test_a_file_deleted_mid_run_stops_no_other_write as test_fix_with_a_file_deleted_mid_run
from tests.test_read_policy import test_a_config_outside_the_tree_is_named_never_read as test_a_config_outside_the_tree
from tests.test_read_policy import test_a_file_that_is_not_the_config_it_is_passed_as_shows_nothing as test_a_foreign_config

__all__ = [
    "test_a_config_outside_the_tree",
    "test_a_foreign_config",
    "test_fix_with_a_file_changed_mid_run",
    "test_fix_with_a_file_deleted_mid_run",
]

MEMORY_BOUND = 1024 * 1024 * 1024  # 1 GiB of peak RSS
TIME_BOUND = 60.0  # seconds of wall time
EXAMPLE = REPO / "examples" / "wenet-4node-v100"
SECRET = "c2VjcmV0LXRva2VuLWk0Nw"  # a registry token, a shadow hash: never in any output


class Run:
    def __init__(self, stdout: str, stderr: str, code: int, peak: int, seconds: float) -> None:
        self.stdout, self.stderr, self.code, self.peak, self.seconds = stdout, stderr, code, peak, seconds

    @property
    def said(self) -> str:
        return self.stdout + self.stderr


def _cap() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))  # a bomb fails here, not the machine


_NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def attack(*args: str, cwd: Path | None = None, stdin: str | None = None, unprivileged: bool = False) -> Run:
    """recipelint ARGS in a child process (its address space capped at 4 GiB), its own peak RSS
    and wall time from wait4; asserts what every attack must end in."""
    command = [sys.executable, "-m", "recipelint", *args]
    if unprivileged and os.geteuid() == 0:
        command = [*_NOBODY, *command]  # setpriv execs: the child's pid and rusage are recipelint's
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, open(stdin or os.devnull, "rb") as given:
        began = time.monotonic()
        child = subprocess.Popen(command, stdin=given, stdout=out, stderr=err, cwd=cwd, env=env, preexec_fn=_cap)
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.monotonic() - began
        out.seek(0)
        err.seek(0)
        run = Run(
            out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace"), child.returncode, usage.ru_maxrss * 1024, seconds
        )
    assert run.code in (0, 1, 2), run.said[-2000:]
    assert "Traceback" not in run.said and "internal error" not in run.stderr, run.said[-2000:]
    assert run.peak < MEMORY_BOUND, f"peak RSS {run.peak / 2**20:.0f} MiB"
    assert run.seconds < TIME_BOUND, f"{run.seconds:.1f} s"
    assert SECRET not in run.said
    if run.code == 2:
        assert any(": " in line for line in run.stderr.splitlines()), run.stderr
    return run


@pytest.fixture
def open_tmp() -> Iterator[Path]:
    """A temporary folder other users may enter (tmp_path is private to its owner): the
    permission attacks run as `nobody` when the suite runs as root."""
    folder = Path(tempfile.mkdtemp(prefix="recipelint-attack-"))
    os.chmod(folder, 0o755)
    try:
        yield folder
    finally:
        for path in folder.rglob("*"):
            if path.is_dir() and not path.is_symlink():
                os.chmod(path, 0o755)
        shutil.rmtree(folder)


def _recipe(top: Path, name: str = "r") -> Path:
    (top / ".git").mkdir(parents=True, exist_ok=True)
    shutil.copytree(EXAMPLE, top / name)
    return top / name


def _hardware(recipe: Path) -> list[str]:
    return ["--isolated", "--no-cache", "--hardware", str(recipe / "hardware-v100-node.yaml")]


def _nobody_runs_recipelint() -> bool:
    """Whether `nobody` can run this recipelint: the interpreter and the source must be readable
    by other users (CI's copy lies in a private mktemp folder, where `python -m recipelint` run as
    nobody finds no module and exits 1: no permission attack can be told from that)."""
    if os.geteuid() != 0:
        return True
    if shutil.which("setpriv") is None:
        return False
    probe = [*_NOBODY, sys.executable, "-c", "import recipelint.cli"]
    done = subprocess.run(probe, capture_output=True, env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=60, check=False)
    return done.returncode == 0


needs_setpriv = pytest.mark.skipif(
    not _nobody_runs_recipelint(),
    reason="root, and nobody cannot run this checkout (no setpriv, or a private folder): permissions do not bind",
)


# -- settings shapes ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "tool = 5\n",
        "[tool]\nrecipelint = [1]\n",
        "[tool]\nrecipelint = 5\n",
        "[tool.recipelint]\nselect = 5\n",
        "[tool.recipelint]\nper-file-ignores = {'run.sh' = 5}\n",
        "[tool.recipelint]\nseverity = {RL101 = [1]}\n",
        "[tool.recipelint]\ntarget-versions = {deepspeed = 5}\n",
    ],
)
def test_settings_of_any_shape_are_one_line_errors(text: str, tmp_path: Path) -> None:
    recipe = _recipe(tmp_path / "repo")
    (tmp_path / "repo" / "recipelint.toml").write_text(text)
    run = attack("check", str(recipe), "--no-cache")
    assert run.code == 2 and "recipelint.toml: " in run.stderr


# -- unreadable files and folders ---------------------------------------------------------------


@needs_setpriv
def test_a_recipe_whose_conf_cannot_be_searched_keeps_its_other_findings(open_tmp: Path) -> None:
    recipe = _recipe(open_tmp / "repo")
    os.chmod(recipe / "conf", 0)
    run = attack("check", str(recipe), *_hardware(recipe), unprivileged=True)
    assert run.code == 2 and f"{recipe}/conf/train.yaml: permission denied" in run.stderr
    assert "RL504" in run.stdout  # the launch's findings stay


@needs_setpriv
def test_a_named_folder_that_cannot_be_listed_is_one_line(open_tmp: Path) -> None:
    recipe = _recipe(open_tmp / "repo")
    locked = open_tmp / "repo" / "locked"
    locked.mkdir()
    os.chmod(locked, 0)
    run = attack("check", str(locked), str(recipe), *_hardware(recipe), unprivileged=True)
    assert run.code == 2 and f"{locked}: cannot list this folder: Permission denied" in run.stderr and "RL504" in run.stdout


def test_a_file_name_that_is_not_utf8_in_every_format(tmp_path: Path) -> None:
    top = tmp_path / "repo"
    recipe = _recipe(top, os.fsdecode(b"r\xff"))
    for fmt in ("text", "concise", "json", "sarif", "github"):
        run = attack("check", str(top), *_hardware(recipe), "--format", fmt)
        assert run.code == 1, run.stderr
    sarif = json.loads(attack("check", str(top), *_hardware(recipe), "--format", "sarif").stdout)
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in sarif["runs"][0]["results"]}
    assert any("r%FF/run.sh" in uri for uri in uris), uris


# -- stdin --------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["check", "fix"])
def test_stdin_from_a_device_is_capped(command: str, tmp_path: Path) -> None:
    run = attack(command, "-", "--stdin-filename", "run.sh", "--isolated", stdin="/dev/zero")
    assert run.code == 2 and "<stdin>:1:1: file is over the 1 MiB limit for a config" in run.stderr


# -- the cache ----------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["fifo", "device", "forged"])
def test_a_cache_bucket_that_is_a_fifo_a_device_or_forged(kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    recipe = _recipe(tmp_path / "repo")
    args = ["check", str(recipe), "--isolated", "--hardware", str(recipe / "hardware-v100-node.yaml")]
    cache = tmp_path / "cache"
    monkeypatch.setenv("RECIPELINT_CACHE_DIR", str(cache))
    time.sleep(2.1)  # the files' change times older than the cache's racy-time guard (RACY_SECONDS)
    cold = attack(*args)
    buckets = list(cache.rglob("?.json"))
    assert buckets and stat.S_IMODE(os.stat(cache).st_mode) == 0o700, (sorted(cache.rglob("*")), cold.code, cold.said[-500:])
    for bucket in buckets:
        data = json.loads(bucket.read_bytes())
        bucket.unlink()
        if kind == "fifo":
            os.mkfifo(bucket)
        elif kind == "device":
            bucket.symlink_to("/dev/zero")
        else:  # one input that always holds, no findings: "No problems found." before
            data["inputs"] = [["stat", "/", "d"]]
            empty: dict[str, list[object]] = {"errors": [], "recipes": []}
            data["entries"] = {name: {"deps": [0], "outcome": empty, "mac": "0" * 64} for name in data["entries"]}
            bucket.write_text(json.dumps(data))
    warm = attack(*args)
    assert warm.code == cold.code == 1 and warm.stdout == cold.stdout


# -- byte order marks ---------------------------------------------------------------------------

UPSTREAM = REPO / "tests" / "data" / "upstream"
BOM_CASES = {
    "kubernetes": UPSTREAM / "kube/training-operator/examples/pytorch/mnist/v1/pytorch_job_mnist_nccl.yaml",
    "slurm": UPSTREAM / "slurm/alignment-handbook/recipes/launch.slurm",
    "run.sh": EXAMPLE / "run.sh",
    "train yaml": EXAMPLE / "conf/train.yaml",
    "deepspeed json": EXAMPLE / "conf/ds_stage2.json",
    "markdown": UPSTREAM / "xtuner-v1.0.1/docs/en/get_started/sft.md",
}


@pytest.mark.parametrize("case", sorted(BOM_CASES))
def test_a_byte_order_mark_changes_nothing(case: str, tmp_path: Path) -> None:
    """A file an editor saved with a UTF-8 BOM is read as the same file without it (a Kubernetes
    manifest or a Slurm script with one was "no recipes found", exit 0)."""
    said = []
    for name, prefix in (("plain", b""), ("bom", b"\xef\xbb\xbf")):
        folder = tmp_path / name
        shutil.copytree(EXAMPLE, folder)
        target = folder / BOM_CASES[case].relative_to(EXAMPLE) if BOM_CASES[case].is_relative_to(EXAMPLE) else folder / BOM_CASES[case].name
        target.write_bytes(prefix + BOM_CASES[case].read_bytes())
        run = attack("check", target.name, *_hardware(folder), "--format", "concise", cwd=target.parent)
        said.append((run.code, run.stdout.replace(str(folder), "")))
    assert said[0] == said[1] and "no recipes found" not in said[1][1]


# -- the command line ---------------------------------------------------------------------------


def test_argument_order_never_changes_the_exit_code(tmp_path: Path) -> None:
    recipe = _recipe(tmp_path / "repo")
    (recipe / "bad.yaml").write_text("a: [\n")
    first = attack("check", ".", "bad.yaml", *_hardware(recipe), cwd=recipe)
    second = attack("check", "bad.yaml", ".", *_hardware(recipe), cwd=recipe)
    assert first.code == second.code == 2 and "bad.yaml:2:1: invalid YAML" in first.stderr


def test_a_file_named_like_an_option_stays_a_file(tmp_path: Path) -> None:
    """pre-commit appends the changed files' names to the hook's entry: `--exit-zero` must not
    make the hook pass. The entries end in `--`."""
    hooks = (REPO / ".pre-commit-hooks.yaml").read_text()
    assert "entry: recipelint check --\n" in hooks and "entry: recipelint fix --write --\n" in hooks
    recipe = _recipe(tmp_path / "repo")
    (recipe / "--exit-zero").write_text("a: [\n")
    run = attack("check", *_hardware(recipe), "--", "./--exit-zero", "--exit-zero", "run.sh", cwd=recipe)
    assert run.code == 2 and "--exit-zero:2:1: invalid YAML" in run.stderr


# -- the language server ------------------------------------------------------------------------


class Wire:
    """`recipelint server` driven over raw bytes: frames as an attacker writes them."""

    def __init__(self, cwd: Path, env: dict[str, str] | None = None) -> None:
        import queue
        import threading

        self.process = subprocess.Popen(
            [sys.executable, "-m", "recipelint", "server"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})},
            preexec_fn=_cap,
        )
        self.messages: queue.Queue[dict[str, object]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        while True:
            header = b""
            while not header.endswith(b"\r\n\r\n"):
                byte = self.process.stdout.read(1)
                if not byte:
                    return
                header += byte
            size = int(header.split(b"Content-Length:")[1].split(b"\r\n")[0])
            self.messages.put(json.loads(self.process.stdout.read(size)))

    def raw(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def send(self, message: dict[str, object]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.raw(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))

    def wait(self, test: Callable[[dict[str, object]], bool], seconds: float = 30) -> dict[str, object]:
        import queue

        deadline = time.monotonic() + seconds
        while True:
            try:
                message = self.messages.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError("the server did not answer") from None
            if test(message):
                return message

    def answer(self, request_id: int) -> dict[str, object]:
        return self.wait(lambda m: m.get("id") == request_id and "method" not in m)

    def start(self, root: Path, options: dict[str, object] | None = None) -> None:
        self.send(
            {
                "id": 0,
                "method": "initialize",
                "params": {"processId": None, "rootUri": root.as_uri(), "capabilities": {}, "initializationOptions": options or {}},
            }
        )
        self.answer(0)
        self.send({"method": "initialized", "params": {}})

    def stop(self) -> str:
        self.send({"id": 999, "method": "shutdown"})
        self.answer(999)
        self.send({"method": "exit"})
        assert self.process.wait(timeout=30) == 0
        assert self.process.stderr is not None
        return self.process.stderr.read().decode("utf-8", "replace")


def _alive(wire: Wire, request_id: int) -> None:
    """A request after the attack is answered: the server reads frames again."""
    wire.send({"id": request_id, "method": "recipelint/no-such-method"})
    assert "error" in wire.answer(request_id)


@pytest.mark.parametrize(
    "frame",
    [
        pytest.param(b'\r\n{"jsonrpc": "2.0", "id": 5, "method": "x"}', id="no-header"),
        pytest.param(b'Content-Type: x\r\n\r\n{"jsonrpc": "2.0", "id": 5, "method": "x"}', id="no-length"),
        pytest.param(b'Content-Length: abc\r\n\r\n{"jsonrpc": "2.0"}', id="non-numeric"),
        pytest.param(b'Content-Length: -5\r\n\r\n{"jsonrpc": "2.0"}', id="negative"),
        pytest.param(b"Content-Length: 999999999999\r\n\r\n{}", id="huge"),
        pytest.param(b'Content-Length: 10\r\n\r\n{"jsonrpc": "2.0", "id": 5}', id="short"),
        pytest.param(b'Content-Length: 80\r\n\r\n{"jsonrpc": "2.0", "method": "x"}', id="long"),
        pytest.param(b"Content-Length: 5\r\n\r\nhello", id="not-json"),
    ],
)
def test_the_server_reads_on_after_a_bad_frame(frame: bytes, tmp_path: Path) -> None:
    wire = Wire(tmp_path)
    wire.start(tmp_path)
    wire.raw(frame)
    _alive(wire, 7)
    said = wire.stop()
    assert "Traceback" not in said and all(len(line) < 400 for line in said.splitlines())


@pytest.mark.parametrize(
    "params",
    [5, "x", {"textDocument": {"uri": 5}, "position": {"line": "a", "character": -1}}],
)
def test_a_malformed_request_gets_a_json_rpc_error(params: object, tmp_path: Path) -> None:
    wire = Wire(tmp_path)
    wire.start(tmp_path)
    wire.send({"id": 11, "method": "textDocument/hover", "params": params})
    answer = wire.answer(11)
    assert isinstance(answer.get("error"), dict)
    wire.send(
        {
            "id": 12,
            "method": "textDocument/hover",
            "params": {"textDocument": {"uri": "file:///nowhere.sh"}, "position": {"line": 10**6, "character": 10**6}},
        }
    )
    out_of_range = wire.answer(12)
    assert "error" in out_of_range or out_of_range.get("result") is None
    assert "Traceback" not in wire.stop()


def test_an_oversized_document_is_one_error_and_the_server_stays_quick(tmp_path: Path) -> None:
    big = tmp_path / "data.json"
    text = json.dumps({"train_batch_size": 8, "rows": ["x" * 100] * 20_000})  # 2 MiB of data JSON
    big.write_text(text)
    wire = Wire(tmp_path)
    wire.start(tmp_path)
    began = time.monotonic()
    wire.send(
        {
            "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": big.as_uri(), "languageId": "json", "version": 1, "text": text}},
        }
    )
    published = wire.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics")
    _alive(wire, 21)
    assert time.monotonic() - began < 5
    messages = [d["message"] for d in published["params"]["diagnostics"]]  # type: ignore[index]
    # a data JSON over 1 MiB is skipped as no recipe (issue 38), or is one size error: never read whole
    assert all("over the 1 MiB limit" in m for m in messages), messages
    wire.stop()


def test_the_server_proposes_no_edit_outside_the_workspace(tmp_path: Path) -> None:
    """A run.sh linked from elsewhere, and its fixes: `fix --write` refuses to write through a
    link out of the linted tree; the server offers no such edit either."""
    outside = tmp_path / "elsewhere"
    shutil.copytree(EXAMPLE, outside)
    workspace = tmp_path / "repo"
    (workspace / ".git").mkdir(parents=True)
    (workspace / "r").mkdir()
    for item in outside.iterdir():
        (workspace / "r" / item.name).symlink_to(item)
    script = workspace / "r" / "run.sh"
    wire = Wire(workspace)
    wire.start(workspace, {"hardware": str(outside / "hardware-v100-node.yaml")})
    text = script.read_text()
    wire.send(
        {
            "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": script.as_uri(), "languageId": "shellscript", "version": 1, "text": text}},
        }
    )
    published = wire.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics" and bool(m["params"]["diagnostics"]))  # type: ignore[index]
    assert published
    everything = {"start": {"line": 0, "character": 0}, "end": {"line": 10_000, "character": 0}}
    wire.send(
        {
            "id": 31,
            "method": "textDocument/codeAction",
            "params": {"textDocument": {"uri": script.as_uri()}, "range": everything, "context": {"diagnostics": []}},
        }
    )
    actions = wire.answer(31)["result"]
    assert isinstance(actions, list)
    assert not [a for a in actions if a.get("kind") == "quickfix" and "Suppress" not in a["title"]], actions
    wire.send({"id": 32, "method": "workspace/executeCommand", "params": {"command": "recipelint.fixAll", "arguments": [script.as_uri()]}})
    assert isinstance(wire.answer(32).get("result"), dict)
    assert not [m for m in list(wire.messages.queue) if m.get("method") == "workspace/applyEdit"]
    wire.stop()


@pytest.mark.parametrize("profile", ["missing.yaml", "/dev/zero"])
def test_a_bad_profile_is_shown_to_the_user(profile: str, tmp_path: Path) -> None:
    recipe = _recipe(tmp_path / "repo")
    wire = Wire(tmp_path)
    wire.start(tmp_path, {"hardware": profile if profile.startswith("/") else str(tmp_path / profile)})
    script = recipe / "run.sh"
    wire.send(
        {
            "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": script.as_uri(), "languageId": "shellscript", "version": 1, "text": script.read_text()}},
        }
    )
    shown = wire.wait(lambda m: m.get("method") == "window/showMessage")
    message = str(shown["params"]["message"])  # type: ignore[index]
    assert message.startswith("recipelint: ") and ("no such file" in message or "not a regular file" in message)
    wire.stop()


# -- the CPU budget of one file -------------------------------------------------------------------


def test_a_file_over_its_cpu_budget_is_one_error_and_the_others_are_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A reader that runs past the budget ends that file with one line; the run goes on. The
    budget is made tiny here (real files read in well under the default 30 s)."""
    top = tmp_path / "tree"
    recipe = _recipe(top)
    slow = top / "slow.sh"
    branches = "".join(f'if [ -n "$A{i}" ]; then X{i}="--num_workers {i % 8}"; fi\n' for i in range(15000))
    slow.write_text("#!/bin/bash\n" + branches + "torchrun --nproc_per_node 8 train.py $X5\n")
    monkeypatch.setenv("RECIPELINT_CPU_BUDGET", "1")
    run = attack("check", *_hardware(recipe), str(slow), str(recipe / "run.sh"))
    assert run.code == 2
    assert "slow.sh: reading this file took over 1 s of CPU (the budget for one file): not checked" in run.stderr
    assert "RL201" in run.stdout, "the other recipe is still checked"


def test_the_budget_raises_on_the_main_thread_only() -> None:
    import threading

    from recipelint.budget import OverBudget, cpu_budget

    def spin() -> None:
        began = time.process_time()
        while time.process_time() - began < 0.3:
            pass

    os.environ["RECIPELINT_CPU_BUDGET"] = "0.05"
    try:
        with pytest.raises(OverBudget), cpu_budget():
            spin()
        with cpu_budget():
            pass  # a body within its budget ends as it would
        ended: list[bool] = []

        def unbudgeted() -> None:
            with cpu_budget():
                spin()
            ended.append(True)

        thread = threading.Thread(target=unbudgeted)
        thread.start()
        thread.join()
        assert ended == [True], "a check on another thread (the server's) has no signal to take"
    finally:
        del os.environ["RECIPELINT_CPU_BUDGET"]
