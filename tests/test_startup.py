"""What a check imports: the start-up budget (80 ms for one recipe, bench/run.py) is kept by
keeping modules out, and these tests name the ones that must stay out. Times are measured by
bench/run.py, not here."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import pytest

import recipelint.diagnose.signatures
import recipelint.rules
import recipelint.toolkits.wenet.rules
from recipelint.packages import submodules
from tests.helpers import REPO


def modules_after(*argv: str) -> set[str]:
    """The modules loaded by the end of `recipelint <argv>` in a fresh interpreter."""
    code = (
        "import sys; from recipelint.main import main\n"
        f"sys.argv = ['recipelint', *{list(argv)!r}]\n"
        "try: main()\n"
        "except SystemExit: pass\n"
        "print(' '.join(sorted(sys.modules)), file=sys.stderr)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    return set(done.stderr.strip().splitlines()[-1].split())


def test_checking_a_recipe_builds_no_stdlib_dataclass() -> None:
    """The reason records exist: `dataclasses` (and the `inspect` it imports) stay out of a check."""
    loaded = modules_after("check", "--no-cache", "--isolated", "--exit-zero", "examples/wenet-4node-v100")
    assert "recipelint.toolkits.wenet.frontend" in loaded  # the check ran
    assert {"dataclasses", "inspect", "pkgutil"} & loaded == set()


@pytest.mark.parametrize("package", [recipelint.rules, recipelint.toolkits.wenet.rules, recipelint.diagnose.signatures])
def test_submodules_lists_what_pkgutil_lists(package: object) -> None:
    paths = package.__path__  # type: ignore[attr-defined]
    assert submodules(paths) == [(info.name, info.ispkg) for info in pkgutil.iter_modules(paths)]
