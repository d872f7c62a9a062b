"""The runner: check the paths' targets (recipelint.discovery), each read by the toolkit that
claims it (recipelint.toolkits), run the rules on each recipe, and fold the outcomes into one
result (settings and suppressions applied by recipelint.suppression).

`check(...)` is the public Python entry point."""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable
from contextlib import nullcontext
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from recipelint import deps
from recipelint.budget import OverBudget, cpu_budget
from recipelint.checkoptions import CheckOptions
from recipelint.discovery import discover, missing
from recipelint.hardware.machines import Machines, ProfileLoader
from recipelint.parse.files import FileCache, SourceError, linted_roots
from recipelint.records import dataclass, field, replace
from recipelint.rulekit import unknown_fact
from recipelint.settings import Resolver, Settings
from recipelint.suppression import apply, settings_for, suppression_findings
from recipelint.toolkits import SHELL_KINDS, Target, load_target

__all__ = ["ProfileLoader", "Result", "Target", "check", "check_target", "load_target"]

# Readers and rules load when a file needs them: start-up matters (pre-commit runs us on
# every commit), and a run the cache answers needs none of them.
if TYPE_CHECKING:
    from recipelint.context import Context
    from recipelint.diagnostics import Diagnostic
    from recipelint.hardware.profile import Hardware
    from recipelint.hardware.report import Judged
    from recipelint.model import Alternative, Recipe
    from recipelint.rules import Rule
    from recipelint.suppression import Suppression

UNKNOWN_FACT = unknown_fact.CODE


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
    sources: FileCache | None = field(default=None, repr=False)  # the run's file cache: reporters quote lines from it
    skipped: list[tuple[Path, str]] = field(default_factory=list)  # files passed that are no recipe, not read, and why
    named: list[str] = field(default_factory=list)  # the paths (and `--command`) the run was given, as given
    known: int = 0  # findings a baseline or `--diff REV` knew: not shown (baseline) or shown as infos (diff)
    known_as: str = ""  # what became of them, for the summary


def run_rules(
    recipe: Recipe, rules: Iterable[Rule], hardware: Callable[[], Hardware], settings: Settings | None = None
) -> list[Diagnostic]:
    return check_context(make_context(recipe, hardware, settings), rules)


def make_context(
    recipe: Recipe, hardware: Callable[[], Hardware], settings: Settings | None = None, said: set[str] | None = None
) -> Context:
    from recipelint.context import Context, Options

    options = Options.of(settings) if settings else Options()
    return Context(recipe, hardware, options, said=said if said is not None else set())


def check_context(ctx: Context, rules: Iterable[Rule], errors: list[SourceError] | None = None) -> list[Diagnostic]:
    """The findings of the rules that apply to the recipe's toolkit. With `errors`, a rule that
    raises is one error line naming it, and the other rules still run: one bug of ours must not
    hide every finding of the recipe. Without it (tests), the exception goes up."""
    recipe = ctx.recipe
    found: dict[tuple[object, ...], Diagnostic] = {}
    visited = _Visited(ctx)
    for rule in rules:
        if not rule.applies_to(recipe.toolkit) or not visited.has(rule.visits):
            continue
        try:
            for diagnostic in rule.check(ctx):
                if diagnostic is not None:
                    found.setdefault((diagnostic.code, diagnostic.span, diagnostic.message), diagnostic)
        except SourceError as error:  # a file the rule reads could not be read: said once, like a reader's
            if errors is None:
                raise
            errors.append(error)
        except Exception as exc:  # a bug in one rule: name it, keep the others' findings
            if errors is None:
                raise
            errors.append(SourceError(_where(recipe), f"internal error in {rule.code}: {type(exc).__name__}: {exc}"))
    return list(found.values())


