"""Find the recipes under the given paths, read each into the model, and run the rules."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Generator, Iterable
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from recipelint import deps
from recipelint.deps import Memo
from recipelint.settings import Resolver, Settings
from recipelint.sources.files import FileCache, SourceError

# Readers and rules load when a file needs them: start-up matters (pre-commit runs us on
# every commit), and a run the cache answers needs none of them.
if TYPE_CHECKING:
    from recipelint.context import Context
    from recipelint.diagnostics import Diagnostic
    from recipelint.hardware.profile import Hardware
    from recipelint.hardware.report import Judged
    from recipelint.model import Recipe
    from recipelint.rules import Rule
    from recipelint.suppression import Suppression

YAML_SUFFIXES = (".yaml", ".yml")
SKIP_DIRS = {".git", ".hg", ".venv", "venv", "node_modules", "__pycache__", ".tox", ".mypy_cache", ".pytest_cache", "build", "dist"}
UNKNOWN_FACT = "RL001"  # recipelint.rules.meta.unknown_fact.CODE: said once per fact and hardware in a run
# How far above a config to look for the run script that names it (conf/ sits one below).
SEARCH_LEVELS = 4


@dataclass
class Target:
    kind: str  # "script", "yaml", "json", "markdown", "python" or "command"
    path: Path
    text: str | None = None  # the command line itself, for kind "command"
    explicit: bool = False  # named by the user, not found by walking a folder


@dataclass
class Result:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    errors: list[SourceError] = field(default_factory=list)
    recipes: list[Recipe] = field(default_factory=list)
    files: int = 0
    failing: int = 0  # diagnostics at or above their file's fail-on severity
    parsed: int = 0  # recipes read, kept or not
    # The hardware the first recipe that needed one was checked against; loaded when asked
    # (a worker process or the cache may have done the checking).
    hardware_loader: Callable[[], Hardware] | None = None

    @property
    def hardware(self) -> Hardware | None:
        return self.hardware_loader() if self.hardware_loader is not None else None

    judged: list[Judged] = field(default_factory=list)  # which machine each recipe was judged against, and why


def is_script(path: Path) -> bool:
    return path.suffix == ".sh"


def _mmengine_config(path: Path) -> bool:
    """A Python file worth reading as a training config (read, never imported)."""
    try:
        head = path.read_bytes()[:200_000]
    except OSError:
        return False
    return b"train_dataloader" in head or b"dataloader_num_workers" in head


def _key(path: Path, folders: dict[Path, Path] | None = None) -> Path:
    """A path's identity for de-duplication; a symlink loop or a dangling link is itself.

    With `folders`, each folder is resolved once: a file that is no link is its real folder's
    entry (a corpus of 2,000 configs costs one walk per folder, not per file)."""
    if folders is not None and path.name not in ("", ".", ".."):
        try:
            link = stat.S_ISLNK(os.lstat(path).st_mode)
        except (OSError, ValueError):
            link = True
        if not link:
            real = folders.get(path.parent)
            if real is None:
                real = folders[path.parent] = _key(path.parent, folders)
            return real / path.name
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path.absolute()


def _walk(directory: Path) -> Iterable[tuple[str, str]]:
    """(folder, name) of each file under the directory, in a stable order."""
    for current, dirs, names in os.walk(directory, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        for name in sorted(names):
            yield current, name


_KINDS = {".yaml": "yaml", ".yml": "yaml", ".json": "json", ".md": "markdown", ".py": "python"}


def _script_naming(config: Path, files: FileCache, cache: Any = None, folders: dict[Path, Path] | None = None) -> Path | None:
    """The run script that passes `config` to training, searching upward from its folder.

    What each folder's run scripts name is worked out once per run (files.named), however many
    configs are given: pre-commit passes every changed file."""
    target = _key(config, folders)
    directory = target.parent
    for _ in range(SEARCH_LEVELS):
        named: list[tuple[Path, list[Path]]] = files.named.get(directory, partial(_run_scripts, directory, files, cache))
        for script, paths in named:
            if target in paths:
                return script
        if files.named.get((directory, ".git"), partial(_top, directory)):
            break
        directory = directory.parent
    return None


def _top(folder: Path) -> bool:
    """Whether the upward search stops at this folder: a repository's top, or the root."""
    return (folder / ".git").exists() or folder.parent == folder


