"""Build schemas/transformers/training_args.json: the Hugging Face `TrainingArguments` of each
transformers release, read from the release's own wheel or sdist with `ast` (never imported),
folded into release ranges.

Run with the wheels (or sdists) of the releases to read, e.g. the last patch of each minor from
4.30 to the newest (`pip download --no-deps --only-binary :all: transformers==4.30.2 -d dl/`):

    python tools/build_training_args.py dl/transformers-*.whl

The table holds, each entry valid from one release up to (not including) another:

- `fields`: every `TrainingArguments` field: its annotation as written, its default when it is
  a literal (`default_expr` otherwise, `factory` for `default_factory`), the `choices` an Enum
  annotation gives HfArgumentParser (`[x.value for x in Enum]`) and the `help` text's deprecation
  words (`deprecated`). A field missing from a release is not in any range that covers it:
  HfArgumentParser leaves the flag in its remaining strings and `parse_args_into_dataclasses`
  raises "Some specified arguments are not used by the HfArgumentParser".
- `seq2seq_fields`: the fields `Seq2SeqTrainingArguments` adds (`training_args_seq2seq.py`).
- `dash_aliases`: the releases whose HfArgumentParser also adds `--name-with-dashes` for a field
  named with underscores (`long_options` in `hf_argparser.py`).
- `fill_match`: the keys `HfTrainerDeepSpeedConfig.trainer_config_process` and
  `trainer_config_finalize` compare (`fill_match(ds_key, hf_value, hf_label)`, must_match not
  False), as `[ds_key, hf_value_source, hf_label]` (`integrations/deepspeed.py`, `deepspeed.py`
  before 4.33).
- `mismatch_message`: the start of the ValueError `trainer_config_finalize` raises.

Ranges are by minor release: the reader assumes a patch release changes no argument (the build
reads the last patch of each minor; a release it did not read is judged by the minor it belongs to).
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import re
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent.parent / "schemas" / "transformers" / "training_args.json"
FILES = ("training_args.py", "training_args_seq2seq.py", "hf_argparser.py", "integrations/deepspeed.py", "deepspeed.py", "trainer_utils.py")
_DEPRECATED = re.compile(r"[^.]*\b(deprecated|will be removed|Deprecated)\b[^.]*\.?")


def read_archive(path: Path) -> tuple[str, dict[str, str]]:
    """(release, {path under transformers/: text}) of a wheel or an sdist."""
    release = re.search(r"transformers-(\d+\.\d+\.\d+[^-]*?)(?:-py3|\.tar)", path.name)
    if release is None:
        raise SystemExit(f"{path}: not a transformers wheel or sdist")
    found: dict[str, str] = {}
    if path.suffix == ".whl":
        with zipfile.ZipFile(path) as archive:
            for name in FILES:
                member = f"transformers/{name}"
                if member in archive.namelist():
                    found[name] = archive.read(member).decode()
    else:
        with tarfile.open(path) as archive:
            for member in archive.getmembers():
                tail = member.name.split("/src/transformers/", 1)[-1]
                if "/src/transformers/" in member.name and tail in FILES:
                    extracted = archive.extractfile(member)
                    if extracted is not None:
                        found[tail] = extracted.read().decode()
    return release.group(1), found


def enums(sources: list[str]) -> dict[str, list[str]]:
    """The values of each Enum class the files define (`class IntervalStrategy(ExplicitEnum)`)."""
    out: dict[str, list[str]] = {}
    for text in sources:
        for node in ast.parse(text).body:
            if not isinstance(node, ast.ClassDef) or not any("Enum" in ast.unparse(base) for base in node.bases):
                continue
            values = []
            for item in node.body:
                if isinstance(item, ast.Assign) and isinstance(item.value, ast.Constant) and isinstance(item.value.value, str):
                    values.append(item.value.value)
            out[node.name] = values
    return out


def _literal(node: ast.expr) -> tuple[bool, Any]:
    try:
        value = ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError):
        return False, None
    if isinstance(value, float) and value != value:
        return False, None
    return True, list(value) if isinstance(value, tuple) else value


def _field_info(annotation: ast.expr, value: ast.expr | None, known_enums: dict[str, list[str]]) -> dict[str, Any]:
    info: dict[str, Any] = {"type": ast.unparse(annotation)}
    default: ast.expr | None = value
    metadata: ast.expr | None = None
    if isinstance(value, ast.Call) and ast.unparse(value.func) in ("field", "dataclasses.field"):
        keywords = {k.arg: k.value for k in value.keywords if k.arg}
        default = keywords.get("default")
        metadata = keywords.get("metadata")
        if "default_factory" in keywords:
            info["factory"] = ast.unparse(keywords["default_factory"])
    if default is not None:
        ok, literal = _literal(default)
        if ok:
            info["default"] = literal
        else:
            info["default_expr"] = ast.unparse(default)
    elif "factory" not in info:
        info["required"] = True
    if isinstance(metadata, ast.Dict):
        info.update(_metadata(metadata))
    for name in re.findall(r"[A-Za-z_]+", info["type"]):
        if name in known_enums and "choices" not in info:
            info["choices"] = known_enums[name]
    return info


def _metadata(metadata: ast.Dict) -> dict[str, Any]:
    """`choices` and the deprecation words of `help` in a field's metadata."""
    out: dict[str, Any] = {}
    meta = {k.value: v for k, v in zip(metadata.keys, metadata.values, strict=True) if isinstance(k, ast.Constant)}
    choices = meta.get("choices")
    if choices is not None:
        ok, literal = _literal(choices)
        if ok:
            out["choices"] = literal
    help_node = meta.get("help")
    ok, help_text = _literal(help_node) if help_node is not None else (False, None)
    words = _DEPRECATED.search(help_text) if ok and isinstance(help_text, str) else None
    if words:
        out["deprecated"] = " ".join(words.group(0).split())
    return out


