"""Branches as alternatives, for the shell reader: each branch's condition in words ("when
CONTAINER_IMAGE is empty (line 12)"), and the combinations of branch values a command's variables
can take, so a launch is read once per way bash can run it instead of once with its branched
values unknown. A leaf beside the records: it evaluates nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from recipelint.parse.shellrecords import MAX_VARIANTS, Binding, short

_VARIABLE = r"""["']?\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?["']?"""
_WORD = r"""("[^"]*"|'[^']*'|\S+)"""
# `[ -n "$X" ]`, `[[ -z $X ]]`, `test -n "$X"`
_EMPTINESS = re.compile(rf"^(?:\[\[?|test)\s+(-[nz])\s+{_VARIABLE}\s*\]?\]?$")
# `[[ -z "${X+x}" ]]`: X set or not
_SET = re.compile(r"""^(?:\[\[?|test)\s+(-[nz])\s+"?\$\{([A-Za-z_][A-Za-z0-9_]*)\+[^}]*\}"?\s*\]?\]?$""")
# `[ "$X" = "v" ]`, `[[ $X == v ]]`, `[ "$X" != v ]`
_EQUALITY = re.compile(rf"^(?:\[\[?|test)\s+{_VARIABLE}\s+(==?|!=)\s+{_WORD}\s*\]?\]?$")
# `[ $X -gt 1 ]`
_NUMERIC = re.compile(rf"^(?:\[\[?|test)\s+{_VARIABLE}\s+(-eq|-ne|-gt|-ge|-lt|-le)\s+{_WORD}\s*\]?\]?$")
# `[ -f path ]`, `[ -d path ]`, `[ -e path ]`
_EXISTS = re.compile(rf"^(?:\[\[?|test)\s+(-[fde])\s+{_WORD}\s*\]?\]?$")
_NUMERIC_WORDS = {"-eq": ("=", "!="), "-ne": ("!=", "="), "-gt": (">", "<="), "-ge": (">=", "<"), "-lt": ("<", ">="), "-le": ("<=", ">")}
_KINDS = {"-f": "file", "-d": "folder", "-e": "path"}


def outcome(text: str, holds: bool, line: int) -> str:
    """A test's outcome in words, with its line: `[ -n "$X" ]` failing is "when X is empty (line
    12)"; a test not modelled is quoted ("when `grep -q a b` fails (line 12)")."""
    text = " ".join(text.strip().rstrip(";").split())
    negated = text.startswith("! ")
    if negated:
        text, holds = text[2:], not holds
    said = _said(text, holds)
    if said is None:
        said = f"`{short(text, 50)}` {'holds' if holds else 'fails'}"
    return f"when {said} (line {line})"


def _said(text: str, holds: bool) -> str | None:
    match = _SET.match(text)
    if match:  # `[[ -z "${X+x}" ]]`: whether X is set at all, empty or not
        unset = (match.group(1) == "-z") == holds
        return f"{match.group(2)} is {'not set' if unset else 'set'}"
    match = _EMPTINESS.match(text)
    if match:
        empty = (match.group(1) == "-z") == holds
        return f"{match.group(2)} is {'empty' if empty else 'not empty'}"
    match = _EQUALITY.match(text)
    if match:
        same = (match.group(2) != "!=") == holds
        return f"{match.group(1)} is {'' if same else 'not '}{_unquoted(match.group(3))}"
    match = _NUMERIC.match(text)
    if match:
        operator = _NUMERIC_WORDS[match.group(2)][0 if holds else 1]
        return f"{match.group(1)} {operator} {_unquoted(match.group(3))}"
    match = _EXISTS.match(text)
    if match:
        return f"the {_KINDS[match.group(1)]} {_unquoted(match.group(2))} {'exists' if holds else 'does not exist'}"
    return None


def _unquoted(word: str) -> str:
    return word[1:-1] if len(word) > 1 and word[0] == word[-1] and word[0] in "\"'" else word


_NUMERIC_TESTS = {
    "-eq": lambda a, b: a == b,
    "-ne": lambda a, b: a != b,
    "-gt": lambda a, b: a > b,
    "-ge": lambda a, b: a >= b,
    "-lt": lambda a, b: a < b,
    "-le": lambda a, b: a <= b,
}


def compared(args: list[str | None]) -> bool | None:
    """What `test ARGS` (`[ ARGS ]`) answers when the script decides every operand: `-n v`, `-z v`,
    `a = b`, `a == b`, `a != b`, the integer comparisons; None for anything else (a file test,
    a glob on the right of `[[ == ]]`, an operand the run time decides)."""
    if any(arg is None for arg in args):
        return None
    words = [arg for arg in args if arg is not None]
    if len(words) == 2 and words[0] in ("-n", "-z"):
        return (words[1] != "") == (words[0] == "-n")
    if len(words) != 3:
        return None
    left, operator, right = words
    if operator in ("=", "==", "!="):
        if any(c in right for c in "*?["):
            return None  # `[[ $x == a* ]]` matches a pattern; `[ ]` compares text: not told apart here
        return (left == right) == (operator != "!=")
    test = _NUMERIC_TESTS.get(operator)
    if test is None:
        return None
    try:
        return bool(test(int(left), int(right)))
    except ValueError:
        return None


Choice = tuple[tuple[str, ...], dict[str, Binding | None]]  # (the conditions, each variable's binding)


def combinations(scope: dict[str, Binding], names: list[str]) -> list[Choice] | None:
    """The ways the named variables can be set where a command runs: for each combination of the
    branches they come from, the conditions and each variable's binding on it (None: unset).
    Variables set by one branching statement move together (its branch i gives each of them its
    branch-i value); a branch's value that itself differs between inner branches is split again.
    [] when none of them differs between branches; None past MAX_VARIANTS combinations."""
    start = {name: scope[name] for name in names if name in scope}
    if not any(binding.branches is not None for binding in start.values()):
        return []
    pending: list[tuple[tuple[str, ...], dict[str, Binding | None]]] = [((), dict(start))]
    done: list[Choice] = []
    while pending:
        labels, chosen = pending.pop(0)
        split = next((b for b in chosen.values() if b is not None and b.branches is not None), None)
        if split is None:
            done.append((labels, chosen))
            continue
        pending.extend(_split(labels, chosen, split))
        if len(pending) + len(done) > MAX_VARIANTS:
            return None
    return done


def _split(labels: tuple[str, ...], chosen: dict[str, Binding | None], split: Binding) -> list[Choice]:
    """One combination split by the branches of `split`'s statement: every variable that statement
    merged takes the same branch."""
    assert split.branches is not None
    count = len(split.branches)
    names = [
        name
        for name, binding in chosen.items()
        if binding is not None and binding.branches is not None and binding.where == split.where and len(binding.branches) == count
    ]
    out: list[Choice] = []
    for index in range(count):
        label = split.labels[index] if split.labels is not None and index < len(split.labels) else f"on branch {index + 1} of {split.where}"
        branch = dict(chosen)
        for name in names:
            held = chosen[name]
            branch[name] = held.branches[index] if held is not None and held.branches is not None else None
        out.append(((*labels, label), branch))
    return out


Way = tuple[str, ...]  # one combination of branches: its conditions


def described(held: Sequence[Way], every: Sequence[Way]) -> str:
    """The combinations `held` of all `every` in words, as briefly as is exact: the conditions
    they share when those pick out exactly them ("when NNODES <= 1 (line 7)"), else each one."""
    shared = [c for c in dict.fromkeys(held[0]) if all(c in way for way in held)] if held else []
    if shared and {way for way in every if all(c in way for c in shared)} == set(held):
        return _joined(tuple(shared))
    return " or ".join(_joined(way) for way in dict.fromkeys(held))


def _joined(conditions: Way) -> str:
    said = [c.removeprefix("when ") for c in dict.fromkeys(conditions)]
    return "when " + " and ".join(said) if said else "always"