def _run_scripts(folder: Path, files: FileCache, cache: Any = None) -> list[tuple[Path, list[Path]]]:
    """The folder's run*.sh scripts (what folder.glob("run*.sh") finds, without its machinery)
    and the configs each names."""
    try:
        with os.scandir(folder) as entries:
            names = sorted(e.name for e in entries if e.name.startswith("run") and e.name.endswith(".sh") and len(e.name) >= 6)
    except OSError:
        return []
    return [(folder / name, _config_paths(folder / name, files, cache)) for name in names]


def _config_paths(script: Path, files: FileCache, cache: Any = None) -> list[Path]:
    """The configs a run script names; with the result cache, kept until the script (or what
    it sources) changes, so a second run parses no script to find its targets."""
    from recipelint.sources.wenet import config_paths

    if cache is None:
        return config_paths(script, files)
    return cache.remember(  # type: ignore[no-any-return]
        ["config_paths", str(script)],
        partial(config_paths, script, files),
        lambda paths: [str(p) for p in paths],
        lambda data: [Path(p) for p in data],
    )


def _json_text(path: Path) -> bool:
    """A file of another suffix holding JSON (open-instruct's DeepSpeed `.conf` files)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    except OSError:
        return False
    return head[:1] in (b"{", b"[")


def discover(paths: list[Path], files: FileCache, cache: Any = None) -> list[Target]:
    targets: list[Target] = []
    seen: set[Path] = set()
    folders: dict[Path, Path] = {}

    def add(kind: str, path: Path, explicit: bool = False) -> None:
        key = _key(path, folders)
        if key not in seen:
            seen.add(key)
            targets.append(Target(kind, path, explicit=explicit))

    for path in paths:
        if path.is_dir():
            _discover_folder(path, files, cache, folders, add)
        elif is_script(path):
            add("script", path)
        elif path.suffix == ".md":
            add("markdown", path)
        elif path.suffix == ".py":
            add("python", path)
        elif path.suffix in YAML_SUFFIXES or path.suffix == ".json":
            naming = _script_naming(path, files, cache, folders) if path.is_file() else None
            if naming is not None:
                add("script", naming)
            else:
                add("yaml" if path.suffix in YAML_SUFFIXES else "json", path, explicit=True)
        else:
            add("json" if _json_text(path) else "yaml", path, explicit=True)
    return targets


def _discover_folder(folder: Path, files: FileCache, cache: Any, folders: dict[Path, Path], add: Callable[[str, Path], None]) -> None:
    """Every shell script under the folder, then the configs none of them names."""
    found = [(parent, name, os.path.splitext(name)[1]) for parent, name in _walk(folder)]
    claimed: set[Path] = set()
    for parent, name, suffix in found:
        if suffix == ".sh":
            script = Path(parent, name)
            add("script", script)
            claimed.update(_config_paths(script, files, cache))
    for parent, name, suffix in found:
        kind = _KINDS.get(suffix)
        if kind is None or kind == "json" and name.startswith("package"):
            continue
        candidate = Path(parent, name)
        if claimed and _key(candidate, folders) in claimed:
            continue
        if kind != "python" or _mmengine_config(candidate):
            add(kind, candidate)


def load_target(target: Target, files: FileCache) -> list[Recipe]:
    """The recipes a file holds: a run script or README may start several trainings."""
    if target.kind in ("script", "command", "markdown"):
        return _load_script(target, files)
    from recipelint.model import Recipe

    source = files.read(target.path)
    recipe = Recipe(root=target.path.parent, explicit=target.explicit)
    if target.kind == "yaml":
        from recipelint.sources.yamlfile import parse_yaml

        recipe.config = parse_yaml(source)
    elif target.kind == "python":
        from recipelint.sources.pyconfig import parse_pyconfig

        recipe.toolkit = "xtuner"
        recipe.pyconfig = parse_pyconfig(source)
    else:
        from recipelint.sources.jsonfile import parse_json

        recipe.ds_config = parse_json(source)
    return [recipe]


def _load_script(target: Target, files: FileCache) -> list[Recipe]:
    from recipelint.sources.shell import parse_shell
    from recipelint.sources.wenet import find_launch, load_called, load_recipe
    from recipelint.span import SourceText

    if target.kind == "command":
        source = SourceText(target.path, (target.text or "").encode())
    else:
        source = files.read(target.path)
    ranges = None
    if target.kind == "markdown":
        from recipelint.sources.markdown import code_blocks

        blocks = code_blocks(source)
        if blocks is None:
            return []
        source, ranges = blocks
    script = parse_shell(source, files.read if target.kind == "script" else None, ranges)
    if target.kind == "script" and find_launch(script) is not None:
        return [load_recipe(target.path, files, script)]
    from recipelint.sources.dslaunch import load_ds_launches
    from recipelint.sources.xtuner import load_xtuner

    root = target.path.parent if target.kind != "command" else Path(".")
    recipes = load_xtuner(script, files, root) or load_ds_launches(script, files, root)
    return recipes or (load_called(script, files) if target.kind == "script" else [])


def run_rules(
    recipe: Recipe, rules: Iterable[Rule], hardware: Callable[[], Hardware], settings: Settings | None = None
) -> list[Diagnostic]:
    return check_context(make_context(recipe, hardware, settings), rules)


def make_context(recipe: Recipe, hardware: Callable[[], Hardware], settings: Settings | None = None) -> Context:
    from recipelint.context import Context

    options = (
        {
            "deepspeed-version": settings.deepspeed_version,
            "model-params": settings.model_params,
            "mean-utterance-seconds": settings.mean_utterance_seconds,
        }
        if settings
        else {}
    )
    return Context(recipe, hardware, options)


def check_context(ctx: Context, rules: Iterable[Rule]) -> list[Diagnostic]:
    recipe = ctx.recipe
    found: dict[tuple[object, ...], Diagnostic] = {}
    for rule in rules:
        if not rule.applies_to(recipe.toolkit):
            continue
        for diagnostic in rule.check(ctx):
            if diagnostic is None:
                continue
            key = (diagnostic.code, diagnostic.span, diagnostic.message)
            found.setdefault(key, diagnostic)
    return list(found.values())


class _Machine:
    """One hardware source (a --hardware profile, a configured profile, or the probe), loaded once.

    While the result cache records, a recipe that loads the hardware depends on it: on the
    profile file (its read is replayed to every recipe that loads it) or on the probe's facts."""

    def __init__(self, load: Callable[[], Hardware], probe: bool) -> None:
        self._load = load
        self._probe = probe
        self._memo: Memo[str, Hardware] = Memo()
        self.loaded: Hardware | None = None
        self.calls = 0

    def __call__(self) -> Hardware:
        self.calls += 1
        if not self._probe:
            self.loaded = self._memo.get("", self._load)
            return self.loaded
        if self.loaded is None:
            with deps.paused():  # /proc and /sys change by the second: the facts are the input
                self.loaded = self._load()
        deps.note(deps.VALUE, "probe")
        return self.loaded


