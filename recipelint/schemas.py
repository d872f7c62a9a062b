"""The JSON Schemas under `schemas/`: found in the installed package or the source tree,
loaded once per process, and checked by a small validator for the keywords they use
(jsonschema's import alone costs more than a whole recipe check; the tests hold the two to
the same verdicts)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

from recipelint.records import dataclass


def schema_dir() -> Path:
    installed = Path(__file__).parent / "schemas"
    return installed if installed.is_dir() else Path(__file__).parent.parent / "schemas"


@cache
def load_schema(name: str) -> dict[str, Any]:
    with open(schema_dir() / name, encoding="utf-8") as handle:
        data: dict[str, Any] = json.load(handle)
    return data


@dataclass(frozen=True)
class _Error:
    """One validation failure, shaped like jsonschema's errors (the parts recipelint reads)."""

    absolute_path: tuple[Any, ...]
    message: str
    validator: str
    context: tuple[_Error, ...] = ()


_TYPES: dict[str, Any] = {
    "object": dict,
    "array": list,
    "string": str,
    "boolean": bool,
    "null": type(None),
    "integer": int,
    "number": (int, float),
}


def _is(kind: str, value: Any) -> bool:
    if kind in ("integer", "number") and isinstance(value, bool):
        return False
    if kind == "integer" and isinstance(value, float):
        return value.is_integer()
    return isinstance(value, _TYPES[kind])


def _show(value: Any) -> str:
    return repr(value) if not isinstance(value, bool) else ("True" if value else "False")


class _Validator:
    """JSON Schema 2020-12 for the keywords recipelint's own schemas use: type, enum, const,
    minimum, maximum, exclusiveMinimum, pattern, properties, additionalProperties, items,
    anyOf and local $ref. The schemas are ours, so this subset is complete for them; the
    tests check its verdicts against jsonschema on the corpus and on mutations."""

    def __init__(self, schema: dict[str, Any]) -> None:
        self.root = schema

    def iter_errors(self, value: Any) -> list[_Error]:
        return list(self._errors(value, self.root, ()))

    def _resolve(self, ref: str) -> dict[str, Any]:
        node: Any = self.root
        for part in ref.removeprefix("#/").split("/"):
            node = node[part]
        return dict(node)

    def _errors(self, value: Any, schema: dict[str, Any], path: tuple[Any, ...]) -> Any:
        if "$ref" in schema:
            yield from self._errors(value, self._resolve(schema["$ref"]), path)
        yield from _kind_errors(value, schema, path)
        yield from _range_errors(value, schema, path)
        if isinstance(value, dict):
            yield from self._object_errors(value, schema, path)
        if isinstance(value, list) and isinstance(schema.get("items"), dict):
            for index, item in enumerate(value):
                yield from self._errors(item, schema["items"], (*path, index))
        if "anyOf" in schema:
            branches = [list(self._errors(value, option, path)) for option in schema["anyOf"]]
            if all(branches):
                context = tuple(error for branch in branches for error in branch)
                yield _Error(path, f"{_show(value)} is not valid under any of the given schemas", "anyOf", context)

    def _object_errors(self, value: dict[str, Any], schema: dict[str, Any], path: tuple[Any, ...]) -> Any:
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        unexpected = []
        for key, item in value.items():
            if key in properties:
                yield from self._errors(item, properties[key], (*path, key))
            elif extra is False:
                unexpected.append(key)
            elif isinstance(extra, dict):
                yield from self._errors(item, extra, (*path, key))
        if unexpected:
            names = ", ".join(repr(k) for k in sorted(unexpected))
            verb = "was" if len(unexpected) == 1 else "were"
            yield _Error(path, f"Additional properties are not allowed ({names} {verb} unexpected)", "additionalProperties")


def _kind_errors(value: Any, schema: dict[str, Any], path: tuple[Any, ...]) -> Iterator[_Error]:
    """`type`, `const` and `enum`, in jsonschema's words."""
    kind = schema.get("type")
    if kind is not None:
        kinds = [kind] if isinstance(kind, str) else kind
        if not any(_is(k, value) for k in kinds):
            shown = ", ".join(repr(k) for k in kinds)
            yield _Error(path, f"{_show(value)} is not of type {shown}", "type")
    if "const" in schema and value != schema["const"]:
        yield _Error(path, f"{schema['const']!r} was expected", "const")
    if "enum" in schema and not any(
        value == item and type(value) is type(item) or (value == item and not isinstance(value, bool) and not isinstance(item, bool))
        for item in schema["enum"]
    ):
        yield _Error(path, f"{_show(value)} is not one of {schema['enum']!r}", "enum")


def _range_errors(value: Any, schema: dict[str, Any], path: tuple[Any, ...]) -> Iterator[_Error]:
    """`minimum`, `maximum`, `exclusiveMinimum` and `pattern`, in jsonschema's words."""
    numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
    if numeric and "minimum" in schema and value < schema["minimum"]:
        yield _Error(path, f"{value!r} is less than the minimum of {schema['minimum']!r}", "minimum")
    if numeric and "maximum" in schema and value > schema["maximum"]:
        yield _Error(path, f"{value!r} is greater than the maximum of {schema['maximum']!r}", "maximum")
    if numeric and "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
        yield _Error(path, f"{value!r} is less than or equal to the minimum of {schema['exclusiveMinimum']!r}", "exclusiveMinimum")
    if isinstance(value, str) and "pattern" in schema:
        import re

        if not re.search(schema["pattern"], value):
            yield _Error(path, f"{value!r} does not match {schema['pattern']!r}", "pattern")


@cache
def _validator(name: str) -> _Validator:
    return _Validator(load_schema(name))


@dataclass(frozen=True)
class Problem:
    path: str  # dotted path of the offending value
    message: str


def _innermost(error: Any) -> list[Any]:
    """For an anyOf failure (`object or null`, `integer or "auto"`), the errors of the branch
    the value was meant for: skip branches that only failed on the kind of value."""
    if not error.context:
        return [error]
    relevant = [e for e in error.context if e.validator not in ("type", "const") or len(e.absolute_path) > len(error.absolute_path)]
    if not relevant:
        return [error]
    deepest = max(len(e.absolute_path) for e in relevant)
    found: list[Any] = []
    for inner in relevant:
        if len(inner.absolute_path) == deepest:
            found.extend(_innermost(inner))
    return found


def validate(name: str, data: Any) -> list[Problem]:
    problems = []
    seen: set[str] = set()
    errors = [inner for error in _validator(name).iter_errors(data) for inner in _innermost(error)]
    for error in sorted(errors, key=lambda e: [str(p) for p in e.absolute_path]):
        parts = [str(p) for p in error.absolute_path]
        where = ".".join(parts)
        message = f"{where + ': ' if where else ''}{error.message}"
        if message not in seen:
            seen.add(message)
            problems.append(Problem(where, message))
    return problems
