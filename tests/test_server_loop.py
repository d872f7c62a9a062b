"""The server's checks run off its event loop: a message that arrives while a round runs is
handled at once, the edits made meanwhile are checked together by the next round, and a round
never publishes a document that was edited after it read it (its positions are the old text's).

The round is held on a threading.Event, not a sleep: the test decides when it ends."""

from __future__ import annotations

import asyncio
import shutil
import threading
from pathlib import Path

import pytest

from recipelint.server.app import RecipelintServer
from recipelint.server.workspace import Recheck, Workspace, normal
from tests.helpers import REPO

EXAMPLE = REPO / "examples" / "wenet-4node-v100"


class HeldServer(RecipelintServer):
    """The server with each round held until the test lets it go, and publishing recorded."""

    def __init__(self) -> None:
        super().__init__()
        self.state = Workspace(Path("hardware-v100-node.yaml"))
        self.debounce = 0.0
        self.let_go = threading.Event()
        self.started = threading.Event()
        self.rounds: list[set[Path]] = []
        self.published: list[tuple[Path, int | None, list[str]]] = []
        run = self.state.run

        def held(job: Recheck) -> Recheck:
            self.rounds.append(set(job.paths))
            self.started.set()
            assert self.let_go.wait(60), "the test never let the round go"
            return run(job)

        self.state.run = held  # type: ignore[method-assign]

    def publish(self, path: Path) -> None:
        document = self.state.documents.get(path)
        codes = [d.code for d, _ in self.state.findings(path)[0]]
        self.published.append((path, document.version if document else None, codes))

    def tell_profile(self) -> None:
        pass


@pytest.fixture
def example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "recipe"
    shutil.copytree(EXAMPLE, root)
    monkeypatch.chdir(root)
    return root


async def _until(condition: threading.Event | asyncio.Future[object], seconds: float = 60) -> None:
    if isinstance(condition, threading.Event):
        await asyncio.get_running_loop().run_in_executor(None, condition.wait, seconds)
    else:
        await asyncio.wait_for(condition, seconds)


async def _settled(ls: HeldServer) -> None:
    """Every round done and none waiting."""
    for _ in range(600):
        if ls._running is None and ls._scheduled is None and not ls._pending:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the server's rounds never settled")


def test_a_message_during_a_check_is_handled_and_the_edits_meanwhile_are_checked_next(example: Path) -> None:
    run_sh = normal(example / "run.sh")
    text = run_sh.read_text()

    async def go(ls: HeldServer) -> tuple[bool, bool]:
        ls.state.open(run_sh, text, 1)
        ls.schedule({run_sh})
        await _until(ls.started)
        # the loop is free while the round is held: an edit and a lookup are handled now
        ls.state.change(run_sh, text + "\n# edited\n", 2)
        ls.schedule({run_sh})
        await asyncio.sleep(0.05)  # the debounce (0) fires: a round runs, so the edit waits
        loop_free = ls.state.documents[run_sh].version == 2 and ls._running is not None
        waited = len(ls.rounds) == 1
        ls.started.clear()
        ls.let_go.set()
        await _settled(ls)
        return loop_free, waited

    ls = HeldServer()
    loop_free, waited = asyncio.run(go(ls))
    assert loop_free and waited, "the edit was handled while the first round ran, and waited for it"
    assert len(ls.rounds) == 2 and run_sh in ls.rounds[1]
    versions = [version for path, version, _ in ls.published if path == run_sh]
    assert versions == [2], "the first round read version 1: it publishes nothing for run.sh; the second publishes version 2"
    assert any(codes for path, _, codes in ls.published if path == run_sh)


def test_a_round_publishes_a_document_nobody_edited_meanwhile(example: Path) -> None:
    run_sh = normal(example / "run.sh")

    async def go(ls: HeldServer) -> None:
        ls.state.open(run_sh, run_sh.read_text(), 7)
        ls.let_go.set()
        ls.schedule({run_sh})
        await _settled(ls)

    ls = HeldServer()
    asyncio.run(go(ls))
    assert len(ls.rounds) == 1
    assert [version for path, version, _ in ls.published if path == run_sh] == [7]


def test_keystrokes_leave_nothing_behind_in_the_protocol(example: Path) -> None:
    """pygls keeps a future per notification its generator handlers run (about 1 KB a keystroke,
    for the server's life); the server drops the finished ones. 2,000 edits leave none."""
    import json

    from recipelint.server import app

    run_sh = normal(example / "run.sh")
    uri = run_sh.as_uri()

    def send(ls: RecipelintServer, message: dict[str, object]) -> None:
        app._handle(ls, json.dumps({"jsonrpc": "2.0", **message}).encode())

    async def go(ls: RecipelintServer) -> int:
        class Nowhere:
            def write(self, data: object) -> None:
                pass

            def close(self) -> None:
                pass

        ls.protocol.set_writer(Nowhere())
        send(ls, {"id": 1, "method": "initialize", "params": {"capabilities": {}, "initializationOptions": {"debounceMs": 10_000}}})
        send(ls, {"method": "initialized", "params": {}})
        opened = {"uri": uri, "languageId": "shellscript", "version": 1, "text": run_sh.read_text()}
        send(ls, {"method": "textDocument/didOpen", "params": {"textDocument": opened}})
        for key in range(2000):
            where = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": key % 2}}
            change = {"range": where, "text": "" if key % 2 else "x"}
            send(
                ls,
                {
                    "method": "textDocument/didChange",
                    "params": {"textDocument": {"uri": uri, "version": key + 2}, "contentChanges": [change]},
                },
            )
        await asyncio.sleep(0)
        if ls._scheduled is not None:
            ls._scheduled.cancel()
        return len(ls.protocol._request_futures)

    ls = app.server  # the features are registered on the module's instance
    ls.state = Workspace()
    assert asyncio.run(go(ls)) == 0
    assert ls.state.documents[run_sh].version == 2001
