"""Facts read from a toolkit's Python sources with `ast`: never imported, never run.

What a training script accepts (its `add_argument` calls), which config keys the code reads,
what a call hands on, and the small readers (`literal`, `keyword`, `dotted`, `glob_files`) the
toolkits' own code patterns are written with (toolkits/<name>/patterns.py). Each reader
returns None when the file is not there or not Python, so the caller falls back to what it
knew before.
"""

from __future__ import annotations

import ast
import re
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from functools import cached_property
from pathlib import Path

from recipelint.parse.files import FileCache, SourceError, read_bytes
from recipelint.parse.flags import DEEPSPEED_FLAGS, Flag, Guard
from recipelint.parse.span import SourceText, Span
from recipelint.records import dataclass, field


@dataclass
class PyFile:
    """One parsed Python file, with spans for its nodes."""

    source: SourceText
    tree: ast.Module
    starts: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        # Python's tokenizer ends a line at \r\n, \n or a lone \r; ast line numbers count those.
        self.starts = [0] + [m.end() for m in re.finditer(rb"\r\n|\n|\r", self.source.data)]

    @cached_property
    def nodes(self) -> list[ast.AST]:
        """Every node, walked once: each known-bug pattern looks through the same file."""
        return list(ast.walk(self.tree))

    @cached_property
    def calls(self) -> list[ast.Call]:
        return [node for node in self.nodes if isinstance(node, ast.Call)]

    def span(self, node: ast.AST) -> Span:
        bom = self.source.bom
        # ast columns are UTF-8 byte offsets within the line
        start = self.starts[node.lineno - 1] + node.col_offset + (bom if node.lineno == 1 else 0)  # type: ignore[attr-defined]
        end = self.starts[node.end_lineno - 1] + node.end_col_offset + (bom if node.end_lineno == 1 else 0)  # type: ignore[attr-defined]
        return self.source.span(start, end)

    def functions(self, name: str | None = None) -> Iterator[ast.FunctionDef]:
        for node in self.nodes:
            if isinstance(node, ast.FunctionDef) and (name is None or node.name == name):
                yield node


