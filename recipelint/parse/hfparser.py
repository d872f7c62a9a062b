"""What a training script's Hugging Face `HfArgumentParser` receives, read with `ast`.

`HfArgumentParser((ModelArguments, DataArguments, TrainingArguments))` builds one argparse
option per dataclass field; `parse_args_into_dataclasses()` then raises "Some specified
arguments are not used by the HfArgumentParser" for any command-line word no option takes
(unless the call passes `return_remaining_strings=True`). This module finds that call in the
launched script or in the local module the script calls it through (`train()` from
`llava/train/train.py`), and resolves each dataclass: one the files define (its fields and
defaults, and its bases), transformers' `TrainingArguments` / `Seq2SeqTrainingArguments` (whose
fields depend on the release: recipelint.trainingargs), a trl config (TrainingArguments and trl's
own fields: only the TrainingArguments part is known), anything else unknown.

The same files give the literal keywords of a `TrainingArguments(...)` call the script makes
itself (a script that builds its arguments in code)."""

from __future__ import annotations

import ast
from pathlib import Path

from recipelint.parse.files import FileCache
from recipelint.parse.pycode import PyFile, parse_cached
from recipelint.parse.span import Span
from recipelint.records import dataclass, field, replace

MAX_FILES = 8  # the script and the local modules followed for the parser and its dataclasses
HF_BASES = {"TrainingArguments": "transformers", "Seq2SeqTrainingArguments": "transformers-seq2seq"}
PARSERS = ("HfArgumentParser", "TrlParser")


@dataclass
class Default:
    """A field the script's own dataclass declares, with its default when it is a literal."""

    name: str
    value: object
    literal: bool  # False: a default the code computes, or none
    span: Span | None
    where: str  # "train.py:42"
    ref: str | None = None  # `args.lr`: the argparse destination the value is read from
    kind: str = ""  # the annotation of a dataclass field: "int", "Optional[float]"


@dataclass
class Option:
    """One `parser.add_argument("--lr", default=5e-5, type=float)` of the script's own argparse."""

    dest: str
    options: tuple[str, ...]  # "--lr", "--learning-rate"
    default: object
    switch: bool  # action="store_true" / "store_false"
    kind: str  # the `type=` name: "int", "float", "str", "" when not given
    const: bool = True  # what a switch stores when given: True for store_true (whatever its default)


@dataclass
class ArgClass:
    """One dataclass the parser receives."""

    name: str
    # What it extends beyond its own fields: "transformers" (TrainingArguments), "transformers-seq2seq",
    # "trl" (a trl config: TrainingArguments plus trl's fields), "trl-other" (trl's ModelConfig,
    # ScriptArguments: trl's fields only), "" (nothing), "unknown".
    base: str
    own: dict[str, Default] = field(default_factory=dict)  # its fields and its local bases'
    where: str = ""

    @property
    def extends_trainer(self) -> bool:
        return self.base in ("transformers", "transformers-seq2seq", "trl")


@dataclass
class Parser:
    """The HfArgumentParser call a script makes and what it receives."""

    where: str  # "train.py:310: HfArgumentParser((ModelArguments, DataArguments, TrainingArguments))"
    kind: str  # "HfArgumentParser" or "TrlParser"
    classes: list[ArgClass]
    rejects_unknown: bool | None  # parse_args_into_dataclasses without return_remaining_strings; None: not seen


@dataclass
class Module:
    path: Path
    file: PyFile
    imports: dict[str, tuple[str, int]] = field(default_factory=dict)  # local name -> (module, level)


@dataclass
class Keyword:
    """One keyword of a `TrainingArguments(...)` / `Seq2SeqTrainingArguments(...)` call, whatever its value."""

    cls: str  # "TrainingArguments" or "Seq2SeqTrainingArguments"
    name: str
    span: Span  # the keyword's name
    where: str  # "train.py:42"


@dataclass
class Reading:
    """What the files show: the parser (None: none found) and TrainingArguments(...) keywords."""

    parser: Parser | None
    calls: dict[str, Default] = field(default_factory=dict)
    argparse: dict[str, Option] = field(default_factory=dict)  # dest -> option, of the files read
    keywords: list[Keyword] = field(default_factory=list)  # every keyword of every call, in order


def read(script: Path, files: FileCache, top: Path | None = None) -> Reading | None:
    """The script's parser and TrainingArguments keywords; None when the script cannot be read.
    `top`: the folder absolute imports start from (the script's own; for `-m pkg.cli` the one
    holding `pkg`). Read once per run and script."""
    found: Reading | None = files.code_reads.get((f"hfparser {top}", script), lambda: _read(script, files, top or script.parent))
    return found