class _Visited:
    """Which subjects (recipelint.subjects) a recipe has, each asked once per recipe."""

    def __init__(self, ctx: Context) -> None:
        from recipelint.toolkits import subjects

        self._ctx, self._subjects, self._seen = ctx, subjects(), dict[str, bool]()

    def has(self, names: tuple[str, ...]) -> bool:
        for name in names:
            seen = self._seen.get(name)
            if seen is None:
                seen = self._seen[name] = self._subjects[name].present(self._ctx)
            if not seen:
                return False
        return bool(names)  # a rule that visits nothing is never called on a recipe


def _where(recipe: Recipe) -> Path:
    """The file an internal error of a rule is reported on: the recipe's script, else its first file."""
    if recipe.script is not None:
        return recipe.script.source.path
    return next(iter(recipe.files), recipe.root)


@dataclass
class RecipeOutcome:
    """One recipe's findings before the run's filters (settings, suppressions): what a worker
    process sends back and what the result cache keeps."""

    found: list[Diagnostic]
    files: int
    errors: list[SourceError]
    suppressions: dict[Path, list[Suppression]]
    machine: str  # which hardware source the recipe was checked against ("" for --hardware)
    judged: list[Judged] = field(default_factory=list)  # the machine it was judged against, and why
    recipe: Recipe | None = None  # only in a serial run that keeps recipes or observes them
    ctx: Context | None = None
    # One alternative of a launch (Recipe.alternative): its own findings, for `show`; `found` holds
    # the findings over every alternative on the first, none on the others.
    alone: list[Diagnostic] | None = None

    @property
    def uses_hardware(self) -> bool:
        return bool(self.judged)  # each recipe's first hardware load says which machine it judged


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
    machines: Machines
    inline_ignores: bool
    keep: bool  # keep each recipe and its context (show, diagnose, the Python API)
    cache: Any = None  # a recipelint.cache.ResultCache
    _rules: dict[str | None, list[Rule]] = field(default_factory=dict)

    def rules(self, toolkit: str | None = None) -> list[Rule]:
        """The selected rules that apply to recipes of `toolkit` (None: all of them), loaded on
        first use: a run the cache answers imports no rule, a WeNet recipe no XTuner rule."""
        rules = self._rules.get(toolkit)
        if rules is None:
            from recipelint.rules import rules_for

            rules = self._rules[toolkit] = [rule for rule in rules_for(toolkit).values() if self.select is None or self.select(rule)]
        return rules


def check_target(job: Job, target: Target, settings: Settings) -> Outcome:
    """Read one target and run the rules on each recipe it holds."""
    outcome = Outcome()
    said: set[str] = set()  # each target names an unknown fact as if it were the first (the run keeps the first)
    try:
        with cpu_budget():
            recipes = _load(target, job.files)
    except OverBudget as over:
        outcome.errors.append(SourceError(target.path, f"reading this file took {over} (the budget for one file): not checked"))
        return outcome
    except SourceError as error:
        outcome.errors.append(error)
        return outcome
    except RecursionError:
        outcome.errors.append(SourceError(target.path, "nested too deeply to read"))
        return outcome
    except PermissionError as exc:  # a file or folder of the recipe this user may not read: its path
        outcome.errors.append(SourceError(Path(exc.filename or target.path), "permission denied"))
        return outcome
    except Exception as exc:  # a bug of ours on this file: say so, and go on with the others
        outcome.errors.append(SourceError(target.path, f"internal error reading this file: {type(exc).__name__}: {exc}"))
        return outcome
    if target.config is not None:  # a config passed alone: only the launches that name it
        recipes = [recipe for recipe in recipes if recipe.launch is not None and recipe.launch.command.span.line in target.launches]
        passed = ", ".join(str(config) for config in (target.config, *target.also))
        for recipe in recipes:
            line = recipe.launch.command.span.line if recipe.launch is not None else 0
            recipe.note("configs", "judged with", f"the launch at {target.path}:{line}", f"{passed} was passed alone; this launch names it")
    # Each file is read and its suppressions found once per target: a README with thousands of
    # launch fences is one text, not one per fence (that was quadratic in the fences).
    comments: dict[Path, list[Suppression]] = {}
    for recipe in recipes:
        outcome.recipes.append(_check_recipe(job, settings, recipe, said, comments))
    _over_alternatives(outcome.recipes, recipes)
    # Memory stays flat in the number of files: a report that quotes a line reads it again.
    for path in {path for recipe in recipes for path in recipe.files}:
        job.files.forget(path)
    return outcome