def parse_python(path: Path) -> PyFile | None:
    """The file's syntax tree; None when it is missing, too large, not UTF-8 or not Python."""
    try:
        source = SourceText(path, read_bytes(path))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return PyFile(source, ast.parse(source.text, filename=str(path)))
    except (SourceError, UnicodeDecodeError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None


TRAINING_CODE_BYTES = 2 * 1024 * 1024  # a training module larger than this is generated code, not read


def parse_cached(path: Path, files: FileCache) -> PyFile | None:
    """The file's syntax tree read through the run's file cache (each file read once, whoever
    asks: the DeepSpeed consumer, the Trainer's parser); None when it is missing, larger than
    TRAINING_CODE_BYTES, not UTF-8 or not Python."""
    try:
        source = files.read(path)
        if len(source.data) > TRAINING_CODE_BYTES:
            return None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return PyFile(source, ast.parse(source.text, filename=str(path)))
    except (SourceError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def literal(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _flag(call: ast.Call) -> Flag:
    action = literal(keyword(call, "action"))
    if action in ("store_true", "store_false"):
        return Flag("store_true", action == "store_false")
    declared = keyword(call, "type")
    kind = "bool" if isinstance(declared, ast.Name) and declared.id == "bool" else "value"
    default = keyword(call, "default")
    try:
        value = ast.literal_eval(default) if default is not None else None
    except (ValueError, TypeError, SyntaxError, RecursionError):
        value = None
    return Flag(kind, value)


def argparse_flags(files: list[PyFile]) -> dict[str, Flag]:
    """Every `--flag` an `add_argument` call declares in these files, by name without dashes."""
    flags: dict[str, Flag] = {}
    for file in files:
        for node in file.calls:
            if not isinstance(node.func, ast.Attribute):
                continue
            if node.func.attr == "add_config_arguments":
                flags.update(DEEPSPEED_FLAGS)
            elif node.func.attr == "add_argument":
                names = [t for t in map(literal, node.args) if t and t.startswith("--")]
                for name in names:
                    flags[name[2:]] = _flag(node)
    return flags


@dataclass
class KeyReads:
    """The keys read from one config dict: None when the dict also leaves for code not followed."""

    keys: set[str] = field(default_factory=set)
    open: bool = False
    # The processor function the block is spread into as `**block`: a key outside its
    # parameters is a TypeError when the function is called, not a key ignored.
    function: str | None = None
    strict: bool = False  # spread into a function without **kwargs
    line: int = 0  # where dataset.py spreads it
    guard: Guard | None = None  # the dataset_conf value the spread depends on
    module: str | None = None  # the module of `function` when it is not the dataset's processor.py ("wenet.dataset.dataset_deprecated")
    unfollowed: str | None = None  # where the dict went that was not followed ("get_dataset() at line 40")


def _owner(node: ast.AST, names: set[str]) -> str | None:
    """`configs` or `self.configs` when the name is one of `names`."""
    if isinstance(node, ast.Name) and node.id in names:
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self" and node.attr in names:
        return node.attr  # a trainer class keeps the loaded YAML as self.configs (zsLin177/CopyNE's asr.py)
    return None


def _subscript_key(node: ast.AST, names: set[str]) -> tuple[str, str] | None:
    """(variable, key) for `var['key']`, `var.get('key', ...)` and `'key' in var`."""
    if isinstance(node, ast.Subscript) and _owner(node.value, names) is not None:
        key = literal(node.slice)
        return (_owner(node.value, names), key) if key is not None else None  # type: ignore[return-value]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" and node.args:
        owner = _owner(node.func.value, names)
        if owner is not None and literal(node.args[0]) is not None:
            return owner, literal(node.args[0])  # type: ignore[return-value]
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)):
        owner = _owner(node.comparators[0], names)
        if owner is not None and literal(node.left) is not None:
            return owner, literal(node.left)  # type: ignore[return-value]
    return None


def _conf_variables(function: ast.FunctionDef, conf: str) -> dict[str, str]:
    """variable -> the block of `conf` it holds: `x_conf = conf.get('x_conf', {})`."""
    blocks: dict[str, str] = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            found = _subscript_key(node.value, {conf, *_copies(function, conf)})
            if found is not None and found[1].endswith("_conf"):  # `shuffle = conf.get('shuffle')` is a value
                blocks[node.targets[0].id] = found[1]
    return blocks


_COPIERS = {"deepcopy", "copy", "dict"}


def _copies(function: ast.FunctionDef, conf: str) -> set[str]:
    """Variables holding a copy of `conf`: `x = copy.deepcopy(conf)`, `copy.copy(conf)`,
    `dict(conf)`, `conf.copy()` (the copy is read, or written into, as conf is)."""
    found: set[str] = set()
    for node in ast.walk(function):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            continue
        value = node.value
        if not isinstance(value, ast.Call):
            continue
        copier = _called_name(value.func) in _COPIERS and len(value.args) == 1 and _is_name(value.args[0], conf)
        method = isinstance(value.func, ast.Attribute) and value.func.attr == "copy" and not value.args and _is_name(value.func.value, conf)
        if copier or method:
            found.add(node.targets[0].id)
    return found


def _is_name(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _value_variables(function: ast.FunctionDef, conf: str) -> dict[str, tuple[str, object]]:
    """variable -> (key, default) for `x = conf.get('x', default)`: the values a guard tests."""
    found: dict[str, tuple[str, object]] = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            call = node.value
            read = _subscript_key(call, {conf})
            if read is None or not isinstance(call, ast.Call):
                continue
            try:
                default = ast.literal_eval(call.args[1]) if len(call.args) > 1 else None
            except (ValueError, TypeError, SyntaxError, RecursionError):
                continue
            found[node.targets[0].id] = (read[1], default)
    return found


def _guard(test: ast.expr, values: dict[str, tuple[str, object]]) -> Guard | None:
    if isinstance(test, ast.Name) and test.id in values:
        return Guard(*values[test.id])
    if (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Eq)
        and isinstance(test.left, ast.Name)
        and test.left.id in values
        and isinstance(test.comparators[0], ast.Constant)
    ):
        return Guard(*values[test.left.id], test.comparators[0].value, True)
    return None


def _guards(function: ast.FunctionDef, values: dict[str, tuple[str, object]]) -> dict[int, Guard]:
    """id(call) -> the guard of the innermost `if` whose body holds the call."""
    found: dict[int, Guard] = {}
    for node in ast.walk(function):
        if not isinstance(node, ast.If):
            continue
        guard = _guard(node.test, values)
        if guard is None:
            continue
        for statement in node.body:
            for inner in ast.walk(statement):
                if isinstance(inner, ast.Call):
                    found[id(inner)] = guard  # ast.walk is breadth first: inner ifs overwrite outer ones
    return found


def _parameters(function: ast.FunctionDef) -> tuple[set[str], bool]:
    """A processor function's keyword parameters (all but the first, the data) and whether it takes **kwargs."""
    args = [a.arg for a in (*function.args.posonlyargs, *function.args.args)][1:]
    return {*args, *(a.arg for a in function.args.kwonlyargs)}, function.args.kwarg is not None


def dataset_keys(
    dataset: PyFile, processor: PyFile | None, helpers: list[PyFile] | None = None, function: str = "Dataset"
) -> dict[str, KeyReads] | None:
    """Keys `Dataset(..., conf)` reads: "" for dataset_conf itself, then one entry per block.

    A block passed as `**block` to a processor function reads that function's parameters; a
    block or `conf` passed as an argument to a function of these files (`get_dataset(...,
    conf)`, a datapipe registered by name: `dataset.generate_sw_utterances(block)`) reads what
    that function reads of its parameter; a block passed anywhere else is open (its keys are
    not followed, and `unfollowed` names where it went). `helpers`: the package's other modules
    that may define those functions."""
    target = next((f for f in dataset.functions(function) if any(a.arg == "conf" for a in f.args.args)), None)
    if target is None:
        return None
    # A sibling builder of the same module (ASLP-lab/OSUM's OSUM-EChat trains on BigDataset(...,
    # conf) and validates on Dataset(..., conf)): a key either reads counts.
    siblings = [
        f
        for f in dataset.tree.body
        if isinstance(f, ast.FunctionDef) and f.name.endswith(function) and f is not target and any(a.arg == "conf" for a in f.args.args)
    ]
    processors = {f.name: f for f in processor.functions()} if processor is not None else {}
    callees = _callees([dataset, *(helpers or [])])
    reads = _conf_reads(target, "conf", processors, callees, 0)
    for sibling in siblings:
        for name, inner in _conf_reads(sibling, "conf", processors, callees, 0).items():
            _merge(reads.setdefault(name, KeyReads()), inner)
    reads[""].keys.update(name for name in reads if name)
    return reads


_FOLLOW_DEPTH = 3  # helpers calling helpers: deep enough for the forks seen, bounded for recursion


def _conf_reads(
    function: ast.FunctionDef, conf: str, processors: dict[str, ast.FunctionDef], callees: Callees, depth: int
) -> dict[str, KeyReads]:
    variables = _conf_variables(function, conf)
    guards = _guards(function, _value_variables(function, conf))
    reads: dict[str, KeyReads] = {"": KeyReads()}
    for block in variables.values():
        reads.setdefault(block, KeyReads())
    copies = _copies(function, conf)
    for node in ast.walk(function):
        found = _subscript_key(node, {conf, *copies, *variables})
        if found is not None:
            reads["" if found[0] in (conf, *copies) else variables[found[0]]].keys.add(found[1])
        nested = _nested_key(node, {conf, *copies})
        if nested is not None:  # `copy['other_conf']['only_info'][...] = True`: a key of that block the code needs
            reads.setdefault(nested[0], KeyReads()).keys.add(nested[1])
        dynamic = _dynamic_use(node, {conf, *variables}, conf)
        if dynamic is not None:
            dict_read = reads["" if dynamic[0] == conf else variables[dynamic[0]]]
            dict_read.open, dict_read.unfollowed = True, dict_read.unfollowed or dynamic[1]
        if isinstance(node, ast.Call):
            _spread(node, variables, processors, reads, guards.get(id(node)))
            _handed(node, {conf, *copies}, variables, processors, callees, reads, depth)
    return reads


def _nested_key(node: ast.AST, names: set[str]) -> tuple[str, str] | None:
    """(block, key) for `conf['block']['key']` or `conf['block'].get('key')` (conf: one of `names`)."""
    if isinstance(node, ast.Subscript):
        outer, key = node.value, literal(node.slice)
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" and node.args:
        outer, key = node.func.value, literal(node.args[0])
    else:
        return None
    block = _subscript_key(outer, names) if isinstance(outer, ast.Subscript) else None
    return (block[1], key) if block is not None and key is not None else None


def _dynamic_use(node: ast.AST, names: set[str], conf: str) -> tuple[str, str] | None:
    """(name, what) where a dict is read by keys the code computes: `conf[name]`, iteration
    (`for k in conf`, `conf.items()`), or `**conf` spread into a call (a block's spread is
    _spread's): which keys it reads is not known."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in names and literal(node.slice) is None:
        return node.value.id, f"{node.value.id}[{ast.unparse(node.slice)}] at line {node.lineno}"
    if isinstance(node, (ast.For, ast.comprehension)) and isinstance(node.iter, ast.Name) and node.iter.id in names:
        return node.iter.id, f"iteration over {node.iter.id} at line {node.iter.lineno}"
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id in names
        and (node.func.attr in ("items", "keys", "values") or (node.func.attr == "get" and node.args and literal(node.args[0]) is None))
    ):
        return node.func.value.id, f"{ast.unparse(node.func)}() at line {node.lineno}"
    if isinstance(node, ast.Call):
        for keyword in node.keywords:
            if keyword.arg is None and isinstance(keyword.value, ast.Name) and keyword.value.id == conf:
                return conf, f"**{keyword.value.id} into {_called_name(node.func) or 'a call'}() at line {node.lineno}"
    return None


def _handed(
    call: ast.Call,
    confs: set[str],
    variables: dict[str, str],
    processors: dict[str, ast.FunctionDef],
    callees: Callees,
    reads: dict[str, KeyReads],
    depth: int,
) -> None:
    """`conf` (or a copy of it, `confs`) or a block handed to a function as an argument (not
    spread): what that function reads of the parameter it lands in. Copying it is no hand-over."""
    if _called_name(call.func) in _COPIERS:
        return
    for name, parameter in _arguments(call):
        if name not in confs and name not in variables:
            continue
        found = callees.get(_called_name(call.func) or "") or _processor_call(call, processors, parameter)
        callee = found[0] if found is not None else None
        where = None if found is None else _parameter_name(found[0], parameter, found[1])
        if callee is None or where is None or depth >= _FOLLOW_DEPTH:
            block = reads["" if name in confs else variables[name]]
            block.open = True
            block.unfollowed = block.unfollowed or f"{_called_name(call.func) or 'a call'}() at line {call.lineno}"
            continue
        if name in confs:
            for name_in, inner in _conf_reads(callee, where, processors, callees, depth + 1).items():
                _merge(reads.setdefault(name_in, KeyReads()), inner)
        else:
            _merge(reads[variables[name]], _param_reads(callee, where))


def _processor_call(call: ast.Call, processors: dict[str, ast.FunctionDef], parameter: int | str) -> tuple[ast.FunctionDef, int] | None:
    """`Processor(dataset, processor.tokenize, tokenizer, other_conf=block)`: WeNet's pipeline
    wrapper calls the processor function with the data and the arguments after it, so an
    argument lands in that function's parameter (the keyword's name, or its position past the
    function). (function, the positional arguments before it that it does not take)."""
    for index, arg in enumerate(call.args):
        name = arg.attr if isinstance(arg, ast.Attribute) else arg.id if isinstance(arg, ast.Name) else None
        if name in processors and (isinstance(parameter, str) or parameter > index):
            return processors[name], index  # the function's first parameter (the data) stands where it is named
    return None


def _merge(into: KeyReads, other: KeyReads) -> None:
    into.keys.update(other.keys)
    into.open = into.open or other.open
    into.unfollowed = into.unfollowed or other.unfollowed
    if into.function is None and other.function is not None:
        into.function, into.strict, into.line, into.guard = other.function, other.strict, other.line, other.guard


def _arguments(call: ast.Call) -> Iterator[tuple[str, int | str]]:
    """(variable, position or keyword) for each plain variable the call passes (not spread)."""
    for index, arg in enumerate(call.args):
        if isinstance(arg, ast.Name):
            yield arg.id, index
    for keyword in call.keywords:
        if keyword.arg is not None and isinstance(keyword.value, ast.Name):
            yield keyword.value.id, keyword.arg


def _called_name(func: ast.expr) -> str | None:
    """`fn` of `fn(...)`, `module.fn(...)` and `dataset.fn(...)` (a datapipe called by its registered name)."""
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _parameter_name(function: ast.FunctionDef, where: int | str, skip: int = 0) -> str | None:
    names = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
    if names[:1] in (["self"], ["cls"]):
        names = names[1:]
    names = names[skip:]
    if isinstance(where, str):
        return where if where in names or where in {a.arg for a in function.args.kwonlyargs} else None
    return names[where] if where < len(names) else None


Callees = dict[str, tuple[ast.FunctionDef, int]]  # name called -> (function, positional arguments the call does not pass)


def _callees(files: list[PyFile]) -> Callees:
    """Functions a call may land in, by the name it is called with: module-level functions, and
    the `__init__` of a class registered as `@functional_datapipe("name")` (torch's datapipes are
    called as `dataset.name(...)`, the data pipe itself the first argument)."""
    found: Callees = {}
    for file in files:
        for node in file.tree.body:
            if isinstance(node, ast.FunctionDef):
                found.setdefault(node.name, (node, 0))
            elif isinstance(node, ast.ClassDef):
                init = next((f for f in node.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
                for name in (literal(d.args[0]) for d in node.decorator_list if isinstance(d, ast.Call) and d.args):
                    if name and init is not None:
                        found.setdefault(name, (init, 1))  # `dataset.name(conf)`: the pipe is __init__'s first argument
    return found


def _param_reads(function: ast.FunctionDef, parameter: str) -> KeyReads:
    """What a function reads of the dict its parameter holds: `p.get('k')`, `p['k']`, `'k' in p`;
    open when the dict is used any other way (iterated, passed on, spread, returned)."""
    reads = KeyReads()
    used: set[int] = set()
    for node in ast.walk(function):
        found = _subscript_key(node, {parameter})
        if found is not None:
            reads.keys.add(found[1])
            used.update(id(n) for n in ast.walk(node) if isinstance(n, ast.Name) and n.id == parameter)
    others = [
        n for n in ast.walk(function) if isinstance(n, ast.Name) and n.id == parameter and isinstance(n.ctx, ast.Load) and id(n) not in used
    ]
    if others:
        reads.open = True
        reads.unfollowed = f"{parameter} used at line {others[0].lineno} of {function.name}()"
    return reads


def _spread(
    call: ast.Call, variables: dict[str, str], processors: dict[str, ast.FunctionDef], reads: dict[str, KeyReads], guard: Guard | None
) -> None:
    """`partial(processor.fn, **block)`, `Processor(data, processor.fn, **block)`, `fn(x, **block)`."""
    for keyword in call.keywords:
        if keyword.arg is not None or not isinstance(keyword.value, ast.Name) or keyword.value.id not in variables:
            continue
        block = reads[variables[keyword.value.id]]
        callees = [call.func, *call.args]
        names = [n.attr if isinstance(n, ast.Attribute) else n.id for n in callees if isinstance(n, (ast.Attribute, ast.Name))]
        target = next((processors[n] for n in names if n in processors), None)
        if target is None:
            block.open = True
            if processors:  # the processor module read, and the block goes elsewhere (none read: a trimmed copy, open as before)
                spread = f"**{keyword.value.id} into {_called_name(call.func) or 'a call'}() at line {call.lineno}"
                block.unfollowed = block.unfollowed or spread
            continue
        parameters, takes_any = _parameters(target)
        block.keys.update(parameters)
        block.open = block.open or takes_any
        if takes_any:
            block.unfollowed = block.unfollowed or f"{target.name}() takes **{target.args.kwarg.arg} (spread at line {call.lineno})"  # type: ignore[union-attr]
        if block.function is None:
            block.function, block.strict, block.line, block.guard = target.name, not takes_any, call.lineno, guard


def spread_dataset_conf(entry: PyFile, module: Callable[[str], PyFile | None]) -> KeyReads | None:
    """`AudioDataset(args.train_data, **dataset_conf, raw_wav=raw_wav)` in a training script
    (WeNet 1's bin/train.py, WeNet 2's bin/train_deprecated.py): dataset_conf is spread into the
    callee, found through the script's `from wenet.dataset.M import Name` (`module` reads
    `wenet/dataset/M.py`). Its keys are the parameters the call leaves open (a class's
    `__init__`, less `self`, the positional arguments and the keywords the call passes itself);
    strict unless it takes **kwargs. None when the script spreads no dataset_conf."""
    names = {"dataset_conf"}
    for node in entry.nodes:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            found = _subscript_key(node.value, CONFIG_NAMES)
            if found is not None and found[1] == "dataset_conf":
                names.add(node.targets[0].id)
    imports = {
        alias.asname or alias.name: node.module
        for node in entry.nodes
        if isinstance(node, ast.ImportFrom) and node.module
        for alias in node.names
    }
    for call in (n for n in entry.nodes if isinstance(n, ast.Call)):
        callee = call.func.id if isinstance(call.func, ast.Name) else None
        spread = callee is not None and any(k.arg is None and _names_conf(k.value, names) for k in call.keywords)
        origin = imports.get(callee) if callee is not None and spread else None
        target = _callable(module(origin), callee) if origin and callee else None
        if target is None or callee is None:
            continue
        parameters = [a.arg for a in (*target.args.posonlyargs, *target.args.args)]
        parameters = parameters[(1 if parameters[:1] == ["self"] else 0) + len(call.args) :]
        passed = {k.arg for k in call.keywords if k.arg is not None}
        keys = {*parameters, *(a.arg for a in target.args.kwonlyargs)} - passed
        open_ = target.args.kwarg is not None
        return KeyReads(keys, open_, callee, not open_, call.lineno, None, origin)
    return None


def imported_from(file: PyFile, name: str) -> str | None:
    """The module `from M import name` takes `name` from, in this file."""
    for node in file.nodes:
        if isinstance(node, ast.ImportFrom) and node.module and any((a.asname or a.name) == name for a in node.names):
            return node.module
    return None


def bound_module(file: PyFile, name: str) -> str | None:
    """The module a name of the file is bound to: `import wenet.dataset.process.processor as
    processor` or `from wenet.dataset.process import processor` -> wenet.dataset.process.processor."""
    for node in file.tree.body:
        if isinstance(node, ast.Import):
            found = next((a.name for a in node.names if a.asname == name), None)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found = next((f"{node.module}.{a.name}" for a in node.names if (a.asname or a.name) == name), None)
        else:
            continue
        if found is not None:
            return found
    return None


def imported_modules(file: PyFile, package: str) -> list[str]:
    """The modules of `package` the file imports: `from wenet.utils.train_utils import x` ->
    wenet.utils.train_utils, `from wenet.utils import train_utils` -> both candidates."""
    found: list[str] = []
    for node in file.nodes:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == package:
            found.append(node.module)
            found.extend(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.extend(a.name for a in node.names if a.name.split(".")[0] == package)
    return list(dict.fromkeys(found))


def _names_conf(node: ast.expr, names: set[str]) -> bool:
    """`dataset_conf` (a variable holding it) or `configs['dataset_conf']`."""
    if isinstance(node, ast.Name):
        return node.id in names
    found = _subscript_key(node, CONFIG_NAMES)
    return found is not None and found[1] == "dataset_conf"


def _callable(file: PyFile | None, name: str) -> ast.FunctionDef | None:
    """The function `name`, or the `__init__` of the class `name`, defined at the top of `file`."""
    for node in file.tree.body if file is not None else ():
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
        if isinstance(node, ast.ClassDef) and node.name == name:
            return next((f for f in node.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
    return None


CONFIG_NAMES = {"configs", "config", "info_dict"}


def config_keys(files: list[PyFile]) -> set[str]:
    """Top-level YAML keys read as `configs['k']`, `configs.get('k')` or `'k' in configs`."""
    keys: set[str] = set()
    for file in files:
        for node in file.nodes:
            found = _subscript_key(node, CONFIG_NAMES)
            if found is not None:
                keys.add(found[1])
    return keys


def read_keys(files: list[PyFile], top: bool = False) -> set[str]:
    """Every string key the code reads from any dict, or writes into one: `x['k']`, `x.get('k')`,
    `'k' in x`. A fork hands its YAML around under many names (`args['pseudo_ratio']` in an
    executor, `conf` blocks in model builders), and saves keys of its own into the train.yaml
    it writes beside the model (`infos['save_time']`). `top`: the keys that may be top-level
    ones, leaving out a key read only below another constant key (`config['encoder_conf']
    ['input_layer']` in NefelibataJay/DialectMoE's wenet/utils/common.py reads no top-level
    `input_layer`)."""
    keys: set[str] = set()
    for file in files:
        for node in file.nodes:
            if isinstance(node, ast.Subscript):  # loaded, or written: a key the code puts in the YAML it saves (infos['save_time'])
                key, owner = literal(node.slice), node.value
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" and node.args:
                key, owner = literal(node.args[0]), node.func.value
            elif isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)):
                key, owner = literal(node.left), node.comparators[0]
            else:
                continue
            if key and not (top and _constant_key_read(owner)):
                keys.add(key)
    return keys


def _constant_key_read(node: ast.AST) -> bool:
    """`x['k']` or `x.get('k')`: a dict read with a constant key (what a nested block is)."""
    if isinstance(node, ast.Subscript):
        return literal(node.slice) is not None
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and bool(node.args)
        and literal(node.args[0]) is not None
    )


def _indexed(node: ast.AST, names: set[str]) -> Iterator[ast.Subscript]:
    """`configs['k']` loads in an expression, leaving out the parts that may not run (the arms of
    `a if c else b`, the right of `and`/`or`, lambdas and comprehensions)."""
    if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
        return
    if isinstance(node, ast.IfExp):
        yield from _indexed(node.test, names)
        return
    if isinstance(node, ast.BoolOp):
        yield from _indexed(node.values[0], names)
        return
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
        if isinstance(node.value, ast.Name) and node.value.id in names and literal(node.slice) is not None:
            yield node
    for child in ast.iter_child_nodes(node):
        yield from _indexed(child, names)


def _must_index(body: list[ast.stmt], names: set[str]) -> dict[str, ast.Subscript] | None:
    """key -> the first `configs['key']` every path through `body` runs (None: no path falls
    through). A key indexed on only some branches, or inside a loop or try, is not required."""
    found: dict[str, ast.Subscript] = {}
    for statement in body:
        if isinstance(statement, ast.If):
            for read in _indexed(statement.test, names):
                found.setdefault(literal(read.slice) or "", read)
            arms = [statement.body, statement.orelse]
            if any(arm and isinstance(arm[-1], ast.Return) for arm in arms):
                return found  # a path leaves here: what follows is not read on every path
            live = [read for read in (_must_index(arm, names) if arm else {} for arm in arms) if read is not None]
            if not live:
                return None
            for key in set.intersection(*(set(arm) for arm in live)):
                found.setdefault(key, live[0][key])
        elif isinstance(statement, (ast.With, ast.AsyncWith)):
            inner = _must_index(statement.body, names)
            found.update({k: v for k, v in (inner or {}).items() if k not in found})
        elif isinstance(statement, (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return, ast.Assert)):
            for read in _indexed(statement, names):
                found.setdefault(literal(read.slice) or "", read)
            if isinstance(statement, ast.Return):
                return found
        elif isinstance(statement, ast.Raise):
            return None
    return found


def required_keys(file: PyFile, function: str, names: frozenset[str] = frozenset({"configs"})) -> dict[str, Span] | None:
    """Top-level YAML keys `function` indexes on every path (`configs['k']`, not `.get`): a
    config without one stops with KeyError there. None when the function is not in the file."""
    target = next(file.functions(function), None)
    if target is None:
        return None
    found = _must_index(target.body, set(names)) or {}
    return {key: file.span(node) for key, node in found.items()}


def dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Attribute):
        return f"{dotted(node.value)}.{node.attr}"
    return node.id if isinstance(node, ast.Name) else ""


def glob_files(package: Path, pattern: str) -> list[PyFile]:
    return [f for f in (parse_python(p) for p in sorted(package.glob(pattern))) if f is not None]


def env_default(package: Path, relative: str, variable: str) -> tuple[bool, int | None, Span | None] | None:
    """How a file reads `os.getenv(VARIABLE, default=N)`: (True, N, where) when it does (N None
    for a default that is not a literal number), (False, None, None) when the file is there
    without it, None when the file is not there."""
    file = parse_python(package / relative)
    if file is None:
        return None
    for call in file.calls:
        if dotted(call.func).endswith(("getenv", "environ.get")) and call.args and literal(call.args[0]) == variable:
            default = call.args[1] if len(call.args) > 1 else keyword(call, "default")
            value = default.value if isinstance(default, ast.Constant) and isinstance(default.value, (int, str)) else None
            try:
                return True, (int(value) if value is not None else None), file.span(call)
            except ValueError:
                return True, None, file.span(call)
    return False, None, None


def version_assignment(path: Path) -> str | None:
    """`__version__ = '0.1.19'` in a version.py."""
    file = parse_python(path)
    if file is None:
        return None
    for node in file.tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__version__" for t in node.targets):
            return literal(node.value)
    return None


# Where a DataLoader's worker count is handed over: torch's DataLoader(num_workers=...), Hugging
# Face's TrainingArguments(dataloader_num_workers=...).
_WORKER_KEYWORDS = ("num_workers", "dataloader_num_workers")


def workers_reach(file: PyFile, dest: str) -> bool:
    """Whether the script hands its command-line value `dest` (`args.num_workers`) to a
    DataLoader: `num_workers=args.<dest>` or `dataloader_num_workers=args.<dest>` in a call, or,
    for `dataloader_num_workers`, a Hugging Face `HfArgumentParser` that parses it into
    TrainingArguments. A flag parsed and never passed on (mPLUG-Owl's `--num-workers`, whose
    TrainingArguments is built without it) does not reach the loader."""
    for node in file.nodes:
        if dest == "dataloader_num_workers" and _dotted_name(node) == "HfArgumentParser":
            return True
        if isinstance(node, ast.Call):
            for keyword in node.keywords:
                value = keyword.value
                if keyword.arg in _WORKER_KEYWORDS and isinstance(value, ast.Attribute) and value.attr == dest:
                    return True
    return False


# DataLoader keywords whose value a config file may carry (torch.utils.data.DataLoader).
LOADER_KEYWORDS = ("num_workers", "prefetch_factor", "pin_memory")


def loader_keys(file: PyFile) -> dict[str, tuple[list[str], int]]:
    """The config keys the script hands to a DataLoader's keywords: `num_workers=cfg.data.num_workers`,
    `num_workers=config["dataset"]["num_workers"]`, `num_workers=conf.get("num_workers")` give
    the key path after the config object (["data", "num_workers"]) and the call's line. A flag
    (`args.num_workers`) is a key path too: the caller tells them apart by where it looks."""
    found: dict[str, tuple[list[str], int]] = {}
    for call in file.calls:
        for keyword in call.keywords:
            if keyword.arg not in LOADER_KEYWORDS:
                continue
            value = keyword.value
            if isinstance(value, ast.IfExp):  # `None if cfg.num_workers == 0 else cfg.prefetch_factor`: the key read
                value = value.orelse if isinstance(value.body, ast.Constant) else value.body
            path = _key_path(value)
            # several loaders (OLMo's eval `data_config.num_workers`, train `train_config.data.num_workers`):
            # the longest path names the key most exactly
            if path and len(path) > len(found.get(keyword.arg, ([], 0))[0]):
                found[keyword.arg] = (path, call.lineno)
    return found


def _key_path(node: ast.expr) -> list[str]:
    """`cfg.data.num_workers` -> ["data", "num_workers"]: the attribute and constant-subscript
    chain below its first name (empty for anything else)."""
    parts: list[str] = []
    while True:
        if isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
            parts.append(node.slice.value)
            node = node.value
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            parts.append(node.args[0].value)
            node = node.func.value
        else:
            return parts[::-1] if isinstance(node, ast.Name) else []


def _dotted_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    return node.attr if isinstance(node, ast.Attribute) else None


@dataclass
class Compared:
    """The constants the code compares a config key's value with: the values it handles."""

    values: set[object] = field(default_factory=set)
    rejects: Span | None = None  # an `assert value in [...]`, or an if/elif chain whose else raises: other values stop the run
    where: Span | None = None  # the first comparison


