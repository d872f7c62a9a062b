"""Which code reads a launch's DeepSpeed JSON, decided from the training script it runs.

The launched `.py` (or the module after `-m`) is read with `ast`, never imported, with the local
modules it imports, up to two levels and a few files, found beside the script the way Python's
own `sys.path[0]` finds them. What decides, nearest file first:

- a `deepspeed.initialize(...)` call: the script's own DeepSpeed engine; with `optimizer=` /
  `lr_scheduler=` (keyword or position) it passes its own, and DeepSpeed then never builds the
  JSON's `optimizer` / `scheduler` block (deepspeed/runtime/engine.py `_configure_optimizer`,
  `_configure_lr_scheduler`). The call sits in a `megatron` package: Megatron-DeepSpeed.
- a Hugging Face `Trainer`, `Seq2SeqTrainer`, `TrainingArguments`, `HfArgumentParser` or a trl
  trainer: the Hugging Face Trainer; an `accelerate.Accelerator`: Accelerate.
- mmengine or XTuner, WeNet: those toolkits' own code calls DeepSpeed.

When the script is not found or says nothing of these, the caller keeps what the launch flag
says and marks it inferred.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from recipelint.model import Consumer
from recipelint.parse.files import FileCache
from recipelint.parse.pycode import PyFile, parse_cached
from recipelint.records import dataclass, field
from recipelint.toolkits import kinds

MAX_FILES = 12  # the launched script and the local modules it imports, at most
MAX_DEPTH = 2  # imports followed: the script's, and theirs
ROOTS_ABOVE = 2  # folders above the script an absolute import is also looked up in
# Packages whose use is the signal itself: never followed as local code.
_SIGNAL_PACKAGES = {"deepspeed", "transformers", "accelerate", "trl", "torch", "mmengine", "xtuner", "wenet", "megatron_core"}
_HF_NAMES = {"Trainer", "Seq2SeqTrainer", "TrainingArguments", "Seq2SeqTrainingArguments", "HfArgumentParser"}
# The positions of deepspeed.initialize(args, model, optimizer, model_parameters, training_data, lr_scheduler, ...).
_POSITION = {"optimizer": 2, "lr_scheduler": 5}
# Nearest file first, then this order within one file.
_RANK = {"deepspeed": 0, "hf-trainer": 1, "accelerate": 2, "xtuner": 3, "wenet": 4}


@dataclass
class Seen:
    """What one file shows: the consumer kind it points to, and where."""

    kind: str
    evidence: str
    client_optimizer: bool | None = None
    client_scheduler: bool | None = None
    code_sets: tuple[str, ...] = ()  # top-level keys the code writes into the config before initialize


@dataclass
class Walk:
    """What the files read show: each signal with the import depth of its file."""

    found: list[tuple[int, Seen]] = field(default_factory=list)
    via: dict[str, str] = field(default_factory=dict)  # file -> "pretrain_gpt.py:16: imports megatron.training"
    megatron: bool = False


def read_consumer(script: Path, files: FileCache, top: Path | None = None) -> Consumer | None:
    """The consumer the training code shows; None when the script cannot be read or shows none.
    `top`: the folder absolute imports start from (the script's own, or for `-m pkg.cli` the
    one holding `pkg`). Read once per run and script (several launches often run the same one)."""
    found: Consumer | None = files.code_reads.get((f"consumer {top}", script), lambda: _read(script, files, top or script.parent))
    return found


def _read(script: Path, files: FileCache, top: Path) -> Consumer | None:
    walk = _walk(script, files, top)
    if walk is None:
        return None
    hf_config = next((seen.evidence for _, seen in walk.found if seen.kind == "hf-config"), "")
    walk.found = [(depth, seen) for depth, seen in walk.found if seen.kind != "hf-config"]
    if not walk.found:
        return None
    # Nearest file first; of several deepspeed.initialize calls (Megatron's weight loading, its
    # teacher model), the one that passes an optimizer is the training engine's.
    depth, seen = min(walk.found, key=lambda item: (item[0], _RANK[item[1].kind], item[1].client_optimizer is not True))
    toolkit = kinds().get(seen.kind)
    own = toolkit.json_consumer(seen.evidence) if toolkit is not None else None
    if own is not None:  # a toolkit's trainer calls deepspeed.initialize: its own code says how
        return own
    consumer = _consumer(walk, depth, seen)
    consumer.hf_config = hf_config
    return consumer


def _consumer(walk: Walk, depth: int, seen: Seen) -> Consumer:
    kind = "megatron" if seen.kind == "deepspeed" and walk.megatron else seen.kind
    evidence = [seen.evidence] + [s.evidence for d, s in walk.found if s is not seen and d == depth][:1]
    reached = walk.via.get(seen.evidence.split(":", 1)[0])
    if reached is not None:
        evidence.insert(1, reached)
    return Consumer(kind, seen.client_optimizer, seen.client_scheduler, evidence, code_sets=seen.code_sets)


def _walk(script: Path, files: FileCache, top: Path) -> Walk | None:
    """Read the script, then the local modules it imports, level by level, until a level shows a
    signal (deeper code is what that code calls, not what calls DeepSpeed)."""
    walk = Walk()
    queue: list[tuple[Path, int]] = [(script, 0)]
    done: set[Path] = set()
    while queue and len(done) < MAX_FILES:
        path, depth = queue.pop(0)
        if path in done:
            continue
        done.add(path)
        parsed = _parse(path, files)
        if parsed is None:
            if depth == 0:
                return None
            continue
        where = _relative(path, top)
        if _imports_megatron(parsed.tree) or _under(path, top) and "megatron" in path.relative_to(top).parts[:-1]:
            walk.megatron = True
        walk.found.extend((depth, seen) for seen in _signals(parsed, where))
        decided = any(seen.kind != "hf-config" for _, seen in walk.found)
        if decided and (not queue or queue[0][1] > depth):
            break
        if depth < MAX_DEPTH:
            for module, line, name in _local_imports(parsed.tree, path, top):
                if module not in done:
                    queue.append((module, depth + 1))
                    walk.via.setdefault(_relative(module, top), f"{where}:{line}: imports {name}")
    return walk


def _under(path: Path, top: Path) -> bool:
    return path.is_relative_to(top)


def _relative(path: Path, top: Path) -> str:
    """As the evidence names a file: from the launched script's folder (`../megatron/training.py`)."""
    import os

    return os.path.relpath(path, top)


