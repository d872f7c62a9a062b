"""Generate docs/rules.md from the rules' own docstrings: `python -m recipelint.docs > docs/rules.md`."""

from __future__ import annotations

from recipelint.rules import all_rules


def rules_markdown() -> str:
    rules = all_rules()
    out = [
        "# recipelint rules",
        "",
        "Generated from each rule's docstring by `python -m recipelint.docs > docs/rules.md`; do not edit by hand.",
        "",
        "| code | name | severity | fixable | what it checks |",
        "|---|---|---|---|---|",
    ]
    for rule in rules.values():
        out.append(
            f"| [{rule.code}](#{rule.code.lower()}-{rule.name}) | {rule.name} | {rule.severity} | {'yes' if rule.fixable else 'no'} | {rule.summary} |"
        )
    for rule in rules.values():
        body = rule.doc.strip().split("\n\n", 1)
        rest = body[1].strip() if len(body) > 1 else ""
        rest = rest.replace("\n## ", "\n### ")
        if rest.startswith("## "):
            rest = "#" + rest
        out += [
            "",
            f"## {rule.code} {rule.name}",
            "",
            rule.summary,
            "",
            f"Severity: {rule.severity}. Fixable: {'yes' if rule.fixable else 'no'}. Source: {rule.source}."
            + (
                f" Judges the training node's {', '.join(f'`{fact}`' for fact in rule.facts)} (not run against a host that is not the node, RL004)."
                if rule.facts
                else ""
            ),
            "",
            rest,
        ]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    print(rules_markdown(), end="")
