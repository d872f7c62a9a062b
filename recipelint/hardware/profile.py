"""A hardware profile: the facts rules check against, each with where it came from."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from recipelint.parse import kind_of
from recipelint.records import dataclass, field

# The keys a profile file may carry, in the order `probe` writes them.
FACT_KEYS = (
    "nodes",
    "cpus",
    "host_cpus",
    "physical_cores",
    "numa_nodes",
    "memory_gib",
    "host_memory_gib",
    "shm_gib",
    "gpus",
    "gpu_model",
    "gpu_memory_gib",
    "gpu_compute_capability",
    "gpu_driver",
    "nvlink",
    "inter_node_network",
    "infiniband",
    "interfaces",
)
GPU_KEYS = ("gpus", "gpu_model", "gpu_memory_gib", "gpu_compute_capability", "gpu_driver", "nvlink")


@dataclass
class Fact:
    value: Any  # None when unknown
    source: str  # "profile node.yaml", "cgroup cpu.max", "psutil", "nvml", "user" ...
    reason: str | None = None  # why it is unknown, when it is

    @property
    def known(self) -> bool:
        return self.value is not None

    def cite(self, name: str) -> str:
        if self.value is None:
            return f"{name} unknown ({self.reason or 'not in the profile'})"
        return f"{name} {_show(self.value)} from {self.source}"


def _show(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


@dataclass
class Hardware:
    """The facts of one node type (and the node count, if the profile states it).

    GPU facts are loaded on first use: a check that needs none never initialises NVML.
    """

    origin: str  # "probe", "profile", or "none" (the host is not the training node: nothing judged)
    facts: dict[str, Fact] = field(default_factory=dict)
    taken_at: str | None = None
    differs: list[str] = field(default_factory=list)  # merged cluster profiles: facts that vary by node
    gpu_loader: Callable[[], dict[str, Fact]] | None = None
    # Why this machine's facts are hidden from the rules (the probed host is not the training node).
    not_node: str | None = None
    # Who chose this machine: "--hardware node.yaml", "hardware in recipelint.toml", "--hardware host";
    # None: the default probe, which is judged against each recipe (recipelint.hardware.host).
    chosen_by: str | None = None
    label: str | None = None  # "profile node.yaml"
    measured: list[dict[str, Any]] = field(default_factory=list)  # `recipelint tune --measure` results, one per dataset_conf

    def fact(self, name: str) -> Fact:
        if name in GPU_KEYS and self.gpu_loader is not None:
            loader, self.gpu_loader = self.gpu_loader, None
            self.facts.update(loader())
        return self.facts.get(name) or Fact(None, self.origin, "not in the profile" if self.origin == "profile" else "not probed")

    def value(self, name: str) -> Any:
        return self.fact(name).value

    def to_dict(self, load_gpus: bool = True) -> dict[str, Any]:
        if load_gpus:
            self.fact("gpus")
        data: dict[str, Any] = {}
        for key in FACT_KEYS:
            fact = self.facts.get(key)
            if fact is not None and fact.value is not None:
                data[key] = fact.value
        data["sources"] = {key: fact.source for key, fact in self.facts.items() if fact.value is not None}
        unknown = {key: fact.reason or "unknown" for key, fact in self.facts.items() if fact.value is None}
        if unknown:
            data["unknown"] = unknown
        if self.taken_at:
            data["taken_at"] = self.taken_at
        if self.differs:
            data["differs"] = self.differs
        if self.measured:
            data["measured"] = self.measured
        return data


def from_mapping(data: dict[str, Any], origin_label: str) -> Hardware:
    sources = data.get("sources") or {}
    unknown = data.get("unknown") or {}
    hardware = Hardware("profile", taken_at=data.get("taken_at"), differs=list(data.get("differs") or []), label=origin_label)
    hardware.measured = [dict(entry) for entry in data.get("measured") or []]
    for key in FACT_KEYS:
        if key in data:
            source = sources.get(key)
            label = f"{origin_label}" + (f" ({source})" if source else "")
            hardware.facts[key] = Fact(data[key], label)
        elif key in unknown:
            hardware.facts[key] = Fact(None, origin_label, str(unknown[key]))
    return hardware


def fingerprint(dataset_conf: Any) -> str:
    """A stable key for a dataset_conf: measured loader facts apply only to the conf they were measured with."""
    import hashlib
    import json

    text = json.dumps(dataset_conf, sort_keys=True, default=str, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()[:16]


def load_profile(path: Path) -> Hardware:
    """Read and validate a profile file (YAML or JSON); raises SourceError on bad input."""
    import math

    from recipelint.parse.files import FileCache, SourceError, printable
    from recipelint.parse.jsonfile import parse_json
    from recipelint.parse.yamlfile import parse_yaml
    from recipelint.schemas import validate

    source = FileCache().read(path)
    document = parse_json(source) if kind_of(path) == "json" else parse_yaml(source)
    data = document.root.plain()
    if not isinstance(data, dict):
        raise SourceError(path, "a hardware profile is a mapping of facts", 1, 1)
    _known_keys(path, data)
    for problem in validate("hardware/profile.schema.json", data):
        node = document.root.get(problem.path) if problem.path else document.root
        span = (node or document.root).span
        raise SourceError(path, f"hardware profile: {printable(problem.message, 100)}", span.line, span.column)
    for key in FACT_KEYS:
        value = data.get(key)
        if isinstance(value, float) and not math.isfinite(value):  # nan passes every bound
            span = (document.root.get(key) or document.root).span
            raise SourceError(path, f"hardware profile: {key}: {value} is not a finite number", span.line, span.column)
    return from_mapping(data, f"profile {path.name}")


_KEY = re.compile(r"[A-Za-z_][\w.-]{0,40}")


def _known_keys(path: Path, data: dict[str, Any]) -> None:
    """Refuse a file that is not a profile by naming it, never its content: a file named by
    mistake (`hardware = "/etc/shadow"`, a Docker config.json) has keys that are secrets. A
    profile's own unknown key is named when it looks like a key."""
    from recipelint.parse.files import SourceError
    from recipelint.schemas import load_schema

    known = set(load_schema("hardware/profile.schema.json").get("properties", {}))
    unknown = [str(key) for key in data if key not in known]
    if not unknown:
        return
    if len(unknown) == len(data):
        raise SourceError(path, "not a hardware profile: it holds none of a profile's keys (recipelint probe --output writes one)", 1, 1)
    named = [key for key in unknown if _KEY.fullmatch(key)]
    what = f"unknown key '{named[0]}'" if len(unknown) == 1 and named else f"{len(unknown)} unknown keys"
    raise SourceError(path, f"hardware profile: {what}", 1, 1)


