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


def test_the_bash_grammar_loads_without_the_package_init(monkeypatch: pytest.MonkeyPatch) -> None:
    """shell._bash_grammar skips tree_sitter_bash/__init__ (importlib.resources, tempfile: 9 ms);
    when that layout changes it falls back to the plain import, and both parse the same."""
    import importlib.util

    import tree_sitter

    from recipelint.parse import shell

    direct = shell._bash_grammar()
    monkeypatch.setattr(importlib.util, "find_spec", lambda *args, **kwargs: None)
    fallback = shell._bash_grammar()
    script = b'if [ "$a" = 1 ]; then torchrun --nproc_per_node=$n train.py; fi\n'
    trees = [tree_sitter.Parser(tree_sitter.Language(grammar)).parse(script).root_node for grammar in (direct, fallback)]
    assert str(trees[0]) == str(trees[1]) and "command_name" in str(trees[0])


def test_a_wenet_recipe_check_leaves_out_what_it_does_not_read() -> None:
    example = "examples/wenet-4node-v100"
    loaded = modules_after("check", "--no-cache", "--isolated", "--exit-zero", "--hardware", f"{example}/hardware-v100-node.yaml", example)
    assert "tree_sitter" in loaded and "recipelint.parse.yamlblock" in loaded  # it read run.sh and the YAML
    # tree_sitter_bash's __init__ (importlib.resources, tempfile), the Python reader (a recipe
    # without a checkout reads no Python), compression (no compressed shard), the cache (--no-cache);
    # the probe is not run (--hardware): pynvml's ctypes.util imports tempfile
    # ruamel.yaml (train.yaml is block-style YAML: recipelint.parse.yamlblock reads it),
    left_out = {
        "ruamel.yaml",
        "tree_sitter_bash",
        "importlib.resources",
        "tempfile",
        "recipelint.parse.pycode",
        "bz2",
        "lzma",
        "recipelint.cache",
        # the language server's library (the `server` extra) and the server itself
        "pygls",
        "lsprotocol",
        "recipelint.server",
    }
    assert left_out & loaded == set()
    # the rules of the toolkits whose recipes are not checked
    assert "recipelint.toolkits.wenet.rules.loader.cpu_oversubscription" in loaded
    assert not any(name.startswith("recipelint.toolkits.xtuner.rules.") for name in loaded)


@pytest.mark.parametrize("toolkit", ["wenet", "xtuner", "deepspeed", "nothing-registered"])
def test_the_rules_of_one_toolkit_are_those_of_all_that_apply_to_it(toolkit: str) -> None:
    from recipelint.rules import all_rules, rules_for

    expected = {code: rule for code, rule in all_rules().items() if rule.applies_to(toolkit)}
    assert rules_for(toolkit) == expected
    assert len(expected) < len(all_rules())