class ProfileLoader:
    """--hardware PROFILE (or `host`: this machine, judged as the node), loaded on first use
    (picklable, and the cache knows what it reads)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.host = str(path) == "host"
        self._loaded: Hardware | None = None

    def __call__(self) -> Hardware:
        if self._loaded is None:
            if self.host:
                from recipelint.hardware.probe import probe

                self._loaded = probe()
            else:
                from recipelint.hardware.profile import load_profile

                self._loaded = load_profile(self.path)
            self._loaded.chosen_by = f"--hardware {self.path}"
        return self._loaded


@dataclass
class _Hardware:
    """One loader per source: the --hardware override, or each file's configured profile or the probe.

    The probe is judged against each recipe (recipelint.hardware.host): when this host is not
    the recipe's training node, the rules of that recipe see no hardware fact at all."""

    override: Callable[[], Hardware] | None
    _machines: dict[Path | None, _Machine] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.override is not None:
            self._machines[None] = _Machine(self.override, probe=getattr(self.override, "host", False))

    def loader(self, settings: Settings) -> _Machine:
        key = None if self.override is not None else settings.hardware
        if key not in self._machines:
            where = settings.source.name if settings.source is not None else "the settings"
            self._machines[key] = _Machine(partial(_load_hardware, key, where), probe=key is None)
        return self._machines[key]

    def fresh(self) -> None:
        """Each target says 'unknown fact' as if it were the first (the run keeps the first)."""
        for machine in self._machines.values():
            if machine.loaded is not None:
                machine.loaded.reported.clear()

    def judging(self, machine: _Machine, recipe: Recipe, judged: list[Judged]) -> Callable[[], Hardware]:
        """The recipe's loader: a chosen machine as it is, the probe only when this host is the
        recipe's training node (else masked: every fact unknown). Each load says which in `judged`."""

        def load() -> Hardware:
            from recipelint.hardware.report import Judged

            hardware = machine()
            if self.override is not None or hardware.origin != "probe":
                judged.append(Judged.chosen(hardware))
                return hardware
            from recipelint.hardware import host

            verdict = host.judge(recipe, hardware)
            judged.append(Judged.probed(verdict, recipe))
            return hardware if verdict.node else host.masked(hardware, verdict)

        return load

    @property
    def used(self) -> Hardware | None:
        return next((m.loaded for m in self._machines.values() if m.loaded is not None), None)


