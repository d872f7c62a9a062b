"""Printing a run's result: one module per output format, each with `render(result) -> str`
(like ruff's Emitter), registered in REPORTERS. The CLI's `--format` choices are generated from
this registry (recipelint.checkcmd.Format). Nothing is imported until a format is used."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from recipelint.engine import Result

Reporter = Callable[["Result"], str]

# format name -> "module:function"; the first is the default. Findings per rule are an option
# (`--statistics`, recipelint.report.statistics), not a format: it applies to the text formats
# and to json, and `diagnose` has no such table.
REPORTERS: dict[str, str] = {
    "text": "recipelint.report.text:render",
    "concise": "recipelint.report.text:render_concise",
    "json": "recipelint.report.jsonout:render",
    "sarif": "recipelint.report.sarif:render",
    "github": "recipelint.report.github:render",
    "rdjson": "recipelint.report.review:render_rdjson",
    "rdjsonl": "recipelint.report.review:render_rdjsonl",
    "junit": "recipelint.report.review:render_junit",
    "gitlab": "recipelint.report.review:render_gitlab",
}


def reporter(name: str) -> Reporter:
    """The render function of a registered format (KeyError for an unknown one)."""
    module, function = REPORTERS[name].split(":")
    return cast(Reporter, getattr(importlib.import_module(module), function))
