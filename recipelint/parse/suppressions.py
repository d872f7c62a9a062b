"""Inline suppressions as written: `# recipelint: ignore[CODE] reason` on the line or the line
above, `# recipelint: ignore-file[CODE] reason` in the comments at the top of a file."""

from __future__ import annotations

import re
from pathlib import Path

from recipelint.parse import kind_of
from recipelint.parse.files import FileCache, SourceError
from recipelint.parse.span import SourceText, Span
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
    # The lines it covers, first and last: the command it ends (lines continued with `\` into its
    # own), or, alone on its line, the command that starts on the next line.
    reach: tuple[int, int] = (0, 0)
    written: list[str] = field(default_factory=list)  # the codes as written (`rl101`), in order
    bracket: Span | None = None  # inside the brackets: what a fix rewrites to drop some codes
    removal: Span | None = None  # the comment with the blanks before it, or its whole line when alone on it

    def without(self, dropped: set[str]) -> tuple[Span, str] | None:
        """The edit that takes `dropped` (codes as read, upper case) out of this comment: the
        bracket's codes rewritten, or the whole comment removed when no code is left (as ruff's
        RUF100 does); the rest of the line stays byte for byte."""
        kept = [w for w, c in zip(self.written, self.codes, strict=False) if c not in dropped]
        if not kept:
            return (self.removal, "") if self.removal is not None else None
        return (self.bracket, ", ".join(kept)) if self.bracket is not None else None

    def covers(self, code: str, line: int) -> bool:
        if not any(code.startswith(c) or c == "ALL" for c in self.codes):
            return False
        if self.whole_file or line == self.span.line or (self.standalone and line == self.span.line + 1):
            return True
        return self.reach[0] <= line <= self.reach[1]


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
    lines = source.text.splitlines()
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        match = _PATTERN.search(line)
        if match:
            kind, codes, reason = match.groups()
            standalone = stripped.startswith("#")
            whole = kind == "ignore-file" and in_header  # elsewhere it matches nothing and is reported
            start = source.offset(number - 1, match.start())
            end = source.offset(number - 1, len(line.rstrip("\r")))
            span = source.span(start, end)
            written = [c.strip() for c in codes.split(",") if c.strip()]
            bracket = source.span(source.offset(number - 1, match.start(2)), source.offset(number - 1, match.end(2)))
            found.append(
                Suppression(
                    span,
                    [c.upper() for c in written],
                    reason.strip(),
                    whole and kind == "ignore-file",
                    standalone,
                    written=written,
                    bracket=bracket,
                    removal=_removal(source, span, standalone),
                    reach=_reach(lines, number, standalone),
                )
            )
        if stripped and not stripped.startswith("#") and not stripped.startswith("---"):
            in_header = False
    return found


def _removal(source: SourceText, comment: Span, standalone: bool) -> Span | None:
    """What deleting a comment removes: its whole line when it stands alone, else the comment and
    the blanks between it and the code before it (`x=1  # ...` becomes `x=1`)."""
    if standalone:
        return source.whole_lines(comment, comment)
    start = comment.start
    while start > 0 and source.data[start - 1 : start] in (b" ", b"\t"):
        start -= 1
    return source.span(start, comment.end)


def _reach(lines: list[str], number: int, standalone: bool) -> tuple[int, int]:
    """The lines a comment on line `number` covers. A comment cannot follow a `\\` that continues
    a command, so one written for a flag of a command over several lines ends the command's last
    line (or stands alone above its first) and covers every line of it."""

    def continued(line: int) -> bool:  # 1-based
        return 1 <= line <= len(lines) and lines[line - 1].rstrip().endswith("\\")

    if standalone:
        last = number + 1
        while continued(last):
            last += 1
        return number + 1, last
    first = number
    while continued(first - 1):
        first -= 1
    return first, number
