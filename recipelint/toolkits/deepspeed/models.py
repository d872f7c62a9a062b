"""What DeepSpeed's config models enforce, per release: the tables `tools/build_deepspeed_models.py`
reads from DeepSpeed's source (`schemas/deepspeed/models/<release>.json`), and a validator that
judges a config the way pydantic's lax mode and DeepSpeed's own validators do.

A config key DeepSpeed hands to a model (`blocks`) is validated here; a key it reads with
`dict.get` is not (the JSON Schema and the rules judge those). `problems(config, release)` lists
what the model of that release rejects, each with the model's file; `dropped_auto` lists the
unknown keys whose value is "auto" (`DeepSpeedConfigModel.__init__` drops every "auto" before
validating, so such a key is ignored, not rejected).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from functools import cache
from typing import Any

from recipelint import versions
from recipelint.records import dataclass

TABLES = "deepspeed/models"
# pydantic 2 lax mode (pydantic-core `bool` from str, any case): what a string must be to be a boolean.
_TRUE = {"1", "on", "t", "true", "y", "yes"}
_FALSE = {"0", "off", "f", "false", "n", "no"}
_FREE = {"Any", "object", "PassName"}  # not judged: anything goes, or a Literal alias the table does not expand


@dataclass(frozen=True)
class Problem:
    """One thing a release's model rejects."""

    path: str  # the dotted key path the finding points at
    message: str  # what DeepSpeed says, close to pydantic's or the validator's own words
    model: str  # the model class
    file: str  # its file in DeepSpeed
    release: str  # the table's release
    mapping: bool = False  # the block itself is not a mapping


@cache
def releases() -> tuple[str, ...]:
    """The releases with a table, oldest first."""
    from recipelint.schemas import schema_dir

    names = [p.stem for p in (schema_dir() / TABLES).glob("*.json")]
    return tuple(sorted(names, key=versions.parse))


@cache
def table(release: str) -> dict[str, Any]:
    from recipelint.schemas import load_schema

    return load_schema(f"{TABLES}/{release}.json")


@cache
def table_for(version: versions.Version) -> dict[str, Any]:
    """The table of the newest release at or below `version` (the oldest table below them all)."""
    below = [r for r in releases() if versions.parse(r) <= version]
    return table(below[-1] if below else releases()[0])


def provenance(data: dict[str, Any]) -> str:
    """'deepspeedai/DeepSpeed@v0.19.5' or 'the deepspeed-0.19.8 sdist (PyPI)'."""
    source = data["source"]
    if "tag" in source:
        return f"{source['repository']}@{source['tag']}"
    return f"the deepspeed-{data['release']} sdist"


def block_of(data: dict[str, Any], path: str) -> str | None:
    """The config key of a model block `path` lies in (itself included), for this release."""
    parts = path.split(".")
    for size in range(len(parts), 0, -1):
        if ".".join(parts[:size]) in data["blocks"]:
            return ".".join(parts[:size])
    return None


# ---------------------------------------------------------------- lax coercion (pydantic 1 and 2)


def _bool(value: Any, major: int) -> tuple[bool, Any]:
    if isinstance(value, bool):
        return True, value
    if isinstance(value, (int, float)) and value in (0, 1):
        return True, bool(value)
    if isinstance(value, str) and value.lower() in _TRUE | _FALSE:
        return True, value.lower() in _TRUE
    return False, "Input should be a valid boolean"


def _int(value: Any, major: int) -> tuple[bool, Any]:
    if isinstance(value, bool):
        return True, int(value)
    if isinstance(value, int):
        return True, value
    if isinstance(value, float):
        if not math.isfinite(value):
            return False, "Input should be a finite number"
        if major == 2 and abs(value) >= 2**63:
            return False, "Unable to parse input string as an integer, exceeded maximum size"
        if value.is_integer() or major == 1:  # pydantic 1 truncates (int(2.5) == 2)
            return True, int(value)
        return False, "Input should be a valid integer, got a number with a fractional part"
    if isinstance(value, str):
        text = value.strip()
        try:
            return True, int(text)
        except ValueError:
            pass
        try:
            number = float(text)
        except ValueError:
            return False, "Input should be a valid integer, unable to parse string as an integer"
        if major == 2 and number.is_integer() and "e" not in text.lower():
            return True, int(number)
        return False, "Input should be a valid integer, unable to parse string as an integer"
    return False, "Input should be a valid integer"


