"""A real LSP client (pygls's) driving `python -m recipelint server` over stdio, for the server
tests and the latency bench: each wait is on the server's own message, never on a sleep."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient

TIMEOUT = 60.0
LANGUAGE = {".sh": "shellscript", ".yaml": "yaml", ".yml": "yaml", ".json": "json", ".md": "markdown", ".py": "python"}
SEVERITY = {"error": 1, "warning": 2, "info": 3}


class Session:
    """One server process and what it published: per URI, every diagnostics list in order."""

    def __init__(self, cwd: Path, options: dict[str, Any] | None = None) -> None:
        self.cwd = cwd
        self.options = options or {}
        self.client = LanguageClient("recipelint-tests", "1")
        self.published: dict[str, list[types.PublishDiagnosticsParams]] = {}
        self.applied: list[types.WorkspaceEdit] = []
        self.registrations: list[types.Registration] = []
        self._arrived = asyncio.Condition()
        self.versions: dict[str, int] = {}

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)  # type: ignore[untyped-decorator]
        async def on_publish(params: types.PublishDiagnosticsParams) -> None:
            async with self._arrived:
                self.published.setdefault(params.uri, []).append(params)
                self._arrived.notify_all()

        @self.client.feature(types.WORKSPACE_APPLY_EDIT)  # type: ignore[untyped-decorator]
        def on_apply(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
            self.applied.append(params.edit)
            return types.ApplyWorkspaceEditResult(applied=True)

        @self.client.feature(types.CLIENT_REGISTER_CAPABILITY)  # type: ignore[untyped-decorator]
        def on_register(params: types.RegistrationParams) -> None:
            self.registrations.extend(params.registrations)

    async def start(self, *args: str) -> types.InitializeResult:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        await self.client.start_io(sys.executable, "-m", "recipelint", "server", *args, cwd=str(self.cwd), env=env)
        capabilities = types.ClientCapabilities(
            workspace=types.WorkspaceClientCapabilities(
                apply_edit=True, did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(dynamic_registration=True)
            )
        )
        result = await asyncio.wait_for(
            self.client.initialize_async(
                types.InitializeParams(capabilities=capabilities, root_uri=self.cwd.as_uri(), initialization_options=self.options)
            ),
            TIMEOUT,
        )
        self.client.initialized(types.InitializedParams())
        return result

    async def stop(self) -> None:
        await asyncio.wait_for(self.client.shutdown_async(None), TIMEOUT)
        self.client.exit(None)
        await self.client.stop()  # type: ignore[no-untyped-call]

    def count(self, path: Path) -> int:
        return len(self.published.get(path.as_uri(), []))

    async def wait(
        self, path: Path, after: int = 0, test: Callable[[types.PublishDiagnosticsParams], bool] = lambda p: True
    ) -> list[types.Diagnostic]:
        """The first diagnostics published for `path` after the `after`-th that pass `test`."""
        uri = path.as_uri()

        def found() -> types.PublishDiagnosticsParams | None:
            return next((p for p in self.published.get(uri, [])[after:] if test(p)), None)

        async with self._arrived:
            await asyncio.wait_for(self._arrived.wait_for(lambda: found() is not None), TIMEOUT)
        params = found()
        assert params is not None
        return list(params.diagnostics)

    async def open(self, path: Path) -> list[types.Diagnostic]:
        before = self.count(path)
        self.versions[path.as_uri()] = 1
        item = types.TextDocumentItem(path.as_uri(), LANGUAGE.get(path.suffix, "plaintext"), 1, path.read_text(encoding="utf-8"))
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(item))
        return await self.wait(path, before)

    def change(self, path: Path, text: str) -> int:
        """Send the whole new text (the server syncs incrementally; a full change is one too)."""
        version = self.versions[path.as_uri()] = self.versions.get(path.as_uri(), 1) + 1
        document = types.VersionedTextDocumentIdentifier(uri=path.as_uri(), version=version)
        change = types.TextDocumentContentChangeWholeDocument(text=text)
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(document, [change]))
        return version

    def edit(self, path: Path, start: tuple[int, int], end: tuple[int, int], text: str) -> int:
        """One incremental change, as an editor sends for a keystroke."""
        version = self.versions[path.as_uri()] = self.versions.get(path.as_uri(), 1) + 1
        document = types.VersionedTextDocumentIdentifier(uri=path.as_uri(), version=version)
        where = types.Range(types.Position(*start), types.Position(*end))
        change = types.TextDocumentContentChangePartial(range=where, text=text)
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(document, [change]))
        return version

    async def changed(self, path: Path, text: str) -> list[types.Diagnostic]:
        version = self.change(path, text)
        return await self.wait(path, 0, lambda p: p.version == version)

    async def actions(self, path: Path, line: int = 0, end_line: int = 10**6) -> list[types.CodeAction | types.Command]:
        params = types.CodeActionParams(
            types.TextDocumentIdentifier(path.as_uri()),
            types.Range(types.Position(line, 0), types.Position(end_line, 0)),
            types.CodeActionContext(diagnostics=[]),
        )
        found: Any = await asyncio.wait_for(self.client.text_document_code_action_async(params), TIMEOUT)
        return list(found or [])

    async def command(self, name: str, *arguments: Any) -> Any:
        params = types.ExecuteCommandParams(command=name, arguments=list(arguments))
        return await asyncio.wait_for(self.client.workspace_execute_command_async(params), TIMEOUT)

    async def hover(self, path: Path, line: int, character: int) -> types.Hover | None:
        params = types.HoverParams(types.TextDocumentIdentifier(path.as_uri()), types.Position(line, character))
        return await asyncio.wait_for(self.client.text_document_hover_async(params), TIMEOUT)


def run(coroutine: Callable[[], Any]) -> Any:
    return asyncio.run(coroutine())


def cli_check(cwd: Path, *args: str) -> dict[str, Any]:
    """`recipelint check --format json ARGS` in `cwd`, as the command line gives it."""
    done = subprocess.run(
        [sys.executable, "-m", "recipelint", "check", "--no-cache", "--format", "json", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def cli_findings(cwd: Path, path: Path, *args: str) -> list[tuple[str, int, int, int, int, int]]:
    """What `check` reports on `path`: (code, severity, start line, column, end line, column), 0-based."""
    report = cli_check(cwd, *args)
    return sorted(
        (d["code"], SEVERITY[d["severity"]], d["line"] - 1, d["column"] - 1, d["end_line"] - 1, d["end_column"] - 1)
        for d in report["diagnostics"]
        if (cwd / d["path"]).resolve() == path.resolve()
    )


def lsp_findings(diagnostics: Sequence[types.Diagnostic]) -> list[tuple[str, int, int, int, int, int]]:
    return sorted(
        (str(d.code), int(d.severity or 0), d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character)
        for d in diagnostics
        if d.code is not None
    )


def apply(text: str, edits: list[types.TextEdit]) -> str:
    """Apply TextEdits (UTF-16 positions) to a text, last first."""
    lines = text.split("\n")

    def index(position: types.Position) -> int:
        before = sum(len(line) + 1 for line in lines[: position.line])
        line = lines[position.line] if position.line < len(lines) else ""
        units = line.encode("utf-16-le")[: position.character * 2].decode("utf-16-le")
        return before + len(units)

    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[: index(edit.range.start)] + edit.new_text + text[index(edit.range.end) :]
    return text