def _over_alternatives(items: list[RecipeOutcome], recipes: list[Recipe]) -> None:
    """A launch read once per way bash can run it is judged once: its first alternative carries
    the findings over all of them (diagnostics.over_alternatives), the others none, so no finding
    is said twice; `show` still describes each."""
    from recipelint.diagnostics import JudgedWay, over_alternatives

    groups: dict[str, list[tuple[RecipeOutcome, Alternative]]] = {}
    for item, recipe in zip(items, recipes, strict=True):
        if recipe.alternative is not None:
            groups.setdefault(recipe.alternative.group, []).append((item, recipe.alternative))
    for members in groups.values():
        count = members[0][1].count
        merged = over_alternatives(count, [JudgedWay(way.ways, way.every, item.found, way.own, way.chosen) for item, way in members])
        for index, (item, _) in enumerate(members):
            item.alone, item.found = item.found, merged if index == 0 else []


def _load(target: Target, files: FileCache) -> list[Recipe]:
    """The target's recipes: a launch file loaded while discovery found which launches name a
    config passed alone is taken as it was loaded (once a run), anything else loaded now."""
    if target.kind in ("script", "markdown") and (target.kind, target.path) in files.loaded:
        recipes: list[Recipe] = files.loaded.get((target.kind, target.path), lambda: load_target(target, files))
        files.loaded.pop((target.kind, target.path))
        return recipes
    return load_target(target, files)


def judged_with(diagnostics: list[Diagnostic], targets: list[Target]) -> None:
    """Each finding on a config passed alone says which launches it was judged with."""
    launches: dict[Path, list[str]] = {}
    for target in targets:
        for config in (target.config, *target.also) if target.config is not None else ():
            where = launches.setdefault(_same(config), [])
            where.extend(f"{target.path}:{line}" for line in target.launches)
    if not launches:
        return
    for diagnostic in diagnostics:
        named = launches.get(_same(diagnostic.span.path))
        if named:
            diagnostic.evidence = [*diagnostic.evidence, f"judged with the launch at {', '.join(named)} (the config was passed alone)"]


