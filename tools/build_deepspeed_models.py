"""Build schemas/deepspeed/models/<release>.json: what DeepSpeed's config models enforce, read from
DeepSpeed's own source with `ast` (never imported), one table per release.

Run, with a clone of deepspeedai/DeepSpeed (any bare or full git dir) for the tagged releases:

    python tools/build_deepspeed_models.py --git /path/to/DeepSpeed.git

and, for releases the clone has no tag of, the PyPI sdist unpacked
(`pip download deepspeed==0.19.8 --no-deps --no-binary :all:` then `tar xzf`):

    python tools/build_deepspeed_models.py --sdist /path/to/deepspeed-0.19.8.tar.gz

Each table records where it came from (tag and commit, or the sdist's name and sha256) and holds:

- `models`: every `DeepSpeedConfigModel` subclass (outside `deepspeed/inference`): its file,
  its fields (the annotation as a JSON tree, the default when it is a literal, the alias,
  `Field(gt=, ge=, lt=, le=)` bounds, `deprecated` from `json_schema_extra`) and the names of
  its `model_validator` / `field_validator` functions (recipelint implements each by name,
  `recipelint/toolkits/deepspeed/models.py`; a test fails on a validator it does not know);
- `enums`: the values of each `Enum` class those files define;
- `blocks`: which config keys DeepSpeed hands to a model, found where the source calls
  `Model(**param_dict.get(KEY, ...))`, `Model(**param_dict[KEY])` or passes a dict comprehension
  of keys (`get_monitor_config`): `how` is `kwargs` (`**value`: a value that is not a mapping is
  `TypeError: argument after ** must be a mapping`), or `field` (the value is validated as a field
  of type `model`); `accepts_bool` where the function tests `isinstance(value, bool)` first
  (the legacy `"zero_optimization": true`), `null_ok` where the key is read with `.get(KEY, None)`
  (a fallback follows: `bf16` falls back to `bfloat16`);
- `pydantic`: the major version the models are written for (lax coercions differ: pydantic 1
  truncates 1.5 to an int and turns numbers into strings; pydantic 2 does neither).
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import subprocess
import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent.parent / "schemas" / "deepspeed" / "models"
# The tagged releases read from a git clone: the ones where recipelint.versions.KNOWN says
# DeepSpeed's config handling changed, and a few between (issue 26).
TAGS = (
    "v0.8.0",
    "v0.8.1",
    "v0.8.3",
    "v0.9.0",
    "v0.9.2",
    "v0.9.5",
    "v0.10.0",
    "v0.12.6",
    "v0.14.0",
    "v0.15.0",
    "v0.16.0",
    "v0.16.4",
    "v0.17.1",
    "v0.17.6",
    "v0.18.9",
    "v0.19.3",
    "v0.19.5",
)
BASE = "DeepSpeedConfigModel"
_BOUNDS = ("gt", "ge", "lt", "le")


class Source:
    """The files of one DeepSpeed release: a tag of a git dir, or an sdist."""

    def __init__(self, files: dict[str, str], release: str, provenance: dict[str, str]) -> None:
        self.files = files
        self.release = release
        self.provenance = provenance

    @classmethod
    def from_git(cls, git_dir: str, tag: str) -> Source:
        def git(*args: str) -> str:
            return subprocess.run(["git", "--git-dir", git_dir, *args], check=True, capture_output=True, text=True).stdout

        commit = git("rev-parse", f"{tag}^{{commit}}").strip()
        listing = git("ls-tree", "-r", commit, "--", "deepspeed", "requirements").splitlines()
        blobs = {line.split("\t", 1)[1]: line.split()[2] for line in listing if _wanted(line.split("\t", 1)[1])}
        # One `git cat-file --batch` for every blob: a `git show` per file takes minutes.
        batch = subprocess.run(
            ["git", "--git-dir", git_dir, "cat-file", "--batch"], input="\n".join(blobs.values()).encode(), check=True, capture_output=True
        ).stdout
        files: dict[str, str] = {}
        at = 0
        for name in blobs:
            header_end = batch.index(b"\n", at)
            size = int(batch[at:header_end].split()[2])
            files[name] = batch[header_end + 1 : header_end + 1 + size].decode("utf-8", "replace")
            at = header_end + 1 + size + 1
        return cls(files, tag.lstrip("v"), {"repository": "deepspeedai/DeepSpeed", "tag": tag, "commit": commit})

    @classmethod
    def from_sdist(cls, archive: str) -> Source:
        digest = hashlib.sha256(Path(archive).read_bytes()).hexdigest()
        files: dict[str, str] = {}
        with tarfile.open(archive) as tar:
            for member in tar.getmembers():
                name = member.name.split("/", 1)[1] if "/" in member.name else member.name
                handle = tar.extractfile(member) if member.isfile() and (_wanted(name) or name == "version.txt") else None
                if handle is not None:
                    files[name] = handle.read().decode("utf-8", "replace")
        release = files.get("version.txt", "").strip()
        return cls(files, release, {"sdist": Path(archive).name, "sha256": digest, "index": "PyPI"})


def _wanted(name: str) -> bool:
    if name.startswith("requirements/") and name.endswith(".txt"):
        return True
    return name.startswith("deepspeed/") and name.endswith(".py") and not name.startswith(("deepspeed/inference/", "deepspeed/ops/"))


def annotation(node: ast.expr | None) -> Any:
    """An annotation as a JSON tree: "int", ["Optional", "X"], ["Literal", "a", "b"]."""
    if node is None:
        return "Any"
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return ast.unparse(node)
    if isinstance(node, ast.Constant):
        return node.value if not isinstance(node.value, str) else ["const", node.value]
    if isinstance(node, ast.Subscript):
        inner = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        return [ast.unparse(node.value).split(".")[-1], *(annotation(e) for e in inner)]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):  # X | None
        return ["Union", annotation(node.left), annotation(node.right)]
    return ast.unparse(node)


def literal(node: ast.expr) -> tuple[bool, Any]:
    """The value of a default written as a literal (pp_int(5e8) included), else (False, None)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "pp_int" and node.args:
        known, value = literal(node.args[0])
        return (known, int(value)) if known and isinstance(value, (int, float)) else (False, None)
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False, None
    if isinstance(value, (bool, int, float, str, type(None))) or (isinstance(value, (dict, list)) and not value):
        return True, value
    return False, None


