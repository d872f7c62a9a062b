"""The server's wiring to pygls: the document events, the checks they schedule, what is
published, the code actions, the fix-all command and hover.

Checks are debounced: each change (re)starts a short timer, and the check runs when no change
came for that long. By default the window is 2 ms, enough for the changes already waiting in
the pipe (keys typed while a check ran) to be read first and checked together, and too short to
be felt; `debounceMs` in the initialization options sets another.

Checks run on one worker thread, off the event loop: a hover, a code action or the next edit is
answered while a long check runs. One round runs at a time; the changes that arrive meanwhile
are checked together by the next round, and a document edited since its round read it is not
published from that round (its positions would be the old text's)."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, BinaryIO

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from recipelint import __version__
from recipelint.server import actions, convert, hover
from recipelint.server.positions import offset
from recipelint.server.workspace import Recheck, Workspace, normal

logger = logging.getLogger(__name__)

DEBOUNCE = 0.002  # seconds: reading one waiting message from the pipe takes well under a millisecond


class RecipelintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("recipelint", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.state = Workspace()
        self.debounce = DEBOUNCE
        self._pending: set[Path] = set()
        self._everything = False
        self._scheduled: asyncio.TimerHandle | None = None
        self._told: set[str] = set()  # the profile's errors already shown
        self._checker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="recipelint-check")
        self._running: asyncio.Future[Recheck] | None = None

    def schedule(self, changed: set[Path], everything: bool = False) -> None:
        """Check what the changes concern once no change came for `debounce` seconds."""
        self._pending |= changed
        self._everything |= everything
        if self._scheduled is not None:
            self._scheduled.cancel()
        self._scheduled = asyncio.get_running_loop().call_later(self.debounce, self.flush)

    def flush(self) -> None:
        """Start a round for the changes waiting, unless one runs: its end starts the next."""
        self._scheduled = None
        if self._running is not None or not (self._pending or self._everything):
            return
        changed, everything = self._pending, self._everything
        self._pending, self._everything = set(), False
        job = self.state.plan(changed, everything)
        self._running = asyncio.get_running_loop().run_in_executor(self._checker, self.state.run, job)
        self._running.add_done_callback(lambda done: self.finished(done, changed))

    def finished(self, done: asyncio.Future[Recheck], changed: set[Path]) -> None:
        """A round ended (on the event loop): its checks taken in and published, and the
        changes that came meanwhile checked next."""
        self._running = None
        try:
            job = done.result()
        except Exception as exc:  # a bug of ours must not end the server: one line, as the CLI says it
            said = f"recipelint: internal error: {type(exc).__name__}: {exc}"
            logger.error("%s (set RECIPELINT_DEBUG=1 for a traceback)", said)
            if os.environ.get("RECIPELINT_DEBUG"):
                logger.error("the traceback", exc_info=exc)
            self.window_show_message(types.ShowMessageParams(types.MessageType.Error, said))
        else:
            publish = self.state.apply(job)
            # the documents that changed first: their answer is what the editor waits for
            for path in sorted(publish, key=lambda path: (path not in changed, str(path))):
                if not self._edited_since(job, path):
                    self.publish(path)
            self.tell_profile()
        if self._pending or self._everything:
            self.schedule(set())

    def _edited_since(self, job: Recheck, path: Path) -> bool:
        """Whether the document changed after the round read it: the next round publishes it."""
        now, then = self.state.documents.get(path), job.documents.get(path)
        return now is not None and (then is None or now.data is not then.data) and path in self._pending

    def tell_profile(self) -> None:
        """A profile that cannot be used (missing, a device, not a profile) is no open document's:
        said once in a message, not left as empty diagnostics."""
        hardware = self.state.config.hardware
        if hardware is None:
            return
        said = {str(e) for checked in self.state.checked.values() for e in checked.errors if normal(e.path) == normal(hardware)}
        for line in sorted(said - self._told):
            self.window_show_message(types.ShowMessageParams(types.MessageType.Error, f"recipelint: {line}"))
        self._told = said

    def publish(self, path: Path) -> None:
        found, errors = self.state.findings(path)
        items = [convert.diagnostic(self.state, d, checked) for d, checked in found]
        items.extend(convert.error(error) for error, _ in errors)
        document = self.state.documents.get(path)
        params = types.PublishDiagnosticsParams(uri=convert.uri(path), diagnostics=items, version=document.version if document else None)
        self.text_document_publish_diagnostics(params)


server = RecipelintServer()


def _path(uri: str) -> Path | None:
    """The file a URI names; None for a document that is no file (an unsaved `untitled:` buffer,
    a diff view), which no check can place among its recipe's files."""
    if not uri.startswith("file:"):
        return None
    found = to_fs_path(uri)
    return normal(Path(found)) if found else None