def _holds_key(node: ast.AST, key: str, variables: set[str]) -> bool:
    """`conf['key']`, `conf.get('key')`, or a variable assigned from one (or a parameter named `key`)."""
    if isinstance(node, ast.Name):
        return node.id in variables
    if isinstance(node, ast.Subscript):
        return literal(node.slice) == key
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and bool(node.args)
        and literal(node.args[0]) == key
    )


def _key_variables(function: ast.FunctionDef, key: str) -> set[str]:
    names = {a.arg for a in (*function.args.args, *function.args.kwonlyargs) if a.arg == key}
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            if _holds_key(node.value, key, set()):
                names.add(node.targets[0].id)
    return names


Tables = dict[str, tuple[set[object], bool]]  # a module's constant collections: name -> (members, is a dict)


def _tables(file: PyFile) -> Tables:
    """The module-level names bound to a collection of constants: `SCHEDULERS = {'warmuplr':
    WarmupLR, ...}` (its keys, a dict), `FEATS = ['fbank', 'mfcc']`."""
    found: Tables = {}
    for node in file.tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = node.value
            if isinstance(value, ast.Dict) and value.keys and all(isinstance(k, ast.Constant) for k in value.keys):
                found[node.targets[0].id] = ({k.value for k in value.keys if isinstance(k, ast.Constant)}, True)
            elif (members := _constants(value)) is not None and not isinstance(value, ast.Constant):
                found[node.targets[0].id] = (members, False)
    return found


