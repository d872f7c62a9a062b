"""mmengine-style Python configs (XTuner), read with `ast` and never executed.

Only what a linter needs: module-level assignments (with `*=` and friends), `dict(...)` calls
and literal arithmetic over earlier assignments. Each value keeps the span of the expression
that defines it, so a fix rewrites exactly that expression.
"""

from __future__ import annotations

import ast
import operator
import re
import warnings
from collections.abc import Callable
from typing import Any

from recipelint.parse.files import SourceError
from recipelint.parse.span import SourceText, Span
from recipelint.records import dataclass, field

_BINOPS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
UNKNOWN = object()  # a value only the run time knows (a function call, an import)


@dataclass
class PyValue:
    value: Any  # a Python value, a dict of PyValue for dict(...) / {...}, or UNKNOWN
    span: Span  # the expression
    name: str | None = None  # the module-level name it was read through, if any
    literal: bool = False  # a plain literal a fix can overwrite in place

    @property
    def known(self) -> bool:
        return self.value is not UNKNOWN

    def get(self, dotted: str) -> PyValue | None:
        node: PyValue | None = self
        for part in dotted.split("."):
            if node is None or not isinstance(node.value, dict):
                return None
            node = node.value.get(part)
        return node

    def plain(self) -> Any:
        if isinstance(self.value, dict):
            return {k: v.plain() for k, v in self.value.items()}
        return None if self.value is UNKNOWN else self.value


@dataclass
class PyConfig:
    source: SourceText
    names: dict[str, PyValue] = field(default_factory=dict)  # module-level names, last assignment wins
    assigned_at: dict[str, Span] = field(default_factory=dict)  # where each name is last assigned
    imports: list[str] = field(default_factory=list)
    calls: set[str] = field(default_factory=set)  # names called anywhere (process_hf_dataset, LLaVADataset, ...)

    def get(self, dotted: str) -> PyValue | None:
        head, _, rest = dotted.partition(".")
        value = self.names.get(head)
        return value.get(rest) if value is not None and rest else value


