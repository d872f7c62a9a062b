"""Generate docs/signatures.md from the signatures' own docstrings:
`python -m recipelint.diagnose.docs > docs/signatures.md`."""

from __future__ import annotations

from recipelint.diagnose.signatures import all_signatures


def signatures_markdown() -> str:
    signatures = all_signatures()
    out = [
        "# recipelint failure signatures",
        "",
        "Generated from each signature's docstring by `python -m recipelint.diagnose.docs > docs/signatures.md`; do not edit by hand.",
        "`recipelint diagnose LOG... [RECIPE]` matches them in training logs; see [diagnose.md](diagnose.md).",
        "",
        "| code | name | severity | rules behind its causes | what it matches |",
        "|---|---|---|---|---|",
    ]
    for s in signatures.values():
        codes = ", ".join(s.codes) or "-"
        out.append(f"| [{s.code}](#{s.code.lower()}-{s.name}) | {s.name} | {s.severity} | {codes} | {s.summary} |")
    for s in signatures.values():
        body = s.doc.strip().split("\n", 1)
        rest = body[1].strip() if len(body) > 1 else ""
        rest = rest.replace("\n## ", "\n### ")
        if rest.startswith("## "):
            rest = "#" + rest
        causes = "\n".join(
            f"- `{key}`: {cause.text}"
            + (f" ({', '.join(cause.codes)})" if cause.codes else " (advice)")
            + (f"; offered only where the log or recipe shows {cause.toolkit}" if cause.toolkit else "")
            for key, cause in s.causes.items()
        )
        out += [
            "",
            f"## {s.code} {s.name}",
            "",
            body[0],
            "",
            f"Severity: {s.severity}. Source: {s.source}.",
            "",
            rest,
            "",
            "### Causes it ranks",
            causes,
        ]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    print(signatures_markdown(), end="")
