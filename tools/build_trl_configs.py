"""Build schemas/transformers/trl_configs.json: the config dataclasses of trl (`SFTConfig`,
`DPOConfig`, `GRPOConfig`, ...) that extend transformers' `TrainingArguments`, read from trl's own
wheels with `ast` (never imported), folded into release ranges.

    pip download --no-deps --only-binary :all: trl==0.9.6 -d dl/   # and the other releases
    python tools/build_trl_configs.py dl/trl-*.whl

For each class that reaches TrainingArguments through its bases (trl 1.x: `_BaseConfig`), the
table holds the fields trl declares (its own and its trl bases'), each with its default when it
is a literal, as ranges of the releases read (`from` inclusive, `to` exclusive). trl overrides
some TrainingArguments defaults (`learning_rate`, `logging_steps`, `bf16`, `gradient_checkpointing`
in newer releases): those fields are listed too, so a rule takes trl's default, not
TrainingArguments'. Only the releases given are read: a release between two read ones is
judged as the older.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import re
import zipfile
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent.parent / "schemas" / "transformers" / "trl_configs.json"


# the modules that define trl's `ScriptArguments` (0.12: trl/utils.py; 0.15 on: trl/scripts/utils.py)
SCRIPT_MODULES = ("trl/utils.py", "trl/scripts/utils.py")


def _is_dataclass(node: ast.ClassDef) -> bool:
    return any("dataclass" in ast.unparse(d) for d in node.decorator_list)


def _classes(archive: zipfile.ZipFile) -> dict[str, ast.ClassDef]:
    found: dict[str, ast.ClassDef] = {}
    for name in sorted(archive.namelist()):
        if not re.search(r"^trl/trainer/[a-z0-9_]*config\.py$", name) and name not in SCRIPT_MODULES:
            continue
        tree = ast.parse(archive.read(name).decode())
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and (name not in SCRIPT_MODULES or _is_dataclass(node)):
                found.setdefault(node.name, node)
    return found


def _default(value: ast.expr | None) -> dict[str, Any]:
    node = value
    if isinstance(value, ast.Call) and ast.unparse(value.func).endswith("field"):
        keywords = {k.arg: k.value for k in value.keywords if k.arg}
        if "default_factory" in keywords:
            return {"factory": ast.unparse(keywords["default_factory"])}
        node = keywords.get("default")
    if node is None:
        return {"required": True}
    try:
        literal = ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError):
        return {"default_expr": ast.unparse(node)}
    return {"default": list(literal) if isinstance(literal, tuple) else literal}


def _fields(name: str, classes: dict[str, ast.ClassDef], depth: int = 0) -> tuple[bool, dict[str, dict[str, Any]]]:
    """Whether the class reaches TrainingArguments, and its fields over its trl bases'."""
    node = classes.get(name)
    if node is None or depth > 6:
        return False, {}
    reaches = False
    fields: dict[str, dict[str, Any]] = {}
    for base in node.bases:
        base_name = ast.unparse(base).rsplit(".", 1)[-1]
        if base_name in ("TrainingArguments", "Seq2SeqTrainingArguments"):
            reaches = True
        elif base_name in classes and base_name != name:
            up, inherited = _fields(base_name, classes, depth + 1)
            reaches = reaches or up
            fields.update(inherited)
    for item in node.body:
        if (
            isinstance(item, ast.AnnAssign)
            and isinstance(item.target, ast.Name)
            and not ast.unparse(item.annotation).startswith("ClassVar")
        ):
            fields[item.target.id] = _default(item.value)
    return reaches, fields


# trl's dataclasses that scripts hand TrlParser beside a config and that do not extend
# TrainingArguments: their fields are options of the same parser
OTHERS = ("ModelConfig", "ScriptArguments")


def read_release(path: Path) -> dict[str, Any]:
    release = re.search(r"trl-(\d+\.\d+\.\d+)", path.name)
    if release is None:
        raise SystemExit(f"{path}: not a trl wheel")
    with zipfile.ZipFile(path) as archive:
        classes = _classes(archive)
    configs = {}
    others = {}
    for name in classes:
        reaches, fields = _fields(name, classes)
        if name.startswith("_"):
            continue
        if reaches:
            configs[name] = fields
        elif name in OTHERS:
            others[name] = fields
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return {"release": release.group(1), "file": path.name, "sha256": digest, "configs": configs, "others": others}


def _fold(values: list[tuple[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    start = 0
    for index in range(1, len(values) + 1):
        if index < len(values) and values[index][1] == values[start][1]:
            continue
        if values[start][1] is not None:
            entry: dict[str, Any] = {"from": values[start][0]}
            if index < len(values):
                entry["to"] = values[index][0]
            entry.update(values[start][1])
            out.append(entry)
        start = index
    return out


def build(paths: list[Path]) -> dict[str, Any]:
    releases = sorted((read_release(p) for p in paths), key=lambda r: tuple(int(x) for x in r["release"].split(".")))
    return {
        "source": "huggingface/trl trl/**/*config.py, trl/utils.py, trl/scripts/utils.py of each release read (tools/build_trl_configs.py)",
        "releases": [{"release": r["release"], "file": r["file"], "sha256": r["sha256"]} for r in releases],
        "classes": _table(releases, "configs"),
        "others": _table(releases, "others"),
    }


def _table(releases: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    names = sorted({c for r in releases for c in r[kind]})
    classes: dict[str, Any] = {}
    for name in names:
        present = [(r["release"], {} if name in r[kind] else None) for r in releases]
        fields = sorted({f for r in releases for f in r[kind].get(name, {})})
        classes[name] = {
            "releases": _fold(present),
            "fields": {f: _fold([(r["release"], r[kind].get(name, {}).get(f)) for r in releases]) for f in fields},
        }
    return classes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("wheels", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    table = build(args.wheels)
    args.out.write_text(json.dumps(table, indent=1) + "\n")
    print(f"{args.out}: {len(table['releases'])} releases, {len(table['classes'])} classes")


if __name__ == "__main__":
    main()
