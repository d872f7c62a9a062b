"""Static values of the few shell computations recipes use to spell a constant.

`train_set=train_$(echo $set | tr 'A-Z' 'a-z')`, `num_gpus=$(echo $CUDA_VISIBLE_DEVICES | awk
-F "," '{print NF}')` and `$((NNODES * GPUS))` only rearrange text and numbers the script
already holds, so their value is known without running anything. Nothing here runs a
command: each form is recognised by name and modelled in Python; anything else is unknown.
"""

from __future__ import annotations

import operator
import posixpath
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import ast

_UPPER = ("A-Z", "[:upper:]")
_LOWER = ("a-z", "[:lower:]")


def pure_pipeline(stages: list[list[str | None]]) -> str | None:
    """The output of `echo ... | tr ... | awk '{print NF}'`, `basename X` or `dirname X`
    (without the trailing newline), or None when a stage is not one of these."""
    if not stages or any(not stage or None in stage for stage in stages):
        return None
    words = [[w for w in stage if w is not None] for stage in stages]
    first, rest = words[0], words[1:]
    if first[0] in ("basename", "dirname") and len(first) == 2 and not rest:
        return posixpath.basename(first[1].rstrip("/")) if first[0] == "basename" else posixpath.dirname(first[1].rstrip("/"))
    if first[0] != "echo":
        return None
    args = first[1:]
    while args and args[0] in ("-n", "-e", "-E"):
        args = args[1:]
    text: str | None = " ".join(args)
    for stage in rest:
        text = _filter(stage, text) if text is not None else None
    return text


def _filter(stage: list[str], text: str) -> str | None:
    name, args = stage[0], stage[1:]
    if name == "tr" and len(args) == 2:
        if args[0] in _UPPER and args[1] in _LOWER:
            return text.lower()
        if args[0] in _LOWER and args[1] in _UPPER:
            return text.upper()
        return None
    if name == "awk":
        return _awk_nf(args, text)
    return None


def _awk_nf(args: list[str], text: str) -> str | None:
    """`awk [-F SEP] '{print NF}'`: the number of fields of one line."""
    separator: str | None = None
    program = None
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == "-F" and index + 1 < len(args):
            separator, index = args[index + 1], index + 2
            continue
        if arg.startswith("-F"):
            separator = arg[2:]
        else:
            program = arg
        index += 1
    if program is None or re.sub(r"\s", "", program) != "{printNF}":
        return None
    if separator in (None, " "):
        return str(len(text.split()))
    return "0" if text == "" else str(len(text.split(separator)))


_BINARY: dict[str, Callable[[int, int], int]] = {
    "Add": operator.add,
    "Sub": operator.sub,
    "Mult": operator.mul,
    "Mod": operator.mod,
}
_NAME = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$?([A-Za-z_][A-Za-z0-9_]*)")


def arithmetic(expression: str, lookup: Callable[[str], str | None]) -> str | None:
    """`$((...))` with integers, + - * / %, parentheses and variables holding integers."""
    unknown = False

    def substitute(match: re.Match[str]) -> str:
        nonlocal unknown
        value = lookup(match.group(1) or match.group(2))
        if value is None or not re.fullmatch(r"\s*-?\d+\s*", value):
            unknown = True
            return "0"
        return f"({value.strip()})"

    text = _NAME.sub(substitute, expression)
    if unknown or not re.fullmatch(r"[\d\s+\-*/%()]*", text) or len(text) > 200:
        return None
    import ast  # here, not at the top: most scripts have no arithmetic, and ast costs 3 ms of start-up

    try:
        tree = ast.parse(text.replace("/", "//"), mode="eval")
        return str(_integer(tree.body))
    except (SyntaxError, ValueError, ZeroDivisionError, RecursionError):
        return None


def _integer(node: ast.expr) -> int:
    import ast

    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _integer(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp):
        left, right = _integer(node.left), _integer(node.right)
        if isinstance(node.op, ast.FloorDiv):  # bash truncates toward zero
            if right == 0:
                raise ZeroDivisionError
            return int(left / right)
        function = _BINARY.get(type(node.op).__name__)
        if function is not None:
            return function(left, right)
    raise ValueError("not integer arithmetic")