def field_of(item: ast.AnnAssign) -> dict[str, Any]:
    spec: dict[str, Any] = {"type": annotation(item.annotation)}
    value = item.value
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "Field":
        default = value.args[0] if value.args else next((k.value for k in value.keywords if k.arg == "default"), None)
        if default is not None:
            known, spec_default = literal(default)
            if known:
                spec["default"] = spec_default
        for keyword in value.keywords:
            if keyword.arg in _BOUNDS:
                known, bound = literal(keyword.value)
                if known:
                    spec[keyword.arg] = bound
            elif keyword.arg == "alias":
                spec["alias"] = literal(keyword.value)[1]
            elif keyword.arg == "default_factory":
                spec["default_factory"] = ast.unparse(keyword.value)
            elif keyword.arg in ("json_schema_extra", "deprecated") and "deprecated" in ast.unparse(keyword.value).lower() + keyword.arg:
                spec["deprecated"] = True
                spec.update(_replacement(keyword.value, value.keywords))
    elif value is not None:
        known, default = literal(value)
        if known:
            spec["default"] = default
    else:
        spec["required"] = True
    return spec


def _replacement(extra: ast.expr, keywords: list[ast.keyword]) -> dict[str, Any]:
    """`new_param` and `set_new_param` of a deprecated field (a `json_schema_extra` dict, or the
    pydantic 1 era's keywords of `Field`): DeepSpeedConfigModel asserts the two are not given together."""
    pairs: list[tuple[str, ast.expr]] = []
    if isinstance(extra, ast.Dict):
        pairs += [
            (k.value, v) for k, v in zip(extra.keys, extra.values, strict=True) if isinstance(k, ast.Constant) and isinstance(k.value, str)
        ]
    pairs += [(k.arg, k.value) for k in keywords if k.arg]
    found: dict[str, Any] = {}
    for name, node in pairs:
        if name in ("new_param", "set_new_param"):
            known, value = literal(node)
            if known:
                found[name] = value
    return found