class _Reader:
    def __init__(self, source: SourceText) -> None:
        self.source = source
        self.config = PyConfig(source)
        # Python's tokenizer ends a line at \r\n, \n or a lone \r; ast line numbers count those.
        self.starts = [0] + [m.end() for m in re.finditer(rb"\r\n|\n|\r", source.data)]

    def span(self, node: ast.AST) -> Span:
        # ast columns are UTF-8 byte offsets within the line
        start = self.starts[node.lineno - 1] + node.col_offset + (self.source.bom if node.lineno == 1 else 0)  # type: ignore[attr-defined]
        end = self.starts[node.end_lineno - 1] + node.end_col_offset + (self.source.bom if node.end_lineno == 1 else 0)  # type: ignore[attr-defined]
        return self.source.span(start, end)

    def evaluate(self, node: ast.expr) -> PyValue:
        span = self.span(node)
        if isinstance(node, ast.Constant):
            return PyValue(node.value, span, literal=True)
        read = _READERS.get(type(node))
        return read(self, node, span) if read is not None else PyValue(UNKNOWN, span)

    def _negative(self, node: ast.UnaryOp, span: Span) -> PyValue:
        if not isinstance(node.op, ast.USub):
            return PyValue(UNKNOWN, span)
        inner = self.evaluate(node.operand)
        if isinstance(inner.value, (int, float)) and not isinstance(inner.value, bool):
            return PyValue(-inner.value, span, literal=inner.literal)
        return PyValue(UNKNOWN, span)

    def _name(self, node: ast.Name, span: Span) -> PyValue:
        found = self.config.names.get(node.id)
        if found is None:
            return PyValue(UNKNOWN, span, node.id)
        return PyValue(found.value, found.span, node.id, found.literal)

    def _binop(self, node: ast.BinOp, span: Span) -> PyValue:
        if type(node.op) not in _BINOPS:
            return PyValue(UNKNOWN, span)
        left, right = self.evaluate(node.left), self.evaluate(node.right)
        numbers = all(isinstance(v.value, (int, float)) and not isinstance(v.value, bool) for v in (left, right))
        if numbers:
            try:
                if isinstance(node.op, ast.Pow) and abs(right.value) > 64:
                    raise OverflowError
                return PyValue(_BINOPS[type(node.op)](left.value, right.value), span)
            except (ArithmeticError, ValueError):
                pass
        return PyValue(UNKNOWN, span)

    def _call(self, node: ast.Call, span: Span) -> PyValue:
        name = node.func.id if isinstance(node.func, ast.Name) else node.func.attr if isinstance(node.func, ast.Attribute) else None
        if name:
            self.config.calls.add(name)
        if name == "dict" and not node.args:
            return PyValue({kw.arg: self.evaluate(kw.value) for kw in node.keywords if kw.arg}, span)
        for kw in node.keywords:  # remember what is called inside, e.g. type=process_hf_dataset
            self.evaluate(kw.value)
        return PyValue(UNKNOWN, span)

    def _dict(self, node: ast.Dict, span: Span) -> PyValue:
        out = {}
        for key, value in zip(node.keys, node.values, strict=True):
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                out[key.value] = self.evaluate(value)
        return PyValue(out, span)

    def _sequence(self, node: ast.List | ast.Tuple, span: Span) -> PyValue:
        items = [self.evaluate(e) for e in node.elts]
        plain = [i.value for i in items]
        return PyValue(UNKNOWN if any(v is UNKNOWN for v in plain) else plain, span)

    def _branches(self, node: ast.IfExp, span: Span) -> PyValue:
        self.evaluate(node.body)  # for the calls inside
        self.evaluate(node.orelse)
        return PyValue(UNKNOWN, span)

    def visit(self, tree: ast.Module) -> None:
        for statement in tree.body:
            if isinstance(statement, ast.Assign):
                value = self.evaluate(statement.value)
                for target in statement.targets:
                    if isinstance(target, ast.Name):
                        self.config.names[target.id] = PyValue(value.value, value.span, None, value.literal)
                        self.config.assigned_at[target.id] = self.span(statement)
            elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) and statement.value is not None:
                value = self.evaluate(statement.value)
                self.config.names[statement.target.id] = PyValue(value.value, value.span, None, value.literal)
            elif isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Name) and type(statement.op) in _BINOPS:
                name = statement.target.id
                current = self.config.names.get(name)
                right = self.evaluate(statement.value)
                span = self.span(statement)
                if current is not None and all(
                    isinstance(v, (int, float)) and not isinstance(v, bool) for v in (current.value, right.value)
                ):
                    self.config.names[name] = PyValue(_BINOPS[type(statement.op)](current.value, right.value), span)
                else:
                    self.config.names[name] = PyValue(UNKNOWN, span)
            elif isinstance(statement, (ast.Import, ast.ImportFrom)):
                for alias in statement.names:
                    self.config.imports.append(alias.asname or alias.name)
                    if alias.name in ("process_hf_dataset", "LLaVADataset", "InternVL_V1_5_Dataset"):
                        self.config.calls.add(alias.name)


def parse_pyconfig(source: SourceText) -> PyConfig:
    try:
        with warnings.catch_warnings():  # "invalid escape sequence" and friends are not ours to print
            warnings.simplefilter("ignore")
            tree = ast.parse(source.text, filename=str(source.path))
    except SyntaxError as exc:
        raise SourceError(source.path, f"invalid Python: {exc.msg}", exc.lineno or 0, exc.offset or 0) from None
    except (ValueError, RecursionError, MemoryError):
        raise SourceError(source.path, "Python config too deeply nested to read") from None
    reader = _Reader(source)
    reader.visit(tree)
    return reader.config


# How each kind of expression is read; any other (an attribute, a comprehension) is unknown.
_READERS: dict[type[ast.expr], Callable[[Any, Any, Span], PyValue]] = {
    ast.UnaryOp: _Reader._negative,
    ast.Name: _Reader._name,
    ast.BinOp: _Reader._binop,
    ast.Call: _Reader._call,
    ast.Dict: _Reader._dict,
    ast.List: _Reader._sequence,
    ast.Tuple: _Reader._sequence,
    ast.IfExp: _Reader._branches,
}
