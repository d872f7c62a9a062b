"""JSON with positions.

DeepSpeed reads its config with hjson (comments and trailing commas accepted, duplicate keys
rejected); Hugging Face and Accelerate use strict `json` (comments fail, duplicates last-win).
This reader accepts what hjson accepts for such files and records comments, trailing commas
and duplicate keys as notes, so rules can say which launcher will choke on them.
"""

from __future__ import annotations

import re
from typing import Any

from recipelint.sources.files import SourceError
from recipelint.sources.tree import Document, Node
from recipelint.span import SourceText

MAX_DEPTH = 200
_NUMBER = re.compile(rb"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_WORDS = {b"true": True, b"false": False, b"null": None}
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


class _Reader:
    def __init__(self, source: SourceText) -> None:
        self.source = source
        self.data = source.data
        self.pos = source.bom
        self.notes: list[tuple[str, Any]] = []

    def fail(self, reason: str, at: int | None = None) -> SourceError:
        line, column = self.source.position(self.pos if at is None else at)
        return SourceError(self.source.path, f"invalid JSON: {reason}", line, column)

    def skip(self) -> None:
        data, n = self.data, len(self.data)
        while self.pos < n:
            ch = data[self.pos]
            if ch in b" \t\r\n":
                self.pos += 1
            elif data.startswith(b"//", self.pos) or ch == 0x23:  # '#'
                start = self.pos
                end = data.find(b"\n", self.pos)
                self.pos = n if end == -1 else end
                self.notes.append(("comment", self.source.span(start, self.pos)))
            elif data.startswith(b"/*", self.pos):
                start = self.pos
                end = data.find(b"*/", self.pos + 2)
                if end == -1:
                    raise self.fail("unterminated /* comment")
                self.pos = end + 2
                self.notes.append(("comment", self.source.span(start, self.pos)))
            else:
                return

    def value(self, path: str, depth: int) -> Node:
        if depth > MAX_DEPTH:
            raise self.fail("nested more than 200 levels deep")
        self.skip()
        if self.pos >= len(self.data):
            raise self.fail("unexpected end of file")
        ch = self.data[self.pos : self.pos + 1]
        start = self.pos
        if ch == b"{":
            return self.mapping(path, depth)
        if ch == b"[":
            return self.sequence(path, depth)
        if ch == b'"':
            text = self.string()
            return Node("scalar", self.source.span(start, self.pos), text, path, quoted=True)
        match = _NUMBER.match(self.data, self.pos)
        if match and match.end() > start:
            self.pos = match.end()
            raw = match.group(0)
            number: Any = float(raw) if (b"." in raw or b"e" in raw or b"E" in raw) else int(raw)
            return Node("scalar", self.source.span(start, self.pos), number, path)
        for word, word_value in _WORDS.items():
            if self.data.startswith(word, self.pos):
                self.pos += len(word)
                return Node("scalar", self.source.span(start, self.pos), word_value, path)
        raise self.fail(f"unexpected character {ch.decode('utf-8', 'replace')!r}")

    def string(self) -> str:
        data = self.data
        self.pos += 1
        parts: list[str] = []
        chunk_start = self.pos
        while True:
            if self.pos >= len(data):
                raise self.fail("unterminated string")
            ch = data[self.pos]
            if ch == 0x22:  # '"'
                parts.append(data[chunk_start : self.pos].decode("utf-8"))
                self.pos += 1
                return "".join(parts)
            if ch == 0x5C:  # backslash
                parts.append(data[chunk_start : self.pos].decode("utf-8"))
                esc = data[self.pos + 1 : self.pos + 2].decode("utf-8", "replace")
                if esc == "u":
                    digits = data[self.pos + 2 : self.pos + 6].decode("ascii", "replace")
                    try:
                        parts.append(chr(int(digits, 16)))
                    except ValueError:
                        raise self.fail("bad \\u escape") from None
                    self.pos += 6
                elif esc in _ESCAPES:
                    parts.append(_ESCAPES[esc])
                    self.pos += 2
                else:
                    raise self.fail(f"bad escape \\{esc}")
                chunk_start = self.pos
            elif ch == 0x0A:
                raise self.fail("newline inside a string")
            else:
                self.pos += 1

    def mapping(self, path: str, depth: int) -> Node:
        start = self.pos
        self.pos += 1
        node = Node("map", self.source.span(start, start), None, path)
        seen: dict[str, Any] = {}
        while True:
            self.skip()
            if self.data[self.pos : self.pos + 1] == b"}":
                self.pos += 1
                break
            if self.data[self.pos : self.pos + 1] != b'"':
                raise self.fail("expected a quoted key or '}'")
            key_start = self.pos
            key = self.string()
            key_span = self.source.span(key_start, self.pos)
            if key in seen:
                self.notes.append(("duplicate", (key_span, seen[key])))
            seen[key] = key_span
            self.skip()
            if self.data[self.pos : self.pos + 1] != b":":
                raise self.fail("expected ':' after a key")
            self.pos += 1
            child = self.value(f"{path}.{key}" if path else key, depth + 1)
            node.items.append((key, key_span, child))
            if self.after_member(b"}"):
                break
        node.span = self.source.span(start, self.pos)
        return node

    def sequence(self, path: str, depth: int) -> Node:
        start = self.pos
        self.pos += 1
        node = Node("seq", self.source.span(start, start), None, path)
        while True:
            self.skip()
            if self.data[self.pos : self.pos + 1] == b"]":
                self.pos += 1
                break
            node.children.append(self.value(f"{path}[{len(node.children)}]", depth + 1))
            if self.after_member(b"]"):
                break
        node.span = self.source.span(start, self.pos)
        return node

    def after_member(self, close: bytes) -> bool:
        """Consume ',' or the closing bracket; True when the container ended."""
        self.skip()
        ch = self.data[self.pos : self.pos + 1]
        if ch == close:
            self.pos += 1
            return True
        if ch != b",":
            raise self.fail(f"expected ',' or '{close.decode()}'")
        comma = self.pos
        self.pos += 1
        self.skip()
        if self.data[self.pos : self.pos + 1] == close:
            self.notes.append(("trailing-comma", self.source.span(comma, comma + 1)))
            self.pos += 1
            return True
        return False


def parse_json(source: SourceText) -> Document:
    reader = _Reader(source)
    reader.skip()
    if reader.pos >= len(reader.data):
        raise SourceError(source.path, "invalid JSON: the file is empty", 1, 1)
    root = reader.value("", 0)
    reader.skip()
    if reader.pos < len(reader.data):
        raise reader.fail("extra data after the top-level value")
    return Document(source, root, "json", reader.notes)
