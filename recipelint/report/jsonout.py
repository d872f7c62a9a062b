"""Machine output: one JSON object that tools and tests can rely on."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from recipelint.diagnostics import Diagnostic
from recipelint.hardware.profile import Hardware
from recipelint.hardware.report import Judged, summary_json
from recipelint.parse.files import SourceError
from recipelint.parse.where import shown

if TYPE_CHECKING:
    from recipelint.engine import Result


def _jsonable(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def diagnostic_dict(d: Diagnostic) -> dict[str, Any]:
    fix = None
    if d.fix is not None:
        fix = {
            "applicability": d.fix.applicability.value,
            "message": d.fix.title,
            "edits": [
                {
                    "path": str(shown(e.span.path)),
                    "line": e.span.line,
                    "column": e.span.column,
                    "end_line": e.span.end_line,
                    "end_column": e.span.end_column,
                    "content": e.content,
                }
                for e in d.fix.edits
            ],
        }
    return {
        "code": d.code,
        "severity": str(d.severity),
        "message": d.message,
        "path": str(shown(d.span.path)),
        "line": d.span.line,
        "column": d.span.column,
        "end_line": d.span.end_line,
        "end_column": d.span.end_column,
        "setting": d.setting,
        "current": _jsonable(d.current),
        "suggested": _jsonable(d.suggested),
        "evidence": d.evidence,
        "fix": fix,
    }


def document(
    diagnostics: list[Diagnostic],
    errors: list[SourceError],
    hardware: Hardware | None,
    judged: list[Judged] | None = None,
    statistics: dict[str, Any] | None = None,
) -> str:
    data: dict[str, Any] = {
        "diagnostics": [diagnostic_dict(d) for d in diagnostics],
        "errors": [{"path": str(shown(e.path)), "line": e.line, "column": e.column, "message": e.reason} for e in errors],
        "hardware": None,
    }
    source = summary_json(judged or [], hardware)
    facts = hardware.to_dict() if hardware is not None and source["machine"] != "none" else {}
    data["hardware"] = {"source": source, **facts}
    if statistics is not None:
        data["statistics"] = statistics
    return json.dumps(data, indent=2)


def render(result: Result) -> str:
    """The report of a run (the reporters' one signature, recipelint.report.REPORTERS)."""
    return document(result.diagnostics, result.errors, result.hardware, result.judged)


def render_with_statistics(result: Result) -> str:
    """`--format json --statistics`: the report with a `statistics` object, per rule code its
    name, count and fixable count (recipelint.report.statistics)."""
    from recipelint.report.statistics import counts

    return document(result.diagnostics, result.errors, result.hardware, result.judged, counts(result.diagnostics))
