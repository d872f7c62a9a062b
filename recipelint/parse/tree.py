"""One tree for YAML and JSON documents: scalars, mappings and sequences, each with its span."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from recipelint.parse.span import SourceText, Span
from recipelint.records import dataclass, field


@dataclass
class Node:
    kind: str  # "map", "seq" or "scalar"
    span: Span
    value: Any = None  # the Python value of a scalar
    path: str = ""  # dotted key path from the document root, as users write it
    tag: str | None = None  # an explicit YAML tag, kept so rules can report it (never constructed)
    quoted: bool = False  # a string written in quotes (JSON strings always are)
    items: list[tuple[str, Span, Node]] = field(default_factory=list)  # map entries, duplicates kept
    children: list[Node] = field(default_factory=list)  # sequence elements

    @property
    def entries(self) -> dict[str, Node]:
        """Map entries with the last duplicate winning, as Python's json and PyYAML do (built
        once: every rule asks; kept while the entries are as many as when built)."""
        cached: tuple[int, dict[str, Node]] | None = self.__dict__.get("_entries")
        if cached is None or cached[0] != len(self.items):
            cached = len(self.items), {key: node for key, _, node in self.items}
            self.__dict__["_entries"] = cached
        return cached[1]

    def get(self, dotted: str) -> Node | None:
        node: Node | None = self
        for part in dotted.split("."):
            if node is None or node.kind != "map":
                return None
            node = node.entries.get(part)
        return node

    def scalar(self, dotted: str) -> Any:
        node = self.get(dotted)
        return node.value if node is not None and node.kind == "scalar" else None

    def key_span(self, key: str) -> Span | None:
        for name, span, _ in reversed(self.items):
            if name == key:
                return span
        return None

    def walk(self) -> Iterator[Node]:
        yield self
        for _, _, child in self.items:
            yield from child.walk()
        for child in self.children:
            yield from child.walk()

    def plain(self) -> Any:
        """The document as plain Python data (for schema validation)."""
        if self.kind == "map":
            return {key: node.plain() for key, node in self.entries.items()}
        if self.kind == "seq":
            return [child.plain() for child in self.children]
        return self.value


@dataclass
class Document:
    """A parsed YAML or JSON file: its text (for fixes and reports) and its root node."""

    source: SourceText
    root: Node
    format: str  # "yaml" or "json"
    # parser remarks: ("comment", span), ("trailing-comma", span), ("duplicate", (span, first_span))
    notes: list[tuple[str, Any]] = field(default_factory=list)

    @property
    def path(self) -> Path:
        return self.source.path
