"""SARIF 2.1.0 for code scanning (GitHub and others)."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from recipelint import __version__
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.parse.span import Span
from recipelint.parse.where import shown
from recipelint.rules import all_rules

if TYPE_CHECKING:
    from recipelint.engine import Result

LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


SRCROOT = "%SRCROOT%"  # the folder recipelint ran in: relative URIs are resolved against it


def _location(path: Path) -> dict[str, str]:
    """A file's artifactLocation: relative to %SRCROOT% when under the current folder, else an absolute file URI."""
    path = shown(path)
    # the name's own bytes, percent-encoded: a name that is not UTF-8 (`r\xff`) is still a URI
    raw = quote(os.fsencode(path.as_posix()))
    if path.is_absolute():
        return {"uri": f"file://{raw}"}
    return {"uri": raw, "uriBaseId": SRCROOT}


def _region(span: Span) -> dict[str, int]:
    return {"startLine": span.line, "startColumn": span.column, "endLine": span.end_line, "endColumn": span.end_column}


def document(diagnostics: list[Diagnostic], more_rules: Mapping[str, Any] | None = None) -> str:
    """`more_rules`: descriptors beyond the rules (diagnose's signatures), each with the rule's
    code, name, summary, doc, severity, fixable and source."""
    rules: dict[str, Any] = {**all_rules(), **(more_rules or {})}
    codes = sorted({d.code for d in diagnostics} | set(rules))
    index = {code: i for i, code in enumerate(codes)}
    descriptors = []
    for code in codes:
        rule = rules[code]
        descriptors.append(
            {
                "id": code,
                "name": rule.name,
                "shortDescription": {"text": rule.summary},
                "fullDescription": {"text": rule.doc.strip()},
                "help": {"text": rule.doc.strip(), "markdown": rule.doc.strip()},
                "defaultConfiguration": {"level": LEVEL[rule.severity]},
                "properties": {"fixable": rule.fixable, "source": rule.source},
            }
        )
    results: list[dict[str, Any]] = []
    for d in diagnostics:
        result: dict[str, Any] = {
            "ruleId": d.code,
            "ruleIndex": index[d.code],
            "level": LEVEL[d.severity],
            "message": {"text": d.message},
            "locations": [{"physicalLocation": {"artifactLocation": _location(d.span.path), "region": _region(d.span)}}],
        }
        if d.fix is not None:
            changes: dict[Path, list[dict[str, Any]]] = {}
            for edit in d.fix.edits:
                changes.setdefault(edit.span.path, []).append(
                    {"deletedRegion": _region(edit.span), "insertedContent": {"text": edit.content}}
                )
            result["fixes"] = [
                {
                    "description": {"text": f"{d.fix.title} ({d.fix.applicability.value})"},
                    "artifactChanges": [{"artifactLocation": _location(p), "replacements": r} for p, r in changes.items()],
                }
            ]
        results.append(result)
    log = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "recipelint",
                        "version": __version__,
                        "informationUri": "https://github.com/recipelint/recipelint",
                        "rules": descriptors,
                    }
                },
                "originalUriBaseIds": {SRCROOT: {"uri": Path.cwd().as_uri() + "/"}},
                "results": results,
            }
        ],
    }
    return json.dumps(log, indent=2)


def render(result: Result) -> str:
    """The report of a run (the reporters' one signature, recipelint.report.REPORTERS)."""
    return document(result.diagnostics)
