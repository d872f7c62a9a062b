"""Printing a diagnosis in every format `check` has: text (with the log excerpt), concise,
json, sarif and github. The recipe's findings print exactly as `check` prints them."""

from __future__ import annotations

from recipelint.diagnose import Finding, Report, other_error_lines, to_json, unknown_lines
from recipelint.diagnose.reader import LogLine
from recipelint.diagnostics import Applicability
from recipelint.parse.files import FileCache

STATUS = {
    "found": "found in the recipe",
    "located": "set in the recipe here",
    "not-found": "not in this recipe",
    "unchecked": "no rule checks this here",
    "no-recipe": "give the recipe to check",
}


def render(report: Report, fmt: str, files: FileCache) -> str:
    if fmt == "json":
        return to_json(report)
    diagnostics = [f.diagnostic() for f in report.findings] + report.fixes
    if fmt == "github":
        from recipelint.report import github

        return github.workflow_commands(diagnostics)
    if fmt == "sarif":
        from recipelint.diagnose.signatures import all_signatures
        from recipelint.report import sarif

        return sarif.document(diagnostics, all_signatures())
    if fmt == "concise":
        from recipelint.report import text

        return "\n".join(filter(None, [text.findings(diagnostics, files, concise=True).rstrip("\n"), summary(report)]))
    return text_report(report, files)


def text_report(report: Report, files: FileCache) -> str:
    from recipelint.report import text

    if not report.findings:
        return no_signature(report)
    out: list[str] = []
    for finding in report.findings:
        out.extend(finding_lines(finding))
        out.append("")
    out.extend(root_lines(report))
    others = other_error_lines(report)
    if others:
        out.append("Other error lines, no known signature:")
        out.extend(f"  {x.path}:{x.number} | {x.text}" for x in others)
        out.append("")
    if report.fixes:
        out.append("The fix, as `recipelint check` reports it:")
        out.append("")
        out.append(text.findings(report.fixes, files).rstrip("\n"))
        out.append("")
    out.append(summary(report))
    return "\n".join(out)


# Root errors listed in a report; the rest are counted.
SHOWN_ROOTS = 8


def root_lines(report: Report) -> list[str]:
    """The first exception of each rank: what broke first, whatever the signatures say."""
    if not report.roots:
        return []
    out = ["Root errors (the first exception of each rank, raised where the traceback says):"]
    for root in report.roots[:SHOWN_ROOTS]:
        who = f"rank {root.hit.rank}" if root.hit.rank is not None else "the log"
        out.append(f"  {root.hit.line.path}:{root.hit.line.number}: {who}: {root.raised.describe()}")
    if len(report.roots) > SHOWN_ROOTS:
        out.append(f"  ... and {len(report.roots) - SHOWN_ROOTS} more")
    out.append("")
    return out


def finding_lines(finding: Finding) -> list[str]:
    hit = finding.anchor
    signature = finding.signature
    out = [f"{hit.line.path}:{hit.line.number}: {signature.code} [{finding.severity}] {finding.explanation.message}"]
    width = len(str(max([hit.line.number] + [x.number for x in hit.after])))
    for item in (*hit.before, hit.line, *hit.after):
        marker = ">" if item.number == hit.line.number else " "
        out.append(f"  {marker} {item.number:>{width}} | {item.text}")
    if finding.count > 1:
        out.append(f"      = {finding.count} lines of the log match this signature")
    for said in finding.explanation.evidence:
        out.append(f"      = {said}")
    if finding.causes:
        out.append("  likely causes:")
    for i, cause in enumerate(finding.causes, 1):
        codes = " ".join(cause.cause.codes)
        state = f"{codes}: {STATUS[cause.status]}" if codes else "advice: no rule checks this"
        if cause.lines and not cause.diagnostics:
            state = f"{codes + ': ' if codes else ''}{STATUS['located']}"
        out.append(f"    {i}. {cause.cause.text} [{state}]")
        if cause.why:
            out.append(f"       because {cause.why}")
        for d in cause.diagnostics:
            out.append(f"       -> {d.span}: {d.code} {d.message}")
        for where in cause.lines:
            out.append(f"       -> {where}")
    return out


def summary(report: Report) -> str:
    lines = sum(log.lines for log in report.logs)
    logs = f"{len(report.logs)} log{'s' if len(report.logs) != 1 else ''} ({lines:,} lines)"
    if not report.findings:
        return f"No known failure signature in {logs}."
    count = len(report.findings)
    text = f"Found {count} failure signature{'s' if count != 1 else ''} in {logs}."
    fixes = report.fixes
    if fixes:
        safe = sum(1 for d in fixes if d.fix is not None and d.fix.applicability is Applicability.SAFE)
        unsafe = sum(1 for d in fixes if d.fix is not None and d.fix.applicability is Applicability.UNSAFE)
        text += f" The recipe has {len(fixes)} finding{'s' if len(fixes) != 1 else ''} behind the causes"
        text += f", {safe} fixable with `recipelint diagnose ... --fix --write`" if safe else ""
        text += f", {unsafe} more with --unsafe-fixes" if unsafe else ""
        text += "."
    elif not report.scene.given:
        text += " Give the recipe paths (and --hardware) to rank the causes against it and get the fix."
    return text


def no_signature(report: Report) -> str:
    lines: list[LogLine] = unknown_lines(report)
    out = [summary(report)]
    roots = root_lines(report)
    out.extend(roots[:-1])
    if lines:
        out.append("Last error lines:" if report.error_lines else "Last lines:")
        width = len(str(max(x.number for x in lines)))
        previous = None
        for item in lines:
            if previous is not None and (item.path != previous.path or item.number > previous.number + 1):
                out.append("  ...")
            out.append(f"  {item.path}:{item.number:<{width}} | {item.text}")
            previous = item
    return "\n".join(out)