def _float(value: Any, major: int) -> tuple[bool, Any]:
    if isinstance(value, (bool, int, float)):
        return True, float(value)
    if isinstance(value, str):
        try:
            return True, float(value.strip())
        except ValueError:
            return False, "Input should be a valid number, unable to parse string as a number"
    return False, "Input should be a valid number"


def _str(value: Any, major: int) -> tuple[bool, Any]:
    if isinstance(value, str):
        return True, value
    if major == 1 and isinstance(value, (int, float)) and not isinstance(value, bool):
        return True, str(value)  # pydantic 1 turns numbers into strings
    return False, "Input should be a valid string"


_SCALARS: dict[str, Callable[[Any, int], tuple[bool, Any]]] = {"bool": _bool, "int": _int, "float": _float, "str": _str, "Path": _str}


class Validator:
    """One release's models applied to a config, collecting what they reject."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data
        self.major = int(data.get("pydantic", 2))
        self.found: list[Problem] = []
        self.dropped: list[str] = []

    def problem(self, path: str, message: str, model: str, mapping: bool = False) -> None:
        spec = self.data["models"].get(model, {})
        self.found.append(Problem(path, message, model, str(spec.get("file", "")), str(self.data["release"]), mapping))

    def value(self, kind: Any, value: Any, path: str, model: str) -> tuple[bool, Any, str]:
        """Whether `value` passes annotation `kind`, the coerced value, and pydantic's message.
        A nested model is validated in place (its problems are collected) and passes."""
        if isinstance(kind, str):
            return self._named(kind, value, path)
        head, *args = kind
        if head == "Optional":
            return (True, None, "") if value is None else self.value(args[0], value, path, model)
        if head == "Union":
            return self._union(args, value, path, model)
        if head == "Literal":
            allowed = [a[1] if isinstance(a, list) else a for a in args]
            return (True, value, "") if value in allowed else (False, value, f"Input should be {_either(allowed)}")
        if head in ("Dict", "dict"):
            return (True, value, "") if isinstance(value, dict) else (False, value, "Input should be a valid dictionary")
        if head in ("List", "list"):
            return self._list(args, value, path, model)
        return True, value, ""

    def _named(self, kind: str, value: Any, path: str) -> tuple[bool, Any, str]:
        if kind in _SCALARS:
            ok, out = _SCALARS[kind](value, self.major)
            return (True, out, "") if ok else (False, value, str(out))
        if kind in self.data["enums"]:
            return self._enum(self.data["enums"][kind], value)
        if kind in self.data["models"]:
            if isinstance(value, dict):
                self.model(kind, value, path)
                return True, value, ""
            if kind == "DeepSpeedZeroLeafModuleConfig" and value is None:
                return True, {}, ""  # its _coerce_container_types turns None into {}
            return False, value, f"Input should be a valid dictionary or instance of {kind}"
        if kind in ("list", "List", "tuple"):
            return (True, value, "") if isinstance(value, list) else (False, value, f"Input should be a valid {kind.lower()}")
        if kind.startswith("torch."):
            # arbitrary_types_allowed: an isinstance check no JSON value passes
            return False, value, f"Input should be an instance of {kind.split('.')[-1]}"
        return True, value, ""  # _FREE and any type the table names that recipelint does not judge

    def _enum(self, members: list[Any], value: Any) -> tuple[bool, Any, str]:
        if all(isinstance(m, int) and not isinstance(m, bool) for m in members):
            ok, number = _int(value, self.major)  # an int Enum takes what an int takes ("3" -> 3)
            if ok and number in members:
                return True, number, ""
        elif value in members:
            return True, value, ""
        return False, value, f"Input should be {_either(sorted(set(members), key=members.index))}"

    def _union(self, args: list[Any], value: Any, path: str, model: str) -> tuple[bool, Any, str]:
        # pydantic 2's smart mode: an exact type match first, then the first that coerces.
        exact = {"str": str, "int": int, "float": float, "bool": bool}
        for arg in args:
            if isinstance(arg, str) and arg in exact and type(value) is exact[arg]:
                return True, value, ""
        messages = []
        for arg in args:
            ok, out, message = self.value(arg, value, path, model)
            if ok:
                return True, out, ""
            messages.append(message)
        return False, value, "; ".join(messages)

    def _list(self, args: list[Any], value: Any, path: str, model: str) -> tuple[bool, Any, str]:
        if not isinstance(value, list):
            return False, value, "Input should be a valid list"
        for index, item in enumerate(value):
            ok, _, message = self.value(args[0], item, f"{path}[{index}]", model) if args else (True, item, "")
            if not ok:
                return False, value, f"item {index}: {message}"
        return True, value, ""

    def model(self, name: str, given: dict[str, Any], path: str) -> dict[str, Any]:
        """Validate `given` as model `name` at `path`; the coerced fields (by field name)."""
        spec = self.data["models"][name]
        fields = _fields(self.data, name)
        by_alias = {f.get("alias"): n for n, f in fields.items() if f.get("alias")}
        coerced: dict[str, Any] = {}
        before = VALIDATORS_BEFORE.get(name)
        if before is not None:
            given = before(given)
        for key, value in given.items():
            child = f"{path}.{key}"
            if value == "auto":  # DeepSpeedConfigModel.__init__ drops it: the default applies
                if key not in fields and key not in by_alias:
                    self.dropped.append(child)
                continue
            field = key if key in fields else by_alias.get(key)
            if field is None or (key == field and given.get(fields[field].get("alias") or "", "auto") != "auto"):
                continue  # an extra key, or the bare name beside its alias (extra_forbidden): RL410's
            ok, out, message = self.value(fields[field]["type"], value, child, name)
            if not ok:
                self.problem(child, message, name)
                continue
            bound = _bound(fields[field], out)
            if bound:
                self.problem(child, bound, name)
                continue
            coerced[field] = out
        self._replaced_together(name, fields, given, path)
        for check in spec.get("validators", []):
            rule = VALIDATORS.get((name, check["name"]))
            if rule is not None:
                for where, message in rule(coerced, given):
                    self.problem(f"{path}.{where}" if where else path, message, name)
        return coerced

    def _replaced_together(self, name: str, fields: dict[str, Any], given: dict[str, Any], path: str) -> None:
        """`DeepSpeedConfigModel._process_deprecated_field` (deepspeed/runtime/config_utils.py):
        a deprecated field given with the field that replaces it is an AssertionError."""
        for old, spec in fields.items():
            new = spec.get("new_param")
            if not spec.get("deprecated") or not new or spec.get("set_new_param") is False or given.get(old, "auto") == "auto":
                continue
            names = {str(new), str(fields.get(str(new), {}).get("alias", new))}
            if any(given.get(n, "auto") != "auto" for n in names):
                message = f"Cannot provide deprecated parameter '{old}' and replacing parameter '{new}' together"
                self.problem(f"{path}.{old}", message, name)


def _fields(data: dict[str, Any], name: str) -> dict[str, Any]:
    """A model's fields with those of its model bases."""
    spec = data["models"].get(name, {})
    fields: dict[str, Any] = {}
    for base in spec.get("bases", []):
        if base in data["models"]:
            fields.update(_fields(data, base))
    fields.update(spec.get("fields", {}))
    return fields


