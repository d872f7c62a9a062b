"""The JSON Schemas under `schemas/`: found in the installed package or the source tree,
compiled once per process, and only imported when something is validated."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any


def schema_dir() -> Path:
    installed = Path(__file__).parent / "schemas"
    return installed if installed.is_dir() else Path(__file__).parent.parent / "schemas"


@cache
def load_schema(name: str) -> dict[str, Any]:
    with open(schema_dir() / name, encoding="utf-8") as handle:
        data: dict[str, Any] = json.load(handle)
    return data


@cache
def _validator(name: str) -> Any:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(load_schema(name))


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
    for error in sorted(errors, key=lambda e: list(map(str, e.absolute_path))):
        parts = [str(p) for p in error.absolute_path]
        where = ".".join(parts)
        message = f"{where + ': ' if where else ''}{error.message}"
        if message not in seen:
            seen.add(message)
            problems.append(Problem(where, message))
    return problems
