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
    assert not _placed("hardware/imagined.py")
    assert not _placed("report/checkstyle.py")
    assert _placed("toolkits/wenet/rules/loader/num_workers_zero.py")
    assert not _placed("toolkits/wenet/knowledge.py")


# -- the core names no toolkit ------------------------------------------------------------------

CORE = ("context.py", "hardware/host.py", "report/show.py", "tune.py", "knownissues/__init__.py", "engine.py", "discovery.py")


def _toolkit_name_tests(source: str, names: set[str]) -> list[str]:
    """Where a module tests a toolkit's name (`recipe.toolkit == "wenet"`, a table keyed by toolkit
    names, a loop over them) or imports a toolkit package by name."""
    import ast

    found: list[str] = []

    def named(node: ast.AST) -> bool:
        items = node.elts if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else [node]
        return any(isinstance(item, ast.Constant) and item.value in names for item in items)

    def is_toolkit(node: ast.AST) -> bool:
        return (isinstance(node, ast.Attribute) and node.attr == "toolkit") or (isinstance(node, ast.Name) and node.id == "toolkit")

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare) and any(is_toolkit(side) for side in [node.left, *node.comparators]):
            if any(named(side) for side in [node.left, *node.comparators]):
                found.append(f"line {node.lineno}: compares a toolkit with a name")
        elif isinstance(node, ast.Dict) and any(key is not None and named(key) for key in node.keys):
            found.append(f"line {node.lineno}: a table keyed by toolkit names")
        elif isinstance(node, ast.For) and named(node.iter):
            found.append(f"line {node.lineno}: a loop over toolkit names")
        elif isinstance(node, ast.ImportFrom) and any((node.module or "").startswith(f"recipelint.toolkits.{n}") for n in names):
            found.append(f"line {node.lineno}: imports recipelint.toolkits.{(node.module or '').split('.')[2]}")
    return found


def test_no_core_module_tests_a_toolkit_by_name() -> None:
    """What the core needs of a toolkit it asks through the Toolkit protocol or reads in the model."""
    from recipelint.toolkits import REGISTRY

    names = {toolkit.name for toolkit in REGISTRY}
    found = {module: _toolkit_name_tests((PACKAGE / module).read_text(), names) for module in CORE}
    assert {module: lines for module, lines in found.items() if lines} == {}


def test_a_toolkit_name_test_is_found() -> None:
    """The lines the seam closed (issue 29), as they were: each is found."""
    names = {"wenet", "xtuner", "deepspeed"}
    before = (
        'found = [r for r in recipes if r.toolkit == "wenet"]\n'
        'if recipe.toolkit not in ("wenet", "xtuner"):\n    pass\n'
        'table = {"wenet": 1, "xtuner": 2}.get(toolkit, ())\n'
        'for toolkit in ("wenet", "xtuner"):\n    pass\n'
        "from recipelint.toolkits.wenet.frontend import config_paths\n"
    )
    assert len(_toolkit_name_tests(before, names)) == 5
    assert _toolkit_name_tests('if package == "deepspeed" and engine == "deepspeed":\n    pass\n', names) == []