def _load_hardware(key: Path | None, where: str) -> Hardware:
    if key is not None:
        from recipelint.hardware.profile import load_profile

        hardware = load_profile(key)
        hardware.chosen_by = f"hardware in {where}"
        return hardware
    from recipelint.hardware.probe import probe

    return probe()


@dataclass
class RecipeOutcome:
    """One recipe's findings before the run's filters (settings, suppressions): what a worker
    process sends back and what the result cache keeps."""

    found: list[Diagnostic]
    files: int
    errors: list[SourceError]
    suppressions: dict[Path, list[Suppression]]
    machine: str  # which hardware source the recipe was checked against ("" for --hardware)
    uses_hardware: bool = False
    judged: list[Judged] = field(default_factory=list)  # the machine it was judged against, and why
    recipe: Recipe | None = None  # only in a serial run that keeps recipes or observes them
    ctx: Context | None = None


@dataclass
class Outcome:
    errors: list[SourceError] = field(default_factory=list)  # the target could not be read
    recipes: list[RecipeOutcome] = field(default_factory=list)
    cache_entry: Any = None  # (name, entry) for the result cache to keep, when it was checked now


@dataclass
class Job:
    """What checking any target of a run needs (inherited by forked worker processes)."""

    files: FileCache
    select: Callable[[Rule], bool] | None
    machines: _Hardware
    inline_ignores: bool
    keep: bool  # keep each recipe and its context (show, diagnose, the Python API)
    cache: Any = None  # a recipelint.cache.ResultCache
    _rules: list[Rule] | None = None

    @property
    def rules(self) -> list[Rule]:
        """Loaded on first use: a run the cache answers imports no rule."""
        if self._rules is None:
            from recipelint.rules import all_rules

            self._rules = [rule for rule in all_rules().values() if self.select is None or self.select(rule)]
        return self._rules


def check_target(job: Job, target: Target, settings: Settings) -> Outcome:
    """Read one target and run the rules on each recipe it holds."""
    outcome = Outcome()
    job.machines.fresh()
    try:
        recipes = load_target(target, job.files)
    except SourceError as error:
        outcome.errors.append(error)
        return outcome
    except RecursionError:
        outcome.errors.append(SourceError(target.path, "nested too deeply to read"))
        return outcome
    except Exception as exc:  # a bug of ours on this file: say so, and go on with the others
        outcome.errors.append(SourceError(target.path, f"internal error reading this file: {type(exc).__name__}: {exc}"))
        return outcome
    for recipe in recipes:
        outcome.recipes.append(_check_recipe(job, target, settings, recipe))
    return outcome


