"""Reading files once, and the one error type every front end raises for bad input."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from recipelint import deps
from recipelint.deps import Memo
from recipelint.parse.span import SourceText
from recipelint.records import dataclass, field

# A config larger than this is not a config (the largest in the corpus is 9 KB); refusing it
# keeps time and memory bounded. data.list files are streamed, not read through here.
MAX_FILE_BYTES = 16 * 1024 * 1024


class SourceError(Exception):
    """Bad input: reported as one line `path:line:col: reason`, never as a traceback."""

    def __init__(self, path: Path, reason: str, line: int = 0, column: int = 0) -> None:
        super().__init__(reason)
        self.path = path
        self.reason = reason
        self.line = line
        self.column = column

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}:{self.column}" if self.line else f"{self.path}"
        return f"{where}: {self.reason}"

    def __reduce__(self) -> tuple[type[SourceError], tuple[Path, str, int, int]]:
        return SourceError, (self.path, self.reason, self.line, self.column)  # a worker process sends it back


@dataclass
class FileCache:
    """Each file is read once per run, however many recipes share it.

    `overlay` holds edited contents that have not been written, so `fix --diff`
    can check its own output without touching the disk.
    """

    overlay: dict[Path, bytes] = field(default_factory=dict)
    _texts: Memo[Path, SourceText] = field(default_factory=Memo)
    # folder -> [(run script, the configs it names)], and (folder, ".git") -> whether the search
    # stops there; filled by the engine's upward search, which finds the targets (not cached)
    named: Memo[Any, Any] = field(default_factory=lambda: Memo(record=False))
    # (toolkit, folder, PYTHONPATH entries) -> the checkout found for it (recipelint.parse.checkout)
    checkouts: Memo[tuple[str, Path, tuple[Path, ...]], Any] = field(default_factory=Memo)
    # the first checkout found at a folder: recipes that share a checkout share what was read from it
    checkout_code: dict[tuple[str, Path], Any] = field(default_factory=dict)

    def read(self, path: Path) -> SourceText:
        return self._texts.get(path, lambda: self._load(path))

    def _load(self, path: Path) -> SourceText:
        data = self.overlay.get(path)
        if data is None:
            data = read_bytes(path)
            if deps.active():
                deps.content(str(path), data)
        if b"\x00" in data[:8192]:
            raise SourceError(path, "binary file, not a text config")
        try:
            text = SourceText(path, data)
        except UnicodeDecodeError as exc:
            line = data[: exc.start].count(b"\n") + 1
            column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
            raise SourceError(path, "not valid UTF-8 text", line, column) from None
        return text

    def forget(self, path: Path) -> None:
        self._texts.pop(path)


def read_bytes(path: Path) -> bytes:
    try:
        size = os.stat(path).st_size
        if size > MAX_FILE_BYTES:
            raise SourceError(path, f"file is {size // (1024 * 1024)} MiB, over the 16 MiB limit for a config", 1, 1)
        with open(path, "rb") as handle:
            return handle.read()
    except SourceError:
        raise
    except IsADirectoryError:
        raise SourceError(path, "is a directory") from None
    except FileNotFoundError:
        raise SourceError(path, "no such file") from None
    except PermissionError:
        raise SourceError(path, "permission denied") from None
    except RuntimeError:  # a symlink loop, on some Pythons
        raise SourceError(path, "a symlink loop") from None
    except OSError as exc:
        if exc.errno == 40:  # ELOOP
            raise SourceError(path, "a symlink loop") from None
        raise SourceError(path, exc.strerror or str(exc)) from None
