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
from recipelint.fingerprint import fingerprints
from recipelint.parse.files import FileCache, SourceError
from recipelint.parse.span import Span
from recipelint.parse.where import shown
from recipelint.report.review import FILE_ERROR
from recipelint.rules import all_rules, rule_url

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


# The descriptor of a file recipelint could not read: a result of its own, so a code-scanning
# upload that fails on it names the file (not a run with 0 results).
FILE_ERROR_RULE = {
    "id": FILE_ERROR,
    "name": FILE_ERROR,
    "shortDescription": {"text": "A file recipelint could not read as what it claims to be"},
    "fullDescription": {"text": "The file could not be read or parsed; nothing in it was checked."},
    "defaultConfiguration": {"level": "error"},
}


def _error_results(errors: list[SourceError], index: int) -> list[dict[str, Any]]:
    results = []
    for error in errors:
        region = {"startLine": error.line, "startColumn": max(error.column, 1)} if error.line else {}
        location: dict[str, Any] = {"artifactLocation": _location(error.path)}
        if region:
            location["region"] = region
        results.append(
            {
                "ruleId": FILE_ERROR,
                "ruleIndex": index,
                "level": "error",
                "message": {"text": error.reason},
                "locations": [{"physicalLocation": location}],
            }
        )
    return results


def _notifications(errors: list[SourceError]) -> list[dict[str, Any]]:
    return [
        {
            "level": "error",
            "message": {"text": error.reason},
            "locations": [{"physicalLocation": {"artifactLocation": _location(error.path)}}],
            "descriptor": {"id": FILE_ERROR},
        }
        for error in errors
    ]


def document(
    diagnostics: list[Diagnostic],
    more_rules: Mapping[str, Any] | None = None,
    errors: list[SourceError] | None = None,
    files: FileCache | None = None,
) -> str:
    """`more_rules`: descriptors beyond the rules (diagnose's signatures), each with the rule's
    code, name, summary, doc, severity, fixable and source. `errors`: the files that could not be
    read, each a result and a notification of the invocation. `files`: the run's texts, for each
    finding's `partialFingerprints` (recipelint.fingerprint)."""
    errors = errors or []
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
                "helpUri": rule_url(code),
                "defaultConfiguration": {"level": LEVEL[rule.severity]},
                "properties": {"fixable": rule.fixable, "source": rule.source},
            }
        )
    descriptors.append(FILE_ERROR_RULE)
    prints = fingerprints(diagnostics, files or FileCache())
    results = [_result(d, index[d.code], fingerprint) for d, fingerprint in zip(diagnostics, prints, strict=True)]
    results.extend(_error_results(errors, len(descriptors) - 1))
    log = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "recipelint",
                        "version": __version__,
                        "rules": descriptors,
                    }
                },
                "originalUriBaseIds": {SRCROOT: {"uri": Path.cwd().as_uri() + "/"}},
                "invocations": [{"executionSuccessful": not errors, "toolExecutionNotifications": _notifications(errors)}],
                "results": results,
            }
        ],
    }
    return json.dumps(log, indent=2)


def _result(d: Diagnostic, rule_index: int, fingerprint: str) -> dict[str, Any]:
    """One finding as a SARIF result, its fix as artifact changes."""
    result: dict[str, Any] = {
        "ruleId": d.code,
        "ruleIndex": rule_index,
        "level": LEVEL[d.severity],
        "message": {"text": d.message},
        "locations": [{"physicalLocation": {"artifactLocation": _location(d.span.path), "region": _region(d.span)}}],
        "partialFingerprints": {"recipelint/v1": fingerprint},
    }
    if d.fix is not None:
        changes: dict[Path, list[dict[str, Any]]] = {}
        for edit in d.fix.edits:
            changes.setdefault(edit.span.path, []).append({"deletedRegion": _region(edit.span), "insertedContent": {"text": edit.content}})
        result["fixes"] = [
            {
                "description": {"text": f"{d.fix.title} ({d.fix.applicability.value})"},
                "artifactChanges": [{"artifactLocation": _location(p), "replacements": r} for p, r in changes.items()],
            }
        ]
    return result


def render(result: Result) -> str:
    """The report of a run (the reporters' one signature, recipelint.report.REPORTERS)."""
    return document(result.diagnostics, errors=result.errors, files=result.sources)