def _constants(node: ast.expr, tables: Tables | None = None) -> set[object] | None:
    if isinstance(node, ast.Constant):
        return {node.value}
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)) and all(isinstance(e, ast.Constant) for e in node.elts):
        return {e.value for e in node.elts}  # type: ignore[attr-defined]
    if tables and isinstance(node, ast.Name) and node.id in tables:
        return set(tables[node.id][0])  # `x in SCHEDULERS`: the table's keys
    return None


def _comparison(test: ast.expr, key: str, variables: set[str], tables: Tables | None = None) -> set[object] | None:
    """The constants `test` compares the key's value with (`v == 'a'`, `v in ['a', 'b']`, `v is None`)."""
    if not isinstance(test, ast.Compare) or len(test.ops) != 1 or not _holds_key(test.left, key, variables):
        return None
    if isinstance(test.ops[0], (ast.Eq, ast.In, ast.Is, ast.IsNot, ast.NotEq)):
        return _constants(test.comparators[0], tables)
    return None


def _lookup(node: ast.AST, key: str, variables: set[str], tables: Tables) -> tuple[set[object], bool] | None:
    """The keys of a constant dict the key's value looks up: `SCHEDULERS[configs['scheduler']]`
    (another value is a KeyError: True) or `SCHEDULERS.get(name)` (None for another: False)."""
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and isinstance(node.value, ast.Name):
        table, probe, rejects = node.value.id, node.slice, True
    elif (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and isinstance(node.func.value, ast.Name)
        and node.args
    ):
        table, probe, rejects = node.func.value.id, node.args[0], False
    else:
        return None
    if table not in tables or not tables[table][1] or not _holds_key(probe, key, variables):
        return None
    return set(tables[table][0]), rejects


