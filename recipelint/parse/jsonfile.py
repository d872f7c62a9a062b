"""JSON with positions.

DeepSpeed reads its config with hjson (comments and trailing commas accepted, duplicate keys
rejected); Hugging Face and Accelerate use strict `json` (comments fail, duplicates last-win).
This reader accepts what hjson accepts for such files and records comments, trailing commas
and duplicate keys as notes, so rules can say which launcher will choke on them.
"""

from __future__ import annotations

import json
import re
from typing import Any

from recipelint.parse.files import SourceError
from recipelint.parse.span import SourceText
from recipelint.parse.tree import Document, Node

MAX_DEPTH = 200
_WORDS = {b"true": True, b"false": False, b"null": None}


# One pass of a compiled regex finds every token; Python only walks the tokens.
_TOKEN = re.compile(
    rb"""(?P<ws>[ \t\r\n]+)"""
    rb"""|(?P<comment>//[^\n]*|\#[^\n]*|/\*.*?\*/)"""
    rb"""|(?P<string>"(?:[^"\\\n]|\\.)*")"""
    rb"""|(?P<number>-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)"""
    rb"""|(?P<word>true|false|null)"""
    rb"""|(?P<punct>[{}\[\],:])""",
    re.DOTALL,
)
_PUNCTS = "{}[],:"
_PUNCT = {ord(char): char for char in _PUNCTS}  # a punctuation token's kind is its character


class _Reader:
    def __init__(self, source: SourceText) -> None:
        self.source = source
        self.data = source.data
        self.notes: list[tuple[str, Any]] = []
        self.tokens: list[tuple[str, int, int]] = []
        self._tokenize()
        self.i = 0

    def fail(self, reason: str, at: int | None = None) -> SourceError:
        if at is None:
            at = self.tokens[self.i][1] if self.i < len(self.tokens) else len(self.data)
        line, column = self.source.position(at)
        return SourceError(self.source.path, f"invalid JSON: {reason}", line, column)

    def _tokenize(self) -> None:
        data, pos = self.data, self.source.bom
        append = self.tokens.append
        for found in _TOKEN.finditer(data, pos):
            start = found.start()
            if start != pos:
                self._bad(pos)  # a character no token starts with
            kind = found.lastgroup or ""
            pos = found.end()
            if kind == "punct":
                append((_PUNCT[data[start]], start, pos))
            elif kind == "comment":
                self.notes.append(("comment", self.source.span(start, pos)))
            elif kind != "ws":
                append((kind, start, pos))
        if pos < len(data):
            self._bad(pos)

    def _bad(self, pos: int) -> None:
        data = self.data
        bad = data[pos : pos + 1]
        if bad == b'"':
            newline = data.find(b"\n", pos)
            closing = data.find(b'"', pos + 1)
            reason = "newline inside a string" if newline != -1 and (closing == -1 or newline < closing) else "unterminated string"
            at = newline if reason.startswith("newline") else pos
            line, column = self.source.position(at)
            raise SourceError(self.source.path, f"invalid JSON: {reason}", line, column)
        if data.startswith(b"/*", pos):
            line, column = self.source.position(pos)
            raise SourceError(self.source.path, "invalid JSON: unterminated /* comment", line, column)
        line, column = self.source.position(pos)
        raise SourceError(self.source.path, f"invalid JSON: unexpected character {bad.decode('utf-8', 'replace')!r}", line, column)

    def peek(self) -> tuple[str, int, int] | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def is_punct(self, char: str) -> bool:
        return self.i < len(self.tokens) and self.tokens[self.i][0] == char

    def string_value(self, start: int, stop: int) -> str:
        raw = self.data[start + 1 : stop - 1]
        if b"\\" not in raw:
            return raw.decode("utf-8")
        try:
            return json.loads(self.data[start:stop].decode("utf-8"))  # type: ignore[no-any-return]
        except ValueError:
            escape = raw.find(b"\\")
            raise self.fail("bad escape", start + 1 + escape) from None

    def value(self, path: str, depth: int) -> Node:
        if depth > MAX_DEPTH:
            raise self.fail("nested more than 200 levels deep")
        token = self.peek()
        if token is None:
            raise self.fail("unexpected end of file")
        kind, start, stop = token
        if kind in _PUNCTS:
            if kind == "{":
                return self.mapping(path, depth)
            if kind == "[":
                return self.sequence(path, depth)
            raise self.fail(f"unexpected character {kind!r}")
        self.i += 1
        span = self.source.span(start, stop)
        if kind == "string":
            return Node("scalar", span, self.string_value(start, stop), path, quoted=True)
        text = self.data[start:stop]
        if kind == "number":
            number: Any = float(text) if (b"." in text or b"e" in text or b"E" in text) else int(text)
            return Node("scalar", span, number, path)
        return Node("scalar", span, _WORDS[text], path)

    def mapping(self, path: str, depth: int) -> Node:
        start = self.tokens[self.i][1]
        self.i += 1
        node = Node("map", self.source.span(start, start), None, path)
        seen: dict[str, Any] = {}
        while True:
            if self.is_punct("}"):
                self.i += 1
                break
            token = self.peek()
            if token is None or token[0] != "string":
                raise self.fail("expected a quoted key or '}'")
            self.i += 1
            key = self.string_value(token[1], token[2])
            key_span = self.source.span(token[1], token[2])
            if key in seen:
                self.notes.append(("duplicate", (key_span, seen[key])))
            seen[key] = key_span
            if not self.is_punct(":"):
                raise self.fail("expected ':' after a key")
            self.i += 1
            child = self.value(f"{path}.{key}" if path else key, depth + 1)
            node.items.append((key, key_span, child))
            if self.after_member("}"):
                break
        node.span = self.source.span(start, self.tokens[self.i - 1][2])
        return node

    def sequence(self, path: str, depth: int) -> Node:
        start = self.tokens[self.i][1]
        self.i += 1
        node = Node("seq", self.source.span(start, start), None, path)
        while True:
            if self.is_punct("]"):
                self.i += 1
                break
            node.children.append(self.value(f"{path}[{len(node.children)}]", depth + 1))
            if self.after_member("]"):
                break
        node.span = self.source.span(start, self.tokens[self.i - 1][2])
        return node

    def after_member(self, close: str) -> bool:
        """Consume ',' or the closing bracket; True when the container ended."""
        if self.is_punct(close):
            self.i += 1
            return True
        if not self.is_punct(","):
            raise self.fail(f"expected ',' or '{close}'")
        comma = self.tokens[self.i][1]
        self.i += 1
        if self.is_punct(close):
            self.notes.append(("trailing-comma", self.source.span(comma, comma + 1)))
            self.i += 1
            return True
        return False


def parse_json(source: SourceText) -> Document:
    reader = _Reader(source)
    if not reader.tokens:
        raise SourceError(source.path, "invalid JSON: the file is empty", 1, 1)
    root = reader.value("", 0)
    if reader.i < len(reader.tokens):
        raise reader.fail("extra data after the top-level value")
    return Document(source, root, "json", reader.notes)
