"""Which releases the run imports, as a range per package, and how a version-dependent verdict
reads over that range.

A `Range` is a specifier (`>=0.14,<0.17`, `==0.12.6`, `<0.13.0`) and where it was read: the
environment the scripts activate, the repository's pins, the toolkit checkout's requirements,
the `target-versions` setting, else the newest release known. The environment recipelint itself
runs in is not the training node's and is never taken for it.

A rule asks `split(range, fn)`: `fn` is evaluated at the releases where recipelint knows behaviour
changes (`KNOWN`) that the range admits, and the answer is grouped into sub-ranges with one value
each; `evaluate` does the same for a predicate (all / some / none). Nothing here reads files."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from functools import cache
from typing import Generic, TypeVar

from recipelint.records import dataclass

T = TypeVar("T")
Version = tuple[int, ...]

# The releases where behaviour recipelint encodes changes, oldest first; the last is the newest
# known (what a run is judged against when nothing says which release it imports). Sources:
# deepspeed.md 6 and 8 (DeepSpeed's changelog as read in its sdists), the schema's
# x-removed-in / x-strict-since; a toolkit's own package is its `Toolkit.releases`.
KNOWN: dict[str, tuple[tuple[str, str], ...]] = {
    "deepspeed": (
        ("0.7.0", "ZeRO config pydantic, extra keys rejected"),
        ("0.8.0", "the oldest release with model and engine tables (JUDGED_FROM)"),
        ("0.8.1", "hjson config files; monitor configs pydantic"),
        ("0.10.0", "ZeRO++ keys (zero_hpz_partition_size, zero_quantized_*)"),
        ("0.11.2", "DEEPSPEED_TIMEOUT read by init_distributed (PR #4405)"),
        ("0.13.0", "fp16 device check"),
        ("0.15.0", "pydantic v2"),
        ("0.16.4", "aio.thread_count renamed intra_op_parallelism"),
        ("0.17.1", "fp16/bf16 blocks pydantic: unknown keys rejected"),
        ("0.19.3", "gradient_clipping default 1.0"),
        ("0.19.5", "offload pin_memory default true"),
        ("0.19.6", "init_distributed default timeout 30 -> 10 min (deepspeed/constants.py)"),
        ("0.19.7", "compression, sparse attention, 1-bit optimizers removed"),
        ("0.19.8", "amp, elasticity, eigenvalue, ... removed; newest release known"),
    ),
    "torch": (
        ("2.2.0", "ProcessGroupNCCL default timeout 30 -> 10 min (pytorch#110947)"),
        ("2.3.0", "torch.cuda.is_bf16_supported() true below compute capability 8.0 where a bf16 tensor can be made (emulation)"),
    ),
    "transformers": (),
    "accelerate": (),
}
NEWEST = {"deepspeed": "0.19.8"}


def register(package: str, changes: tuple[tuple[str, str], ...]) -> None:
    """A toolkit's own package and its releases (`Toolkit.releases`), registered when the toolkit
    registry loads: the core's tables hold only the packages every launch shares."""
    KNOWN[package] = changes
    NEWEST[package] = changes[-1][0]


# The oldest release recipelint judges, per package: DeepSpeed's model and engine tables start at
# 0.8.0 (schemas/deepspeed/models/0.8.0.json, schemas/deepspeed/engine.json; a test checks they
# agree). `Range.points` leaves older releases out: nothing is judged against a table that is not
# theirs, and RL429 says which releases were skipped.
JUDGED_FROM = {"deepspeed": "0.8.0"}
ALIASES = {"pytorch": "torch"}  # conda's name for torch
_OPS = ("===", "==", "!=", "~=", ">=", "<=", ">", "<")


def normal(name: str) -> str:
    """PEP 503: case and runs of - _ . do not matter; conda's `pytorch` is torch."""
    key = re.sub(r"[-_.]+", "-", name).lower()
    return ALIASES.get(key, key)


# Memoised: a run asks for the same few dozen releases and specifiers hundreds of thousands of
# times (the DeepSpeed oracle's 8,700 configs: 525,293 parses, 39 % of its recipelint time);
# bench/oracle_versions.py measures it.
@cache
def parse(version: str) -> Version:
    """'v0.19.6' -> (0, 19, 6); a local or pre-release suffix is dropped."""
    parts = []
    for piece in version.strip().lstrip("vV").split("+")[0].split("."):
        digits = re.match(r"\d+", piece)
        if digits is None:
            break
        parts.append(int(digits.group()))
        if digits.group() != piece:
            break
    return tuple(parts)


def _pad(version: Version, size: int = 4) -> Version:
    return version + (0,) * (size - len(version))


