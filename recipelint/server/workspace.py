"""What the server knows between messages: the open documents, the settings in force, and what
each check read, so that a change in one file re-checks every recipe that reads it.

A check is `recipelint check PATH` for an open document's path, run by the engine with the
open documents' texts in a FileCache overlay: the findings are those `check` gives for the same
files on disk. A config an open run script's check already reads is not checked a second time
alone: its findings come with that script's launches. No LSP type is used here."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from recipelint.parse import kind_of
from recipelint.parse.files import FileCache, SourceError
from recipelint.records import dataclass, field
from recipelint.toolkits import SHELL_KINDS

if TYPE_CHECKING:
    from recipelint.checkoptions import CheckOptions
    from recipelint.context import Context
    from recipelint.diagnostics import Diagnostic
    from recipelint.hardware.profile import Hardware
    from recipelint.model import Recipe
    from recipelint.settings import Resolver

# The files whose change changes the settings in force (the settings' own names; the profile
# each names is watched by its path).
SETTINGS_NAMES = ("recipelint.toml", ".recipelint.toml", "pyproject.toml")


def normal(path: Path) -> Path:
    """One spelling per file: absolute and lexically normalised (links kept, as `check` shows them)."""
    return Path(os.path.normpath(os.path.abspath(path)))


class Overlay(dict[Path, bytes]):
    """The open documents' texts, found under any spelling of their path: a check names a
    config as its launch wrote it (`conf/train.yaml`, relative to the working folder, or with
    `..`), the editor by an absolute URI."""

    def get(self, key: Path, default: bytes | None = None) -> bytes | None:  # type: ignore[override]
        found = super().get(key)
        return found if found is not None else super().get(normal(key), default)

    def __contains__(self, key: object) -> bool:
        return super().__contains__(key) or (isinstance(key, Path) and super().__contains__(normal(key)))

    def copy(self) -> Overlay:
        return Overlay(self)


@dataclass
class Document:
    path: Path
    data: bytes
    version: int | None = None


@dataclass
class Recheck:
    """One round of checks, planned on the server's event loop and run on a worker thread: the
    open documents' texts and versions as they were when it was planned, and a copy of the
    checks it starts from, so that the messages that arrive meanwhile (edits, hovers) read and
    change the workspace without racing the thread. `apply` takes the result back on the loop."""

    paths: set[Path]
    documents: dict[Path, Document]
    checked: dict[Path, Checked]
    publish: set[Path] = field(default_factory=set)


@dataclass
class Checked:
    """One check of one path: its findings and errors, every file it read or reported on, the
    file cache it read them through, and each recipe's context (hover, related files)."""

    diagnostics: list[Diagnostic]
    errors: list[SourceError]
    touched: set[Path]
    sources: FileCache
    contexts: list[tuple[Context, list[Diagnostic]]] = field(default_factory=list)
    recipe_of: dict[int, Recipe] = field(default_factory=dict)  # id(diagnostic) -> its recipe


class Configuration:
    """The settings (recipelint.toml, [tool.recipelint]) and the profiles they name, read again
    when one of them changes: a cheap stat of each before every check, and whenever the editor
    says a watched file changed."""

    def __init__(self, hardware: Path | None = None) -> None:
        self.hardware = hardware  # `--hardware`: a profile, or `host`
        self._resolver: Resolver | None = None
        self._loader: Callable[[], Hardware] | None = None
        self._seen: dict[Path, int | None] = {}

    def resolver(self) -> Resolver:
        if self._resolver is not None and self._seen != self._signature(self._resolver):
            self.reset()
        if self._resolver is None:
            from recipelint.settings import Resolver

            self._resolver = Resolver()
            self._seen = {}
        return self._resolver

    def options(self) -> CheckOptions:
        """`check`'s options as the server was started with them (recipelint.checkoptions): the
        record the command line fills, so an option the server takes is the same option."""
        from recipelint.checkoptions import CheckOptions

        return CheckOptions(hardware=self.hardware)

    def loader(self) -> Callable[[], Hardware] | None:
        """The --hardware profile's loader, loaded once until the profile changes."""
        if self.hardware is None:
            return None
        if self._loader is None:
            from recipelint.hardware.machines import ProfileLoader

            self._loader = ProfileLoader(self.hardware)
        return self._loader

    def settled(self) -> None:
        """Remember the files the settings were read from, as they are now (after a check read them)."""
        if self._resolver is not None:
            self._seen = self._signature(self._resolver)

    def reset(self) -> None:
        self._resolver = None
        self._loader = None

    def concerns(self, path: Path) -> bool:
        """Whether a change to `path` may change the settings or the hardware a check uses."""
        return path.name in SETTINGS_NAMES or path in self._seen or (self.hardware is not None and normal(self.hardware) == path)

    def _signature(self, resolver: Resolver) -> dict[Path, int | None]:
        paths = {normal(p) for s in resolver.loaded() for p in (s.source, s.hardware) if p is not None}
        paths.update(normal(p) for p in resolver.failed)
        if self.hardware is not None and str(self.hardware) != "host":
            paths.add(normal(self.hardware))
        return {path: _mtime(path) for path in paths}


