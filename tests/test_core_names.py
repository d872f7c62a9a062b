"""The core names no toolkit: what it needs to know of one it asks through the toolkit protocol
(recipelint/toolkits/__init__.py), and each toolkit's own facts live in its package (#37).

A core module's code (its names, attributes, imports, parameters and string constants) must not
name a toolkit whose facts are its own; docstrings and comments may cite upstream files as
examples. DeepSpeed's JSON is a format several toolkits read (WeNet's, XTuner's, Accelerate's
launches), so the core's DeepSpeed names are not a toolkit's; the registry's one line per
toolkit (`BUILTIN`) is where the core imports them."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from recipelint.toolkits import BUILTIN, REGISTRY

PACKAGE = Path(__file__).resolve().parent.parent / "recipelint"
# The core: the model, the context rules see, the engine and the runner, the reports, the
# fixer, the rule kit, the format readers, discovery, the loader formulas, the release tables, the node's hardware
# (host.py still reads Slurm's allocation variables from the host's environment), and the
# protocol itself.
CORE = [
    "model.py",
    "context.py",
    "engine.py",
    "runcontext.py",
    "parallel.py",
    "discovery.py",
    "fix.py",
    "tune.py",
    "tuner.py",
    "versions.py",
    "hardware/__init__.py",
    "hardware/granted.py",
    "hardware/machines.py",
    "hardware/merge.py",
    "hardware/probe.py",
    "hardware/profile.py",
    "hardware/report.py",
    "report",
    "rulekit",
    "parse",
    "diagnose/scene.py",
    "toolkits/__init__.py",
]
# Registered toolkits whose names are also the core's words: DeepSpeed's JSON (a shared format)
# and the trainers recipelint does not judge ("unjudged" is the core's word for a recipe judged
# against no machine too).
SHARED = {"deepspeed", "unjudged"}
OWN = sorted({toolkit.name for toolkit in REGISTRY} - SHARED)


def _files() -> list[Path]:
    found: list[Path] = []
    for entry in CORE:
        path = PACKAGE / entry
        assert path.exists(), f"{entry}: listed as core but not there"
        found.extend(sorted(path.rglob("*.py")) if path.is_dir() else [path])
    return found


def _docstrings(tree: ast.AST) -> set[int]:
    kinds = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    return {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, kinds) and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)
    }


def _registry_lines(tree: ast.AST) -> set[int]:
    """The constants of `BUILTIN = (...)`: the registry's line per toolkit."""
    return {
        id(constant)
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "BUILTIN" for t in node.targets)
        for constant in ast.walk(node.value)
    }


def _words(node: ast.AST, skipped: set[int]) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skipped:
        return [node.value]
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Attribute):
        return [node.attr]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, ast.arg):
        return [node.arg]
    if isinstance(node, ast.ImportFrom):
        return [node.module or "", *(alias.name for alias in node.names)]
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    return []


def named_toolkits(path: Path, names: list[str]) -> list[str]:
    """'file:line: word' for each place a core module's code names one of the toolkits."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = _docstrings(tree) | _registry_lines(tree)
    pattern = re.compile("|".join(map(re.escape, names)), re.IGNORECASE)  # WenetPart, WENET_CODE, "wenet" alike
    return [
        f"{path.name}:{getattr(node, 'lineno', 0)}: {word[:80]!r}"
        for node in ast.walk(tree)
        for word in _words(node, skipped)
        if pattern.search(word)
    ]


def test_the_toolkits_checked_for_are_the_registrys() -> None:
    assert {"wenet", "xtuner", "slurm", "kube"} <= set(OWN)
    assert all(any(f"toolkits.{name}:" in line for line in BUILTIN) for name in OWN)


@pytest.mark.parametrize("path", _files(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_a_core_module_names_no_toolkit(path: Path) -> None:
    assert named_toolkits(path, OWN) == []


def test_the_check_finds_a_toolkit_named_in_code(tmp_path: Path) -> None:
    # The check can fail: each way a module may name a toolkit is found, a docstring is not.
    module = tmp_path / "core.py"
    module.write_text(
        '"""Reads wenet/bin/train.py as an example."""\n'
        "from recipelint.toolkits.wenet.part import WenetPart\n"
        "def wenet_data(recipe_for_xtuner):\n"
        '    """WeNet\'s data."""\n'
        '    return recipe.toolkit == "wenet" or recipe.checkout.wenet or recipe.kind == "slurm"\n',
        encoding="utf-8",
    )
    words = [line.split(": ", 1)[1] for line in named_toolkits(module, OWN)]
    assert {"'recipelint.toolkits.wenet.part'", "'WenetPart'", "'wenet_data'", "'recipe_for_xtuner'", "'wenet'", "'slurm'"} <= set(words)
    assert not any("example" in word or "WeNet's data" in word for word in words)