def show(version: Version) -> str:
    return ".".join(str(n) for n in version)


@dataclass(frozen=True)
class Clause:
    op: str  # one of _OPS
    version: str  # as written ("0.13.0", "2.1.*")

    def admits(self, candidate: Version) -> bool:
        if self.op == "===":
            return _pad(candidate) == _pad(parse(self.version))
        wild = self.version.endswith(".*")
        bound = parse(self.version[:-2] if wild else self.version)
        if self.op in ("==", "!=") and wild:
            inside = candidate[: len(bound)] == bound
            return inside if self.op == "==" else not inside
        if self.op == "~=":
            upper = (*bound[: max(len(bound) - 2, 0)], bound[max(len(bound) - 2, 0)] + 1)
            return _pad(bound) <= _pad(candidate) < _pad(upper)
        a, b = _pad(candidate), _pad(bound)
        return {"==": a == b, "!=": a != b, ">=": a >= b, "<=": a <= b, ">": a > b, "<": a < b}[self.op]


@cache
def clauses(specifier: str) -> tuple[Clause, ...] | None:
    """'>=0.14, <0.17' -> its clauses; None when a clause is not a version specifier."""
    found = []
    for part in (p.strip() for p in specifier.split(",")):
        if not part:
            continue
        op = next((o for o in _OPS if part.startswith(o)), None)
        if op is None:
            return None
        version = part[len(op) :].strip()
        if not re.match(r"v?\d+(\.\d+)*(\.\*)?([a-zA-Z0-9.+!-]*)$", version):
            return None
        found.append(Clause(op, version))
    return tuple(found)


@dataclass(frozen=True)
class Range:
    """The releases of one package the run may import, and where that was read."""

    package: str
    specifier: str  # ">=0.14.0", "==0.12.6", "" (any release)
    source: str  # "requirements.txt:24", "venv/lib/.../deepspeed-0.12.6.dist-info", "newest known"
    kind: str = "pin"  # "installed", "pin", "setting", "newest", "checkout" (a toolkit's code with no release named)

    @property
    def clauses(self) -> tuple[Clause, ...]:
        return clauses(self.specifier) or ()

    @property
    def exact(self) -> str | None:
        """The one release the range names, when it names one."""
        only = [c for c in self.clauses if c.op in ("==", "===") and not c.version.endswith(".*")]
        return only[0].version if only else None

    def admits(self, version: Version) -> bool:
        return all(clause.admits(version) for clause in self.clauses)

    def points(self, extra: Iterable[str] = ()) -> list[Version]:
        """Where to evaluate: the known releases the range admits, its own bounds, and the oldest
        release (0) when nothing bounds it below; none above the newest known unless the range
        admits nothing else. Releases older than JUDGED_FROM are left out."""
        return list(_points(self, tuple(extra)))

    def _points(self, extra: tuple[str, ...]) -> tuple[Version, ...]:
        floor = _pad(parse(JUDGED_FROM[self.package])) if self.package in JUDGED_FROM else (0, 0, 0, 0)
        if self.exact is not None:
            return (parse(self.exact),) if _pad(parse(self.exact)) >= floor else ()
        known = [parse(v) for v, _ in KNOWN.get(self.package, ())] + [parse(v) for v in extra]
        bounds = [parse(c.version.rstrip(".*")) for c in self.clauses if c.op in ("==", ">=", "~=", ">")]
        candidates = sorted({_pad(v) for v in [(0,), floor, *known, *bounds] if v}) or [(0, 0, 0, 0)]
        inside = [v for v in candidates if self.admits(v) and v >= floor]
        newest = _pad(parse(KNOWN[self.package][-1][0])) if KNOWN.get(self.package) else None
        below = [v for v in inside if newest is None or v <= newest]
        return tuple(below or inside[:1])

    def older_than_judged(self) -> str | None:
        """The release or bound the range names below the oldest release judged (JUDGED_FROM):
        '0.7.3' for ==0.7.3, '>=0.6' for >=0.6,<0.10; None when it names none. An open lower end
        (`<0.13`, no pin) is not one: pip installs the newest release the range admits."""
        if self.package not in JUDGED_FROM:
            return None
        floor = _pad(parse(JUDGED_FROM[self.package]))
        for clause in self.clauses:
            if clause.op in ("==", "===", ">=", ">", "~=") and _pad(parse(clause.version.rstrip(".*"))) < floor:
                return clause.version if clause.op in ("==", "===") else f"{clause.op}{clause.version}"
        return None

    def allows(self) -> str:
        """'requirements.txt:24 allows deepspeed>=0.14.0' or 'newest known: deepspeed 0.19.8'."""
        if self.kind == "newest":
            return f"{self.package} {self.label()}, the {self.source}" if self.exact else f"{self.package} {self.label()}: {self.source}"
        if self.exact is not None:
            return f"{self.package} {self.exact} ({self.source})"
        return f"{self.source} allows {self.package}{self.specifier or ' (any release)'}"

    def label(self) -> str:
        """The value `show` prints: '0.12.6', '<0.13.0', '>=0.14.0 (newest known 0.19.8)', 'any release'."""
        if self.exact is not None:
            return self.exact
        if self.kind == "checkout":
            return "its own code (version unknown)"
        open_above = not any(c.op in ("<", "<=", "~=", "==") for c in self.clauses)
        top = f" (newest known {NEWEST[self.package]})" if open_above and self.package in NEWEST else ""
        return (self.specifier or "any release") + top


