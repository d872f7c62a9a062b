"""Known bugs of WeNet and XTuner releases, as data: the range of upstream history that has
each one, how it is recognised in a checkout (an `ast` pattern, else the version), what users
report, and the upstream change that fixed it. The rules RL901/RL902 (and RL203 for HTTP
shards) read these tables; each toolkit holds its patterns (toolkits/<name>/patterns.py, by name in its CodeKind).
"""

from __future__ import annotations

from functools import cache

from recipelint.records import dataclass


@dataclass(frozen=True)
class Change:
    """One upstream change: the commit, its committer date, its PR and the first release with it."""

    commit: str
    date: str  # YYYY-MM-DD
    pr: str  # "#2286"
    link: str
    release: str | None  # "v3.0.0"; None: in no release yet

    def cite(self) -> str:
        return f"{self.pr} ({self.link}, {self.commit[:8]}, {self.date}), " + (
            f"first released in {self.release}" if self.release else "in no release yet"
        )


@dataclass(frozen=True)
class KnownIssue:
    id: str
    toolkit: str
    title: str  # what goes wrong, in one sentence
    symptom: str  # as users report it
    reports: tuple[str, ...]  # issue threads
    introduced: Change | None  # None: since the first release recipelint knows
    fixed: Change | None  # None: not fixed upstream
    advice: str  # what to do
    pattern: str | None = None  # a key of the toolkit's CodeKind.patterns: the spans where the bug is
    pattern_text: str = ""  # the pattern in words, for the evidence
    trigger: str | None = None  # a condition on the recipe (rules/known/_triggers.py); None: always
    rule: str = "RL901"  # the rule that reports it
    # An issue of example recipes, not of the shared code: the recipe folders the fix changed
    # ("examples/aishell/s0"). The title says "{recipe}" where the recipe checked is named.
    recipes: tuple[str, ...] = ()

    def headline(self, recipe: str | None = None) -> str:
        """The title, with the recipe it is about named where it says "{recipe}"."""
        return self.title.replace("{recipe}", recipe or "the recipe")


@cache
def _all() -> tuple[KnownIssue, ...]:
    """Every module's ISSUES, one module per toolkit whose code recipelint reads: a new table is a
    new module here, and no list of toolkit names has to learn it."""
    import importlib

    from recipelint.packages import submodules

    found: list[KnownIssue] = []
    for name, is_package in submodules(__path__):
        if not is_package and not name.startswith("_"):
            found.extend(importlib.import_module(f"{__name__}.{name}").ISSUES)
    return tuple(found)


def for_toolkit(toolkit: str) -> tuple[KnownIssue, ...]:
    """The known issues of one toolkit's code (each issue names its toolkit)."""
    return tuple(issue for issue in _all() if issue.toolkit == toolkit)


def by_id(issue_id: str) -> KnownIssue:
    for issue in _all():
        if issue.id == issue_id:
            return issue
    raise KeyError(issue_id)
