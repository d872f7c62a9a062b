"""Find the recipes under the given paths, read each into the model, and run the rules."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic
from recipelint.hardware.profile import Hardware
from recipelint.model import Recipe
from recipelint.rules import Rule, all_rules
from recipelint.sources.files import FileCache, SourceError
from recipelint.sources.jsonfile import parse_json
from recipelint.sources.wenet import config_paths, load_recipe
from recipelint.sources.yamlfile import parse_yaml

YAML_SUFFIXES = (".yaml", ".yml")
SKIP_DIRS = {".git", ".hg", ".venv", "venv", "node_modules", "__pycache__", ".tox", ".mypy_cache", ".pytest_cache", "build", "dist"}
# How far above a config to look for the run script that names it (conf/ sits one below).
SEARCH_LEVELS = 4


@dataclass
class Target:
    kind: str  # "script", "yaml" or "json"
    path: Path


@dataclass
class Result:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    errors: list[SourceError] = field(default_factory=list)
    recipes: list[Recipe] = field(default_factory=list)
    files: int = 0


def is_script(path: Path) -> bool:
    return path.suffix == ".sh"


def _walk(directory: Path) -> Iterable[Path]:
    for current, dirs, names in os.walk(directory, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        for name in sorted(names):
            yield Path(current) / name


def _script_naming(config: Path, files: FileCache) -> Path | None:
    """The run script that passes `config` to training, searching upward from its folder."""
    target = config.resolve()
    directory = target.parent
    for _ in range(SEARCH_LEVELS):
        for script in sorted(directory.glob("run*.sh")):
            if target in config_paths(script, files):
                return script
        if (directory / ".git").exists() or directory.parent == directory:
            break
        directory = directory.parent
    return None


def discover(paths: list[Path], files: FileCache) -> list[Target]:
    targets: list[Target] = []
    seen: set[Path] = set()

    def add(kind: str, path: Path) -> None:
        key = path.resolve()
        if key not in seen:
            seen.add(key)
            targets.append(Target(kind, path))

    for path in paths:
        if path.is_dir():
            scripts = [p for p in _walk(path) if p.name.startswith("run") and is_script(p)]
            claimed: set[Path] = set()
            for script in scripts:
                add("script", script)
                claimed.update(config_paths(script, files))
            for candidate in _walk(path):
                if candidate.resolve() in claimed:
                    continue
                if candidate.suffix in YAML_SUFFIXES:
                    add("yaml", candidate)
                elif candidate.suffix == ".json" and not candidate.name.startswith("package"):
                    add("json", candidate)
        elif is_script(path):
            add("script", path)
        elif path.suffix in YAML_SUFFIXES or path.suffix == ".json":
            script = _script_naming(path, files) if path.is_file() else None
            if script is not None:
                add("script", script)
            else:
                add("yaml" if path.suffix in YAML_SUFFIXES else "json", path)
        else:
            add("json" if path.suffix == ".json" else "yaml", path)
    return targets


def load_target(target: Target, files: FileCache) -> Recipe:
    if target.kind == "script":
        return load_recipe(target.path, files)
    recipe = Recipe(root=target.path.parent)
    source = files.read(target.path)
    if target.kind == "yaml":
        recipe.config = parse_yaml(source)
    else:
        recipe.ds_config = parse_json(source)
    return recipe


def run_rules(recipe: Recipe, rules: Iterable[Rule], hardware: Callable[[], Hardware]) -> list[Diagnostic]:
    ctx = Context(recipe, hardware)
    found: dict[tuple[object, ...], Diagnostic] = {}
    for rule in rules:
        for diagnostic in rule.check(ctx):
            if diagnostic is None:
                continue
            key = (diagnostic.code, diagnostic.span, diagnostic.message)
            found.setdefault(key, diagnostic)
    return list(found.values())


def check(paths: list[Path], hardware: Callable[[], Hardware], files: FileCache | None = None, select: Callable[[Rule], bool] | None = None) -> Result:
    files = files or FileCache()
    result = Result()
    rules = [rule for rule in all_rules().values() if select is None or select(rule)]
    for path in paths:
        if not path.exists() and not path.is_symlink():
            result.errors.append(SourceError(path, "no such file or directory"))
    for target in discover([p for p in paths if p.exists()], files):
        try:
            recipe = load_target(target, files)
        except SourceError as error:
            result.errors.append(error)
            continue
        except RecursionError:
            result.errors.append(SourceError(target.path, "nested too deeply to read"))
            continue
        result.recipes.append(recipe)
        result.errors.extend(recipe.errors)
        result.files += len(recipe.files)
        result.diagnostics.extend(run_rules(recipe, rules, hardware))
    result.diagnostics.sort(key=lambda d: d.sort_key)
    return result