def _chain_raises(branch: ast.If) -> bool:
    """An if/elif chain whose final else raises (or asserts False)."""
    while len(branch.orelse) == 1 and isinstance(branch.orelse[0], ast.If):
        branch = branch.orelse[0]
    last = branch.orelse[-1] if branch.orelse else None
    return isinstance(last, ast.Raise) or (isinstance(last, ast.Assert) and isinstance(last.test, ast.Constant) and not last.test.value)


def _literal(annotation: ast.expr | None) -> set[object] | None:
    """The members of a `Literal['a', 'b']` annotation (also inside `Optional[...]` or `X | None`)."""
    if annotation is None:
        return None
    for node in ast.walk(annotation):
        if isinstance(node, ast.Subscript) and _dotted_name(node.value) == "Literal":
            members = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            if all(isinstance(m, ast.Constant) for m in members):
                return {m.value for m in members if isinstance(m, ast.Constant)}
    return None


def _annotated(file: PyFile, key: str) -> Iterator[tuple[set[object], ast.AST]]:
    """`Literal` choices declared for a name `key`: a parameter (`scheduler: Literal[...]`) or a
    class field (a dataclass the config is loaded into)."""
    for node in file.nodes:
        if isinstance(node, ast.arg) and node.arg == key:
            values = _literal(node.annotation)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == key:
            values = _literal(node.annotation)
        else:
            continue
        if values is not None:
            yield values, node