def _text(ls: RecipelintServer, uri: str) -> str:
    return ls.workspace.get_text_document(uri).source


@server.feature(types.INITIALIZE)
def initialize(ls: RecipelintServer, params: types.InitializeParams) -> None:
    options: Any = params.initialization_options or {}
    if isinstance(options, dict):
        hardware = options.get("hardware")
        if isinstance(hardware, str) and hardware:
            ls.state.config.hardware = Path(hardware)
        debounce = options.get("debounceMs")
        if isinstance(debounce, (int, float)) and 0 <= debounce <= 10_000:
            ls.debounce = debounce / 1000


@server.feature(types.INITIALIZED)
def initialized(ls: RecipelintServer, params: types.InitializedParams) -> None:
    ls.state.encoding = str(ls.workspace.position_encoding or "utf-16")
    watchers = [types.FileSystemWatcher(glob_pattern=f"**/{name}") for name in ("recipelint.toml", ".recipelint.toml", "pyproject.toml")]
    watchers.extend(types.FileSystemWatcher(glob_pattern=f"**/*.{suffix}") for suffix in ("sh", "yaml", "yml", "json", "md", "py", "list"))
    registration = types.Registration(
        id="recipelint-watch",
        method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
        register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers),
    )
    dynamic = ls.client_capabilities.workspace and ls.client_capabilities.workspace.did_change_watched_files
    if dynamic and dynamic.dynamic_registration:
        ls.client_register_capability(types.RegistrationParams(registrations=[registration]))
        ls.state.index.told = True  # launch files that change on disk are told: the index keeps what it read


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: RecipelintServer, params: types.DidOpenTextDocumentParams) -> None:
    path = _path(params.text_document.uri)
    if path is None:
        return
    if ls.state.open(path, params.text_document.text, params.text_document.version):
        ls.schedule({path})
    else:
        ls.publish(path)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: RecipelintServer, params: types.DidChangeTextDocumentParams) -> None:
    path = _path(params.text_document.uri)
    if path is None:
        return
    ls.state.change(path, _text(ls, params.text_document.uri), params.text_document.version)
    ls.schedule({path})


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: RecipelintServer, params: types.DidSaveTextDocumentParams) -> None:
    path = _path(params.text_document.uri)
    if path is None:
        return
    ls.state.forget_code()
    if ls.state.config.concerns(path):
        ls.state.config.reset()
        ls.schedule(set(), everything=True)
    else:
        ls.schedule({path})


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: RecipelintServer, params: types.DidCloseTextDocumentParams) -> None:
    path = _path(params.text_document.uri)
    if path is None:
        return
    ls.state.close(path)
    ls.schedule({path})


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched_files(ls: RecipelintServer, params: types.DidChangeWatchedFilesParams) -> None:
    """A file changed on disk (a branch switched, a profile probed, the settings edited)."""
    paths = {path for change in params.changes if (path := _path(change.uri)) is not None}
    ls.state.forget_code()
    ls.state.touched(paths)
    if any(ls.state.config.concerns(path) for path in paths):
        ls.state.config.reset()
        ls.schedule(paths, everything=True)
    else:
        ls.schedule(paths)


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, types.CodeActionKind.SourceFixAll]),
)
def code_action(ls: RecipelintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    path = _path(params.text_document.uri)
    return actions.code_actions(ls.state, path, params.range) if path is not None else []


@server.command(actions.FIX_ALL)
def fix_all(ls: RecipelintServer, uri: str) -> dict[str, int]:
    """Apply every safe fix of a document through the client (workspace/applyEdit)."""
    path = _path(uri)
    if path is None:
        return {"fixed": 0}
    edit, fixed = actions.fix_all(ls.state, path)
    if edit.changes:
        ls.workspace_apply_edit(types.ApplyWorkspaceEditParams(edit=edit, label="recipelint: fix all"))
    return {"fixed": fixed}


@server.feature(types.TEXT_DOCUMENT_HOVER)
def on_hover(ls: RecipelintServer, params: types.HoverParams) -> types.Hover | None:
    path = _path(params.text_document.uri)
    data = ls.state.data(path) if path is not None else None
    if path is None or data is None:
        return None
    at = offset(data, params.position.line, params.position.character, ls.state.encoding)
    text = hover.hover_text(ls.state, path, at)
    if text is None:
        return None
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text))


