"""What a rule sees: the recipe, the hardware, and the facts derived from both (computed once)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from recipelint import tuner, versions
from recipelint.diagnostics import Diagnostic, Edit, Fix, Severity
from recipelint.hardware.profile import Fact, Hardware
from recipelint.model import Recipe, Setting, setting_source
from recipelint.parse.span import Span
from recipelint.records import dataclass, field

if TYPE_CHECKING:
    pass


class SettingsRead(Protocol):
    """What `Options.of` reads of recipelint.settings.Settings."""

    deepspeed_version: str | None
    model_params: float | None
    mean_utterance_seconds: float | None
    target_versions: dict[str, str]
    source: Path | None


@dataclass(frozen=True)
class Options:
    """What the settings tell the rules beyond the recipe (recipelint.settings.Settings holds them
    with the rest; the runner passes these)."""

    deepspeed_version: str | None = None  # `deepspeed-version`: target-versions.deepspeed's synonym
    model_params: float | None = None  # the parameter count, for the offload host-memory rule
    mean_utterance_seconds: float | None = None  # the data's mean utterance, for the loader memory model
    target_versions: tuple[tuple[str, str], ...] = ()  # package -> specifier, when nothing beside the recipe says
    settings_file: str = ""  # where those were read, for the messages

    @classmethod
    def from_keys(cls, keys: Mapping[str, Any]) -> Options:
        """From the config file's own key names (`{"model-params": 7e9}`)."""
        targets = tuple(sorted((keys.get("target-versions") or {}).items()))
        return cls(keys.get("deepspeed-version"), keys.get("model-params"), keys.get("mean-utterance-seconds"), targets)

    @classmethod
    def of(cls, settings: SettingsRead) -> Options:
        """From recipelint.settings.Settings (a protocol here: settings sits above this module)."""
        targets = tuple(sorted(settings.target_versions.items()))
        where = settings.source.name if settings.source is not None else ""
        return cls(settings.deepspeed_version, settings.model_params, settings.mean_utterance_seconds, targets, where)

    def target(self, package: str) -> tuple[str, str] | None:
        """(specifier, setting) for a package: `target-versions`, else `deepspeed-version`."""
        where = f" in {self.settings_file}" if self.settings_file else ""
        for name, specifier in self.target_versions:
            if name == package:
                return specifier, f"target-versions{where}"
        if package == "deepspeed" and self.deepspeed_version:
            version = self.deepspeed_version
            return (version if version[:1] in "<>=!~" else f"=={version}"), f"deepspeed-version{where}"
        return None


class Derived:
    """Facts a toolkit derives from a recipe on a machine (WeNet's loader model), computed once
    per context: `ctx.derived(Kind)` makes `Kind(ctx)` the first time and keeps it. The context
    names no toolkit; each keeps its own derived facts in its own package."""

    def __init__(self, context: Context) -> None:
        self.context = context


D = TypeVar("D", bound=Derived)


