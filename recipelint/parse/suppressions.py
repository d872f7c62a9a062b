"""Inline suppressions as written: `# recipelint: ignore[CODE] reason` on the line or the line
above, `# recipelint: ignore-file[CODE] reason` in the comments at the top of a file."""

from __future__ import annotations

import re
from pathlib import Path

from recipelint.parse import kind_of
from recipelint.parse.files import FileCache, SourceError
from recipelint.parse.span import Span
from recipelint.records import dataclass, field

_PATTERN = re.compile(r"#\s*recipelint:\s*(ignore|ignore-file)\[([A-Za-z0-9_,\s-]*)\]\s*(.*)$")


@dataclass
class Suppression:
    span: Span  # the comment
    codes: list[str]
    reason: str
    whole_file: bool
    standalone: bool  # the comment is alone on its line: it covers the next line
    used: set[str] = field(default_factory=set)

    def covers(self, code: str, line: int) -> bool:
        if not any(code.startswith(c) or c == "ALL" for c in self.codes):
            return False
        return self.whole_file or line == self.span.line or (self.standalone and line == self.span.line + 1)


def read_suppressions(path: Path, files: FileCache) -> list[Suppression]:
    if kind_of(path) == "json":
        return []  # JSON has no comments: per-file-ignores in the config serve it
    try:
        source = files.read(path)
    except SourceError:
        return []
    if "recipelint:" not in source.text:
        return []
    found = []
    in_header = True
    for number, line in enumerate(source.text.splitlines(), start=1):
        stripped = line.strip()
        match = _PATTERN.search(line)
        if match:
            kind, codes, reason = match.groups()
            standalone = stripped.startswith("#")
            whole = kind == "ignore-file" and in_header  # elsewhere it matches nothing and is reported
            start = source.offset(number - 1, match.start())
            end = source.offset(number - 1, len(line.rstrip("\r")))
            span = source.span(start, end)
            found.append(
                Suppression(
                    span,
                    [c.strip().upper() for c in codes.split(",") if c.strip()],
                    reason.strip(),
                    whole and kind == "ignore-file",
                    standalone,
                )
            )
        if stripped and not stripped.startswith("#") and not stripped.startswith("---"):
            in_header = False
    return found
