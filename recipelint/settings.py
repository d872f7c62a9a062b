"""Configuration: `[tool.recipelint]` in pyproject.toml or a recipelint.toml, the nearest one
to each linted file (no implicit cascade, as in ruff)."""

from __future__ import annotations

import fnmatch
import re
import sys
from pathlib import Path
from typing import Any

from recipelint.diagnostics import Severity
from recipelint.parse.files import MAX_FILE_BYTES, SourceError, printable, read_capped
from recipelint.parse.where import shown as shown_path
from recipelint.records import dataclass, field, replace

SEVERITIES = {"info": Severity.INFO, "warning": Severity.WARNING, "error": Severity.ERROR}
KNOWN_KEYS = (
    "select",
    "ignore",
    "extend-select",
    "per-file-ignores",
    "severity",
    "fail-on",
    "hardware",
    "exclude",
    "deepspeed-version",
    "target-versions",
    "model-params",
    "jobs",
    "cache-dir",
    "mean-utterance-seconds",
)
CONFIG_NAMES = ("recipelint.toml", "pyproject.toml")


@dataclass
class Selection:
    """Rule selectors given on the command line (`--select`, `--extend-select`, `--ignore`):
    `select` None keeps the file's selection and adjusts it; a list replaces it."""

    select: list[str] | None = None
    extend_select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return self.select is not None or bool(self.extend_select or self.ignore)

    def as_dict(self) -> dict[str, Any]:
        return {"select": self.select, "extend-select": self.extend_select, "ignore": self.ignore}


def _specificity(code: str, selectors: list[str]) -> int:
    """The length of the longest selector matching `code` (ALL counts 0), -1 when none does."""
    lengths = [0 if s == "ALL" else len(s) for s in selectors if s == "ALL" or code.startswith(s)]
    return max(lengths) if lengths else -1


def _verdict(code: str, select: list[str] | None, extend_select: list[str], ignore: list[str], before: bool) -> bool:
    """One layer of selection over the verdict `before` it (ruff's rule_selections): a layer that
    names `select` decides alone; one that only extends or ignores changes the codes it matches."""
    chosen = max(_specificity(code, select or []), _specificity(code, extend_select))
    ignored = _specificity(code, ignore)
    if select is None and chosen < 0 and ignored < 0:
        return before
    return chosen >= 0 and chosen > ignored


@dataclass
class Settings:
    select: list[str] = field(default_factory=lambda: ["ALL"])
    ignore: list[str] = field(default_factory=list)
    extend_select: list[str] = field(default_factory=list)
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    severity: dict[str, Severity] = field(default_factory=dict)
    fail_on: Severity = Severity.WARNING  # info findings are shown and never fail a run by default
    hardware: Path | None = None
    exclude: list[str] = field(default_factory=list)
    deepspeed_version: str | None = None  # the synonym of target-versions.deepspeed
    target_versions: dict[str, str] = field(default_factory=dict)  # package -> specifier, when no pin says
    model_params: float | None = None  # parameter count, for the offload host-memory rule
    jobs: int | None = None  # worker processes at most (None: decided by the run's measured cost)
    cache_dir: Path | None = None  # where the result cache lives (None: .recipelint_cache)
    mean_utterance_seconds: float | None = None  # the data's mean utterance, for the loader memory model
    source: Path | None = None  # the config file, None for defaults
    cli: Selection | None = None  # --select/--extend-select/--ignore, applied after the file's own

    @property
    def root(self) -> Path:
        return self.source.parent if self.source is not None else Path(".")

    def enabled(self, code: str) -> bool:
        """ruff's rule: the most specific matching selector wins; ignore beats select at equal
        length. The command line's selection (`cli`) is applied after the file's, as ruff does."""
        verdict = _verdict(code, self.select, self.extend_select, self.ignore, False)
        return verdict if self.cli is None else _verdict(code, self.cli.select, self.cli.extend_select, self.cli.ignore, verdict)

    def ignored_in(self, path: Path, code: str) -> bool:
        if not self.per_file_ignores:
            return False
        rel = _relative(path, self.root)
        return any(
            _glob(rel, pattern) and any(s == "ALL" or code.startswith(s) for s in codes) for pattern, codes in self.per_file_ignores.items()
        )

    def excluded(self, path: Path) -> bool:
        if not self.exclude:
            return False
        rel = _relative(path, self.root)
        return any(_glob(rel, pattern) or _glob(path.name, pattern) for pattern in self.exclude)

    def as_dict(self) -> dict[str, Any]:
        return {
            "config": str(self.source) if self.source else None,
            "select": self.select,
            "extend-select": self.extend_select,
            "ignore": self.ignore,
            "per-file-ignores": self.per_file_ignores,
            "severity": {k: str(v) for k, v in self.severity.items()},
            "fail-on": str(self.fail_on),
            "hardware": str(self.hardware) if self.hardware else None,
            "exclude": self.exclude,
            "deepspeed-version": self.deepspeed_version,
            "target-versions": self.target_versions,
            "model-params": self.model_params,
            "jobs": self.jobs,
            "cache-dir": str(self.cache_dir) if self.cache_dir else None,
            "mean-utterance-seconds": self.mean_utterance_seconds,
            "command-line": self.cli.as_dict() if self.cli else None,
        }