def dump_profile(hardware: Hardware, fmt: str = "yaml") -> str:
    import json

    data = hardware.to_dict()
    if fmt == "json":
        return json.dumps(data, indent=2, sort_keys=False) + "\n"
    import io

    from ruamel.yaml import YAML

    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    yaml.sort_base_mapping_type_on_output = False  # type: ignore[assignment]
    stream = io.StringIO()
    stream.write("# recipelint hardware profile: lint against this node with --hardware FILE\n")
    yaml.dump(data, stream)
    return stream.getvalue()


def write_measured(path: Path, entry: dict[str, Any]) -> None:
    """Add or replace (same dataset_conf) a `measured:` entry in a profile file, keeping the rest
    of a YAML profile as written (comments too); the file is replaced in one rename."""
    import re

    from recipelint.fix import write_atomic

    original = path.read_bytes() if path.is_file() else b""
    hardware = load_profile(path) if original else Hardware("profile")
    entries = [e for e in hardware.measured if e.get("dataset_conf") != entry.get("dataset_conf")] + [entry]
    if kind_of(path) == "json":
        import json

        data = json.loads(original or b"{}")
        data["measured"] = entries
        text = json.dumps(data, indent=2) + "\n"
    else:
        hardware.measured = entries
        section = _yaml_section({"measured": entries})
        old = original.decode("utf-8")
        match = re.search(r"^measured:.*?(?=^[^\s#-]|\Z)", old, re.MULTILINE | re.DOTALL)  # its items may sit at column 0
        text = (
            old[: match.start()] + section + old[match.end() :]
            if match
            else old + ("" if old.endswith("\n") or not old else "\n") + section
        )
    if original:
        write_atomic(path, text.encode("utf-8"), original)
    else:
        path.write_text(text, encoding="utf-8")


def _yaml_section(data: dict[str, Any]) -> str:
    import io

    from ruamel.yaml import YAML

    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    yaml.sort_base_mapping_type_on_output = False  # type: ignore[assignment]
    stream = io.StringIO()
    yaml.dump(data, stream)
    return stream.getvalue()