def _function_values(file: PyFile, function: ast.FunctionDef, key: str, tables: Tables, found: Compared) -> None:
    """The comparisons and table lookups of the key's value in one function, into `found`."""
    variables = _key_variables(function, key)
    for node in ast.walk(function):
        test = node.test if isinstance(node, (ast.If, ast.Assert, ast.IfExp)) else None
        values = _comparison(test, key, variables, tables) if test is not None else None
        rejects = isinstance(node, ast.Assert) or (isinstance(node, ast.If) and _chain_raises(node))
        if values is None:
            looked = _lookup(node, key, variables, tables)
            if looked is None:
                continue
            values, rejects = looked
        found.values.update(values)
        found.where = found.where or file.span(node)
        if rejects:
            found.rejects = found.rejects or file.span(node)


def compared_values(files: list[PyFile], key: str) -> Compared | None:
    """What the code compares a config key's value with, in every function of these files: the
    values some branch handles, a constant dict it looks the value up in, a `Literal` declared
    for it; `rejects` where any other value stops the run (an assert, an if/elif chain whose else
    raises, a `TABLE[value]` lookup). None when no code compares it (the key's values are not
    followed)."""
    found = Compared()
    own = [_tables(file) for file in files]
    # A table imported from another module (`from .scheduler import SCHEDULERS`): a name only
    # one of the files defines.
    counts = Counter(name for tables in own for name in tables)
    shared = {name: t[name] for t in own for name in t if counts[name] == 1}
    for file, tables in zip(files, own, strict=True):
        tables = {**shared, **tables}
        for function in file.functions():
            _function_values(file, function, key, tables, found)
        for values, node in _annotated(file, key):
            found.values.update(values)
            found.where = found.where or file.span(node)
    return found if found.where is not None else None