def _same(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path.absolute()


def _check_recipe(job: Job, settings: Settings, recipe: Recipe, said: set[str], comments: dict[Path, list[Suppression]]) -> RecipeOutcome:
    machine = job.machines.loader(settings)
    label = "" if job.machines.override is not None else str(settings.hardware or "probe")
    item = RecipeOutcome([], len(recipe.files), list(recipe.errors), {}, label, recipe=recipe if job.keep else None)
    try:
        with cpu_budget():
            ctx = make_context(recipe, job.machines.judging(machine, recipe, item.judged), settings, said)
            item.found = check_context(ctx, job.rules(recipe.toolkit), item.errors)
        item.ctx = ctx if job.keep else None
    except OverBudget as over:
        item.errors.append(SourceError(_where(recipe), f"checking this recipe took {over} (the budget for one recipe): not checked"))
    except SourceError as error:
        item.errors.append(error)
    except Exception as exc:  # a bug in building the context: report it for this recipe, check the rest
        item.errors.append(SourceError(_where(recipe), f"internal error checking this recipe: {type(exc).__name__}: {exc}"))
    if job.inline_ignores:
        from recipelint.suppression import read_suppressions

        found = item.found
        for path in {d.span.path for d in found} | {e.span.path for d in found if d.fix for e in d.fix.edits} | set(recipe.files):
            if path.name != "<command>":
                if path not in comments:
                    comments[path] = read_suppressions(path, job.files)
                item.suppressions[path] = comments[path]
    return item


def check(
    paths: list[Path],
    options: CheckOptions | None = None,
    *,
    hardware: Callable[[], Hardware] | None = None,
    files: FileCache | None = None,
    select: Callable[[Rule], bool] | None = None,
    resolver: Resolver | None = None,
    keep_recipes: bool = True,
    observe: Callable[[Context, list[Diagnostic]], None] | None = None,
    cache: Any = None,
    progress: Callable[[int, int], None] | None = None,
) -> Result:
    """Check the paths with `options` (recipelint.checkoptions: of them the run reads the launch
    `command`, the model size, the worker processes and whether inline ignores count); `observe`
    sees each recipe's context and its findings (for `show`). `hardware`: the --hardware
    profile's loader (None: each file's settings, else the probe). Worker processes (`jobs`,
    None: one) are used only when the measured cost says they pay (recipelint.parallel), and
    neither they nor `cache` (a ResultCache) when recipes are kept or observed: the report is
    the same either way. `progress(done, total)` is called as each target is folded in."""
    options = options or CheckOptions()
    command, model_params, inline_ignores = options.command, options.model_params, not options.no_inline_ignores
    jobs = options.jobs if options.jobs is not None else 1
    deps.new_run()
    files = files or FileCache()
    if files.roots is None:  # and the folder recipelint runs in, where a launch's paths may start
        files.roots = linted_roots([*paths, Path(".")])
    resolver = resolver or Resolver()
    result = Result(sources=files, named=[str(path) for path in paths] + (["the --command line"] if command is not None else []))
    keep = keep_recipes or observe is not None
    if keep or select is not None:
        jobs, cache = 1, None
    job = Job(files, select, Machines(hardware), inline_ignores, keep, cache)
    result.errors.extend(missing([p for p in paths if p not in files.overlay]))
    with cache.tracking() if cache is not None else nullcontext():
        try:
            targets = discover([p for p in paths if p.exists() or p in files.overlay], files, cache)
        except SourceError as error:
            result.errors.append(error)
            return result
        result.errors.extend(files.unlisted)
        result.skipped = list(files.skipped)
        if command is not None:
            targets.append(Target("command", Path("<command>"), command))
        work = _settle(targets, resolver, model_params)

        ready = [(target, settings) for target, settings in work if not isinstance(settings, SourceError)]
        outcomes = _outcomes(job, ready, jobs, progress)
        try:
            first = _gather(result, work, outcomes, resolver, inline_ignores, observe, cache, job.rules)
        finally:
            outcomes.close()  # a pool's workers stop now, not when the generator is collected
        _machine(result, job, hardware, first, cache)
    result.errors = list({str(error): error for error in result.errors}.values())
    unique = {(d.code, d.span, d.message): d for d in result.diagnostics}
    judged_with(list(unique.values()), targets)
    result.diagnostics = sorted(unique.values(), key=lambda d: d.sort_key)
    result.failing = sum(1 for d in result.diagnostics if fails(resolver, d))
    return result


def fails(resolver: Resolver, diagnostic: Diagnostic) -> bool:
    """Whether a finding fails the run: at or above its file's fail-on severity."""
    return diagnostic.severity >= settings_for(resolver, diagnostic.span.path).fail_on


def _machine(result: Result, job: Job, hardware: Callable[[], Hardware] | None, first: Settings | None, cache: Any) -> None:
    """The machine the report shows: the --hardware profile (loaded now when anything was read,
    so a bad one is an error even when unused), else the first recipe's; none when every recipe
    found this host not its node."""
    if first is not None and hardware is None:
        result.hardware_loader = job.machines.loader(first)
    if hardware is not None and result.parsed:
        result.hardware_loader = job.machines.loader(Settings())
        if cache is not None:
            cache.loads(str(getattr(hardware, "path", "")), result.hardware_loader)
        else:
            result.hardware_loader()
    if result.judged and all(j.kind == "none" for j in result.judged):
        result.hardware_loader = None


Work = tuple[Target, "Settings | SourceError"]


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
    from recipelint import context  # noqa: F401

    job.rules()
    kinds = {target.kind for target, _ in items}
    if "yaml" in kinds or job.machines.override is not None:
        from recipelint.parse import yamlblock, yamlfile  # noqa: F401 - ruamel itself only for YAML outside the block subset
    if kinds & set(SHELL_KINDS):
        import importlib

        from recipelint.parse import markdown, shell  # noqa: F401
        from recipelint.toolkits import REGISTRY

        for toolkit in REGISTRY:  # each toolkit names the front end its reading imports
            for module in toolkit.preload:
                importlib.import_module(module)
        shell.parser()
    if "json" in kinds:
        from recipelint.parse import jsonfile  # noqa: F401
    if "python" in kinds:
        from recipelint.parse import pyconfig  # noqa: F401
    if job.machines.override is not None:
        try:
            job.machines.loader(Settings())()
        except SourceError:
            pass  # each recipe reports it


def _outcomes(
    job: Job, ready: list[tuple[Target, Settings]], jobs: int, progress: Callable[[int, int], None] | None = None
) -> Generator[Outcome, None, None]:
    """Each target's outcome, in order: from the cache when it holds one, else checked (the
    checks on several CPUs when they pay; cache hits never count as work). `progress(done,
    total)` counts the targets as they finish, in whichever process (cache hits first)."""
    from recipelint import parallel

    known = [job.cache.lookup(job, target, settings) for target, settings in ready] if job.cache is not None else [None] * len(ready)
    todo = [item for item, hit in zip(ready, known, strict=True) if hit is None]
    tick = None
    if progress is not None:
        done = [len(ready) - len(todo)]
        progress(done[0], len(ready))

        def tick(count: int) -> None:
            done[0] += count
            progress(done[0], len(ready))

    checked = parallel.run(_check_work, job, todo, jobs, partial(_prepare, job), tick)
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
    rules: Callable[[str], list[Rule]] = lambda toolkit: [],
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
            found = unknown_fact.once_per_run(item.found, item.machine, said)
            for path, items in item.suppressions.items():
                suppressions.setdefault(path, items)
            kept = apply(found, resolver, suppressions)
            result.diagnostics.extend(kept)
            if observe is not None and item.ctx is not None:
                observe(item.ctx, kept if item.alone is None else apply(item.alone, resolver, suppressions))
    derived = _skipped_rules(result.judged, rules)
    result.diagnostics.extend(apply(_not_the_node(result.judged, derived), resolver, suppressions))
    if inline_ignores:
        result.diagnostics.extend(suppression_findings(suppressions, resolver, {rule.code for rule in derived}))
    return first


def _unjudged(judged: list[Judged]) -> list[Judged]:
    """The recipes judged against no machine: this host is not their node."""
    return [j for j in judged if j.kind == "none" or j.stated is not None]


def _skipped_rules(judged: list[Judged], rules: Callable[[str], list[Rule]]) -> list[Rule]:
    """The hardware-derived rules (those declaring FACTS) that judged nothing because this host
    is not the node, by code."""
    skipped = _unjudged(judged)
    if not skipped:
        return []
    toolkits = sorted({j.toolkit for j in skipped})
    stated = set(skipped[0].stated or ())  # a job file's allocation: its rules judged what it states
    found = {r.code: r for t in toolkits for r in rules(t) if r.hardware_derived and not set(r.facts) <= stated}
    return sorted(found.values(), key=lambda r: r.code)


def _not_the_node(judged: list[Judged], derived: list[Rule]) -> list[Diagnostic]:
    """RL004 once per run: the first recipe this host was not the training node for, and the
    rules that therefore judged nothing."""
    skipped = _unjudged(judged)
    if not skipped:
        return []
    from recipelint.hardware.report import not_the_node_finding

    finding = not_the_node_finding(skipped[0], [(r.code, r.facts) for r in derived])
    return [finding] if finding is not None else []
