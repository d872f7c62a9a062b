"""An inline suppression naming a code that is no rule's.

## What it does
Reports each code in `# recipelint: ignore[...]` (and `ignore-file[...]`) that is neither a rule
code, nor the prefix of one (`RL1`, `RL10`), nor `ALL`: `RL9999`, `RL1O2` (a letter O), `E501`.
Codes are read without regard to case (`rl102` is RL102).

## Why is this bad
A code that is no rule's suppresses nothing, today or later: the finding the author meant to
silence is still reported (or, with a typo in a code of a rule that does not fire here, will
be once it does), and the comment tells the reader a decision was taken that never was. RL002
would only call it "unused", which reads as "the problem went away".

## Example
```sh
num_workers=16  # recipelint: ignore[RL1002] the job gets 96 cores at launch
```
RL1002 is no rule; RL102 was meant.

## Fix
Takes the code out of the comment, and the whole comment when it was its only code (the rest of
the line stays byte for byte). When exactly one rule code is what the typo stands for (its
look-alike letters read as digits, `RL6O3` for RL603, or one edit away), the fix writes that
code instead; `RL1002` is one edit from both RL102 and RL002, so it is taken out.

## Fix safety
Taking out a code that is no rule's is safe: it could never match. Removing the whole comment
(its reason with it) and writing the closest code (a guess, which starts suppressing that
rule's findings) are unsafe.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from typing import TYPE_CHECKING

from recipelint.diagnostics import Applicability, Diagnostic, Edit, Fix, Severity

if TYPE_CHECKING:
    from recipelint.context import Context
    from recipelint.parse.suppressions import Suppression

CODE = "RL005"
NAME = "suppression-unknown-code"
SEVERITY = Severity.WARNING
VISITS = ()  # none per recipe: the runner produces its findings
FIXABLE = True
SOURCE = "the rule codes `recipelint rules` lists (docs/rules.md); the suppression syntax in docs/usage.md"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    # Suppressions are read per file, not per recipe: the runner calls `finding` for each one it
    # read (recipelint.suppression.suppression_findings).
    return iter(())


def known_code(code: str, codes: Collection[str]) -> bool:
    """Whether a code as read (upper case) names rules: `ALL`, a rule code or a prefix of one."""
    return code == "ALL" or any(rule.startswith(code) for rule in codes)


def finding(item: Suppression, severity: Severity, codes: Collection[str]) -> Diagnostic | None:
    """RL005 for a suppression naming codes that are no rule's (`codes`: every rule code)."""
    # A code that matched a finding is a rule's; the runner lists the rules only when some did not.
    unknown = [c for c in item.codes if not any(u.startswith(c) for u in item.used) and not known_code(c, codes)]
    if not unknown:
        return None
    written = [w for w, c in zip(item.written, item.codes, strict=False) if c in unknown] or unknown
    kind = "ignore-file" if item.whole_file else "ignore"
    message = f"{kind}[{', '.join(written)}] names no rule: {'these codes suppress' if len(unknown) > 1 else 'the code suppresses'} nothing"
    return Diagnostic(CODE, severity, message, item.span, setting=", ".join(written), fix=_fix(item, unknown, codes))


# Letters typed for the digits they look like.
_LOOK_ALIKE = str.maketrans({"O": "0", "o": "0", "I": "1", "l": "1", "i": "1", "S": "5", "B": "8"})


def meant_code(code: str, codes: Collection[str]) -> str | None:
    """The one rule code a typo stands for: its look-alike letters read as digits, else the only
    code one edit away (a letter changed, added or dropped). None when none is, or several are:
    RL6O3 is RL603, but RL1002 could be RL102 or RL100."""
    upper = code[:2].upper() + code[2:].translate(_LOOK_ALIKE)
    if upper in codes:
        return upper
    near = [known for known in codes if _one_edit(upper, known)]
    return near[0] if len(near) == 1 else None


def _one_edit(a: str, b: str) -> bool:
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b, strict=True)) == 1
    short, long = (a, b) if len(a) < len(b) else (b, a)
    return len(long) - len(short) == 1 and any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


def _fix(item: Suppression, unknown: list[str], codes: Collection[str]) -> Fix | None:
    if len(unknown) == 1 and item.bracket is not None:
        meant = meant_code(unknown[0], codes)
        if meant is not None and meant not in item.codes:
            written = [meant if c == unknown[0] else w for w, c in zip(item.written, item.codes, strict=False)]
            return Fix((Edit(item.bracket, ", ".join(written)),), Applicability.UNSAFE, f"write {meant} for {unknown[0]}")
    edit = item.without(set(unknown))
    if edit is None:
        return None
    whole = all(c in unknown for c in item.codes)
    title = "remove the suppression" if whole else f"remove {', '.join(unknown)} from the suppression"
    return Fix((Edit(*edit),), Applicability.UNSAFE if whole else Applicability.SAFE, title)