def validators_of(cls: ast.ClassDef) -> list[dict[str, Any]]:
    found = []
    for item in cls.body:
        if not isinstance(item, ast.FunctionDef):
            continue
        for deco in item.decorator_list:
            call = deco if isinstance(deco, ast.Call) else None
            name = ast.unparse(call.func if call else deco).split(".")[-1]
            if name in ("model_validator", "field_validator", "validator", "root_validator"):
                fields = [a.value for a in (call.args if call else []) if isinstance(a, ast.Constant) and isinstance(a.value, str)]
                found.append({"name": item.name, "kind": name, **({"fields": fields} if fields else {})})
    return found


def scan(source: Source) -> tuple[dict[str, ast.ClassDef], dict[str, str], dict[str, list[Any]], dict[str, str]]:
    """Every class (by name, with its file), the enums, and the module-level string constants."""
    classes: dict[str, ast.ClassDef] = {}
    where: dict[str, str] = {}
    enums: dict[str, list[Any]] = {}
    constants: dict[str, str] = {}
    for path, text in sorted(source.files.items()):
        if not path.endswith(".py"):
            continue
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                classes.setdefault(node.name, node)
                where.setdefault(node.name, path)
                if any(ast.unparse(b).endswith("Enum") for b in node.bases):
                    values = [literal(s.value)[1] for s in node.body if isinstance(s, ast.Assign) and literal(s.value)[0]]
                    enums.setdefault(node.name, values)
            elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        constants.setdefault(target.id, node.value.value)
    return classes, where, enums, constants


def is_model(name: str, classes: dict[str, ast.ClassDef], seen: frozenset[str] = frozenset()) -> bool:
    cls = classes.get(name)
    if cls is None or name in seen:
        return False
    bases = [ast.unparse(b).split(".")[-1] for b in cls.bases]
    return BASE in bases or any(is_model(b, classes, seen | {name}) for b in bases)


def models_of(source: Source) -> tuple[dict[str, Any], dict[str, list[Any]], dict[str, ast.ClassDef], dict[str, str]]:
    classes, where, enums, constants = scan(source)
    models: dict[str, Any] = {}
    for name in sorted(classes):
        if name == BASE or not is_model(name, classes):
            continue
        cls = classes[name]
        fields = {
            item.target.id: field_of(item)
            for item in cls.body
            if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name) and not item.target.id.startswith("_")
        }
        fields = {k: v for k, v in fields.items() if k != "model_config"}
        bases = [ast.unparse(b).split(".")[-1] for b in cls.bases if ast.unparse(b).split(".")[-1] != BASE]
        models[name] = {"file": where[name], "line": cls.lineno, "fields": fields, "validators": validators_of(cls)}
        if bases:
            models[name]["bases"] = bases
    return models, {k: v for k, v in sorted(enums.items())}, classes, constants


def key_of(node: ast.expr, constants: dict[str, str]) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return constants.get(node.id)
    return None


def read_path(node: ast.expr, constants: dict[str, str]) -> tuple[str | None, bool]:
    """`d.get(K, ...)`, `d[K]`, `d[K][L]`, `d.get(K, {}).get(L, {})` -> ("K.L", .get default is None)."""
    if isinstance(node, ast.Subscript):
        inner, _ = read_path(node.value, constants)
        key = key_of(node.slice, constants)
        if key is None:
            return None, False
        return (f"{inner}.{key}" if inner else key), False
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" and node.args:
        inner, _ = read_path(node.func.value, constants)
        key = key_of(node.args[0], constants)
        if key is None:
            return None, False
        null_ok = len(node.args) > 1 and isinstance(node.args[1], ast.Constant) and node.args[1].value is None
        return (f"{inner}.{key}" if inner else key), null_ok
    return None, False