@cache
def _points(rng: Range, extra: tuple[str, ...]) -> tuple[Version, ...]:
    """`Range.points`, memoised like `parse`: every rule asks it of the same few ranges."""
    return rng._points(extra)


def _trim(version: Version) -> Version:
    trimmed = list(version)
    while len(trimmed) > 3 and trimmed[-1] == 0:
        trimmed.pop()
    return tuple(trimmed)


@dataclass(frozen=True)
class Part(Generic[T]):
    """One value of a version-dependent fact and the sub-range of releases where it is that."""

    value: T
    condition: str  # "deepspeed >= 0.19.6", "deepspeed < 0.19.6", "" (the whole range)


def split(rng: Range, fn: Callable[[Version], T], at: Iterable[str] = ()) -> list[Part[T]]:
    """`fn` over the range, in runs of equal value, oldest first. `at`: the releases where `fn`
    changes, when the known-releases table might not list them."""
    points = rng.points(at)
    values = [fn(_trim(p)) for p in points]
    parts: list[Part[T]] = []
    start = 0
    for index in range(1, len(points) + 1):
        if index < len(points) and values[index] == values[start]:
            continue
        lower = f">= {show(_trim(points[start]))}" if start > 0 else ""
        upper = f"< {show(_trim(points[index]))}" if index < len(points) else ""
        words = ", ".join(w for w in (lower, upper) if w)
        parts.append(Part(values[start], f"{rng.package} {words}" if len(values) > 1 and words else ""))
        start = index
    return parts


@dataclass(frozen=True)
class Verdict:
    """Whether a version-dependent predicate holds over the whole range, part of it, or none."""

    holds: str  # "all", "some", "none"
    condition: str  # where it holds, when "some": "deepspeed >= 0.19.6"
    range: Range

    def says(self) -> str:
        """'with deepspeed >= 0.19.6; requirements.txt:24 allows deepspeed>=0.14.0' for "some"."""
        return f"with {self.condition}; {self.range.allows()}" if self.holds == "some" else self.range.allows()


def evaluate(rng: Range, predicate: Callable[[Version], bool], at: Iterable[str] = ()) -> Verdict:
    parts = split(rng, predicate, at)
    held = [part for part in parts if part.value]
    if not held:
        return Verdict("none", "", rng)
    if len(held) == len(parts):
        return Verdict("all", "", rng)
    return Verdict("some", " or ".join(part.condition for part in held), rng)


def held(releases: Sequence[str], holds: Callable[[Version], bool]) -> str:
    """Where `holds` is true over `releases` (every release a table has, oldest first, the last the
    newest known), in words a message can carry: 'in every release from 0.8.0 to 0.19.8',
    'since 0.17.1', 'from 0.10.0 until 0.17.1' (not that one), several joined with 'and'."""
    runs: list[tuple[int, int]] = []
    start: int | None = None
    for index, release in enumerate(releases):
        if holds(parse(release)) and start is None:
            start = index
        elif not holds(parse(release)) and start is not None:
            runs.append((start, index))
            start = None
    if start is not None:
        runs.append((start, len(releases)))
    words = []
    for first, stop in runs:
        if first == 0 and stop == len(releases):
            words.append(f"in every release from {releases[0]} to {releases[-1]}")
        elif stop == len(releases):
            words.append(f"since {releases[first]}")
        else:
            words.append(f"from {releases[first]} until {releases[stop]}")
    return " and ".join(words) or "in no release known"


def newest(package: str) -> Range:
    """The fallback: the newest release known; for a package whose newest release recipelint does
    not record (torch), the releases since its last change; else any release."""
    if package in NEWEST:
        return Range(package, f"=={NEWEST[package]}", "newest known", "newest")
    known = KNOWN.get(package, ())
    if known:
        return Range(package, f">={known[-1][0]}", f"no pin found; the releases since {known[-1][0]} behave alike here", "newest")
    return Range(package, "", "no pin found", "newest")
