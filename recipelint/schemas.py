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


def validate(name: str, data: Any) -> list[Problem]:
    problems = []
    for error in sorted(_validator(name).iter_errors(data), key=lambda e: list(map(str, e.absolute_path))):
        parts = [str(p) for p in error.absolute_path]
        where = ".".join(parts)
        problems.append(Problem(where, f"{where + ': ' if where else ''}{error.message}"))
    return problems
