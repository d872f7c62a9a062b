"""`recipelint diagnose`: from the error a job died with back to the recipe line that caused it.

The logs are streamed once (reader.py) against every signature's patterns; each signature
that matched explains its matches with the recipe's facts (signatures/); its causes are
ranked and given the diagnostics `check` reports for the rules behind them (scene.py), so
the fix a diagnosis proposes is the one `check` and `fix` already know.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from recipelint.diagnose.reader import FileScan, Hit, LogLine, Root, Scanner
from recipelint.diagnose.scene import Scene, build_scene
from recipelint.diagnose.signatures import Cause, Explanation, Found, Signature, all_signatures
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.hardware.profile import Hardware
from recipelint.parse.files import SourceError, head
from recipelint.parse.span import Span
from recipelint.records import dataclass, field
from recipelint.settings import Resolver

RECIPE_SUFFIXES = (".sh", ".yaml", ".yml", ".py", ".md", ".toml")
# Where a cause stands after the recipe was checked: its rule found it, the recipe's line behind
# it is named (`located`: no rule judges it), the rule ran and did not, no rule checks it (or
# none ran on this recipe), or no recipe was given.
STATUS_ORDER = {"found": 0, "located": 0, "unchecked": 1, "no-recipe": 1, "not-found": 2}


@dataclass
class RankedCause:
    key: str
    cause: Cause
    why: str
    status: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)  # the recipe's lines behind it that no rule reports


@dataclass
class Finding:
    signature: Signature
    explanation: Explanation
    count: int
    causes: list[RankedCause]

    @property
    def anchor(self) -> Hit:
        return self.explanation.anchor

    @property
    def severity(self) -> Severity:
        return self.explanation.severity if self.explanation.severity is not None else self.signature.severity

    def diagnostic(self) -> Diagnostic:
        """The finding as a diagnostic at its log line (for concise, GitHub and SARIF output)."""
        line = self.anchor.line
        span = Span(line.path, 0, 0, line.number, 1, line.number, len(line.text) + 1)
        return Diagnostic(self.signature.code, self.severity, self.explanation.message, span, evidence=self.explanation.evidence)


@dataclass
class Report:
    findings: list[Finding]
    scene: Scene
    logs: list[FileScan]
    error_lines: list[LogLine]
    last_error: Hit | None
    errors: list[SourceError]
    roots: list[Root] = field(default_factory=list)  # the first exception of each rank, in log order

    @property
    def fixes(self) -> list[Diagnostic]:
        """The recipe's diagnostics behind the findings' causes, likeliest first, once each."""
        seen: dict[tuple[object, ...], Diagnostic] = {}
        for finding in self.findings:
            for cause in finding.causes:
                for d in cause.diagnostics:
                    seen.setdefault((d.code, d.span, d.message), d)
        return list(seen.values())

    @property
    def fix_codes(self) -> set[str]:
        return {d.code for d in self.fixes}


def is_log(path: Path) -> bool:
    """A log, or a recipe path? Folders, scripts and configs are recipes; a JSON is a recipe
    unless it is a torchelastic error file; everything else (.log, .out, .err, .txt, .gz) is a log."""
    if path.is_dir() or path.suffix in RECIPE_SUFFIXES:
        return False
    if path.suffix == ".json":
        start = head(path, 4096)
        return start is not None and b'"message"' in start and b"{" in start[:16]
    return True


def scan(logs: list[Path]) -> tuple[Scanner, list[SourceError]]:
    scanner = Scanner([pattern for signature in all_signatures().values() for pattern in signature.patterns])
    errors: list[SourceError] = []
    for path in logs:
        try:
            scanner.read(path)
        except SourceError as error:
            errors.append(error)
    return scanner, errors


def diagnose(
    logs: list[Path],
    recipes: list[Path],
    hardware: Callable[[], Hardware] | None = None,
    resolver: Resolver | None = None,
) -> Report:
    scanner, errors = scan(logs)
    scene = build_scene(recipes, hardware, resolver)
    findings: list[Finding] = []
    shown = shown_toolkits(scanner, scene)
    for signature in all_signatures().values():
        prefix = signature.code + "."
        if not any(key.startswith(prefix) for key in scanner.stats):
            continue
        explanation = signature.explain(Found(signature.code, scanner, scene))
        if explanation is None:
            continue
        count = sum(stats.count for key, stats in scanner.stats.items() if key.startswith(prefix))
        findings.append(Finding(signature, explanation, count, rank_causes(signature, explanation, scene, shown)))
    replaced = {code for finding in findings for code in finding.signature.supersedes}
    findings = [f for f in findings if f.signature.code not in replaced]
    findings.sort(key=lambda f: (-f.severity.value, str(f.anchor.line.path), f.anchor.line.number))
    order = {scan.path: i for i, scan in enumerate(scanner.files)}
    roots = sorted(scanner.roots.values(), key=lambda r: (order.get(r.hit.line.path, 0), r.hit.line.number))
    return Report(findings, scene, scanner.files, list(scanner.error_lines), scanner.last_error, errors + scene.errors, roots)


def shown_toolkits(scanner: Scanner, scene: Scene) -> set[str]:
    """The toolkits the logs and the recipe show."""
    shown = {name for scan in scanner.files for name in scan.toolkits}
    return shown | {c.recipe.toolkit for c in scene.contexts if c.recipe.toolkit}


def rank_causes(signature: Signature, explanation: Explanation, scene: Scene, shown: set[str] | None = None) -> list[RankedCause]:
    """The signature's causes in its order, each with the recipe's findings for it; causes the
    recipe confirms come first, causes its rules ruled out last. A cause of a toolkit that
    neither the log nor the recipe shows is not offered (`shown`: None offers every cause)."""
    ranked: dict[str, RankedCause] = {}
    for key, why in explanation.causes:
        if shown is not None and signature.causes[key].toolkit not in (None, *shown):
            continue
        if key in ranked:
            if why and not ranked[key].why:
                ranked[key].why = why
            continue
        cause = signature.causes[key]
        found = scene.found(cause.codes)
        if not scene.given:
            status = "no-recipe"
        elif found:
            status = "found"
        elif cause.codes and any(scene.checks(code) for code in cause.codes):
            status = "not-found"
        else:
            status = "unchecked"
        lines = explanation.recipe_lines.get(key, [])
        if lines and status != "found":
            status = "located"
        ranked[key] = RankedCause(key, cause, why, status, found, lines)
    order = list(ranked.values())
    return sorted(order, key=lambda c: (STATUS_ORDER[c.status], order.index(c)))


def to_json(report: Report) -> str:
    from recipelint.report.jsonout import diagnostic_dict

    def line(item: LogLine) -> dict[str, object]:
        return {"path": str(item.path), "line": item.number, "text": item.text}

    findings = []
    for finding in report.findings:
        hit = finding.anchor
        findings.append(
            {
                "code": finding.signature.code,
                "name": finding.signature.name,
                "severity": str(finding.severity),
                "message": finding.explanation.message,
                "path": str(hit.line.path),
                "line": hit.line.number,
                "matched_lines": finding.count,
                "excerpt": [line(x) for x in (*hit.before, hit.line, *hit.after)],
                "evidence": finding.explanation.evidence,
                "causes": [
                    {
                        "rank": i + 1,
                        "cause": c.key,
                        "text": c.cause.text,
                        "why": c.why,
                        "codes": list(c.cause.codes),
                        "status": c.status,
                        "diagnostics": [diagnostic_dict(d) for d in c.diagnostics],
                        "recipe_lines": c.lines,
                    }
                    for i, c in enumerate(finding.causes)
                ],
            }
        )
    data = {
        "findings": findings,
        "roots": [
            {**line(r.hit.line), "rank": r.hit.rank, "type": r.raised.type, "message": r.raised.message, "where": r.raised.where}
            for r in report.roots
        ],
        "diagnostics": [diagnostic_dict(d) for d in report.fixes],
        "unknown": [line(x) for x in (other_error_lines(report) if report.findings else unknown_lines(report))],
        "logs": [{"path": str(s.path), "lines": s.lines} for s in report.logs],
        "errors": [{"path": str(e.path), "line": e.line, "column": e.column, "message": e.reason} for e in report.errors],
    }
    return json.dumps(data, indent=2)


# Error lines this close to a finding's line are taken as part of it (its traceback).
NEAR_FINDING = 30
OTHER_ERRORS = 5


def other_error_lines(report: Report) -> list[LogLine]:
    """Error lines no signature explains, away from every finding: listed as unknown."""
    near = {(f.anchor.line.path, f.anchor.line.number // NEAR_FINDING) for f in report.findings}
    near |= {(path, bucket + step) for path, bucket in near for step in (-1, 1)}
    return [x for x in report.error_lines if (x.path, x.number // NEAR_FINDING) not in near][-OTHER_ERRORS:]


def unknown_lines(report: Report) -> list[LogLine]:
    """For a log with no known signature: the last error lines, then the last error's surroundings."""
    lines = {(x.path, x.number): x for x in report.error_lines}
    if report.last_error is not None:
        hit = report.last_error
        for item in (*hit.before, hit.line, *hit.after):
            lines.setdefault((item.path, item.number), item)
    if not lines:
        for log in report.logs:
            for item in log.last_lines:
                lines.setdefault((item.path, item.number), item)
    order = {log.path: i for i, log in enumerate(report.logs)}
    return sorted(lines.values(), key=lambda x: (order.get(x.path, 0), x.number))