def _check_recipe(job: Job, target: Target, settings: Settings, recipe: Recipe) -> RecipeOutcome:
    machine = job.machines.loader(settings)
    calls = machine.calls
    label = "" if job.machines.override is not None else str(settings.hardware or "probe")
    item = RecipeOutcome([], len(recipe.files), list(recipe.errors), {}, label, recipe=recipe if job.keep else None)
    try:
        ctx = make_context(recipe, job.machines.judging(machine, recipe, item.judged), settings)
        item.found = check_context(ctx, job.rules)
        item.ctx = ctx if job.keep else None
    except SourceError as error:
        item.errors.append(error)
    except Exception as exc:  # a bug in a rule: report it for this recipe, check the rest
        where = recipe.script.source.path if recipe.script else target.path
        item.errors.append(SourceError(where, f"internal error in a rule: {type(exc).__name__}: {exc}"))
    item.uses_hardware = machine.calls > calls
    if job.inline_ignores:
        from recipelint.suppression import read_suppressions

        found = item.found
        for path in {d.span.path for d in found} | {e.span.path for d in found if d.fix for e in d.fix.edits} | set(recipe.files):
            if path.name != "<command>":
                item.suppressions[path] = read_suppressions(path, job.files)
    # Memory stays flat in the number of files: a report that quotes a line reads it again.
    for path in recipe.files:
        job.files.forget(path)
    return item


def check(
    paths: list[Path],
    hardware: Callable[[], Hardware] | None = None,
    files: FileCache | None = None,
    select: Callable[[Rule], bool] | None = None,
    resolver: Resolver | None = None,
    inline_ignores: bool = True,
    model_params: float | None = None,
    command: str | None = None,
    keep_recipes: bool = True,
    observe: Callable[[Context, list[Diagnostic]], None] | None = None,
    jobs: int = 1,
    cache: Any = None,
) -> Result:
    """Check the paths; `observe` sees each recipe's context and its findings (for `show`).

    `jobs`: worker processes at most (0: as many as there are CPUs), used only when the
    measured cost says they pay (recipelint.parallel); `cache`: a recipelint.cache.ResultCache.
    Neither applies when recipes are kept or observed. The report is the same either way."""
    deps.new_run()
    files = files or FileCache()
    resolver = resolver or Resolver()
    result = Result()
    keep = keep_recipes or observe is not None
    if keep or select is not None:
        jobs, cache = 1, None
    job = Job(files, select, _Hardware(hardware), inline_ignores, keep, cache)
    result.errors.extend(_missing(paths))
    with cache.tracking() if cache is not None else nullcontext():
        try:
            targets = discover([p for p in paths if p.exists()], files, cache)
        except SourceError as error:
            result.errors.append(error)
            return result
        if command is not None:
            targets.append(Target("command", Path("<command>"), command))
        work = _settle(targets, resolver, model_params)

        ready = [(target, settings) for target, settings in work if not isinstance(settings, SourceError)]
        outcomes = _outcomes(job, ready, jobs)
        try:
            first = _gather(result, work, outcomes, resolver, inline_ignores, observe, cache, lambda: job.rules)
        finally:
            outcomes.close()  # a pool's workers stop now, not when the generator is collected
        if first is not None and hardware is None:
            result.hardware_loader = job.machines.loader(first)
        if hardware is not None and result.parsed:  # a bad --hardware profile is an error even when unused
            result.hardware_loader = job.machines.loader(Settings())
            if cache is not None:
                cache.loads(str(getattr(hardware, "path", "")), result.hardware_loader)
            else:
                result.hardware_loader()
        if result.judged and all(j.kind == "none" for j in result.judged):
            result.hardware_loader = None  # every recipe found this host not its node: no machine to show
    result.errors = list({str(error): error for error in result.errors}.values())
    unique = {(d.code, d.span, d.message): d for d in result.diagnostics}
    result.diagnostics = sorted(unique.values(), key=lambda d: d.sort_key)
    result.failing = sum(1 for d in result.diagnostics if d.severity >= _settings(resolver, d.span.path).fail_on)
    return result


