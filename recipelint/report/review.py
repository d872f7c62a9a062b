"""Formats that CI services and review bots read: reviewdog's Diagnostic Format (`rdjson`, and
`rdjsonl`, one diagnostic a line), JUnit XML (`junit`, one test case a finding, one failing
case a file error) and GitLab's Code Quality report (`gitlab`).

reviewdog: https://github.com/reviewdog/reviewdog/tree/master/proto/rdf (a fix is a
`suggestion` with the byte range it replaces, which reviewdog posts as a GitHub suggestion).
GitLab: https://docs.gitlab.com/ci/testing/code_quality/#code-quality-report-format (each issue
needs `description`, `check_name`, `fingerprint`, `severity`, `location.path` and
`location.lines.begin`). A file recipelint could not read is a result in each of them, so a
pipeline that fails on it says which file.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any
from xml.sax.saxutils import escape, quoteattr

from recipelint.diagnostics import Diagnostic, Severity
from recipelint.fingerprint import fingerprints
from recipelint.parse.files import FileCache, SourceError
from recipelint.parse.span import Span
from recipelint.parse.where import shown
from recipelint.rules import rule_url

if TYPE_CHECKING:
    from recipelint.engine import Result

FILE_ERROR = "file-error"  # the check name of a file recipelint could not read, in every format
_RD_SEVERITY = {Severity.ERROR: "ERROR", Severity.WARNING: "WARNING", Severity.INFO: "INFO"}
_GITLAB_SEVERITY = {Severity.ERROR: "major", Severity.WARNING: "minor", Severity.INFO: "info"}


def _rd_range(span: Span) -> dict[str, Any]:
    return {"start": {"line": span.line, "column": span.column}, "end": {"line": span.end_line, "column": span.end_column}}


def _rd_diagnostic(d: Diagnostic) -> dict[str, Any]:
    item: dict[str, Any] = {
        "message": d.message,
        "location": {"path": str(shown(d.span.path)), "range": _rd_range(d.span)},
        "severity": _RD_SEVERITY[d.severity],
        "code": {"value": d.code, "url": rule_url(d.code)},
    }
    if d.fix is not None and all(edit.span.path == d.span.path for edit in d.fix.edits):
        # reviewdog posts a suggestion only on the finding's own file
        item["suggestions"] = [{"range": _rd_range(edit.span), "text": edit.content} for edit in d.fix.edits]
    return item


def _rd_error(error: SourceError) -> dict[str, Any]:
    line = max(error.line, 1)
    column = max(error.column, 1)
    return {
        "message": error.reason,
        "location": {"path": str(shown(error.path)), "range": {"start": {"line": line, "column": column}}},
        "severity": "ERROR",
        "code": {"value": FILE_ERROR},
    }


def _rd_items(result: Result) -> Iterator[dict[str, Any]]:
    yield from (_rd_diagnostic(d) for d in result.diagnostics)
    yield from (_rd_error(error) for error in result.errors)


def render_rdjson(result: Result) -> str:
    return json.dumps({"source": {"name": "recipelint"}, "diagnostics": list(_rd_items(result))}, indent=2)


def render_rdjsonl(result: Result) -> str:
    return "\n".join(json.dumps({**item, "source": {"name": "recipelint"}}) for item in _rd_items(result))


def render_gitlab(result: Result) -> str:
    files = result.sources or FileCache()
    issues: list[dict[str, Any]] = []
    for d, fingerprint in zip(result.diagnostics, fingerprints(result.diagnostics, files), strict=True):
        issues.append(
            {
                "type": "issue",
                "check_name": d.code,
                "description": f"{d.code} {d.message}",
                "categories": ["Bug Risk"],
                "severity": _GITLAB_SEVERITY[d.severity],
                "fingerprint": fingerprint,
                "location": {"path": str(shown(d.span.path)), "lines": {"begin": d.span.line, "end": d.span.end_line}},
            }
        )
    for error in result.errors:
        issues.append(
            {
                "type": "issue",
                "check_name": FILE_ERROR,
                "description": f"{FILE_ERROR}: {error.reason}",
                "categories": ["Bug Risk"],
                "severity": "blocker",
                "fingerprint": _error_fingerprint(error),
                "location": {"path": str(shown(error.path)), "lines": {"begin": max(error.line, 1)}},
            }
        )
    return json.dumps(issues, indent=2)


def _error_fingerprint(error: SourceError) -> str:
    return hashlib.sha256(f"{FILE_ERROR}\x1f{shown(error.path)}\x1f{error.reason}".encode("utf-8", "surrogateescape")).hexdigest()[:40]


def render_junit(result: Result) -> str:
    """One test suite, one test case per finding (failing at error and warning, passing at info)
    and one failing case per file error; a run without either is one passing case, so a CI that
    counts tests sees the check ran."""
    cases: list[str] = []
    failures = 0
    for d in result.diagnostics:
        where = f"{shown(d.span.path)}:{d.span.line}:{d.span.column}"
        name = quoteattr(f"{d.code} {where}")
        if d.severity is Severity.INFO:
            cases.append(f"    <testcase classname={quoteattr(str(shown(d.span.path)))} name={name}/>")
            continue
        failures += 1
        body = escape(f"{where}: {d.code} [{d.severity}] {d.message}")
        cases.append(
            f"    <testcase classname={quoteattr(str(shown(d.span.path)))} name={name}>\n"
            f"      <failure message={quoteattr(d.message)} type={quoteattr(str(d.severity))}>{body}</failure>\n"
            "    </testcase>"
        )
    for error in result.errors:
        cases.append(
            f"    <testcase classname={quoteattr(str(shown(error.path)))} name={quoteattr(FILE_ERROR)}>\n"
            f"      <error message={quoteattr(error.reason)} type={quoteattr(FILE_ERROR)}>{escape(str(error))}</error>\n"
            "    </testcase>"
        )
    if not cases:
        cases.append('    <testcase classname="recipelint" name="recipelint check"/>')
    head = f'  <testsuite name="recipelint" tests="{len(cases)}" failures="{failures}" errors="{len(result.errors)}">'
    return "\n".join(
        ['<?xml version="1.0" encoding="UTF-8"?>', '<testsuites name="recipelint">', head, *cases, "  </testsuite>", "</testsuites>"]
    )


def suggestions(original: dict[Path, bytes], changed: dict[Path, bytes]) -> list[dict[str, Any]]:
    """The fixes of `recipelint fix` as GitHub pull-request review comments, each a `suggestion`
    block on the exact lines it replaces (the shape of the REST API's review `comments`: path,
    start_line, line, side, body). Accepting every suggestion gives the bytes `fix --write`
    writes: each differing run of lines is one suggestion, and an insertion is attached to the
    line before it (a suggestion cannot be empty-ranged)."""
    comments: list[dict[str, Any]] = []
    for path, after in changed.items():
        old = original[path].decode("utf-8", "surrogateescape").splitlines(keepends=True)
        new = after.decode("utf-8", "surrogateescape").splitlines(keepends=True)
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
            if tag == "equal":
                continue
            if i1 == i2:  # an insertion: the suggestion takes the unchanged line before it (or after, at the top)
                if not old:
                    continue  # an empty file has no line to comment on
                i1, i2, j1, j2 = (i1 - 1, i2, j1 - 1, j2) if i1 > 0 else (i1, i2 + 1, j1, j2 + 1)
            body = "".join(new[j1:j2])
            if body and not body.endswith("\n"):
                body += "\n"  # a block's last line always ends; GitHub keeps the file's own ending
            comment: dict[str, Any] = {"path": str(shown(path)), "line": i2, "side": "RIGHT"}
            if i2 - i1 > 1:
                comment["start_line"] = i1 + 1
                comment["start_side"] = "RIGHT"
            comment["body"] = f"```suggestion\n{body}```"
            comments.append(comment)
    return comments


def apply_suggestions(original: dict[Path, bytes], comments: list[dict[str, Any]]) -> dict[Path, bytes]:
    """What accepting every suggestion does to the files (GitHub replaces the lines start_line..line
    with the block's lines): the test that suggestions and `fix --write` agree."""
    by_path: dict[str, list[dict[str, Any]]] = {}
    for comment in comments:
        by_path.setdefault(comment["path"], []).append(comment)
    out: dict[Path, bytes] = {}
    for path, data in original.items():
        lines = data.decode("utf-8", "surrogateescape").splitlines(keepends=True)
        for comment in sorted(by_path.get(str(shown(path)), []), key=lambda c: -int(c["line"])):
            start = int(comment.get("start_line", comment["line"]))
            block = str(comment["body"]).removeprefix("```suggestion\n").removesuffix("```")
            lines[start - 1 : int(comment["line"])] = block.splitlines(keepends=True)
        out[path] = "".join(lines).encode("utf-8", "surrogateescape")
    return out