@dataclass
class Context:
    recipe: Recipe
    hardware_loader: Callable[[], Hardware]
    options: Options = field(default_factory=Options)
    facts_used: list[str] = field(default_factory=list)  # hardware facts the rules asked for, for `show`
    # Unknown facts RL001 already named: shared by the recipes of one target (the run keeps one per fact).
    said: set[str] = field(default_factory=set)
    kept: dict[type[Derived], Derived] = field(default_factory=dict, repr=False, compare=False)  # `derived`'s

    def derived(self, kind: type[D]) -> D:
        """A toolkit's facts of this class about the recipe, made once per context."""
        found = self.kept.get(kind)
        if not isinstance(found, kind):
            found = kind(self)
            self.kept[kind] = found
        return found

    @cached_property
    def hardware(self) -> Hardware:
        return self.hardware_loader()

    def fact(self, name: str) -> Fact:
        if name not in self.facts_used:
            self.facts_used.append(name)
        return self.hardware.fact(name)

    # Facts about the launch, with the hardware filling what the script leaves to the run time.
    @cached_property
    def ranks_per_node(self) -> int | None:
        launch = self.recipe.launch
        if launch is None:
            return None
        value = launch.nproc_per_node.as_int()
        if value is not None and value > 0:
            return value
        gpus = self.fact("gpus").value
        return gpus if isinstance(gpus, int) and gpus > 0 else None

    @cached_property
    def nodes(self) -> int | None:
        launch = self.recipe.launch
        if launch is not None and launch.nnodes.given:
            return launch.nnodes.as_int()
        profile_nodes = self.fact("nodes").value
        if isinstance(profile_nodes, int):
            return profile_nodes
        return launch.nnodes.as_int() if launch is not None else None

    @cached_property
    def world_size(self) -> int | None:
        if self.ranks_per_node is None or self.nodes is None:
            return None
        return self.ranks_per_node * self.nodes

    @cached_property
    def ranks_evidence(self) -> str:
        launch = self.recipe.launch
        per_node = f"{self.ranks_per_node} ranks per node"
        if launch is not None and self.ranks_from_hardware:
            per_node += f" ({self.ranks_source(short=True)})"
        return f"{self.nodes} node(s) x {per_node}"

    @property
    def ranks_from_hardware(self) -> bool:
        """True when the script leaves the processes per node to the run time and the GPU count fills it."""
        launch = self.recipe.launch
        written = launch.nproc_per_node.as_int() if launch is not None else None
        return self.ranks_per_node is not None and (written is None or written <= 0)

    def ranks_source(self, short: bool = False) -> str:
        """Where the ranks per node come from: the launch's own word, or the hardware and why."""
        launch = self.recipe.launch
        if launch is None:
            return "no launch"
        setting = launch.nproc_per_node
        if not self.ranks_from_hardware:
            return setting_source(setting)
        why = setting.word.reason if setting.word is not None and setting.word.reason else None
        if why is None and setting.value is not None:
            why = f"{setting.name} {setting.value} counts no GPU"
        why = why or setting.origin or f"{setting.name} is not given"
        if short:
            why = why.rsplit("; ", 1)[-1]
        return f"{self.fact('gpus').cite('gpus')}: the script leaves the GPU count to the run time ({why})"

    @cached_property
    def packages(self) -> dict[str, versions.Range]:
        """The releases declared beside the recipe: the environment its script activates, a virtual
        environment or pin file in its repository, its toolkit checkout's requirements."""
        from recipelint.parse.checkout import ranges_beside

        return ranges_beside(self.recipe.root, self.recipe.script, self.recipe.checkout, self._launch_folders())

    def _launch_folders(self) -> tuple[Path, ...]:
        """The launched training script's folder, whose pins apply before those beside the launch
        and above it (the script looked up as the launch looks it up)."""
        launch = self.recipe.launch
        script = launch.script.value if launch is not None else None
        found = self.recipe.locate(script)[0] if isinstance(script, str) and script.endswith(".py") else None
        return (found.parent,) if found is not None else ()

    def version_range(self, package: str) -> versions.Range:
        """The releases of a package the run imports: the toolkit checkout's own version, else what
        is declared beside the recipe, else the settings' `target-versions`, else the newest known."""
        checkout = self.recipe.checkout
        if checkout is not None and checkout.toolkit == package and not checkout.in_own_environment:
            if checkout.version:
                return versions.Range(package, f"=={checkout.version}", f"{checkout.name} checkout {checkout.version_source}", "installed")
            # A fork or snapshot no release tag names: its own code decides, never the newest release.
            return versions.Range(package, "", f"{checkout.label()}: no release matches it; its code is read", "checkout")
        if package in self.packages:
            return self.packages[package]
        configured = self.options.target(package)
        if configured is not None:
            return versions.Range(package, configured[0], configured[1], "setting")
        return versions.newest(package)

    def process_group_timeouts(self, engine: str) -> list[PgLimit]:
        """The default process group's timeout over the releases the run may import, one entry per
        sub-range where it differs: DEEPSPEED_TIMEOUT minutes (read since 0.11.2) or DeepSpeed's
        default for its release under DeepSpeed, else torch's NCCL default for its release."""
        launch = self.recipe.launch
        if engine == "deepspeed":
            env = launch.env.get("DEEPSPEED_TIMEOUT") if launch is not None else None
            minutes = env.as_int() if env is not None else None

            def deepspeed(version: versions.Version) -> tuple[int, str]:
                if minutes and version >= tuner.DEEPSPEED_TIMEOUT_SINCE:
                    return minutes * 60, f"DEEPSPEED_TIMEOUT={minutes} minutes"
                seconds = tuner.deepspeed_pg_timeout(version)
                ignored = "; DEEPSPEED_TIMEOUT is read only since 0.11.2" if minutes else "; DEEPSPEED_TIMEOUT raises it"
                return seconds, f"deepspeed.init_distributed default {seconds // 60} min{ignored}"

            rng, fn = self.version_range("deepspeed"), deepspeed
        else:

            def torch(version: versions.Version) -> tuple[int, str]:
                seconds = tuner.torch_pg_timeout(version)
                return seconds, f"torch NCCL default {seconds // 60} min"

            rng, fn = self.version_range("torch"), torch
        return [PgLimit(part.value[0], part.value[1], part.condition, rng) for part in versions.split(rng, fn)]

    def process_group_timeout(self, engine: str) -> tuple[int, str]:
        """The shortest process-group timeout over the releases the run may import (what a
        suggested wait must stay below), and where it comes from."""
        shortest = min(self.process_group_timeouts(engine), key=lambda limit: limit.seconds)
        return shortest.seconds, shortest.source()

    def set_value(self, setting: Setting, text: str) -> Edit | None:
        """An edit that gives a setting a new value: in place, or as a new flag on the launch."""
        if setting.edit_span is not None:
            return Edit(setting.edit_span, text)
        launch = self.recipe.launch
        if not setting.given and launch is not None and self.recipe.script is not None:
            return Edit(launch.flag_point(after_script=True), f" --{setting.name} {text}")
        return None

    def diagnostic(
        self,
        code: str,
        severity: Severity,
        message: str,
        span: Span | None,
        *,
        setting: str | None = None,
        current: Any = None,
        suggested: Any = None,
        evidence: list[str] | None = None,
        fix: Fix | None = None,
        once: str | None = None,
    ) -> Diagnostic | None:
        if span is None:
            return None
        return Diagnostic(code, severity, message, span, setting, current, suggested, list(evidence or []), fix, once)


@dataclass(frozen=True)
class PgLimit:
    """The process-group timeout over one sub-range of the releases the run may import."""

    seconds: int
    how: str  # "deepspeed.init_distributed default 10 min; DEEPSPEED_TIMEOUT raises it"
    condition: str  # "deepspeed >= 0.19.6", or "" when it holds over the whole range
    range: versions.Range

    def source(self) -> str:
        """'deepspeed.init_distributed default 10 min with deepspeed >= 0.19.6 (requirements.txt:24
        allows deepspeed>=0.14.0); DEEPSPEED_TIMEOUT raises it'."""
        how, _, hint = self.how.partition("; ")
        where = f" with {self.condition} ({self.range.allows()})" if self.condition else f" ({self.range.allows()})"
        return f"{how}{where}" + (f"; {hint}" if hint else "")