Work = tuple[Target, "Settings | SourceError"]


def _missing(paths: list[Path]) -> list[SourceError]:
    errors = []
    for path in paths:
        if path.is_symlink() and not path.exists():
            errors.append(SourceError(path, "a symlink loop or a link to nothing"))
        elif not path.exists():
            errors.append(SourceError(path, "no such file or directory"))
    return errors


def _settle(targets: list[Target], resolver: Resolver, model_params: float | None) -> list[Work]:
    """Each target with the settings it is checked under (or why they cannot be read); excluded ones dropped."""
    work: list[Work] = []
    for target in targets:
        try:
            settings = resolver.for_path(target.path)
        except SourceError as error:
            work.append((target, error))
            continue
        if settings.excluded(target.path):
            continue
        work.append((target, replace(settings, model_params=model_params) if model_params else settings))
    return work


def _prepare(job: Job, items: list[tuple[Target, Settings]]) -> None:
    """Load, before worker processes are forked, what every one of them would load again: the
    rules, the readers the remaining targets need, the --hardware profile."""
    from recipelint import context, suppression  # noqa: F401

    job.rules  # noqa: B018
    kinds = {target.kind for target, _ in items}
    if "yaml" in kinds or job.machines.override is not None:
        from recipelint.sources import yamlfile

        yamlfile.loader()
    if kinds & {"script", "markdown", "command"}:
        from recipelint.sources import dslaunch, markdown, shell, wenet, xtuner  # noqa: F401

        shell.parser()
    if "json" in kinds:
        from recipelint.sources import jsonfile  # noqa: F401
    if "python" in kinds:
        from recipelint.sources import pyconfig  # noqa: F401
    if job.machines.override is not None:
        try:
            job.machines.loader(Settings())()
        except SourceError:
            pass  # each recipe reports it


def _outcomes(job: Job, ready: list[tuple[Target, Settings]], jobs: int) -> Generator[Outcome, None, None]:
    """Each target's outcome, in order: from the cache when it holds one, else checked (the
    checks on several CPUs when they pay; cache hits never count as work)."""
    from recipelint import parallel

    known = [job.cache.lookup(job, target, settings) for target, settings in ready] if job.cache is not None else [None] * len(ready)
    todo = [item for item, hit in zip(ready, known, strict=True) if hit is None]
    checked = parallel.run(_check_work, job, todo, jobs, partial(_prepare, job))
    try:
        for hit in known:
            yield hit if hit is not None else next(checked)
    finally:
        checked.close()  # helpers stop now, not when the generator is collected


def _check_work(job: Job, item: tuple[Target, Settings]) -> Outcome:
    target, settings = item
    if job.cache is not None:
        return job.cache.check(job, target, settings)  # type: ignore[no-any-return]
    return check_target(job, target, settings)


def _gather(
    result: Result,
    work: list[Work],
    outcomes: Iterable[Outcome],
    resolver: Resolver,
    inline_ignores: bool,
    observe: Callable[[Context, list[Diagnostic]], None] | None,
    cache: Any = None,
    rules: Callable[[], list[Rule]] = lambda: [],
) -> Settings | None:
    """Fold the outcomes in serial order: the same report whatever ran them, and in what order.
    The settings of the first recipe that needed the hardware."""

    suppressions: dict[Path, list[Suppression]] = {}
    said: set[tuple[str, str | None]] = set()  # (hardware source, fact) already reported unknown
    pending = iter(outcomes)
    first: Settings | None = None
    for _, settings in work:
        outcome = Outcome([settings]) if isinstance(settings, SourceError) else next(pending)
        if cache is not None:
            cache.keep(outcome)
        result.errors.extend(outcome.errors)
        for item in outcome.recipes:
            if item.uses_hardware and first is None and not isinstance(settings, SourceError):
                first = settings
            if item.recipe is not None:
                result.recipes.append(item.recipe)
            result.parsed += 1
            result.files += item.files
            result.errors.extend(item.errors)
            result.judged.extend(item.judged)
            found = []
            for diagnostic in item.found:
                if diagnostic.code == UNKNOWN_FACT:
                    if (item.machine, diagnostic.setting) in said:
                        continue
                    said.add((item.machine, diagnostic.setting))
                found.append(diagnostic)
            for path, items in item.suppressions.items():
                suppressions.setdefault(path, items)
            kept = _filter(found, resolver, suppressions)
            result.diagnostics.extend(kept)
            if observe is not None and item.ctx is not None:
                observe(item.ctx, kept)
    result.diagnostics.extend(_filter(_not_the_node(result.judged, rules), resolver, suppressions))
    if inline_ignores:
        result.diagnostics.extend(_suppression_findings(suppressions, resolver))
    return first


