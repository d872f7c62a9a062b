"""The run's hardware sources, each loaded once: the --hardware profile, a configured profile,
or the probe (judged per recipe: a host that is not the recipe's training node shows no fact)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from recipelint import deps
from recipelint.deps import Memo
from recipelint.records import dataclass, field

if TYPE_CHECKING:
    from recipelint.hardware.profile import Hardware
    from recipelint.hardware.report import Judged
    from recipelint.model import Recipe


class Chooser(Protocol):
    """What picks a file's machine (recipelint.settings.Settings): its `hardware` profile, and the
    config file that names it."""

    @property
    def hardware(self) -> Path | None: ...

    @property
    def source(self) -> Path | None: ...


class Machine:
    """One hardware source (a --hardware profile, a configured profile, or the probe), loaded once.

    While the result cache records, a recipe that loads the hardware depends on it: on the
    profile file (its read is replayed to every recipe that loads it) or on the probe's facts."""

    def __init__(self, load: Callable[[], Hardware], probe: bool) -> None:
        self._load = load
        self._probe = probe
        self._memo: Memo[str, Hardware] = Memo()
        self.loaded: Hardware | None = None

    def __call__(self) -> Hardware:
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
            self._loaded = _load_hardware(None if self.host else self.path, f"--hardware {self.path}")
        return self._loaded


@dataclass
class Machines:
    """One loader per source: the --hardware override, or each file's configured profile or the probe.

    The probe is judged against each recipe (recipelint.hardware.host): when this host is not
    the recipe's training node, the rules of that recipe see no hardware fact at all."""

    override: Callable[[], Hardware] | None
    _machines: dict[Path | None, Machine] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.override is not None:
            self._machines[None] = Machine(self.override, probe=getattr(self.override, "host", False))

    def loader(self, settings: Chooser) -> Machine:
        key = None if self.override is not None else settings.hardware
        if key not in self._machines:
            where = settings.source.name if settings.source is not None else "the settings"
            chosen_by = f"hardware in {where}" if key is not None else None  # None: the default probe, judged per recipe
            self._machines[key] = Machine(partial(_load_hardware, key, chosen_by), probe=key is None)
        return self._machines[key]

    def judging(self, machine: Machine, recipe: Recipe, judged: list[Judged]) -> Callable[[], Hardware]:
        """The recipe's loader: a chosen machine as it is, the probe only when this host is the
        recipe's training node (else masked: every fact unknown). Each load says which in `judged`."""

        def load() -> Hardware:
            from recipelint.hardware.report import Judged

            hardware = machine()
            if self.override is not None or hardware.origin != "probe":
                judged.append(Judged.chosen(hardware))  # a profile, when given, wins over the job's allocation
                return hardware
            from recipelint.hardware import host

            verdict = host.judge(recipe, hardware)
            base = hardware if verdict.node else host.masked(hardware, verdict)
            if recipe.allocation is not None:
                from recipelint.hardware.granted import overlay

                judged.append(Judged.granted(recipe.allocation, recipe, verdict))
                return overlay(base, recipe.allocation)
            judged.append(Judged.probed(verdict, recipe))
            return base

        return load

    @property
    def used(self) -> Hardware | None:
        return next((m.loaded for m in self._machines.values() if m.loaded is not None), None)


def _load_hardware(profile: Path | None, chosen_by: str | None) -> Hardware:
    """A profile, or the probe of this machine (profile None); `chosen_by` says who named it."""
    if profile is not None:
        from recipelint.hardware.profile import load_profile

        hardware = load_profile(profile)
    else:
        from recipelint.hardware.probe import probe

        hardware = probe()
    hardware.chosen_by = chosen_by
    return hardware
