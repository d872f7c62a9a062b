"""GitHub Actions workflow commands: one `::error file=...,line=...,col=...::` annotation per finding."""

from __future__ import annotations

from typing import TYPE_CHECKING

from recipelint.diagnostics import Diagnostic, Severity
from recipelint.parse.files import SourceError
from recipelint.parse.where import shown

if TYPE_CHECKING:
    from recipelint.engine import Result

COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def _escape(text: str, property_value: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if property_value:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


def workflow_commands(diagnostics: list[Diagnostic]) -> str:
    lines = []
    for d in diagnostics:
        props = f"file={_escape(str(shown(d.span.path)), True)},line={d.span.line},col={d.span.column},endLine={d.span.end_line},endColumn={d.span.end_column},title={_escape(d.code, True)}"
        lines.append(f"::{COMMAND[d.severity]} {props}::{_escape(f'{d.code} {d.message}')}")
    return "\n".join(lines)


def error_commands(errors: list[SourceError]) -> str:
    """An `::error` annotation for each file that could not be read: a run that failed on one
    names the file in the pull request, not only in the log."""
    lines = []
    for error in errors:
        where = f"file={_escape(str(shown(error.path)), True)}"
        if error.line:
            where += f",line={error.line},col={max(error.column, 1)}"
        lines.append(f"::error {where},title=file-error::{_escape(error.reason)}")
    return "\n".join(lines)


def render(result: Result) -> str:
    """The report of a run (the reporters' one signature, recipelint.report.REPORTERS)."""
    return "\n".join(part for part in (workflow_commands(result.diagnostics), error_commands(result.errors)) if part)
