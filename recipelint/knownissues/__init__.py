"""Known bugs of WeNet and XTuner releases, as data: the range of upstream history that has
each one, how it is recognised in a checkout (an `ast` pattern, else the version), what users
report, and the upstream change that fixed it. The rules RL901/RL902 (and RL203 for HTTP
shards) read these tables; `recipelint/parse/pycode.py` holds the patterns.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from recipelint.parse.checkout import Checkout
    from recipelint.parse.span import Span


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
    pattern: str | None = None  # a recipelint.parse.pycode function: spans where the bug is
    pattern_text: str = ""  # the pattern in words, for the evidence
    trigger: str | None = None  # a condition on the recipe (rules/known/_triggers.py); None: always
    rule: str = "RL901"  # the rule that reports it


def for_toolkit(toolkit: str) -> tuple[KnownIssue, ...]:
    from recipelint.knownissues import wenet, xtuner

    return {"wenet": wenet.ISSUES, "xtuner": xtuner.ISSUES}.get(toolkit, ())


def by_id(issue_id: str) -> KnownIssue:
    for toolkit in ("wenet", "xtuner"):
        for issue in for_toolkit(toolkit):
            if issue.id == issue_id:
                return issue
    raise KeyError(issue_id)


def _and(a: bool | None, b: bool | None) -> bool | None:
    if a is False or b is False:
        return False
    return None if a is None or b is None else True


@dataclass(frozen=True)
class Status:
    affected: bool | None  # None: the checkout cannot be placed against this issue
    how: str  # "code pattern ... in wenet/dataset/processor.py" or "commit date 2023-12-20"
    where: tuple[Span, ...] = ()  # the pattern's places in the checkout


def status(issue: KnownIssue, checkout: Checkout) -> Status:
    """Whether the checkout has the bug: its code when the pattern's file is there, else its version."""
    if issue.pattern:
        hits = checkout.pattern(issue.pattern)
        if hits is not None:
            words = issue.pattern_text or issue.pattern
            return Status(bool(hits), f"{'found' if hits else 'not found'} in the code: {words}", tuple(hits))
    since = True if issue.introduced is None else checkout.at_least(issue.introduced.release, issue.introduced.date)
    fixed = False if issue.fixed is None else checkout.at_least(issue.fixed.release, issue.fixed.date)
    affected = _and(since, None if fixed is None else not fixed)
    placed = checkout.version or checkout.date or "unknown version"
    return Status(affected, f"by version: {checkout.name} {placed} ({checkout.version_source or checkout.date_source})")