def training_args(text: str, known_enums: dict[str, list[str]], name: str = "TrainingArguments") -> dict[str, dict[str, Any]]:
    tree = ast.parse(text)
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name)
    fields = {}
    for item in cls.body:
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            if ast.unparse(item.annotation).startswith("ClassVar"):
                continue
            fields[item.target.id] = _field_info(item.annotation, item.value, known_enums)
    return fields


def fill_match(text: str) -> list[list[str]]:
    """Each `self.fill_match(ds_key, hf_value, hf_label[, must_match])` of the two stages."""
    tree = ast.parse(text)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef) or node.name not in ("trainer_config_process", "trainer_config_finalize"):
            continue
        for call in ast.walk(node):
            if not isinstance(call, ast.Call) or ast.unparse(call.func) != "self.fill_match" or len(call.args) < 2:
                continue
            key = call.args[0]
            label = call.args[2] if len(call.args) > 2 else None
            if not isinstance(key, ast.Constant):
                continue
            found.append([str(key.value), ast.unparse(call.args[1]), label.value if isinstance(label, ast.Constant) else ""])
    return found


def mismatch_message(text: str) -> str:
    match = re.search(r'"(Please correct the following DeepSpeed config values that mismatch TrainingArguments)"\s*f?"( values:)', text)
    return (match.group(1) + match.group(2)) if match else ""


def read_release(path: Path) -> dict[str, Any]:
    release, files = read_archive(path)
    known = enums([files[name] for name in ("training_args.py", "trainer_utils.py") if name in files])
    ds = files.get("integrations/deepspeed.py") or files.get("deepspeed.py", "")
    argparser = files.get("hf_argparser.py", "")
    return {
        "release": release,
        "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "file": path.name,
        "fields": training_args(files["training_args.py"], known),
        "seq2seq": training_args(files["training_args_seq2seq.py"], known, "Seq2SeqTrainingArguments"),
        "dash_aliases": "field.name.replace('_', '-')" in argparser or 'field.name.replace("_", "-")' in argparser,
        "fill_match": fill_match(ds),
        "mismatch_message": mismatch_message(ds),
    }


def minor(release: str) -> str:
    return ".".join(release.split(".")[:2])


def fold(values: list[tuple[str, Any]]) -> Iterator[dict[str, Any]]:
    """(release, value) oldest first -> runs of equal value: {"from": "4.30", "to": "4.51", ...}
    (`to` exclusive, absent when the run reaches the newest release read); None values drop out."""
    start = 0
    for index in range(1, len(values) + 1):
        if index < len(values) and values[index][1] == values[start][1]:
            continue
        value = values[start][1]
        if value is not None:
            entry: dict[str, Any] = {"from": minor(values[start][0])}
            if index < len(values):
                entry["to"] = minor(values[index][0])
            entry.update(value if isinstance(value, dict) else {"value": value})
            yield entry
        start = index


def build(paths: list[Path]) -> dict[str, Any]:
    releases = sorted((read_release(path) for path in paths), key=lambda r: tuple(int(p) for p in re.findall(r"\d+", r["release"])[:3]))
    names = sorted({name for r in releases for name in r["fields"]})
    return {
        "source": "huggingface/transformers src/transformers/training_args.py, hf_argparser.py, integrations/deepspeed.py of each release (tools/build_training_args.py)",
        "releases": [{"release": r["release"], "file": r["file"], "sha256": r["sha256"]} for r in releases],
        "fields": {name: list(fold([(r["release"], r["fields"].get(name)) for r in releases])) for name in names},
        "seq2seq_fields": {
            name: list(fold([(r["release"], r["seq2seq"].get(name)) for r in releases]))
            for name in sorted({n for r in releases for n in r["seq2seq"]})
        },
        "dash_aliases": list(fold([(r["release"], r["dash_aliases"] or None) for r in releases])),
        "fill_match": list(fold([(r["release"], r["fill_match"]) for r in releases])),
        "mismatch_message": list(fold([(r["release"], r["mismatch_message"] or None) for r in releases])),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("archives", nargs="+", type=Path, help="transformers wheels or sdists")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    table = build(args.archives)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(table, indent=1, sort_keys=False) + "\n")
    print(f"{args.out}: {len(table['releases'])} releases, {len(table['fields'])} fields")


if __name__ == "__main__":
    main()
