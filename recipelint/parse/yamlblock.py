"""The block-style YAML most training configs are written in, read without ruamel.yaml.

Why: importing ruamel.yaml costs ~13 ms, a sixth of checking one recipe (bench/run.py), for a
WeNet train.yaml of nested `key: value` lines. This reader takes that common subset and gives
the tree `recipelint.parse.yamlfile` builds from ruamel's composer, node for node and span for
span (libyaml's marks: a block collection ends where the next token starts, an empty value sits
just after its colon, the stream ends on a line of its own). Anything else it declines (returns
None) and ruamel reads the file: anchors, aliases, tags, block scalars, multi-line scalars or
flow collections, escapes, document markers, tabs, CR and other control characters, non-ASCII text, keys other than plain
tokens or simple quoted strings, and every error, whose message is ruamel's.
`tests/test_yamlblock.py` holds it to ruamel on every YAML file the tests carry and on generated
documents.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from recipelint.parse.span import SourceText, Span
from recipelint.parse.tree import Node

_STR = "tag:yaml.org,2002:str"
# A plain key: no indicator first, no space, colon, comma, bracket or hash inside (so `a: 1`,
# `<sos/eos>: 2`, `conv2d6.x: 3`; keys with spaces are left to ruamel).
_KEY = re.compile(r"[^\s\-?:,\[\]{}#&*!|>'\"%@`][^\s:,\[\]{}#]*")
_PLAIN_START = set("-?:,[]{}#&*!|>'\"%@`")
_FLOW_STOP = set(",[]{}")
_MAX_DEPTH = 100
# YAML allows no control character but tab and line ends; tabs and CR are left to ruamel too.
_NOT_PRINTABLE = re.compile(rb"[\x00-\x09\x0b-\x1f\x7f]")

Line = tuple[int, int, str]  # (line number from 0, indentation, the line's text)


class _Decline(Exception):
    """Outside the subset: ruamel reads the file."""


def read_block(source: SourceText, resolve: Callable[[str, str, bool], object]) -> Node | None:
    """The document's root node, or None when the text is outside the subset."""
    data = source.data
    if not data.isascii() or _NOT_PRINTABLE.search(data):
        return None
    try:
        return _Reader(source, resolve).document()
    except (_Decline, IndexError):
        return None