def _not_the_node(judged: list[Judged], rules: Callable[[], list[Rule]]) -> list[Diagnostic]:
    """RL004 once per run: the first recipe this host was not the training node for, and the
    hardware-derived rules (those declaring FACTS) that therefore judged nothing."""
    skipped = [j for j in judged if j.kind == "none"]
    if not skipped:
        return []
    from recipelint.hardware.report import not_the_node_finding

    toolkits = {j.toolkit for j in skipped}
    derived = [r for r in rules() if r.hardware_derived and any(r.applies_to(t) for t in toolkits)]
    finding = not_the_node_finding(skipped[0], [(r.code, r.facts) for r in derived])
    return [finding] if finding is not None else []


def _settings(resolver: Resolver, path: Path) -> Settings:
    try:
        return resolver.for_path(path)
    except SourceError:
        return Settings()


def _filter(found: list[Diagnostic], resolver: Resolver, suppressions: dict[Path, list[Suppression]]) -> list[Diagnostic]:
    kept = []
    for diagnostic in found:
        settings = _settings(resolver, diagnostic.span.path)
        if not settings.enabled(diagnostic.code) or settings.ignored_in(diagnostic.span.path, diagnostic.code):
            continue
        # A suppression sits on the finding's line, or on the line of the value its fix rewrites
        # (`num_workers=4  # recipelint: ignore[RL102] ...` when the flag says ${num_workers}).
        places = {(diagnostic.span.path, diagnostic.span.line)}
        if diagnostic.fix is not None:
            places.update((edit.span.path, edit.span.line) for edit in diagnostic.fix.edits)
        covering = [s for path, line in places for s in suppressions.get(path, []) if s.covers(diagnostic.code, line)]
        if covering:
            for suppression in covering:
                suppression.used.add(diagnostic.code)
            continue
        diagnostic.severity = settings.severity.get(diagnostic.code, diagnostic.severity)
        kept.append(diagnostic)
    return kept


def _suppression_findings(suppressions: dict[Path, list[Suppression]], resolver: Resolver) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for path, items in suppressions.items():
        settings = _settings(resolver, path)
        for item in items:
            from recipelint.diagnostics import Diagnostic, Severity
            from recipelint.rules.meta import suppression_unused, suppression_without_reason

            span = item.span
            unused = [c for c in item.codes if not any(u.startswith(c) or c == "ALL" for u in item.used)]
            if unused and settings.enabled(suppression_unused.CODE):
                kind = "ignore-file" if item.whole_file else "ignore"
                message = f"unused suppression: {kind}[{', '.join(unused)}] matches no finding"
                severity = settings.severity.get(suppression_unused.CODE, Severity.WARNING)
                out.append(Diagnostic(suppression_unused.CODE, severity, message, span, setting=", ".join(unused)))
            if not item.reason and settings.enabled(suppression_without_reason.CODE):
                message = f"suppression of {', '.join(item.codes)} gives no reason; write why after the bracket"
                severity = settings.severity.get(suppression_without_reason.CODE, Severity.WARNING)
                out.append(Diagnostic(suppression_without_reason.CODE, severity, message, span))
    return out