def value_read(files: list[PyFile], name: str) -> Span | None:
    """Where the code reads a setting by name: `args.<name>` (any `x.<name>` on a plain
    variable) or `conf['<name>']` / `conf.get('<name>')` on a name (train.py copies its flags
    into the config dict). None: no code reads it, so the flag reaches nothing."""
    for file in files:
        for node in file.nodes:
            if (
                isinstance(node, ast.Attribute)
                and node.attr == name
                and isinstance(node.ctx, ast.Load)
                and isinstance(node.value, ast.Name)
            ):
                return file.span(node)
            if isinstance(node, (ast.Subscript, ast.Call)) and _holds_key(node, name, set()):
                if not isinstance(node, ast.Subscript) or isinstance(node.ctx, ast.Load):
                    return file.span(node)
    return None


def loader_keywords(files: list[PyFile]) -> tuple[set[str], Span | None]:
    """The keywords every `DataLoader(...)` call of these files passes together, and where the
    first call is (None: the code builds no DataLoader here)."""
    keywords: set[str] = set()
    first = None
    for file in files:
        for call in file.calls:
            if _dotted_name(call.func) == "DataLoader":
                keywords.update(k.arg for k in call.keywords if k.arg)
                first = first or file.span(call)
    return keywords, first


WRAPPER_DEPTH = 2  # train_mem.py -> llava.train.train: the wrappers seen are one import deep
WRAPPER_FILES = 40  # modules read for one launched script, at most


