"""CONTRIBUTING's limit, checked: no function in recipelint/ is over 60 lines (from its `def` to
its last line, decorators left out, as `ast` counts: end_lineno - lineno + 1)."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.helpers import REPO

LIMIT = 60
PACKAGE = REPO / "recipelint"


def long_functions(path: Path, root: Path = REPO) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > LIMIT:
                found.append(f"{path.relative_to(root)}:{node.lineno} {node.name} ({length} lines)")
    return found


def test_no_function_is_over_60_lines() -> None:
    paths = sorted(PACKAGE.rglob("*.py"))
    assert len(paths) > 100
    assert [found for path in paths for found in long_functions(path)] == []


def test_a_long_function_is_found(tmp_path: Path) -> None:
    """The check can fail: a 61-line function is named, a 60-line one is not."""
    body = "".join(f"    x{i} = {i}\n" for i in range(59))
    (tmp_path / "ok.py").write_text(f"def ok():\n{body}")
    (tmp_path / "long.py").write_text(f"def long():\n{body}    return 1\n")
    assert long_functions(tmp_path / "ok.py", tmp_path) == []
    assert long_functions(tmp_path / "long.py", tmp_path) == ["long.py:1 long (61 lines)"]
