"""The README stays short, its links and the docs' links lead somewhere, and its test command is
the one CI runs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
CI = REPO / ".ci" / "run"
README_LIMIT = 12_000  # bytes: what it is, install, the two commands, one example, links
DOCS = sorted([README, *(REPO / "docs").rglob("*.md")])

FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.M | re.S)
CODE_SPAN = re.compile(r"(`+).+?\1", re.S)
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$", re.M)
CI_BLOCK = re.compile(r"^# >>> README test command\n(.*?)^# <<<", re.M | re.S)
README_BLOCK = re.compile(r"Install with the test dependencies and run the tests.*?\n```sh\n(.*?)```", re.S)


def _prose(text: str) -> str:
    """The text without code blocks and code spans, where `[x](y)` is not a link."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "")
    return re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    anchors = set()
    for heading in HEADING.findall(FENCE.sub("", path.read_text(encoding="utf-8"))):
        slug = _slug(heading)
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f"{slug}-{count}")
    return anchors


def _relative_links(path: Path) -> list[str]:
    links = LINK.findall(_prose(path.read_text(encoding="utf-8")))
    return [link for link in links if not re.match(r"^[a-z][a-z0-9+.-]*:", link)]


def test_readme_is_at_most_12000_bytes() -> None:
    size = README.stat().st_size
    assert size <= README_LIMIT, f"README.md is {size} bytes (limit {README_LIMIT}): move the detail into docs/"


@pytest.mark.parametrize("page", DOCS, ids=lambda p: p.relative_to(REPO).as_posix())
def test_relative_links_lead_to_files_and_headings(page: Path) -> None:
    broken = []
    for link in _relative_links(page):
        target, _, anchor = link.partition("#")
        file = (page.parent / target).resolve() if target else page
        if not file.exists():
            broken.append(f"{link}: no file {file.relative_to(REPO) if file.is_relative_to(REPO) else file}")
        elif anchor and file.suffix == ".md" and anchor not in _anchors(file):
            broken.append(f"{link}: no heading #{anchor} in {file.relative_to(REPO)}")
    assert broken == [], f"{page.relative_to(REPO)}: " + "; ".join(broken)


def _readme_test_command() -> list[str]:
    match = README_BLOCK.search(README.read_text(encoding="utf-8"))
    assert match, "README.md: no ```sh block after 'Install with the test dependencies and run the tests'"
    return [line.strip() for line in match.group(1).splitlines() if line.strip()]


def _ci_test_command() -> list[str]:
    match = CI_BLOCK.search(CI.read_text(encoding="utf-8"))
    assert match, ".ci/run: no '# >>> README test command' ... '# <<<' block"
    return [line.strip() for line in match.group(1).splitlines() if line.strip() and not line.lstrip().startswith("#")]


def test_readme_test_command_is_the_one_ci_runs() -> None:
    readme, ci = _readme_test_command(), _ci_test_command()
    assert readme == ci, f"README.md runs {readme}, .ci/run runs {ci}"
    assert readme[-1] == "python -m pytest" and any("pip install" in line and "[test]" in line for line in readme)


def test_rule_codes_named_in_the_docs_exist() -> None:
    rules_page = (REPO / "docs" / "rules.md").read_text(encoding="utf-8")
    known = set(re.findall(r"^## (RL\d{3}) ", rules_page, re.M))
    assert len(known) > 50, "docs/rules.md lists no rules: regenerate it with python -m recipelint.docs"
    unknown = {
        page.relative_to(REPO).as_posix(): sorted(set(re.findall(r"\bRL\d{3}\b", page.read_text(encoding="utf-8"))) - known)
        for page in DOCS
        if page.name != "rules.md"
    }
    assert {page: codes for page, codes in unknown.items() if codes} == {}


def test_the_link_checker_sees_broken_links(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    (tmp_path / "there.md").write_text("# A `title`: here\n\n## Twice\n\n## Twice\n", encoding="utf-8")
    page.write_text(
        "[ok](there.md#a-title-here) [dup](there.md#twice-1) [gone](missing.md) [web](https://x.org/a.md)\n"
        "`[code](nowhere.md)`\n\n```\n[block](nowhere.md)\n```\n",
        encoding="utf-8",
    )
    links = _relative_links(page)
    assert links == ["there.md#a-title-here", "there.md#twice-1", "missing.md"]
    assert _anchors(tmp_path / "there.md") == {"a-title-here", "twice", "twice-1"}


@pytest.mark.parametrize(
    "heading, slug",
    [
        ("`recipelint diagnose`: from the error", "recipelint-diagnose-from-the-error"),
        ("The documented case (examples/wenet-4node-v100)", "the-documented-case-exampleswenet-4node-v100"),
        ("Throughput and num_workers", "throughput-and-num_workers"),
    ],
)
def test_slug_matches_github(heading: str, slug: str) -> None:
    assert _slug(heading) == slug
