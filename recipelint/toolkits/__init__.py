"""The toolkits recipelint reads: each is one package with its front end, its knowledge tables
and its rules, behind the `Toolkit` protocol, and one line in `BUILTIN`.

Claims are made where the evidence is. A config (YAML, JSON, Python, a suffix a toolkit asked
for) is claimed whole, on its own keys (`Toolkit.claims`); so is a job file that runs launches
(a scheduler's, which hands the launches on and adds the allocation). A script, a README's shell
fences or the `--command` line is read once and each of its commands is offered to every toolkit
(`Toolkit.claim`): a toolkit claims a command on its own evidence (the program, the training
script and what it imports) with a confidence, and the most confident claimant builds that
command's recipe (`Toolkit.build`); a second kind of launch in the same file is its own recipe,
built by its own claimant. Equal confidences go by registry order, but two toolkits claiming
one real file or command equally is a bug the registry test looks for
(tests/test_toolkit_registry.py). The core (discovery, the engine, the context, the reports)
names no toolkit: what it needs to know of one is asked through this protocol.
Importing this module imports no front end and no rule: start-up matters.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from recipelint import versions
from recipelint.budget import OverBudget, cpu_budget
from recipelint.records import dataclass
from recipelint.subjects import CORE, Subject

if TYPE_CHECKING:
    from recipelint.context import Context
    from recipelint.model import Consumer, Note, Recipe
    from recipelint.parse.files import FileCache
    from recipelint.parse.shell import Command, ShellScript
    from recipelint.parse.shellrecords import Variant

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


@dataclass
class Offer:
    """What comes with a command offered to the toolkits: the target it is read from, the parsed
    shell it is part of (read once, whoever claims its commands) and the file cache."""

    target: Target
    script: ShellScript
    files: FileCache


@dataclass(frozen=True)
class RunFacts:
    """What a toolkit knows of its recipe's run that `recipelint diagnose` correlates with a log
    (`Toolkit.run_facts`); the defaults: nothing known."""

    engine: str | None = None  # the training engine the trainer is told to use ("torch_ddp", "deepspeed"); None: not named
    join_timeout: int | None = None  # seconds a rank waits for the others at an epoch's end, when the trainer has such a wait
    shards: int | None = None  # lines of the train data lists found; None: none found
    remote_shards: int = 0  # of those, read over the network (http, https, ftp)
    compressed_shards: int = 0  # of those, compressed


@dataclass
class Claim:
    """A toolkit's claim on a command: how sure it is (0 never, 1 certain) and its evidence, in
    words (`recipelint show` prints it with the launch)."""

    confidence: float
    evidence: str


class Toolkit(Protocol):
    """One training toolkit (like pre-commit's `Language`): what it reads and what it checks.

    A toolkit subclasses this protocol to take the defaults of what it does not read: no whole
    file, no command."""

    name: str  # the `Recipe.toolkit` it produces; rules name it in TOOLKITS
    suffixes: tuple[str, ...]  # file suffixes discovery hands to the toolkits as kind "file"
    # Dotted names of its rules: a rule module, a family (a package of rule modules), or a
    # package of families. A family's name is its package's last part.
    rules: tuple[str, ...]
    # Modules its front end imports to read a target, loaded once before worker processes fork
    # (each worker would import them again otherwise).
    preload: tuple[str, ...]
    # The recipe kinds its front end builds, beside `name` ("torch" for DeepSpeed's plain
    # launches): the names a rule's TOOLKITS may use.
    kinds: tuple[str, ...] = ()
    # The commands it serves beyond check and fix: "show" (it describes its recipes' own parts),
    # "diagnose" (a log's diagnosis reads its recipes' facts), "tune" (a loader plan of its
    # recipes). A command asked of recipes of a toolkit that does not offer it says so in one
    # line (`not_offered`), never nothing.
    offers: tuple[str, ...] = ()
    # What its rules may visit beside the core's (recipelint.subjects.CORE): its own documents,
    # whose presence only it can tell (a rule's VISITS names them).
    subjects: tuple[Subject, ...] = ()
    # Per recipe kind it builds, the packages whose releases its verdicts depend on (`show`'s run
    # section: runcontext.version_rows); a kind not here: deepspeed and torch.
    packages: Mapping[str, tuple[str, ...]] = {}
    # Its own packages' releases where behaviour it judges changes, oldest first, the last the
    # newest known (registered into versions.KNOWN / NEWEST when the registry loads).
    releases: Mapping[str, tuple[tuple[str, str], ...]] = {}

    def claims(self, target: Target, script: ShellScript | None) -> float:
        """How sure the toolkit is that the whole file is its own: 0 never, 1 certain. A config's
        evidence is in the file; a script is claimed whole only by a job that hands its launches
        on (a scheduler's). `script` is the parsed shell of a script, Markdown or command target."""
        return 0.0

    def load(self, target: Target, files: FileCache, script: ShellScript | None) -> list[Recipe]:
        """The recipes of a file it claimed whole (empty: not this toolkit's after all)."""
        return []

    def claim(self, command: Command, offer: Offer) -> Claim | None:
        """Its claim on one command of a script, on its own evidence; None: not its own."""
        return None

    def build(self, command: Command, offer: Offer) -> list[Recipe]:
        """The recipe of a command it claimed (empty: not this toolkit's after all)."""
        return []

    def configs_named(self, command: Command, offer: Offer) -> list[str]:
        """The config files a command it claimed names, as written (relative to the script's
        folder): a folder check reads them with their launch, not a second time alone."""
        return []

    def describe(self, ctx: Context) -> list[Note]:
        """What `recipelint show` prints of the toolkit's own part of the recipe, as notes by
        section (the "data" section: the train data lists)."""
        return []

    def run_facts(self, ctx: Context) -> RunFacts:
        """The facts of the recipe's run `recipelint diagnose` correlates with a log."""
        return RunFacts()

    def plan(self, ctx: Context) -> list[str]:
        """`recipelint tune`'s lines for one recipe (a toolkit that offers "tune")."""
        return []

    def json_consumer(self, seen: str = "") -> Consumer | None:
        """The reader of a DeepSpeed JSON this toolkit's own code is (what it passes to
        `deepspeed.initialize`), when a training script imports its trainer (`seen`: where);
        None: its code calls no deepspeed.initialize."""
        return None


# The toolkits recipelint carries, by where their object is (as REPORTERS names the reports): the
# core imports a toolkit, a toolkit never the registry's list of the others. The order breaks
# ties: a scheduler's job file goes first (it hands its launches to the others); the trainers
# recipelint does not judge go last.
BUILTIN = (
    "recipelint.toolkits.slurm:SLURM",
    "recipelint.toolkits.kube:KUBE",
    "recipelint.toolkits.wenet:WENET",
    "recipelint.toolkits.xtuner:XTUNER",
    "recipelint.toolkits.deepspeed:DEEPSPEED",
    "recipelint.toolkits.unjudged:UNJUDGED",
)


def _builtin() -> list[Toolkit]:
    found: list[Toolkit] = []
    for entry in BUILTIN:
        module, _, name = entry.partition(":")
        found.append(getattr(importlib.import_module(module), name))
    return found


REGISTRY: list[Toolkit] = _builtin()
for _toolkit in REGISTRY:
    for _package, _changes in _toolkit.releases.items():
        versions.register(_package, _changes)


def suffixes() -> dict[str, Toolkit]:
    """The extra file suffixes registered toolkits read, and who asked for each."""
    return {suffix: toolkit for toolkit in REGISTRY for suffix in toolkit.suffixes}


def kinds() -> dict[str, Toolkit]:
    """Every recipe kind a registered toolkit builds, and which toolkit builds it: the names a
    rule's TOOLKITS may use (recipelint.rules refuses another when the rules load)."""
    return {kind: toolkit for toolkit in REGISTRY for kind in (toolkit.name, *toolkit.kinds)}


def subjects() -> dict[str, Subject]:
    """Every subject a rule's VISITS may name: the core's and each registered toolkit's."""
    found = {subject.name: subject for subject in CORE}
    for toolkit in REGISTRY:
        found.update((subject.name, subject) for subject in toolkit.subjects)
    return found


def offering(command: str, kind: str) -> bool:
    """Whether the toolkit that builds recipes of `kind` offers `command` (see Toolkit.offers)."""
    toolkit = kinds().get(kind)
    return toolkit is not None and command in toolkit.offers


def not_offered(command: str, recipes: Iterable[Recipe], outcome: str) -> list[str]:
    """One line per recipe kind whose toolkit does not offer `command` (see Toolkit.offers): how
    many of its recipes, where the first is, and what became of them (`outcome`: "not planned")."""
    others: dict[str, list[Recipe]] = {}
    for recipe in recipes:
        if not offering(command, recipe.toolkit):
            others.setdefault(recipe.toolkit, []).append(recipe)
    return [
        f"{command}: {len(kind_recipes)} {kind} recipe(s) ({_where(kind_recipes[0])}{', ...' if len(kind_recipes) > 1 else ''}) "
        f"{outcome}: the {kind} toolkit offers no {command}"
        for kind, kind_recipes in others.items()
    ]


def _where(recipe: Recipe) -> str:
    if recipe.launch is not None:
        span = recipe.launch.command.span
        return f"{span.path}:{span.line}"
    return str(next(iter(recipe.files), recipe.root))


def ranked(target: Target, script: ShellScript | None) -> list[Toolkit]:
    """The toolkits that claim the whole target, most confident first; ties in registry order."""
    claims = [(toolkit.claims(target, script), index, toolkit) for index, toolkit in enumerate(REGISTRY)]
    return [toolkit for confidence, _, toolkit in sorted(claims, key=lambda c: (-c[0], c[1])) if confidence > 0]


def claimants(command: Command, offer: Offer) -> list[tuple[Claim, Toolkit]]:
    """The toolkits that claim a command, most confident first; ties in registry order."""
    claims = []
    for index, toolkit in enumerate(REGISTRY):
        claim = toolkit.claim(command, offer)
        if claim is not None and claim.confidence > 0:
            claims.append((claim, index, toolkit))
    return [(claim, toolkit) for claim, _, toolkit in sorted(claims, key=lambda c: (-c[0].confidence, c[1]))]


def launch_recipes(target: Target, files: FileCache, script: ShellScript) -> list[Recipe]:
    """A recipe for each claimed command of the script, built by its most confident claimant (the
    next one when it finds nothing to build after all), with the claim in `show`'s launch section.
    A command whose variables differ between branches is a recipe per way it runs, and one whose
    config the script's arguments choose (`--config configs/${1}.yaml`) a recipe per file that
    matches (Recipe.alternative): the engine judges them together."""
    from recipelint.model import Alternative

    offer = Offer(target, script, files)
    recipes: list[Recipe] = []
    for command in script.commands:
        choices = [(variant, None, "") for variant in command.variants] or _config_choices(command, offer)
        if not choices:
            built = _claimed(command, offer)
            for recipe in built:
                if command.undecided is not None:
                    recipe.note("launch", "alternatives", command.undecided)
            recipes.extend(built)
            continue
        every = tuple(way for variant, _, _ in choices for way in variant.ways)
        for index, (variant, own, chosen) in enumerate(choices):
            for place, recipe in enumerate(_claimed(variant.command, offer)):
                group = f"{command.span.path}:{command.span.start}:{place}"
                recipe.alternative = Alternative(variant.ways, every, index, len(choices), group, own, chosen)
                said = f"{index + 1} of {len(choices)}: {recipe.alternative.label}"
                why = chosen or "the variables the launch uses differ between branches; each way is read"
                recipe.note("launch", "alternative", said, why)
                recipes.append(recipe)
    return recipes


_CONFIG_SUFFIXES = (".json", ".yaml", ".yml")
MAX_CHOICES = 16  # files an argument-chosen config may be; past it the config stays unknown


def _config_choices(command: Command, offer: Offer) -> list[tuple[Variant, Path | None, str]]:
    """A command whose config path the script's arguments (or a glob) complete, once per existing
    file it may be (`--config configs/${1}.yaml`: each of configs/*.yaml), looked up from the
    folder the command runs in, then the repository root; [] when no word is such a path, or none
    or over MAX_CHOICES files match."""
    from recipelint.parse.shellrecords import Variant
    from recipelint.parse.where import repo_root
    from recipelint.records import replace

    here = offer.target.path.parent
    folders = [here / command.cwd if command.cwd is not None else here, repo_root(here)]
    for index, word in enumerate(command.words):
        inner = word.option[1] if word.option is not None else word
        pattern = _glob(inner.pattern)
        if pattern is None:
            continue
        found = _matching(pattern, [folder for folder in dict.fromkeys(folders) if folder is not None])
        if found is None:
            continue
        folder, matches = found
        out: list[tuple[Variant, Path | None, str]] = []
        where = f"{offer.target.path.name}:{command.span.line}"
        for path in matches:
            written = path.relative_to(folder).as_posix()
            chosen = replace(inner, value=written, reason=None, edit_span=None, pattern=None)
            if word.option is not None:
                chosen = replace(word, value=f"{word.option[0]}={written}", option=(word.option[0], chosen))
            words = [*command.words[:index], chosen, *command.words[index + 1 :]]
            label = f"when the config is {written} (one of the {len(matches)} files {pattern} matches)"
            said = f"judged with the launch at {where}, whose config is one of {len(matches)} files ({pattern} in {folder})"
            out.append((Variant(replace(command, words=words, variants=[]), ((label,),)), path, said))
        return out
    return []


def _glob(pattern: str | None) -> str | None:
    """A relative config glob as Path.glob takes it (no `./`, no `**`), or None."""
    if pattern is None or pattern.startswith("/") or not pattern.endswith(_CONFIG_SUFFIXES):
        return None
    while "**" in pattern:
        pattern = pattern.replace("**", "*")
    pattern = pattern.removeprefix("./")
    return pattern if pattern and ".." not in pattern.split("/") else None


def _matching(pattern: str, folders: list[Path]) -> tuple[Path, list[Path]] | None:
    for folder in folders:
        try:
            matches = sorted(path for path in folder.glob(pattern) if path.is_file())
        except (OSError, ValueError):
            continue
        if matches:
            return (folder, matches) if len(matches) <= MAX_CHOICES else None
    return None


def _claimed(command: Command, offer: Offer) -> list[Recipe]:
    """The recipes of one command, built by its most confident claimant that builds any."""
    for claim, toolkit in claimants(command, offer):
        built = toolkit.build(command, offer)
        for recipe in built:
            recipe.note("launch", "claimed by", f"{toolkit.name} ({claim.confidence:g})", claim.evidence)
        if built:
            return built
    return []


def configs_named(path: Path, files: FileCache) -> list[Path]:
    """The configs a run script's claimed launches name, resolved from the script's folder (the
    script is parsed once, whoever reads it). Each command's claimants are asked, not only the
    one that builds its recipe: the builder reads what a runner-up names too (XTuner's launch
    reads the JSON its `--deepspeed` names, which DeepSpeed's reading of the launch also names)."""
    from recipelint.parse.files import SourceError

    target = Target("script", path)
    try:
        script = read_script(target, files)
    except (SourceError, RecursionError):
        return []
    if script is None:
        return []
    offer = Offer(target, script, files)
    named: list[str] = []
    for outer in script.commands:
        ways = outer.variants or [variant for variant, _, _ in _config_choices(outer, offer)]
        for command in [variant.command for variant in ways] or [outer]:
            for _, toolkit in claimants(command, offer):
                named.extend(toolkit.configs_named(command, offer))
    paths: list[Path] = []
    for value in dict.fromkeys(named):
        try:
            paths.append((path.parent / value).resolve())
        except (OSError, RuntimeError, ValueError):
            continue
    return paths


def read_script(target: Target, files: FileCache) -> ShellScript | None:
    """The shell a script, Markdown or command target holds (None: a Markdown file without shell)."""
    from recipelint.parse.files import SourceError
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
    try:
        with cpu_budget():
            return parse_shell(source, files.read if target.kind == "script" else None, ranges)
    except OverBudget as over:
        raise SourceError(target.path, f"reading this file took {over} (the budget for one file): not checked") from None


def load_target(target: Target, files: FileCache) -> list[Recipe]:
    """The recipes a target holds: a file claimed whole is read by its claimant (a config, a job
    file); a script, a README or a command line gives a recipe per claimed launch."""
    script = read_script(target, files) if target.kind in SHELL_KINDS else None
    if script is not None:
        return script_recipes(target, files, script)
    if target.kind == "markdown":
        return []
    whole = ranked(target, None)
    for toolkit in whole:
        recipes = toolkit.load(target, files, None)
        if recipes:
            return recipes
    if not whole:
        _unclaimed(target, files)
    return []


def script_recipes(target: Target, files: FileCache, script: ShellScript, besides: Toolkit | None = None) -> list[Recipe]:
    """The recipes of parsed shell: a job file's, read by the toolkit that claims it whole (it
    hands the launches on: `besides` is the job's own toolkit, asking for them), else a recipe per
    claimed launch."""
    for toolkit in ranked(target, script):
        if toolkit is not besides:
            recipes = toolkit.load(target, files, script)
            if recipes:
                return recipes
    return launch_recipes(target, files, script)


def _unclaimed(target: Target, files: FileCache) -> None:
    """A file no toolkit's peek claimed is still said when it is bad input, as when a toolkit read
    it: one that cannot be read (a FIFO, a device, no permission) and, when the user named it,
    one that is no valid YAML or JSON. Raises SourceError; nothing is kept."""
    source = files.read(target.path)
    try:
        if target.explicit and target.kind == "yaml":
            from recipelint.parse.yamlfile import parse_documents

            parse_documents(source)  # a `---` stream of documents is valid YAML
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