def _either(values: list[Any]) -> str:
    shown = [repr(v) if isinstance(v, str) else str(v) for v in values]
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"


_BOUND_WORDS = {"gt": "greater than", "ge": "greater than or equal to", "lt": "less than", "le": "less than or equal to"}


def _passes(op: str, value: float, bound: float) -> bool:
    return {"gt": value > bound, "ge": value >= bound, "lt": value < bound, "le": value <= bound}[op]


def _bound(field: dict[str, Any], value: Any) -> str:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return ""
    for op, words in _BOUND_WORDS.items():
        if op in field and not _passes(op, value, field[op]):
            return f"Input should be {words} {field[op]}"
    return ""


# ------------------------------------------------------------- the validators no annotation says
# Each is one `model_validator` / `field_validator` of DeepSpeed, by model and function name; the
# tables list which a release has. Signature: (coerced fields, keys as written) -> [(key, message)].
Check = Callable[[dict[str, Any], dict[str, Any]], list[tuple[str, str]]]


def _dynamic_loss_scale(fields: dict[str, Any], given: dict[str, Any]) -> list[tuple[str, str]]:
    """deepspeed/runtime/precision_config.py `_validate_dynamic_loss_scale_params` (v0.19.3 on)."""
    if not fields.get("enabled", False) or fields.get("loss_scale", 0) != 0:
        return []
    out = []
    if fields.get("loss_scale_window", 1000) <= 0:
        out.append(("loss_scale_window", "fp16.loss_scale_window must be > 0 when dynamic loss scaling is enabled (loss_scale=0)"))
    if fields.get("min_loss_scale", 1) <= 0:
        out.append(("min_loss_scale", "fp16.min_loss_scale must be > 0 when dynamic loss scaling is enabled (loss_scale=0)"))
    return out