def _covered(checked: dict[Path, Checked], path: Path) -> bool:
    """A config an open run script's check reads: checked with that script's launches."""
    if kind_of(path) in SHELL_KINDS:
        return False
    return any(other != path and kind_of(other) in SHELL_KINDS and path in c.touched for other, c in checked.items())


def _mtime(path: Path) -> int | None:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return None


class Workspace:
    def __init__(self, hardware: Path | None = None) -> None:
        self.documents: dict[Path, Document] = {}
        self.checked: dict[Path, Checked] = {}
        self.config = Configuration(hardware)
        self.encoding = "utf-16"  # the position encoding agreed with the client
        # What the checks learnt of the toolkits' code (a checkout's train.py flags, who reads a
        # DeepSpeed JSON): kept between keystrokes in recipes, forgotten on any save, change on
        # disk or change to a Python document (`forget_code`).
        self._code = FileCache()
        # Which launches name which configs (recipelint.launchindex), kept between keystrokes: a
        # config opened alone does not send each check through the repository again; a changed
        # document, or a file the editor says changed on disk, is forgotten (`touched`)
        from recipelint.launchindex import Index

        self.index = Index()
        # Files whose index entries are to be made again: told by the editor on the event loop,
        # forgotten by the index on the check's thread (the index is the check's alone).
        self._stale: set[Path] = set()
        self._stale_lock = threading.Lock()

    # -- documents --------------------------------------------------------------------------

    def open(self, path: Path, text: str, version: int | None) -> bool:
        """Take in an opened document; whether it needs a check (False: a check already read
        these very bytes from disk, so its findings stand)."""
        data = text.encode("utf-8")
        self.documents[path] = Document(path, data, version)
        if not any(path in checked.touched for checked in self.checked.values()):
            return True
        try:
            return FileCache().read(path).data != data
        except SourceError:
            return True

    def change(self, path: Path, text: str, version: int | None) -> None:
        self.documents[path] = Document(path, text.encode("utf-8"), version)
        self.stale([path])
        if kind_of(path) == "python" or kind_of(path) is None:
            self.forget_code()

    def touched(self, paths: Iterable[Path]) -> None:
        """Files changed on disk (the editor's watched-file events): what the index made of them goes."""
        self.stale(paths)

    def stale(self, paths: Iterable[Path]) -> None:
        with self._stale_lock:
            self._stale.update(paths)

    def _forget_stale(self) -> None:
        with self._stale_lock:
            stale, self._stale = self._stale, set()
        for path in stale:
            self.index.forget(path)

    def close(self, path: Path) -> None:
        self.documents.pop(path, None)
        self.stale([path])  # its text on disk is what counts again

    def forget_code(self) -> None:
        self._code = FileCache()

    def overlay(self, documents: dict[Path, Document] | None = None) -> dict[Path, bytes]:
        documents = self.documents if documents is None else documents
        return Overlay((path, document.data) for path, document in documents.items())

    def files(self, documents: dict[Path, Document] | None = None) -> FileCache:
        """A fresh file cache over the open documents (or a planned round's copy of them), with
        the code reads kept (see __init__)."""
        code = self._code
        self.index.new_run()
        return FileCache(
            overlay=self.overlay(documents),
            checkouts=code.checkouts,
            checkout_code=code.checkout_code,
            code_reads=code.code_reads,
            launch_index=self.index,
        )

    # -- checks -----------------------------------------------------------------------------

    def readers(self, changed: Iterable[Path]) -> set[Path]:
        """The paths to check again after `changed` changed: the checks that read one of them,
        and each open document among them that no check has yet (nor reads)."""
        changed = set(changed)
        paths = {path for path, checked in self.checked.items() if checked.touched & changed}
        paths.update(path for path in changed if path in self.documents and path not in self.checked and not self._covered(path))
        return paths

    def recheck(self, changed: Iterable[Path], everything: bool = False) -> set[Path]:
        """Check again what `changed` concerns (or every open document), in this thread; the
        files whose findings are to be published again."""
        return self.apply(self.run(self.plan(changed, everything)))

    def plan(self, changed: Iterable[Path], everything: bool = False) -> Recheck:
        """What a round checks, and the documents and checks it starts from (on the event loop)."""
        paths = set(self.documents) | set(self.checked) if everything else self.readers(changed)
        return Recheck(paths, dict(self.documents), dict(self.checked))

    def run(self, job: Recheck) -> Recheck:
        """Check a planned round (on a worker thread: it reads the round's copies only, and the
        index and settings, which no message handler touches); the files whose findings are to
        be published again are those the checks touched before and after."""
        self._forget_stale()
        checked = job.checked
        for path in job.paths:
            before = checked.pop(path, None)
            if before is not None:
                job.publish |= before.touched
        # run scripts first: a config one of them reads is then checked with its launches; an
        # open config whose script was closed is checked alone again
        todo = {path for path in job.paths if path in job.documents} | {path for path in job.documents if path not in checked}
        for path in sorted(todo, key=lambda path: (kind_of(path) not in SHELL_KINDS, str(path))):
            if path in checked or _covered(checked, path):
                continue
            found = self.check(path, job.documents)
            checked[path] = found
            job.publish |= found.touched
        for path in [path for path in checked if _covered(checked, path)]:
            job.publish |= checked.pop(path).touched
        return job

    def apply(self, job: Recheck) -> set[Path]:
        """Take a round's checks in (on the event loop); the files to publish again. A document
        closed meanwhile is checked again by the round its closing scheduled."""
        self.checked = job.checked
        return job.publish

    def _covered(self, path: Path) -> bool:
        return _covered(self.checked, path)

    def check(self, path: Path, documents: dict[Path, Document] | None = None) -> Checked:
        """`recipelint check PATH` over the open documents' texts (or a planned round's copy)."""
        from recipelint import engine

        files = self.files(documents)
        resolver = self.config.resolver()
        contexts: list[tuple[Context, list[Diagnostic]]] = []
        try:
            result = engine.check(
                [path],
                self.config.options(),
                hardware=self.config.loader(),
                files=files,
                resolver=resolver,
                keep_recipes=False,
                observe=lambda c, f: contexts.append((c, f)),
            )
        except SourceError as error:  # the settings themselves (read before any target): one line, as check says it
            return Checked([], [error], {path, normal(error.path)}, files)
        self.config.settled()
        checked = Checked(result.diagnostics, result.errors, {path}, files, contexts)
        for ctx, found in contexts:
            checked.touched.update(normal(p) for p in ctx.recipe.files)
            for diagnostic in found:
                checked.recipe_of[id(diagnostic)] = ctx.recipe
        checked.touched.update(normal(d.span.path) for d in result.diagnostics if d.span.path.name != "<command>")
        checked.touched.update(normal(e.path) for e in result.errors)
        return checked

    # -- what to publish --------------------------------------------------------------------

    def findings(self, path: Path) -> tuple[list[tuple[Diagnostic, Checked]], list[tuple[SourceError, Checked]]]:
        """The findings and errors on one file, from every check that touched it, each once."""
        found: dict[tuple[str, int, int, str], tuple[Diagnostic, Checked]] = {}
        errors: dict[str, tuple[SourceError, Checked]] = {}
        for checked in self.checked.values():
            if path not in checked.touched:
                continue
            for diagnostic in checked.diagnostics:
                if normal(diagnostic.span.path) == path:
                    span = diagnostic.span
                    found.setdefault((diagnostic.code, span.start, span.end, diagnostic.message), (diagnostic, checked))
            for error in checked.errors:
                if normal(error.path) == path:
                    errors.setdefault(str(error), (error, checked))
        ordered = sorted(found.values(), key=lambda item: (item[0].span.start, item[0].code))
        return ordered, list(errors.values())

    def data(self, path: Path, checked: Checked | None = None) -> bytes | None:
        """The bytes positions are counted in: the open document's, else the file's."""
        document = self.documents.get(path)
        if document is not None:
            return document.data
        try:
            return (checked.sources if checked is not None else FileCache()).read(path).data
        except SourceError:
            return None
