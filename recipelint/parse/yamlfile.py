"""YAML with positions, parsed by ruamel.yaml's composer: tags are recorded, never constructed."""

from __future__ import annotations

import re
from typing import Any

from recipelint.parse.files import SourceError
from recipelint.parse.span import SourceText
from recipelint.parse.tree import Document, Node

# An alias bomb expands exponentially when walked; a real training config has a few hundred nodes.
MAX_NODES = 200_000
MAX_DEPTH = 200

_INT = re.compile(r"[-+]?(0|[1-9][0-9_]*)$")
_HEX = re.compile(r"0x[0-9a-fA-F_]+$")
_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9][0-9_]*(\.[0-9_]*)?)([eE][-+]?[0-9]+)?$")
_BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_NULL = {"", "~", "null", "Null", "NULL"}


def _yaml(pure: bool = False) -> Any:
    from ruamel.yaml import YAML
    from ruamel.yaml.nodes import MappingNode, ScalarNode
    from ruamel.yaml.resolver import VersionedResolver

    class KindResolver(VersionedResolver):
        """Tags by node kind only: scalar types come from `resolve_scalar` (YAML 1.2 core),
        so ruamel's regex-per-scalar resolution is work thrown away (a third of a parse)."""

        def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
            if kind is ScalarNode:
                return self.DEFAULT_SCALAR_TAG
            return self.DEFAULT_MAPPING_TAG if kind is MappingNode else self.DEFAULT_SEQUENCE_TAG

    try:  # the C composer (ruamel.yaml.clib) keeps the same marks and is about ten times faster
        yaml = YAML(typ="safe", pure=pure)
    except Exception:  # pragma: no cover - depends on the wheel
        yaml = YAML(typ="safe", pure=True)
    yaml.Resolver = KindResolver
    return yaml


_LOADER: Any = None
_SAFE_LOADER: Any = None
# ruamel.yaml.clib's composer recurses in C once per nesting level, with no depth check: 30,000
# `[` overflow the C stack and kill the interpreter (a segfault no `except` can catch). A document
# that may nest deeper than this is composed by the pure-Python composer, whose recursion stops
# with RecursionError instead.
C_COMPOSER_DEPTH = 100
_NESTING = re.compile(r"[\[\]{}'\"#]")
_DEFAULT_TAGS = {t: t for t in ("tag:yaml.org,2002:str", "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq")}
_CORE = {"str", "int", "float", "bool", "null", "map", "seq"}


def resolve_scalar(text: str, tag: str, plain: bool) -> Any:
    """YAML 1.2 core-schema resolution of a plain scalar; quoted scalars stay strings."""
    if not plain or not tag.startswith("tag:yaml.org,2002:"):
        return text
    if text in _NULL:
        return None
    if text in _BOOL:
        return _BOOL[text]
    if _INT.match(text):
        return int(text.replace("_", ""))
    if _HEX.match(text):
        return int(text, 16)
    if _FLOAT.match(text) and any(ch.isdigit() for ch in text):
        return float(text.replace("_", ""))
    if text in (".inf", "+.inf", ".Inf"):
        return float("inf")
    if text in ("-.inf", "-.Inf"):
        return float("-inf")
    if text in (".nan", ".NaN"):
        return float("nan")
    return text


def loader(deep: bool = False) -> Any:
    """The YAML composer, made once per process; `deep`: the pure-Python one, for a document that
    may nest deeper than C_COMPOSER_DEPTH."""
    global _LOADER, _SAFE_LOADER
    if deep:
        if _SAFE_LOADER is None:
            _SAFE_LOADER = _yaml(pure=True)
        return _SAFE_LOADER
    if _LOADER is None:
        _LOADER = _yaml()
    return _LOADER


def may_nest_deeper(text: str, limit: int = C_COMPOSER_DEPTH) -> bool:
    """Whether the document may nest deeper than `limit`: an upper bound on the depth from block
    indentation, `- `/`? ` indicators and flow brackets (quotes and comments roughly skipped).
    Over-counting only costs speed (the pure composer); under-counting is what must not happen."""
    cheap = text.count("\n") + text.count("[") + text.count("{") + text.count("-") + text.count("?")
    if cheap < limit:
        return False
    indents: list[int] = []
    flow = 0
    for line in text.splitlines():
        stripped = line.lstrip(" ")
        if stripped and not stripped.startswith("#") and flow == 0:
            indent = len(line) - len(stripped)
            while indents and indents[-1] >= indent:
                indents.pop()
            indents.append(indent)
        indicators = len(re.match(r"(?:[-?](?:\s+|$))*", stripped).group(0).split()) if stripped else 0  # type: ignore[union-attr]
        flow, deepest = _flow_depth(line, flow)
        if len(indents) + indicators + deepest > limit:
            return True
    return False