class _Reader:
    def __init__(self, source: SourceText, resolve: Callable[[str, str, bool], object]) -> None:
        text = source.data.decode("ascii")
        self.between = source.spanner()
        self.resolve = resolve
        self.lines: list[Line] = []
        for number, line in enumerate(text.split("\n")):
            body = line.lstrip(" ")
            if line.startswith(("---", "...", "%")):
                raise _Decline
            if body and not body.startswith("#"):
                self.lines.append((number, len(line) - len(body), line))
        # libyaml ends the stream on a line of its own
        self.stream_end = (text.count("\n") + (0 if text.endswith("\n") or not text else 1), 0)

    def document(self) -> Node:
        if not self.lines or self.lines[0][1] != 0:
            raise _Decline
        node, index = self.block_map(0, 0, "", 0, None)
        if index != len(self.lines):
            raise _Decline
        return node

    def mark(self, index: int) -> tuple[int, int]:
        """Where the next token starts: a block collection's end."""
        if index < len(self.lines):
            return self.lines[index][0], self.lines[index][1]
        return self.stream_end

    def span(self, number: int, start: int, end: int) -> Span:
        return self.between(number, start, number, end)

    # -- block collections -----------------------------------------------------------------

    def block_map(self, index: int, column: int, path: str, depth: int, first: Line | None) -> tuple[Node, int]:
        """The mapping whose keys sit at `column`, from line `index` (or from `first`, the rest
        of a `- key: value` line)."""
        if depth > _MAX_DEPTH:
            raise _Decline
        entry = first if first is not None else self.lines[index]
        node = Node("map", self.span(entry[0], column, column), None, path)
        while True:
            if first is not None:
                number, line, first = entry[0], entry[2], None
            elif index < len(self.lines):
                number, indent, line = self.lines[index]
                if indent < column:
                    break
                if indent > column:
                    raise _Decline
            else:
                break
            key, quoted_end, colon = self.key(line, column)
            child = f"{path}.{key}" if path else key
            value, index = self.map_value(index, number, line, colon, column, child, depth + 1)
            node.items.append((key, self.span(number, column, quoted_end), value))
        end_line, end_column = self.mark(index)
        node.span = self.between(node.span.line - 1, column, end_line, end_column)
        return node, index

    def key(self, line: str, column: int) -> tuple[str, int, int]:
        """(key, where its text ends, where its colon is)."""
        value, end = self.key_text(line, column)
        if line[end : end + 1] != ":" or line[end + 1 : end + 2] not in ("", " "):
            raise _Decline
        return value, end, end

    def map_value(self, index: int, number: int, line: str, colon: int, column: int, path: str, depth: int) -> tuple[Node, int]:
        """The value after `key:` on line `index`, and the index of the line after it."""
        start = colon + 1
        while start < len(line) and line[start] == " ":
            start += 1
        if start < len(line) and line[start] != "#":
            return self.inline(number, line, start, path, depth), index + 1
        if start < len(line) and line[start - 1] != " ":
            raise _Decline  # `key:#` is not a comment
        following = index + 1
        if following < len(self.lines):
            _, indent, next_line = self.lines[following]
            dash = next_line.startswith("- ", indent) or next_line.endswith("-") and len(next_line) == indent + 1
            if indent > column or indent == column and dash:
                if dash:
                    return self.block_seq(following, indent, path, depth)
                return self.block_map(following, indent, path, depth, None)
        return Node("scalar", self.span(number, colon + 1, colon + 1), None, path), index + 1

    def block_seq(self, index: int, column: int, path: str, depth: int) -> tuple[Node, int]:
        if depth > _MAX_DEPTH:
            raise _Decline
        number = self.lines[index][0]
        node = Node("seq", self.span(number, column, column), None, path)
        while index < len(self.lines):
            number, indent, line = self.lines[index]
            if indent < column or indent == column and not line.startswith("- ", column):
                break
            if indent > column:
                raise _Decline
            start = column + 2
            while start < len(line) and line[start] == " ":
                start += 1
            if start >= len(line) or line[start] == "#" or line.startswith("- ", start) or line[start] == "-" and start + 1 == len(line):
                raise _Decline  # an empty item or a sequence in a sequence
            child = f"{path}[{len(node.children)}]"
            if _KEY.match(line, start) is not None or line[start] in "'\"":
                try:
                    self.key(line, start)
                    is_map = True
                except _Decline:
                    is_map = False
                if is_map:
                    item, index = self.block_map(index, start, child, depth + 1, (number, start, line))
                    node.children.append(item)
                    continue
            node.children.append(self.inline(number, line, start, child, depth + 1))
            index += 1
        end_line, end_column = self.mark(index)
        node.span = self.between(node.span.line - 1, column, end_line, end_column)
        return node, index

    # -- a value on one line -----------------------------------------------------------------

    def inline(self, number: int, line: str, start: int, path: str, depth: int) -> Node:
        """A scalar or flow collection starting at `start`; nothing but a comment may follow."""
        char = line[start]
        if char in "[{":
            node, end = self.flow(number, line, start, path, depth)
        elif char in "'\"":
            value, end = self.quoted(line, start)
            node = Node("scalar", self.span(number, start, end), value, path, quoted=True)
        else:
            if char in _PLAIN_START and not (char in "-?:" and line[start + 1 : start + 2] not in ("", " ")):
                raise _Decline
            comment = line.find(" #", start)
            end = len(line) if comment == -1 else comment
            text = line[start:end].rstrip(" ")
            if not text or ": " in text or text.endswith(":"):
                raise _Decline
            end = start + len(text)
            node = Node("scalar", self.span(number, start, end), self.resolve(text, _STR, True), path)
            return node
        rest = line[end:]
        if rest.strip(" ") and not (rest.startswith(" ") and rest.lstrip(" ").startswith("#")):
            raise _Decline
        return node

    def key_text(self, line: str, start: int) -> tuple[str, int]:
        """A key, quoted or plain, and where it ends."""
        if line[start] in "'\"":
            return self.quoted(line, start)
        found = _KEY.match(line, start)
        if found is None:
            raise _Decline
        return found.group(), found.end()

    def quoted(self, line: str, start: int) -> tuple[str, int]:
        quote = line[start]
        if quote == '"':
            end = line.find('"', start + 1)
            if end == -1 or "\\" in line[start:end]:
                raise _Decline
            return line[start + 1 : end], end + 1
        position = start + 1
        while True:
            end = line.find("'", position)
            if end == -1:
                raise _Decline
            if line[end + 1 : end + 2] != "'":
                return line[start + 1 : end].replace("''", "'"), end + 1
            position = end + 2

    def flow(self, number: int, line: str, start: int, path: str, depth: int) -> tuple[Node, int]:
        if depth > _MAX_DEPTH:
            raise _Decline
        closing = "]" if line[start] == "[" else "}"
        node = Node("seq" if closing == "]" else "map", self.span(number, start, start), None, path)
        position = self.skip(line, start + 1)
        while line[position] != closing:
            if node.kind == "seq":
                child, position = self.flow_node(number, line, position, f"{path}[{len(node.children)}]", depth + 1)
                node.children.append(child)
            else:
                key_start = position
                key, position = self.key_text(line, position)
                if not line.startswith(": ", position):
                    raise _Decline
                key_end = position
                value, position = self.flow_node(number, line, self.skip(line, position + 1), f"{path}.{key}" if path else key, depth + 1)
                node.items.append((key, self.span(number, key_start, key_end), value))
            position = self.skip(line, position)
            if line[position] == ",":
                position = self.skip(line, position + 1)
                if line[position] == closing:
                    raise _Decline  # a trailing comma
            elif line[position] != closing:
                raise _Decline
        node.span = self.span(number, start, position + 1)
        return node, position + 1

    def flow_node(self, number: int, line: str, start: int, path: str, depth: int) -> tuple[Node, int]:
        char = line[start]
        if char in "[{":
            return self.flow(number, line, start, path, depth)
        if char in "'\"":
            value, end = self.quoted(line, start)
            return Node("scalar", self.span(number, start, end), value, path, quoted=True), end
        if char in _PLAIN_START and not (char == "-" and line[start + 1 : start + 2].isdigit()):
            raise _Decline
        end = start
        while end < len(line) and line[end] not in _FLOW_STOP and not line.startswith((": ", " #"), end):
            end += 1
        text = line[start:end].rstrip(" ")
        if not text or text.endswith(":"):
            raise _Decline
        end = start + len(text)
        return Node("scalar", self.span(number, start, end), self.resolve(text, _STR, True), path), end

    @staticmethod
    def skip(line: str, position: int) -> int:
        while line[position] == " ":
            position += 1
        return position
