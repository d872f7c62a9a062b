"""Human output: `path:line:col: CODE message`, the source line with a caret, and the evidence."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from recipelint.diagnostics import Applicability, Diagnostic, Severity
from recipelint.parse import kind_of
from recipelint.parse.files import FileCache, SourceError, printable
from recipelint.parse.where import shown

# A recipe's own bytes shown in the code frame: a control character (an escape sequence, an OSC 8
# link, `\r`) becomes `?`, one column for one, so the caret stays under the span.
_FRAME = {code: "?" for code in (*range(0x09), *range(0x0A, 0x20), 0x7F, *range(0x80, 0xA0))}

if TYPE_CHECKING:
    from recipelint.engine import Result


def _source_line(files: FileCache, diagnostic: Diagnostic) -> list[str]:
    try:
        text = files.read(diagnostic.span.path)
    except SourceError:
        return []
    line = text.line_text(diagnostic.span.line)
    start = diagnostic.span.column - 1
    end = diagnostic.span.end_column - 1 if diagnostic.span.end_line == diagnostic.span.line else len(line)
    if kind_of(diagnostic.span.path) in ("json", "yaml"):
        line, start, end = _key_and_value(line, start, end, diagnostic.setting)
    width = max(1, end - start)
    gutter = f"{diagnostic.span.line:>5} | "
    return [f"{gutter}{line.translate(_FRAME)}", " " * (len(gutter) + start) + "^" * width]


# What may stand on a line beside one finding's key and value: the key itself (indented, a YAML
# list's `- `, quoted), and after the value closing brackets, a comma, an opening bracket or a
# comment. Anything else is another entry (a minified JSON, a flow mapping): not shown.
_ONE_KEY = re.compile(r"\s*(?:-\s+)?[\"']?[\w.\-/ ]*[\"']?\s*[:=]?\s*")
_ONE_VALUE = re.compile(r"\s*[:=]?\s*[^,{}\[\]]*?\s*[,\]}]*\s*[{\[]?\s*(?:#.*)?")
_FRAME_CHARS = 120


def _key_and_value(line: str, start: int, end: int, setting: str | None) -> tuple[str, int, int]:
    """The part of a config's line a finding is about: its key and value, never the neighbours a
    minified JSON or a flow mapping keeps on the same line (a Docker `config.json`'s token beside
    the key judged). A line of one key and value is shown whole. Cut parts read `...`; the
    returned columns place the caret."""
    if line[start : start + 1] in ("{", "[") and not _ONE_VALUE.fullmatch(line[start + 1 :]):
        end = start + 1  # a block opened mid-line: its bracket only
    end = min(end, start + _FRAME_CHARS)
    key = (setting or "").rsplit(".", 1)[-1]
    begin = 0 if _ONE_KEY.fullmatch(line[:start]) else line.rfind(key, 0, start) if key else -1
    if begin < 0 or (begin > 0 and line[begin + len(key) : start].strip(" \t\"':=") != ""):
        begin = start  # not this value's own key (`key: value`, `"key": value`, `key=value`)
    begin -= 1 if 0 < begin != start and line[begin - 1 : begin] in ("'", '"') else 0
    head = line[:begin] if not line[:begin].strip(" -") else "... "
    tail = line[end:] if _ONE_VALUE.fullmatch(line[end:]) else " ..."
    return head + line[begin:end] + tail, start - begin + len(head), end - begin + len(head)


def findings(diagnostics: Iterable[Diagnostic], files: FileCache, concise: bool = False) -> str:
    lines: list[str] = []
    previous = None
    for d in diagnostics:
        if previous is not None and d.span.path != previous:
            files.forget(previous)  # findings come sorted by file: each text is held once, briefly
        previous = d.span.path
        head = f"{shown(d.span.path)}:{d.span.line}:{d.span.column}: {d.code} [{d.severity}] {d.message}"
        lines.append(printable(head))
        if concise:
            continue
        lines.extend(_source_line(files, d))
        if d.current is not None or d.suggested is not None:
            change = f"current {d.current}" if d.current is not None else ""
            if d.suggested is not None:
                change += f"{', ' if change else ''}suggested {d.suggested}"
            lines.append(printable(f"      = {d.setting}: {change}"))
        for item in d.evidence:
            lines.append(printable(f"      = because {item}"))
        if d.fix is not None:
            kind = "fix" if d.fix.applicability is Applicability.SAFE else "unsafe fix (--unsafe-fixes)"
            lines.append(printable(f"      = {kind}: {d.fix.title}"))
        lines.append("")
    return "\n".join(lines)


def summary(diagnostics: list[Diagnostic], errors: int, nothing_in: list[str] | None = None) -> str:
    """The closing line. `nothing_in`: the paths of a run that read no recipe, so a run that
    checked nothing never reads as an all clear."""
    if not diagnostics and nothing_in is not None:
        where = ", ".join(nothing_in) or "the current folder"
        if errors:
            return f"{errors} file error{'s' if errors != 1 else ''}; nothing checked in {where}."
        return f"Nothing checked: no recipes found in {where}" + ("" if where.endswith(".") else ".")
    if not diagnostics and not errors:
        return "No problems found."
    in_files = [d for d in diagnostics if d.fix is not None and d.span.path.name != "<command>"]  # --command has no file
    fixable = sum(1 for d in in_files if d.fix is not None and d.fix.applicability is Applicability.SAFE)
    unsafe = sum(1 for d in in_files if d.fix is not None and d.fix.applicability is Applicability.UNSAFE)
    counts = [(sum(1 for d in diagnostics if d.severity is level), level) for level in (Severity.ERROR, Severity.WARNING, Severity.INFO)]
    kinds = ", ".join(f"{n} {level}{'s' if n != 1 and level is not Severity.INFO else ''}" for n, level in counts if n)
    parts = [f"Found {len(diagnostics)} finding{'s' if len(diagnostics) != 1 else ''}" + (f" ({kinds})" if kinds else "")]
    if errors:
        parts.append(f"{errors} file error{'s' if errors != 1 else ''}")
    text = ", ".join(parts) + "."
    if fixable:
        text += f" {fixable} fixable with `recipelint fix --write`."
    if unsafe:
        text += f" {unsafe} more with --unsafe-fixes."
    return text


def render(result: Result) -> str:
    """The full report: which machine it was judged against, each finding with its source line
    and evidence, and the summary."""
    from recipelint.hardware.report import summary_line

    return summary_line(result.judged, result.hardware) + "\n\n" + _report(result, concise=False)


def render_concise(result: Result) -> str:
    """One line a finding, and the summary."""
    return _report(result, concise=True)


def render_quiet(result: Result, concise: bool) -> str:
    """`-q`: the findings alone, neither the machine line nor the summary (as ruff's --quiet)."""
    return findings(result.diagnostics, result.sources or FileCache(), concise=concise).rstrip("\n")


def error_lines(errors: list[SourceError]) -> str:
    """Each file that could not be read as a line of the concise report, as a finding is
    written (`path:line:col: file-error [error] reason`), so tools that read it see the file."""
    return "".join(printable(f"{shown(e.path)}:{max(e.line, 1)}:{max(e.column, 1)}: file-error [error] {e.reason}") + "\n" for e in errors)


def _report(result: Result, concise: bool) -> str:
    body = findings(result.diagnostics, result.sources or FileCache(), concise=concise)
    if concise and result.errors:
        body = (body + "\n" if body and not body.endswith("\n") else body) + error_lines(result.errors)
    head = body.rstrip("\n") + ("" if concise else "\n") + "\n" if body.strip() else ""
    tail = summary(result.diagnostics, len(result.errors), None if result.parsed else result.named)
    if result.known:
        tail += f" {result.known} known finding{'s' if result.known != 1 else ''} {result.known_as}."
    return head + tail


# A finding's first line as `findings` writes it; the path is the shortest prefix before
# `:LINE:COL: CODE [severity]`, so a path holding `: ` still ends in the right place.
_HEAD = re.compile(r"(?P<path>.+?)(?P<where>:\d+:\d+: )(?P<code>[A-Z]+\d+) (?P<severity>\[(?:error|warning|info)\])(?= |$)")
_CARET = re.compile(r" +\^+")
_BOLD, _RESET = "\x1b[1m", "\x1b[0m"
_COLOUR = {"[error]": "\x1b[1;31m", "[warning]": "\x1b[1;33m", "[info]": "\x1b[1;36m"}


def colour(report: str) -> str:
    """The text report with ANSI styles, as ruff shows it: the path bold, the code and severity
    in the severity's colour, the caret too. `report` must already be escaped for the terminal
    (recipelint.parse.files.terminal_text): the styles are the only control sequences added."""
    lines = []
    style = ""
    for line in report.split("\n"):
        head = _HEAD.match(line)
        if head is not None:
            style = _COLOUR[head["severity"]]
            rest = line[head.end() :]
            line = f"{_BOLD}{head['path']}{_RESET}{head['where']}{style}{head['code']} {head['severity']}{_RESET}{rest}"
        elif style and _CARET.fullmatch(line):
            line = line.replace("^", f"{style}^", 1) + _RESET
        lines.append(line)
    return "\n".join(lines)
