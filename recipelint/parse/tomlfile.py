"""TOML with positions: the values come from Python's own reader (tomllib, 3.11+; tomli before),
which keeps none, and each key's line and value are found again by a scan of the text's table
headers (`[training.dataloader]`) and `key = value` lines. A value the scan cannot place (inside
a multi-line array, an inline table, an array of tables) gets the span of the table it is in,
and no edit is offered for it (`Node.quoted` is set, which the fixers read as "not a bare
number")."""

from __future__ import annotations

import re
import sys
from typing import Any

from recipelint.parse.files import SourceError
from recipelint.parse.span import SourceText, Span
from recipelint.parse.tree import Document, Node

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

_BARE = r"[A-Za-z0-9_-]+"
_KEY = rf"(?:{_BARE}|\"[^\"\n]*\"|'[^'\n]*')"
_DOTTED = rf"{_KEY}(?:[ \t]*\.[ \t]*{_KEY})*"
_HEADER = re.compile(rf"^[ \t]*(\[\[?)[ \t]*({_DOTTED})[ \t]*\]\]?", re.MULTILINE)
_ASSIGN = re.compile(rf"^[ \t]*({_DOTTED})[ \t]*=[ \t]*", re.MULTILINE)
_PART = re.compile(_KEY)
_PLAIN_END = re.compile(r"[ \t]*(?:#.*)?$")
_AT = re.compile(r"\(at line (\d+), column (\d+)\)")


def _parts(dotted: str) -> list[str]:
    return [part.strip("\"'") for part in _PART.findall(dotted)]


def _places(source: SourceText) -> tuple[dict[str, Span], dict[str, Span]]:
    """Where each `key = value` of a table (not of an array of tables) writes its value, by the
    key's dotted path, and where each table is opened."""
    text = source.text
    values: dict[str, Span] = {}
    tables: dict[str, Span] = {}
    table: list[str] | None = []
    events = sorted([(m.start(), "header", m) for m in _HEADER.finditer(text)] + [(m.start(), "key", m) for m in _ASSIGN.finditer(text)])
    for _, kind, match in events:
        if kind == "header":
            table = _parts(match.group(2)) if match.group(1) == "[" else None  # [[array]]: its entries are not placed
            if table is not None:
                tables.setdefault(".".join(table), _span(source, match.start(2), match.end(2)))
            continue
        if table is None:
            continue
        end = text.find("\n", match.end())
        line_end = len(text) if end == -1 else end
        value = text[match.end() : line_end]
        cut = len(value) - len(_PLAIN_END.search(value).group(0)) if value[:1] not in "\"'[{" else len(value.rstrip())  # type: ignore[union-attr]
        values.setdefault(".".join(table + _parts(match.group(1))), _span(source, match.end(), match.end() + cut))
    return values, tables


def _span(source: SourceText, start: int, end: int) -> Span:
    """A span from character offsets (the scan reads text; spans count bytes)."""
    text = source.text
    first = len(text[:start].encode("utf-8"))
    return source.span(first, first + len(text[start:end].encode("utf-8")))


def parse_toml(source: SourceText) -> Document:
    try:
        data: dict[str, Any] = tomllib.loads(source.text)
    except tomllib.TOMLDecodeError as exc:
        found = _AT.search(str(exc))
        line, column = (int(found.group(1)), int(found.group(2))) if found else (0, 0)
        raise SourceError(source.path, f"invalid TOML: {_AT.sub('', str(exc)).strip()}", line, column) from None
    values, tables = _places(source)
    whole = source.span(0, 0)
    return Document(source, _node(data, "", values, tables, whole), "toml")


def _node(value: object, path: str, values: dict[str, Span], tables: dict[str, Span], around: Span) -> Node:
    if isinstance(value, dict):
        span = tables.get(path, values.get(path, around))
        node = Node("map", span, None, path)
        for key, child in value.items():
            child_path = f"{path}.{key}" if path else str(key)
            built = _node(child, child_path, values, tables, span)
            node.items.append((str(key), built.span, built))
        return node
    if isinstance(value, list):
        span = values.get(path, around)
        node = Node("seq", span, None, path)
        node.children = [_node(item, path, {}, {}, span) for item in value]
        return node
    placed = values.get(path)
    # a value not placed is shown at its table and never edited in place (quoted: not a bare literal)
    quoted = placed is None or isinstance(value, str) or not isinstance(value, (int, float, bool))
    return Node("scalar", placed or around, value, path, quoted=quoted)