def _assigned(function: ast.AST, name: str) -> Iterator[ast.expr]:
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            yield node.value


def blocks_of(source: Source, models: dict[str, Any], constants: dict[str, str]) -> dict[str, Any]:
    """The config keys handed to a model, where the source calls `Model(**value)`."""
    blocks: dict[str, Any] = {}
    for path, text in sorted(source.files.items()):
        if not path.endswith(".py") or "(**" not in text:
            continue
        tree = ast.parse(text)
        for function in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]:
            accepts_bool = any(
                isinstance(n, ast.Call) and ast.unparse(n.func) == "isinstance" and len(n.args) == 2 and ast.unparse(n.args[1]) == "bool"
                for n in ast.walk(function)
            )
            for call in [n for n in ast.walk(function) if isinstance(n, ast.Call)]:
                model = ast.unparse(call.func).split(".")[-1]
                star = next((k.value for k in call.keywords if k.arg is None), None)
                if model not in models or star is None:
                    continue
                values = list(_assigned(function, star.id)) if isinstance(star, ast.Name) else [star]
                where = {"model": model, "file": path, "line": call.lineno}
                for value in values:
                    for key, entry in _entries(value, where, models, constants, accepts_bool):
                        blocks.setdefault(key, entry)
    return dict(sorted(blocks.items()))


def _entries(
    value: ast.expr, where: dict[str, Any], models: dict[str, Any], constants: dict[str, str], accepts_bool: bool
) -> Iterator[tuple[str, dict[str, Any]]]:
    """The keys one `**value` reads: a dict comprehension over key names (each a field of the
    model), or one `param_dict.get(KEY)` / `param_dict[KEY]`."""
    model = where["model"]
    if isinstance(value, ast.DictComp) and isinstance(value.generators[0].iter, ast.Tuple):
        for element in value.generators[0].iter.elts:
            key = key_of(element, constants)
            if key is not None and key in models[model]["fields"]:
                yield key, {**where, "how": "field", "model": models[model]["fields"][key]["type"]}
        return
    key, null_ok = read_path(value, constants)
    if key is not None:
        entry = {**where, "how": "kwargs"}
        if accepts_bool:
            entry["accepts_bool"] = True
        if null_ok:
            entry["null_ok"] = True
        yield key, entry


def pydantic_major(source: Source) -> int:
    """2 where `DeepSpeedConfigModel` is configured with pydantic 2's `ConfigDict`; 1 where it has
    pydantic 1's `class Config` (through `deepspeed/pydantic_v1.py` up to 0.14.x, whatever the pin)."""
    return 2 if "ConfigDict" in source.files.get("deepspeed/runtime/config_utils.py", "") else 1


def table(source: Source) -> dict[str, Any]:
    models, enums, _, constants = models_of(source)
    return {
        "release": source.release,
        "source": source.provenance,
        "generated_by": "tools/build_deepspeed_models.py",
        "pydantic": pydantic_major(source),
        "blocks": blocks_of(source, models, constants),
        "models": models,
        "enums": enums,
    }


def render(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=1, sort_keys=False) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--git", help="a git dir of deepspeedai/DeepSpeed holding the tags")
    parser.add_argument("--tags", nargs="*", default=list(TAGS))
    parser.add_argument("--sdist", nargs="*", default=[], help="deepspeed-X.Y.Z.tar.gz from PyPI")
    parser.add_argument("--out", default=str(OUT))
    args = parser.parse_args()
    sources = [Source.from_git(args.git, tag) for tag in args.tags] if args.git else []
    sources += [Source.from_sdist(path) for path in args.sdist]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for source in sources:
        data = table(source)
        (out / f"{source.release}.json").write_text(render(data))
        print(f"wrote {out / (source.release + '.json')}: {len(data['models'])} models, {len(data['blocks'])} blocks")


if __name__ == "__main__":
    main()