def _load(path: Path, files: FileCache) -> Module | None:
    parsed = parse_cached(path, files)
    if parsed is None:
        return None
    tree = parsed.tree
    imports: dict[str, tuple[str, int]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                imports[alias.asname or alias.name] = (f"{node.module or ''}.{alias.name}".lstrip("."), node.level)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                imports[alias.asname or alias.name.split(".")[0]] = (alias.name if alias.asname else alias.name.split(".")[0], 0)
    return Module(path, parsed, imports)


class _Reader:
    def __init__(self, script: Path, files: FileCache, top: Path) -> None:
        self.top = top
        self.files = files
        self.modules: dict[Path, Module | None] = {}

    def module(self, path: Path) -> Module | None:
        if path not in self.modules:
            self.modules[path] = _load(path, self.files) if len(self.modules) < MAX_FILES else None
        return self.modules[path]

    def local(self, origin: str, level: int, near: Path) -> Path | None:
        """The file of a local module (`llava.train.train`, `.args`), as Python finds it from the
        script's folder (sys.path[0]) or, relative, from the importing file; a folder above the
        script is also searched in its `src/` (the project installed from a src layout:
        alignment-handbook's scripts/sft.py imports `alignment` from src/alignment)."""
        parts = origin.split(".")
        above = [*self.top.parents[:2]]
        bases = [near.parents[level - 1]] if level else [self.top, *above, *(b / "src" for b in above)]
        for base in bases:
            for cut in (len(parts), len(parts) - 1):  # `from pkg.mod import Name` or `from pkg import mod`
                if cut < 1:
                    continue
                folder = base.joinpath(*parts[:cut])
                for candidate in (folder.with_suffix(".py"), folder / "__init__.py"):
                    if candidate.is_file():
                        return candidate
        return None


def _read(script: Path, files: FileCache, top: Path) -> Reading | None:
    reader = _Reader(script, files, top)
    first = reader.module(script)
    if first is None:
        return None
    reading = Reading(None)
    queue = [first]
    seen: set[Path] = set()
    while queue and reading.parser is None:
        module = queue.pop(0)
        if module.path in seen:
            continue
        seen.add(module.path)
        reading.parser = _parser(reader, module)
        reading.calls.update(_calls(reader, module, reading.keywords))
        reading.argparse.update(_argparse(module.file))
        queue.extend(_called_modules(reader, module))
    return reading


def _called_modules(reader: _Reader, module: Module) -> list[Module]:
    """The local modules whose imported names this file calls (`train()`), the way the script hands on."""
    called = {n.func.id for n in module.file.calls if isinstance(n.func, ast.Name)}
    out = []
    for name in called:
        origin = module.imports.get(name)
        if origin is None:
            continue
        path = reader.local(origin[0], origin[1], module.path)
        loaded = reader.module(path) if path is not None else None
        if loaded is not None:
            out.append(loaded)
    return out


def _where(reader: _Reader, module: Module, node: ast.AST) -> str:
    import os

    return f"{os.path.relpath(module.path, reader.top)}:{getattr(node, 'lineno', 1)}"


def _parser(reader: _Reader, module: Module) -> Parser | None:
    for call in module.file.calls:
        name = _dotted(call.func).rsplit(".", 1)[-1]
        if name not in PARSERS or not call.args:
            continue
        items = call.args[0].elts if isinstance(call.args[0], (ast.Tuple, ast.List)) else [call.args[0]]
        classes = [_resolve(reader, module, item, 0) for item in items]
        where = f"{_where(reader, module, call)}: {ast.unparse(call)[:120]}"
        return Parser(where, name, classes, _rejects(module.file, name))
    return None


def _rejects(file: PyFile, kind: str) -> bool | None:
    """Whether the parse raises on words no option takes: parse_args_into_dataclasses() without
    return_remaining_strings=True, or TrlParser's parse_args_and_config() likewise (it hands
    its own return_remaining_strings, False by default, to parse_args_into_dataclasses: trl 0.9.6
    trl/commands/cli_utils.py to 1.16.0 trl/scripts/utils.py)."""
    methods = ("parse_args_into_dataclasses", "parse_args_and_config") if kind == "TrlParser" else ("parse_args_into_dataclasses",)
    for call in file.calls:
        if not isinstance(call.func, ast.Attribute) or call.func.attr not in methods:
            continue
        remaining = next((k.value for k in call.keywords if k.arg == "return_remaining_strings"), None)
        if remaining is None and not call.args:
            return True
        return isinstance(remaining, ast.Constant) and remaining.value is False
    return None


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""


def _resolve(reader: _Reader, module: Module, node: ast.expr, depth: int, imported_only: bool = False) -> ArgClass:
    """A dataclass named in the parser's tuple or as a base: defined here, imported from a local
    module, or transformers' / trl's own."""
    name = _dotted(node)
    head, _, rest = name.partition(".")
    # a class the module defines shadows an import of the same name (Baichuan2's fine-tune.py
    # imports transformers' TrainingArguments, then defines its own subclass under that name)
    local = not rest and not imported_only
    defined = next((n for n in module.file.tree.body if isinstance(n, ast.ClassDef) and n.name == name), None) if local else None
    if defined is not None and depth < 4:
        return _class(reader, module, defined, depth)
    origin = module.imports.get(head)
    full = f"{origin[0]}.{rest}" if origin and rest else (origin[0] if origin else name)
    last = full.rsplit(".", 1)[-1]
    package = full.split(".")[0]
    if package == "transformers" and last in HF_BASES:
        return ArgClass(last, HF_BASES[last])
    if package == "trl":
        # trl's configs extend TrainingArguments; ModelConfig and ScriptArguments are dataclasses of their own
        return ArgClass(
            last, "trl-other" if last in ("ModelConfig", "ScriptArguments") else "trl" if last.endswith("Config") else "unknown"
        )
    if origin is not None and origin[0] and depth < 4:
        path = reader.local(origin[0].rsplit(".", 1)[0] if "." in origin[0] else origin[0], origin[1], module.path)
        other = reader.module(path) if path is not None else None
        if other is not None and other is not module:
            # defined there, or re-exported (a package's __init__.py: `from .configs import SFTConfig`)
            return _resolve(reader, other, ast.Name(id=last), depth + 1)
    return ArgClass(last or name, "unknown")


def _class(reader: _Reader, module: Module, node: ast.ClassDef, depth: int) -> ArgClass:
    """A dataclass the files define: its fields over those of its bases."""
    base = ""
    own: dict[str, Default] = {}
    for parent in node.bases:
        # `class TrainingArguments(TrainingArguments)`: the base is the imported class of that name
        resolved = _resolve(reader, module, parent, depth + 1, imported_only=_dotted(parent) == node.name)
        own.update(resolved.own)
        if resolved.base:
            base = resolved.base
    for item in node.body:
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            own[item.target.id] = replace(_default(reader, module, item.target.id, item.value), kind=ast.unparse(item.annotation))
    return ArgClass(node.name, base, own, _where(reader, module, node))


def _default(reader: _Reader, module: Module, name: str, value: ast.expr | None) -> Default:
    where = _where(reader, module, value) if value is not None else ""
    node: ast.expr | None = value
    if isinstance(value, ast.Call) and _dotted(value.func).rsplit(".", 1)[-1] == "field":
        node = next((k.value for k in value.keywords if k.arg == "default"), None)
    if node is None:
        return Default(name, None, False, None, where)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return Default(name, None, False, module.file.span(node), where, ref=node.attr)
    try:
        literal = ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return Default(name, None, False, module.file.span(node), where)
    return Default(name, literal, True, module.file.span(node), where)


def _calls(reader: _Reader, module: Module, keywords: list[Keyword]) -> dict[str, Default]:
    """The literal keywords of `TrainingArguments(...)` / `Seq2SeqTrainingArguments(...)` calls;
    a keyword two calls give differently is not taken. Every keyword's name is added to `keywords`."""
    out: dict[str, Default] = {}
    clash: set[str] = set()
    for call in module.file.calls:
        name = _dotted(call.func)
        origin = module.imports.get(name.split(".")[0])
        full = origin[0] if origin and "." not in name else name
        if full.rsplit(".", 1)[-1] not in HF_BASES or not full.startswith("transformers"):
            continue
        for keyword in call.keywords:
            if keyword.arg is None:
                continue
            start = module.file.span(keyword).start
            name_span = module.file.source.span(start, start + len(keyword.arg.encode()))
            keywords.append(Keyword(full.rsplit(".", 1)[-1], keyword.arg, name_span, _where(reader, module, keyword)))
            found = _default(reader, module, keyword.arg, keyword.value)
            if keyword.arg in out and out[keyword.arg].value != found.value:
                clash.add(keyword.arg)
            out[keyword.arg] = found
    # a keyword computed in code (`fp16=not args.bf16`) is kept: its value is not known, and the
    # release's default must not stand in for it
    return {k: v for k, v in out.items() if k not in clash}


def _argparse(file: PyFile) -> dict[str, Option]:
    """The script's own `add_argument("--x", ...)` options by destination (`--grad-acc-steps` is
    `grad_acc_steps`, unless `dest=` says otherwise)."""
    out: dict[str, Option] = {}
    for call in file.calls:
        if not isinstance(call.func, ast.Attribute) or call.func.attr != "add_argument":
            continue
        names = tuple(a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value.startswith("--"))
        if not names:
            continue
        keywords = {k.arg: k.value for k in call.keywords if k.arg}
        dest_node = keywords.get("dest")
        dest = (
            dest_node.value if isinstance(dest_node, ast.Constant) and isinstance(dest_node.value, str) else names[0][2:].replace("-", "_")
        )
        action = keywords.get("action")
        switch = isinstance(action, ast.Constant) and action.value in ("store_true", "store_false")
        default: object = None
        if "default" in keywords:
            try:
                default = ast.literal_eval(keywords["default"])
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                default = None
        elif switch and isinstance(action, ast.Constant):
            default = action.value == "store_false"
        kind = ast.unparse(keywords["type"]) if "type" in keywords else ""
        out[dest] = Option(
            dest, names, default, switch, kind, const=not (isinstance(action, ast.Constant) and action.value == "store_false")
        )
    return out
