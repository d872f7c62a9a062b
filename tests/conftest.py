"""Command-line options and fixtures; what the tests share lives in tests/helpers.py, markers in pyproject.toml."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from recipelint.diagnostics import Diagnostic
from tests.helpers import RecipeSpec, lint


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--network", action="store_true", help="also run the tests marked `network` (they install from PyPI)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--network") or os.environ.get("RECIPELINT_NETWORK") == "1":
        return
    skip = pytest.mark.skip(reason="needs the network: run with --network or RECIPELINT_NETWORK=1")
    for item in items:
        if "network" in item.keywords:
            item.add_marker(skip)


# The command line caches results by default: the tests' runs keep theirs out of the checkout.
os.environ.setdefault("RECIPELINT_CACHE_DIR", tempfile.mkdtemp(prefix="recipelint-test-cache-"))
# and the per-user key that signs its entries (recipelint.cache._secret) out of the user's config
os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="recipelint-test-config-")


@pytest.fixture
def recipe(tmp_path: Path) -> Callable[[RecipeSpec | None], list[Diagnostic]]:
    """Write a recipe from a RecipeSpec and lint it: `recipe(spec)` -> diagnostics."""

    def build(spec: RecipeSpec | None = None) -> list[Diagnostic]:
        spec = spec or RecipeSpec()
        script = spec.write(tmp_path)
        return lint(script, spec.hardware)

    return build
