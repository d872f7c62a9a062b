"""docs/architecture.md places every module of recipelint: a module added without a word about
where it sits fails here, with its path."""

from __future__ import annotations

import re

from tests.helpers import REPO

PACKAGE = REPO / "recipelint"
DOC = (REPO / "docs" / "architecture.md").read_text()

# Modules that are one of many of a kind, placed by their folder (the doc names the folder and
# what its modules are): rule modules, each toolkit's entry and front end, log signatures, the
# known-issue tables.
BY_FOLDER = {
    r"rules/[a-z_]+/.+\.py": "rules/<family>/",
    r"toolkits/[a-z_]+/rules/.+\.py": "toolkits/<name>/rules/",
    r"toolkits/[a-z_]+/__init__\.py": "toolkits/<name>/__init__.py",
    r"toolkits/[a-z_]+/frontend\.py": "toolkits/<name>/frontend.py",
    r"diagnose/signatures/[a-z_]+\.py": "diagnose/signatures/",
    r"knownissues/[a-z_]+\.py": "knownissues/",
}


def _named(relative: str) -> bool:
    return re.search(rf"(?<![\w/<]){re.escape(relative)}(?!\w)", DOC) is not None


def _placed(relative: str) -> bool:
    if _named(relative):
        return True
    return any(re.fullmatch(pattern, relative) and folder in DOC for pattern, folder in BY_FOLDER.items())


def test_every_module_is_placed_in_the_architecture() -> None:
    modules = sorted(path.relative_to(PACKAGE).as_posix() for path in PACKAGE.rglob("*.py"))
    assert len(modules) > 100
    missing = [module for module in modules if not _placed(module)]
    assert missing == [], f"docs/architecture.md does not place: {', '.join(missing)}"


def test_a_module_the_doc_does_not_name_is_found() -> None:
    """The check can fail: a module the doc does not name is not placed, and a folder rule covers
    only its own kind of module."""
    assert not _placed("hardware/granted.py")
    assert not _placed("report/checkstyle.py")
    assert _placed("toolkits/wenet/rules/loader/num_workers_zero.py")
    assert not _placed("toolkits/wenet/knowledge.py")