def _loss_scale(fields: dict[str, Any], given: dict[str, Any]) -> list[tuple[str, str]]:
    """precision_config.py `_validate_loss_scale` (v0.18.9 on): a number, not bool, finite, >= 0."""
    value = given.get("loss_scale")
    if value is None or value == "auto":
        return []
    if isinstance(value, bool):
        return [("loss_scale", "fp16.loss_scale must be a number, not bool")]
    number = fields.get("loss_scale")
    if isinstance(number, float) and not math.isfinite(number):
        return [("loss_scale", "fp16.loss_scale must be a finite number (not inf/-inf/nan)")]
    if isinstance(number, float) and number < 0:
        return [("loss_scale", "fp16.loss_scale must be >= 0 (0 enables dynamic loss scaling)")]
    return []


def _integer_scale(fields: dict[str, Any], given: dict[str, Any]) -> list[tuple[str, str]]:
    """precision_config.py `_reject_non_integer_scale_params` (v0.19.3 on): no bool."""
    return [
        (key, f"fp16.{key} must be an integer, not bool")
        for key in ("loss_scale_window", "min_loss_scale")
        if isinstance(given.get(key), bool)
    ]


def _zenflow(fields: dict[str, Any], given: dict[str, Any]) -> list[tuple[str, str]]:
    """deepspeed/runtime/zenflow/zenflow_config.py `validate_fields` (v0.17.6 on)."""
    out = []
    if fields.get("select_strategy", "auto") not in ("auto", "step", "epoch"):
        out.append(("select_strategy", 'select_strategy must be one of "auto", "step", or "epoch"'))
    for key in ("select_interval", "update_interval"):
        if isinstance(fields.get(key), str) and fields[key] != "auto":
            out.append((key, f'If {key} is a string, it must be "auto"'))
    update = fields.get("update_interval")
    if isinstance(update, int) and not isinstance(update, bool) and update < 1:
        out.append(("update_interval", "If update_interval is a number, it must be at least 1"))
    return out


def _ratio_stage(fields: dict[str, Any], given: dict[str, Any]) -> list[tuple[str, str]]:
    """deepspeed/runtime/zero/config.py `offload_ratio_check`: RL419 reports it with the stage."""
    return []


def _compute_grad_norm(fields: dict[str, Any], given: dict[str, Any]) -> list[tuple[str, str]]:
    """deepspeed/runtime/zero/config.py `compute_grad_norm_valid` (v0.19.8)."""
    if fields.get("compute_grad_norm", True) is False and fields.get("stage", 0) not in (1, 2):
        return [("compute_grad_norm", "compute_grad_norm=false is supported only with ZeRO Stage 1 or 2")]
    return []


def _nothing(fields: dict[str, Any], given: dict[str, Any]) -> list[tuple[str, str]]:
    return []


def _leaf_lists(given: dict[str, Any]) -> dict[str, Any]:
    """leaf_module_config.py `_coerce_container_types` (mode="before"): a string is a list of one."""
    return {k: [v] if k in ("classes", "names", "name_suffixes") and isinstance(v, str) else v for k, v in given.items()}


VALIDATORS: dict[tuple[str, str], Check] = {
    ("DeepSpeedFP16Config", "_validate_dynamic_loss_scale_params"): _dynamic_loss_scale,
    ("DeepSpeedFP16Config", "_validate_loss_scale"): _loss_scale,
    ("DeepSpeedFP16Config", "_reject_non_integer_scale_params"): _integer_scale,
    ("ZenFlowConfig", "validate_fields"): _zenflow,
    ("DeepSpeedZeroConfig", "offload_ratio_check"): _ratio_stage,
    ("DeepSpeedZeroConfig", "compute_grad_norm_valid"): _compute_grad_norm,
    # They set derived values or log; they reject nothing.
    ("DeepSpeedZeroConfig", "overlap_comm_valid"): _nothing,
    ("DeepSpeedZeroConfig", "elastic_checkpoint_deprecated"): _nothing,
    ("DeepSpeedZeroOffloadOptimizerConfig", "set_pipeline"): _nothing,
    ("DeepSpeedMonitorConfig", "check_enabled"): _nothing,
    ("CompileConfig", "validate_enabled"): _nothing,
    ("DeepSpeedZeroLeafModuleConfig", "_coerce_container_types"): _nothing,  # VALIDATORS_BEFORE does its work
    ("DeepSpeedZeroLeafModuleConfig", "_validate_entries"): _nothing,  # str() of each entry, deduplicated
}
VALIDATORS_BEFORE: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {"DeepSpeedZeroLeafModuleConfig": _leaf_lists}