def _module_paths(root: Path, module: str) -> list[Path]:
    base = root.joinpath(*module.split("."))
    return [base.with_suffix(".py"), base / "__init__.py"]


def _imported_names(file: PyFile) -> Iterator[str]:
    """Dotted modules a file imports (absolute imports), with each imported name as a possible
    submodule (`from llava.train import train`)."""
    for node in file.tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module
            yield from (f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
    for inner in file.nodes:  # imports inside functions (`def train(): from x import y`) too
        if isinstance(inner, ast.ImportFrom) and inner.module and inner.level == 0 and inner not in file.tree.body:
            yield inner.module


def script_closure(script: PyFile, roots: list[Path]) -> list[PyFile]:
    """The launched script and the modules it imports (WRAPPER_DEPTH deep) that are files under
    `roots` (the script's folder and those above it): a wrapper such as LLaVA's train_mem.py,
    whose whole body is `from llava.train.train import train; train()`, is judged by the module
    whose code it runs. Packages installed elsewhere are not read."""
    seen: dict[Path, PyFile] = {script.source.path: script}
    frontier = [script]
    for _ in range(WRAPPER_DEPTH):
        found = []
        for file in frontier:
            for module in dict.fromkeys(_imported_names(file)):
                path = next((p for root in roots for p in _module_paths(root, module) if p.is_file()), None)
                if path is None or path in seen or len(seen) >= WRAPPER_FILES:
                    continue
                parsed = parse_python(path)
                if parsed is not None:
                    seen[path] = parsed
                    found.append(parsed)
        frontier = found
    return list(seen.values())


def parses_arguments(file: PyFile) -> bool:
    """Whether the file reads the command line: argparse's `parse_args`/`parse_known_args`, an
    `HfArgumentParser`, or `sys.argv`."""
    for node in file.nodes:
        name = _dotted_name(node)
        if name in ("parse_args", "parse_known_args", "HfArgumentParser", "parse_args_into_dataclasses", "argv"):
            return True
    return False