def _target_versions(value: Any, path: Path) -> dict[str, str]:
    """`{deepspeed = ">=0.14,<0.17", torch = "2.1"}`: a bare release means that release."""
    from recipelint.versions import clauses, normal, parse

    if not isinstance(value, dict):
        raise SourceError(path, "'target-versions' is a table of package = version specifier, such as {deepspeed = \">=0.14,<0.17\"}")
    found = {}
    for name, spec in value.items():
        text = spec.replace(" ", "") if isinstance(spec, str) else ""
        if text and parse(text) and text[0].isdigit():
            text = f"=={text}"
        if not text or not clauses(text):
            raise SourceError(path, f'\'target-versions.{name}\': {spec!r} is not a version specifier such as ">=0.14,<0.17" or "0.19.5"')
        found[normal(name)] = text
    return found


def _relative(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def _glob(rel: str, pattern: str) -> bool:
    return fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(rel, pattern.rstrip("/") + "/*")


def _toml(path: Path) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    try:
        data: dict[str, Any] = tomllib.loads(read_capped(path, MAX_FILE_BYTES, "a settings file").decode("utf-8"))
        return data
    except tomllib.TOMLDecodeError as exc:
        raise SourceError(path, f"invalid TOML: {exc}") from None
    except UnicodeDecodeError as exc:
        raise SourceError(path, f"invalid TOML: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise SourceError(path, exc.strerror or str(exc)) from None


def load_settings(path: Path) -> Settings:
    """Read one config file (recipelint.toml, or pyproject.toml's [tool.recipelint])."""
    data = _toml(path)
    if path.name == "pyproject.toml" or "tool" in data:
        tool = data.get("tool", {})
        if not isinstance(tool, dict):
            raise SourceError(path, "'tool' is not a table: recipelint reads [tool.recipelint]")
        data = tool.get("recipelint", {})
        if not isinstance(data, dict):
            raise SourceError(path, "'tool.recipelint' is not a table: write [tool.recipelint] and its settings below it")
    return _parse(data, path)


def _parse(data: dict[str, Any], path: Path) -> Settings:
    from recipelint.rulekit import closest

    for key in data:
        if key not in KNOWN_KEYS:
            guess = closest(key, KNOWN_KEYS)
            raise SourceError(
                path,
                f"unknown setting '{printable(key, 40)}'"
                + (f"; did you mean '{guess}'?" if guess else f" (known: {', '.join(KNOWN_KEYS)})"),
            )
    settings = Settings(source=path)
    _rule_settings(settings, data, path)
    _run_settings(settings, data, path)
    settings.mean_utterance_seconds = _seconds(data, path)
    return settings


def _rule_settings(settings: Settings, data: dict[str, Any], path: Path) -> None:
    """Which rules run, at which severity, and what fails the run."""
    from recipelint.rules import all_rules

    codes = set(all_rules())

    def code_list(key: str) -> list[str]:
        value = data.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise SourceError(path, f"'{key}' is a list of rule codes or prefixes")
        unknown = unknown_selector(value, codes)
        if unknown is not None:
            raise SourceError(path, f"'{key}': no rule matches '{printable(unknown, 40)}'")
        return list(value)

    if "select" in data:
        settings.select = code_list("select")
    settings.ignore = code_list("ignore")
    settings.extend_select = code_list("extend-select")
    settings.per_file_ignores = _per_file_ignores(data.get("per-file-ignores", {}), codes, path)
    severity = data.get("severity", {})
    if not isinstance(severity, dict):
        raise SourceError(path, "'severity' maps rule codes to info, warning or error")
    for code, level in severity.items():
        if code not in codes:
            raise SourceError(path, f"'severity': no rule {printable(code, 40)}")
        if not isinstance(level, str) or level not in SEVERITIES:
            raise SourceError(path, f"'severity.{printable(code, 40)}': '{printable(level, 40)}' is not one of info, warning, error")
        settings.severity[code] = SEVERITIES[level]
    fail_on = data.get("fail-on", "warning")
    if not isinstance(fail_on, str) or fail_on not in SEVERITIES:
        raise SourceError(path, f"'fail-on': '{printable(fail_on, 40)}' is not one of info, warning, error")
    settings.fail_on = SEVERITIES[fail_on]


def unknown_selector(selectors: list[str], codes: set[str]) -> str | None:
    """The first selector (a code, a prefix such as `RL4`, or ALL) that matches no rule."""
    return next((s for s in selectors if s != "ALL" and not any(code.startswith(s) for code in codes)), None)


def command_line_selection(select: list[str] | None, extend_select: list[str], ignore: list[str]) -> Selection | None:
    """The command line's selectors (each option repeatable, values comma-separated, as ruff),
    checked as the settings keys are: ValueError names the option and the selector no rule matches."""
    from recipelint.rules import all_rules

    codes = set(all_rules())

    def split(option: str, values: list[str]) -> list[str]:
        selectors = [part.strip().upper() for value in values for part in value.split(",") if part.strip()]
        unknown = unknown_selector(selectors, codes)
        if unknown is not None:
            raise ValueError(f"{option}: no rule matches '{printable(unknown, 40)}' (`recipelint rules` lists them)")
        return selectors

    selection = Selection(
        None if select is None else split("--select", select), split("--extend-select", extend_select), split("--ignore", ignore)
    )
    return selection or None


def _per_file_ignores(per_file: Any, codes: set[str], path: Path) -> dict[str, list[str]]:
    if not isinstance(per_file, dict):
        raise SourceError(path, "'per-file-ignores' maps glob patterns to lists of codes")
    for pattern, listed in per_file.items():
        # a string would be iterated per character: "RL504" would ignore every code starting with "R"
        if not isinstance(listed, list) or not all(isinstance(v, str) and v for v in listed):
            raise SourceError(path, f'\'per-file-ignores."{printable(pattern, 40)}"\' is a list of rule codes, e.g. ["RL504"]')
        unknown = unknown_selector(listed, codes)
        if unknown is not None:
            raise SourceError(path, f"'per-file-ignores.\"{printable(pattern, 40)}\"': no rule matches '{printable(unknown, 40)}'")
    return {str(k): list(v) for k, v in per_file.items()}


def _run_settings(settings: Settings, data: dict[str, Any], path: Path) -> None:
    """The machine, the files left out, the release and model judged against, the run's resources."""
    if "hardware" in data:
        settings.hardware = _profile(data["hardware"], path)
    exclude = data.get("exclude", [])
    # a string would be iterated per character: exclude = "*" would leave out every file
    if not isinstance(exclude, list) or not all(isinstance(p, str) and p for p in exclude):
        raise SourceError(path, "'exclude' is a list of glob patterns, e.g. [\"third_party/**\"]")
    settings.exclude = list(exclude)
    if "deepspeed-version" in data:
        from recipelint.versions import parse

        if not isinstance(data["deepspeed-version"], str) or not parse(data["deepspeed-version"]):
            raise SourceError(path, "'deepspeed-version' is a release such as \"0.19.8\"")
        settings.deepspeed_version = data["deepspeed-version"]
    if "target-versions" in data:
        settings.target_versions = _target_versions(data["target-versions"], path)
    if "model-params" in data:
        settings.model_params = _model_params(data["model-params"], path)
    if "jobs" in data:
        jobs = data["jobs"]
        if not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1:
            raise SourceError(path, "'jobs' is the most worker processes to use, 1 or more")
        settings.jobs = jobs
    if "cache-dir" in data:
        if not isinstance(data["cache-dir"], str) or not data["cache-dir"]:
            raise SourceError(path, "'cache-dir' is a folder")
        settings.cache_dir = _confined_cache(path, data["cache-dir"])


def _confined_cache(path: Path, value: str) -> Path:
    """`cache-dir` inside the settings file's folder or its repository: a repository's settings
    must not make recipelint write into the user's other folders (`cache-dir = "/home/me/.ssh"`).
    A cache elsewhere is the user's choice to make: RECIPELINT_CACHE_DIR."""
    from recipelint.parse.files import linted_roots

    folder = path.parent / value
    real = folder.resolve()
    if not any(real == root or root in real.parents for root in linted_roots([path.parent])):
        raise SourceError(
            path,
            f"'cache-dir' {printable(value, 80)} is outside the project and its repository: set RECIPELINT_CACHE_DIR for a cache elsewhere",
        )
    return folder


def key_position(path: Path, key: str) -> tuple[int, int]:
    """The line and column of `key =` in the settings a file holds (pyproject.toml's
    [tool.recipelint] table, a recipelint.toml's top), (0, 0) when it cannot be found: tomllib
    keeps no positions, so a configuration error finds its line again."""
    try:
        lines = read_capped(path, MAX_FILE_BYTES).decode("utf-8", "replace").splitlines()
    except (OSError, SourceError):
        return 0, 0
    inside = path.name != "pyproject.toml"
    wanted = re.compile(rf"\s*([\"']?){re.escape(key)}\1\s*=")
    for number, line in enumerate(lines, 1):
        header = line.strip()
        if header.startswith("["):
            inside = path.name == "pyproject.toml" and header.replace(" ", "") == "[tool.recipelint]"
            continue
        found = wanted.match(line)
        if inside and found is not None:
            return number, found.start(1) + 1
    return 0, 0


def configuration_error(resolver: Resolver, error: SourceError) -> str | None:
    """`error` said as a configuration error when it is one: a settings file that could not be
    read, or the profile a settings file's `hardware` names that could not be loaded (with the
    file and line of the setting); None for an error of a recipe."""
    where = _resolved(error.path)
    if where in resolver.failed:
        return str(SourceError(shown_path(error.path), error.reason, error.line, error.column))
    for settings in resolver.loaded():
        if settings.hardware is not None and settings.source is not None and _resolved(settings.hardware) == where:
            line, column = key_position(settings.source, "hardware")
            cause = SourceError(shown_path(error.path), error.reason, error.line, error.column)
            reason = f"setting `hardware` names {shown_path(settings.hardware)}, which is not a usable profile: {cause}"
            return str(SourceError(shown_path(settings.source), reason, line, column))
    return None


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path.absolute()


def _profile(value: Any, path: Path) -> Path:
    """`hardware`: a profile that is there, said as a configuration error with its line when not."""
    if not isinstance(value, str) or not value:
        raise SourceError(path, "'hardware' is the path of a node profile (recipelint probe --output)")
    profile = (path.parent / value).resolve()
    if not profile.exists():  # anything else that is there (a folder, a FIFO) is refused when it is loaded
        line, column = key_position(path, "hardware")
        raise SourceError(path, f"setting `hardware` names {printable(value)}, which does not exist", line, column)
    return profile


def _model_params(value: Any, path: Path) -> float:
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            value = None
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 < value < 1e15:  # nan and inf fail too
        raise SourceError(path, "'model-params' is the parameter count, e.g. 7e9")
    return float(value)


def _seconds(data: dict[str, Any], path: Path) -> float | None:
    if "mean-utterance-seconds" not in data:
        return None
    seconds = data["mean-utterance-seconds"]
    if not isinstance(seconds, (int, float)) or isinstance(seconds, bool) or not 0 < seconds <= 3600:
        raise SourceError(path, "'mean-utterance-seconds' is the data's mean utterance in seconds, e.g. 4.5")
    return float(seconds)


@dataclass
class Resolver:
    """Finds the settings for a file: --config, --isolated, or the nearest config file."""

    config: Path | None = None
    isolated: bool = False
    selection: Selection | None = None  # the command line's rule selectors, over every file's own
    _cache: dict[Path, Settings] = field(default_factory=dict)
    _by_folder: dict[Path, Settings] = field(default_factory=dict)  # every finding asks: search once a folder
    failed: set[Path] = field(default_factory=set)  # the settings files that could not be read (resolved)

    def for_path(self, path: Path) -> Settings:
        if self.isolated:
            return Settings(cli=self.selection)
        if self.config is not None:
            return self._load(self.config)
        directory = path if path.is_dir() else path.parent
        found = self._by_folder.get(directory)
        if found is None:
            found = self._by_folder[directory] = self._search(directory.resolve())
        return found

    def _search(self, directory: Path) -> Settings:
        for folder in (directory, *directory.parents):
            for name in CONFIG_NAMES:
                candidate = folder / name
                if candidate.is_file() and (name != "pyproject.toml" or b"[tool.recipelint" in read_capped(candidate, MAX_FILE_BYTES)):
                    return self._load(candidate)
        return Settings(cli=self.selection)

    def _load(self, path: Path) -> Settings:
        key = path.resolve()
        if key not in self._cache:
            try:
                self._cache[key] = replace(load_settings(path), cli=self.selection)
            except SourceError:
                self.failed.add(key)
                raise
        return self._cache[key]

    def loaded(self) -> list[Settings]:
        """The settings files read so far."""
        return list(self._cache.values())