def _lookup(config: dict[str, Any], path: str) -> tuple[bool, Any]:
    node: Any = config
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return False, None
        node = node[part]
    return True, node


def _block(check: Validator, key: str, entry: dict[str, Any], value: Any) -> None:
    model = str(entry["model"])
    if value is None and entry.get("null_ok"):
        return
    if isinstance(value, bool) and entry.get("accepts_bool"):
        return  # the legacy `"zero_optimization": true` (stage 1)
    if isinstance(value, dict):
        check.model(model, value, key)
    elif entry.get("how") == "field":
        check.problem(key, f"Input should be a valid dictionary or instance of {model}", model, mapping=True)
    else:
        check.problem(key, f"TypeError: {model}() argument after ** must be a mapping, not {type(value).__name__}", model, mapping=True)


def validate(config: dict[str, Any], release: str) -> Validator:
    """The models of `release` applied to a config (its plain value)."""
    check = Validator(table(release))
    for key, entry in check.data["blocks"].items():
        present, value = _lookup(config, key)
        if key == "bfloat16" and config.get("bf16") is not None:
            continue  # get_bfloat16_config (deepspeed/runtime/precision_config.py) reads the legacy key only without bf16
        if present and value != "auto":
            _block(check, key, entry, value)
    return check


def problems(config: dict[str, Any], release: str) -> list[Problem]:
    return validate(config, release).found


def points(rng: versions.Range) -> Iterator[tuple[versions.Version, str]]:
    """The releases a range is judged at, each with the table that stands for it."""
    for point in rng.points(releases()):
        data = table_for(point)
        yield point, str(data["release"])


def extra_forbidden(rng: versions.Range) -> str:
    """pydantic's words for an extra key in the releases of the range: pydantic 1 (DeepSpeed up to
    0.14.x) says 'extra fields not permitted', pydantic 2 'Extra inputs are not permitted'."""
    majors = {int(table(release).get("pydantic", 2)) for _, release in points(rng)}
    if majors == {1}:
        return "'extra fields not permitted'"
    if majors == {2} or not majors:
        return "'Extra inputs are not permitted'"
    return "'Extra inputs are not permitted' (pydantic 2; 'extra fields not permitted' on the pydantic-1 releases)"


def _model_name(kind: Any, data: dict[str, Any]) -> str | None:
    """The model an annotation names, through Optional/Union."""
    if isinstance(kind, str):
        return kind if kind in data["models"] else None
    if isinstance(kind, list) and kind and kind[0] in ("Optional", "Union"):
        return next((m for m in (_model_name(k, data) for k in kind[1:]) if m), None)
    return None


def model_at(data: dict[str, Any], path: str) -> str | None:
    """The model that validates the mapping at `path` in this release; None where DeepSpeed reads
    it with dict.get (or not at all)."""
    block = block_of(data, path)
    if block is None:
        return None
    entry = data["blocks"][block]
    model = _model_name(entry["model"], data)
    rest = path[len(block) + 1 :].split(".") if path != block else []
    for part in rest:
        if model is None:
            return None
        fields = _fields(data, model)
        name = part if part in fields else next((n for n, f in fields.items() if f.get("alias") == part), None)
        model = _model_name(fields[name]["type"], data) if name else None
    return model


def rejects_key(data: dict[str, Any], path: str, key: str) -> bool:
    """Whether this release's model at `path` rejects `key` (extra="forbid"); False where no model reads `path`."""
    model = model_at(data, path)
    if model is None:
        return False
    fields = _fields(data, model)
    return key not in fields and all(f.get("alias") != key for f in fields.values())


def coerce_int(value: Any) -> int | None:
    """An integer as pydantic 2's lax mode reads it ("3", 3.0, true), else None."""
    ok, out = _int(value, 2)
    return out if ok else None


def coerce_bool(value: Any) -> bool | None:
    """A boolean as pydantic's lax mode reads it (1, "false", "yes"), else None."""
    ok, out = _bool(value, 2)
    return bool(out) if ok else None


def keys_at(data: dict[str, Any], path: str) -> set[str]:
    """The keys this release's model at `path` takes (field names and aliases); none where no model reads it."""
    model = model_at(data, path)
    if model is None:
        return set()
    fields = _fields(data, model)
    return set(fields) | {str(f["alias"]) for f in fields.values() if f.get("alias")}
