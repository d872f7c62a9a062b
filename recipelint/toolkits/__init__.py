"""The toolkits recipelint reads: each is one package with its front end, its knowledge tables
and its rules, behind the `Toolkit` protocol, and one line in `REGISTRY`.

A target (a file discovery found, or the `--command` line) is offered to every registered
toolkit; each says how sure it is that the target is its own (`claims`), on its own evidence
only, and the most confident one that yields recipes (`load`) wins. Equal confidences go by the
order of `REGISTRY`, but two toolkits claiming one real file equally is a bug the registry test
looks for (tests/test_toolkit_registry.py). The core (discovery, the engine, the context, the
reports) names no toolkit: what it needs to know of one is asked through this protocol.
Importing this module imports no front end and no rule: start-up matters.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from recipelint.records import dataclass

if TYPE_CHECKING:
    from recipelint.model import Recipe
    from recipelint.parse.files import FileCache
    from recipelint.parse.shell import ShellScript

# What discovery calls a target, by how it is read: a shell script (run.sh), a Markdown file whose
# code blocks are shell, the `--command` line, a YAML, a JSON, a Python config, or "file": a suffix
# a registered toolkit asked for (`Toolkit.suffixes`).
SHELL_KINDS = ("script", "markdown", "command")


@dataclass
class Target:
    kind: str  # "script", "yaml", "json", "markdown", "python", "command" or "file"
    path: Path
    text: str | None = None  # the command line itself, for kind "command"
    explicit: bool = False  # named by the user, not found by walking a folder
    # A config passed alone (pre-commit passes only changed files) that this script's launches
    # name: only those launches are checked, and its findings say which launch (`launches`: lines).
    config: Path | None = None
    launches: tuple[int, ...] = ()
    also: tuple[Path, ...] = ()  # the other configs passed alone that these launches name (checked once)

    @property
    def root(self) -> Path:
        """The folder the target's relative paths start from."""
        return self.path.parent if self.kind != "command" else Path(".")


class Toolkit(Protocol):
    """One training toolkit (like pre-commit's `Language`): what it reads and what it checks."""

    name: str  # the `Recipe.toolkit` it produces; rules name it in TOOLKITS
    suffixes: tuple[str, ...]  # file suffixes discovery hands to the toolkits as kind "file"
    # Dotted names of its rules: a rule module, a family (a package of rule modules), or a
    # package of families. A family's name is its package's last part.
    rules: tuple[str, ...]
    # Modules its front end imports to read a target, loaded once before worker processes fork
    # (each worker would import them again otherwise).
    preload: tuple[str, ...]

    def claims(self, target: Target, script: ShellScript | None) -> float:
        """How sure the toolkit is that the target is its own: 0 never, 1 certain.
        `script` is the parsed shell of a script, Markdown or command target."""
        ...

    def load(self, target: Target, files: FileCache, script: ShellScript | None) -> list[Recipe]:
        """The recipes the target holds (empty: not this toolkit's after all)."""
        ...

    def configs_named(self, script: ShellScript) -> list[str]:
        """The config files the script's launches name, as written (relative to the script's
        folder): a folder check reads them with their launch, not a second time alone."""
        ...


def _builtin() -> list[Toolkit]:
    from recipelint.toolkits.deepspeed import DEEPSPEED
    from recipelint.toolkits.kube import KUBE
    from recipelint.toolkits.slurm import SLURM
    from recipelint.toolkits.unjudged import UNJUDGED
    from recipelint.toolkits.wenet import WENET
    from recipelint.toolkits.xtuner import XTUNER

    # The order breaks ties: a script launching XTuner is XTuner's before it is a plain DeepSpeed
    # launch. A scheduler's job file goes first: it hands its launches to the others; the
    # trainers recipelint does not judge go last.
    return [SLURM, KUBE, WENET, XTUNER, DEEPSPEED, UNJUDGED]


REGISTRY: list[Toolkit] = _builtin()


def suffixes() -> dict[str, Toolkit]:
    """The extra file suffixes registered toolkits read, and who asked for each."""
    return {suffix: toolkit for toolkit in REGISTRY for suffix in toolkit.suffixes}


def ranked(target: Target, script: ShellScript | None) -> list[Toolkit]:
    """The toolkits that claim the target, most confident first; ties in registry order."""
    claims = [(toolkit.claims(target, script), index, toolkit) for index, toolkit in enumerate(REGISTRY)]
    return [toolkit for confidence, _, toolkit in sorted(claims, key=lambda c: (-c[0], c[1])) if confidence > 0]


def configs_named(path: Path, files: FileCache) -> list[Path]:
    """The configs a run script's launches name, by any registered toolkit, resolved from the
    script's folder (the script is parsed once, whoever reads it)."""
    from recipelint.parse.files import SourceError

    try:
        script = read_script(Target("script", path), files)
    except (SourceError, RecursionError):
        return []
    if script is None:
        return []
    paths: list[Path] = []
    for value in dict.fromkeys(value for toolkit in REGISTRY for value in toolkit.configs_named(script)):
        try:
            paths.append((path.parent / value).resolve())
        except (OSError, RuntimeError, ValueError):
            continue
    return paths


def read_script(target: Target, files: FileCache) -> ShellScript | None:
    """The shell a script, Markdown or command target holds (None: a Markdown file without shell)."""
    from recipelint.parse.shell import parse_shell
    from recipelint.parse.span import SourceText

    if target.kind == "command":
        source = SourceText(target.path, (target.text or "").encode())
    else:
        source = files.read(target.path)
    ranges = None
    if target.kind == "markdown":
        from recipelint.parse.markdown import code_blocks

        blocks = code_blocks(source)
        if blocks is None:
            return None
        source, ranges = blocks
    return parse_shell(source, files.read if target.kind == "script" else None, ranges)


def load_target(target: Target, files: FileCache) -> list[Recipe]:
    """The recipes a target holds, read by the toolkit that claims it: a run script or a README
    may start several trainings."""
    script = read_script(target, files) if target.kind in SHELL_KINDS else None
    if target.kind == "markdown" and script is None:
        return []
    claimants = ranked(target, script)
    for toolkit in claimants:
        recipes = toolkit.load(target, files, script)
        if recipes:
            return recipes
    if not claimants and script is None:
        _unclaimed(target, files)
    return []


def _unclaimed(target: Target, files: FileCache) -> None:
    """A file no toolkit's peek claimed is still said when it is bad input, as when a toolkit read
    it: one that cannot be read (a FIFO, a device, no permission) and, when the user named it,
    one that is no valid YAML or JSON. Raises SourceError; nothing is kept."""
    source = files.read(target.path)
    try:
        if target.explicit and target.kind == "yaml":
            from recipelint.parse.yamlfile import parse_yaml

            parse_yaml(source)
        elif target.explicit and target.kind == "json":
            from recipelint.parse.jsonfile import parse_json

            parse_json(source)
    finally:
        files.forget(target.path)


@contextmanager
def registered(toolkit: Toolkit) -> Iterator[Toolkit]:
    """Register a toolkit for the length of a `with` block (tests, plugins trying themselves out)."""
    REGISTRY.append(toolkit)
    try:
        yield toolkit
    finally:
        REGISTRY.remove(toolkit)