def _parse(path: Path, files: FileCache) -> PyFile | None:
    return parse_cached(path, files)


def _imports_megatron(tree: ast.Module) -> bool:
    return any(module.split(".")[0] == "megatron" for module, _, _ in _imports(tree))


def _imports(tree: ast.Module) -> Iterator[tuple[str, list[str], int]]:
    """(module, names imported from it, line) for each import; a relative module keeps its dots."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, [], node.lineno
        elif isinstance(node, ast.ImportFrom):
            yield "." * node.level + (node.module or ""), [alias.name for alias in node.names], node.lineno


def _called_names(tree: ast.Module) -> set[str]:
    return {node.func.id for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}


def _local_imports(tree: ast.Module, path: Path, top: Path) -> list[tuple[Path, int, str]]:
    """The imported modules that are files beside the script (its folder is sys.path[0]), those
    that give a name the file calls first: `pretrain(...)` leads to megatron/training.py."""
    called = _called_names(tree)
    ranked: list[tuple[int, Path, int, str]] = []
    for module, names, line in _imports(tree):
        dots = len(module) - len(module.lstrip("."))
        parts = [p for p in module.lstrip(".").split(".") if p]
        if not dots and (not parts or parts[0] in _SIGNAL_PACKAGES):
            continue
        if dots:
            bases = [path.parents[dots - 1]] if dots <= len(path.parents) else []
        else:  # beside the script (sys.path[0]), else above it (`sys.path.append(parent)`, Megatron's tasks/)
            bases = [top, *top.parents[:ROOTS_ABOVE]]
        base = next((b for b in bases if any(True for _ in _module_files(b, parts, names))), None)
        for target in _module_files(base, parts, names) if base is not None else ():
            ranked.append((0 if called & set(names) else 1, target, line, module))
    ordered = sorted(ranked, key=lambda item: item[0])
    return [(target, line, module) for _, target, line, module in ordered]


def _module_files(base: Path, parts: list[str], names: list[str]) -> Iterator[Path]:
    folder = base.joinpath(*parts)
    for candidate in (folder.with_suffix(".py") if parts else None, folder / "__init__.py"):
        if candidate is not None and candidate.is_file():
            yield candidate
    for name in names:  # `from megatron import training`: a submodule
        if name != "*" and (folder / f"{name}.py").is_file():
            yield folder / f"{name}.py"


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""


def _signals(parsed: PyFile, where: str) -> Iterator[Seen]:
    imported = _imported_from(parsed.tree)
    for node in parsed.nodes:
        if isinstance(node, ast.Call):
            name = _dotted(node.func)
            origin = imported.get(name.split(".")[0], name.split(".")[0])
            full = f"{origin}.{name.partition('.')[2]}" if "." in name else origin
            if full == "deepspeed.initialize":
                yield _initialize(parsed, node, where)
            elif full == "accelerate.Accelerator":
                yield Seen("accelerate", f"{where}:{node.lineno}: Accelerator()")
            elif full.split(".")[0] == "transformers" and full.endswith(".HfDeepSpeedConfig"):
                yield Seen("hf-config", f"{where}:{node.lineno}: {name}(...)")
            elif full.startswith(("transformers.", "trl.")) and _hf_name(full):
                yield Seen("hf-trainer", f"{where}:{node.lineno}: {name}(...)")
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield from _import_signal(node, where)


def _hf_name(full: str) -> bool:
    last = full.rsplit(".", 1)[-1]
    return last in _HF_NAMES or full.startswith("trl.") and last.endswith(("Trainer", "Config"))


def _imported_from(tree: ast.Module) -> dict[str, str]:
    """local name -> dotted origin: `from deepspeed import initialize` gives initialize -> deepspeed.initialize."""
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                names[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else alias.name.split(".")[0]
    return names


def _import_signal(node: ast.ImportFrom, where: str) -> Iterator[Seen]:
    package = (node.module or "").split(".")[0]
    names = [alias.name for alias in node.names]
    shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
    line = f"{where}:{node.lineno}: from {node.module} import {shown}"
    if package == "transformers" and _HF_NAMES & set(names):
        yield Seen("hf-trainer", line)
    elif package == "trl" and any(name.endswith(("Trainer", "Config")) for name in names):
        yield Seen("hf-trainer", line)
    elif package in ("mmengine", "xtuner") and (package == "xtuner" or "Runner" in names):
        yield Seen("xtuner", line)
    elif package == "wenet" and node.module and node.module.startswith("wenet.utils.train_utils"):
        yield Seen("wenet", line)


def _argument(call: ast.Call, name: str) -> ast.expr | None:
    value = next((k.value for k in call.keywords if k.arg == name), None)
    position = _POSITION[name]
    if value is None and len(call.args) > position and not any(isinstance(a, ast.Starred) for a in call.args[: position + 1]):
        value = call.args[position]
    return value


def _initialize(parsed: PyFile, call: ast.Call, where: str) -> Seen:
    """A deepspeed.initialize call: whether it passes an optimizer and a scheduler of its own."""
    passed: dict[str, bool | None] = {}
    shown = []
    for name in ("optimizer", "lr_scheduler"):
        value = _argument(call, name)
        if value is None or isinstance(value, ast.Constant) and value.value is None:
            passed[name] = False
            continue
        shown.append(f"{name}={ast.unparse(value)}")
        passed[name] = not _dropped_for_json(parsed, call, value)
    if any(k.arg is None for k in call.keywords):
        passed = {name: True if passed[name] else None for name in passed}  # **kwargs may carry them
    others = [k.arg for k in call.keywords if k.arg == "model_parameters"]
    named = ", ".join([*shown, *(f"{name}=..." for name in others)])
    missing = [name for name in ("optimizer", "lr_scheduler") if not passed[name]]
    text = f"{where}:{call.lineno}: deepspeed.initialize({named})" + (f" passes no {' and no '.join(missing)}" if missing else "")
    written = _code_sets(parsed, call)
    if written:
        text += f"; the code sets {', '.join(written)} in the config it passes"
    return Seen("deepspeed", text, passed["optimizer"], passed["lr_scheduler"], written)


def _code_sets(parsed: PyFile, call: ast.Call) -> tuple[str, ...]:
    """The keys the code assigns into the config dict it passes (`ds_config["train_batch_size"] =
    world_size` after `json.load`, BELLE's inference backend): what the JSON says there is
    overwritten, "auto" included."""
    value = next((k.value for k in call.keywords if k.arg in ("config", "config_params")), None)
    if not isinstance(value, ast.Name):
        return ()
    keys = []
    for node in parsed.nodes:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if (
                    isinstance(target, ast.Subscript)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == value.id
                    and isinstance(target.slice, ast.Constant)
                    and isinstance(target.slice.value, str)
                ):
                    keys.append(target.slice.value)
    return tuple(dict.fromkeys(keys))


def _dropped_for_json(parsed: PyFile, call: ast.Call, value: ast.expr) -> bool:
    """The variable is set to None under a test that names the JSON's block (WeNet: `if
    "optimizer" in ds_configs: optimizer = None`): DeepSpeed then builds the block after all."""
    if not isinstance(value, ast.Name):
        return False
    for node in parsed.nodes:
        if not isinstance(node, ast.If) or node.lineno > call.lineno:
            continue
        names_block = any(isinstance(c, ast.Constant) and c.value in ("optimizer", "scheduler") for c in ast.walk(node.test))
        if names_block and any(_sets_none(stmt, value.id) for stmt in node.body):
            return True
    return False


def _sets_none(node: ast.stmt, name: str) -> bool:
    if not isinstance(node, ast.Assign) or not isinstance(node.value, ast.Constant) or node.value.value is not None:
        return False
    return any(isinstance(target, ast.Name) and target.id == name for target in node.targets)