def _flow_depth(line: str, depth: int) -> tuple[int, int]:
    """The flow depth after the line, and the deepest it reached on it."""
    deepest, quote = depth, ""
    for match in _NESTING.finditer(line):
        char = match.group(0)
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#":
            break
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth = max(depth - 1, 0)
    return depth, deepest


def parse_yaml(source: SourceText) -> Document:
    from recipelint.parse.yamlblock import read_block

    root = read_block(source, resolve_scalar)
    if root is not None:  # the common block-style subset, without importing ruamel
        return Document(source, root, "yaml")
    return compose_yaml(source)


# A line that starts a new document (`---`, alone or before content) or ends one (`...`).
_SEPARATOR = re.compile(r"^(?:---|\.\.\.)(?:[ \t\r]|$)", re.MULTILINE)


def parse_documents(source: SourceText) -> list[Document]:
    """Every document of a YAML stream (Kubernetes manifests join a Service, a Deployment and a
    job with `---`), each with spans into the one file; a stream without separators is the one
    document `parse_yaml` reads. Empty documents (a leading or trailing `---`) are left out."""
    if _SEPARATOR.search(source.text) is None:
        return [parse_yaml(source)]
    try:
        composed = list(loader(deep=may_nest_deeper(source.text)).compose_all(source.text))
    except RecursionError:
        raise SourceError(source.path, f"YAML nested more than {MAX_DEPTH} levels deep", 1, 1) from None
    except Exception as exc:  # ruamel raises several error classes; all mean "bad YAML here"
        raise _invalid(source, exc) from None
    converter = _Converter(source)
    return [Document(source, converter.node(raw, "", 0), "yaml") for raw in composed if raw is not None]


def _invalid(source: SourceText, exc: Exception) -> SourceError:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    if mark is not None:
        return SourceError(source.path, f"invalid YAML: {problem}", mark.line + 1, mark.column + 1)
    return SourceError(source.path, f"invalid YAML: {problem}")


def compose_yaml(source: SourceText) -> Document:
    """The document as ruamel's composer reads it (every YAML the block reader declines)."""
    try:
        composed = loader(deep=may_nest_deeper(source.text)).compose(source.text)
    except RecursionError:
        # the pure composer recurses a few frames a level: past MAX_DEPTH
        raise SourceError(source.path, f"YAML nested more than {MAX_DEPTH} levels deep", 1, 1) from None
    except Exception as exc:  # ruamel raises several error classes; all mean "bad YAML here"
        raise _invalid(source, exc) from None
    if composed is None:
        empty = source.span(len(source.data), len(source.data))
        return Document(source, Node("map", empty), "yaml")
    return Document(source, _Converter(source).node(composed, "", 0), "yaml")


class _Converter:
    """ruamel's composed nodes to ours, with spans; the budget stops an alias bomb."""

    def __init__(self, source: SourceText) -> None:
        from ruamel.yaml.nodes import ScalarNode, SequenceNode

        self.source = source
        self.between = source.spanner()
        self.budget = MAX_NODES
        self.scalar, self.sequence = ScalarNode, SequenceNode

    def node(self, raw: Any, path: str, depth: int) -> Node:
        self.budget -= 1
        if self.budget < 0:
            raise SourceError(self.source.path, "YAML expands to more than 200000 nodes (an alias bomb?)")
        start_mark, end_mark = raw.start_mark, raw.end_mark
        if depth > MAX_DEPTH:
            raise SourceError(self.source.path, "YAML nested more than 200 levels deep", start_mark.line + 1, start_mark.column + 1)
        span = self.between(start_mark.line, start_mark.column, end_mark.line, end_mark.column)
        ctag = raw.ctag
        if ctag is None or ctag.handle is None and ctag.suffix in _DEFAULT_TAGS:
            tag, explicit = _DEFAULT_TAGS.get(ctag.suffix if ctag is not None else "", "tag:yaml.org,2002:str"), None
        else:
            tag = str(ctag)
            explicit = None if tag.startswith("tag:yaml.org,2002:") and tag[18:] in _CORE else tag
        kind = type(raw)
        if kind is self.scalar:
            plain = not raw.style
            return Node("scalar", span, resolve_scalar(raw.value, tag, plain), path, explicit, quoted=not plain)
        if kind is self.sequence:
            node = Node("seq", span, None, path, explicit)
            node.children = [self.node(item, f"{path}[{i}]", depth + 1) for i, item in enumerate(raw.value)]
            return node
        node = Node("map", span, None, path, explicit)
        items = node.items
        between, data = self.between, self.source.data
        for key_raw, value_raw in raw.value:
            ks, ke = key_raw.start_mark, key_raw.end_mark
            key_span = between(ks.line, ks.column, ke.line, ke.column)
            key = str(key_raw.value) if type(key_raw) is self.scalar else data[key_span.start : key_span.end].decode()
            items.append((key, key_span, self.node(value_raw, f"{path}.{key}" if path else key, depth + 1)))
        return node