class _Quiet(logging.Filter):
    """Log records keep their one line; their tracebacks only with RECIPELINT_DEBUG set."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not os.environ.get("RECIPELINT_DEBUG"):
            line = record.getMessage().split("\n", 1)[0]
            record.msg, record.args = line[:300], ()
            record.exc_info, record.exc_text, record.stack_info = None, None, None
        return True


def main() -> None:
    logging.basicConfig(level=logging.WARNING)  # stderr: stdout carries the protocol
    for handler in logging.getLogger().handlers:
        handler.addFilter(_Quiet())
    serve(server, sys.stdin.buffer, sys.stdout.buffer)


def serve(ls: RecipelintServer, stdin: BinaryIO, stdout: BinaryIO) -> None:
    """pygls's IO server with recipelint.server.frames reading the wire (pygls's reader went
    silent after one bad frame). stdin is read by a daemon thread: exit never waits on it."""
    import threading

    from pygls.io_ import StdoutWriter

    ls._stop_event = threading.Event()
    ls.protocol.set_writer(StdoutWriter(stdout))
    try:
        asyncio.run(_read(ls, stdin))
    except BrokenPipeError:
        logger.error("recipelint server: the client closed the connection")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        ls._checker.shutdown(wait=False, cancel_futures=True)  # a round still running ends with the process
        ls.shutdown()  # type: ignore[no-untyped-call]


async def _read(ls: RecipelintServer, stdin: BinaryIO) -> None:
    import threading

    from recipelint.server.frames import Frames

    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[bytes] = asyncio.Queue()

    def pump() -> None:
        while True:
            try:
                data = os.read(stdin.fileno(), 1 << 16)
            except OSError:
                data = b""
            loop.call_soon_threadsafe(queue.put_nowait, data)
            if not data:
                return

    threading.Thread(target=pump, name="recipelint-stdin", daemon=True).start()
    frames = Frames()
    assert ls._stop_event is not None
    while not ls._stop_event.is_set():
        data = await queue.get()
        if not data:
            return
        for body in frames.feed(data):
            _handle(ls, body)
        for why in frames.refused:
            logger.warning("recipelint server: %s", why)
        frames.refused.clear()


def _handle(ls: RecipelintServer, body: bytes) -> None:
    """One frame's message to pygls; a malformed one answered with a JSON-RPC error (when it
    has an id, or is no JSON at all), never dropped in silence."""
    import json

    from pygls.exceptions import JsonRpcException

    from recipelint.server.frames import INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR, error_response, request_id

    found, why = request_id(body)
    if why is None:
        try:
            message = json.loads(body, object_hook=ls.protocol.structure_message)
        except JsonRpcException as exc:
            why = (
                f"invalid params: {exc.message or type(exc).__name__}" if exc.code == INVALID_PARAMS else f"invalid request: {exc.message}"
            )
        except (ValueError, TypeError, KeyError, RecursionError) as exc:
            why = f"invalid request: {type(exc).__name__}"
        else:
            ls.protocol.handle_message(message)
            _drop_finished(ls)
            return
    logger.warning("recipelint server: %s", why)
    code = PARSE_ERROR if why.startswith("parse") else INVALID_PARAMS if why.startswith("invalid params") else INVALID_REQUEST
    if found is not None or code == PARSE_ERROR:
        assert ls.protocol.writer is not None
        ls.protocol.writer.write(error_response(found, code, why))


def _drop_finished(ls: RecipelintServer) -> None:
    """pygls 2 keeps the future of every notification its generator handlers run (didOpen,
    didChange, didClose: `_execute_handler` files them under a fresh uuid that nothing pops), about
    1 KB per keystroke for the server's life. A finished one is no request still to be answered
    (those pop their own when they answer): dropped here, the futures dict stays as small as the
    requests in flight."""
    futures = ls.protocol._request_futures
    for key in [key for key, future in futures.items() if future.done()]:
        del futures[key]
