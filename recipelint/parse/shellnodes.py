"""tree-sitter-bash for the shell reader: the parser, and the few shapes of its syntax tree the
reader asks about (a command's argument nodes, an if's clauses, a case's patterns, what a loop
assigns). A leaf below the reader's modules and shelltemplate.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from recipelint.parse.span import SourceText

if TYPE_CHECKING:
    from tree_sitter import Node, Parser, Tree

_PARSER: Parser | None = None
# `X=$1` in an option loop (`case $1 in --deepspeed) shift; DS=$1`): the command line may override X.
POSITIONAL = re.compile(r'^"?\$(\{[1-9]\}|[1-9]|\{?OPTARG\}?)"?$')
_VAR_IN_BRACES = re.compile(r"^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$|^\$([A-Za-z_][A-Za-z0-9_]*)$")


def parser() -> Parser:
    global _PARSER
    if _PARSER is None:
        import tree_sitter

        _PARSER = tree_sitter.Parser(tree_sitter.Language(_bash_grammar()))
    return _PARSER


def _bash_grammar() -> object:
    """tree-sitter-bash's grammar, from its extension module alone: the package's `__init__`
    imports importlib.resources, tempfile, shutil, bz2 and lzma (9 ms of a check's start-up) for
    a highlighting query recipelint never reads."""
    import importlib.machinery
    import importlib.util

    try:
        package = importlib.util.find_spec("tree_sitter_bash")
        spec = importlib.machinery.PathFinder.find_spec(
            "tree_sitter_bash._binding", package.submodule_search_locations if package else None
        )
        if spec is None or spec.loader is None:
            raise ImportError("tree_sitter_bash._binding")
        binding = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(binding)
        language: object = binding.language()  # a PyCapsule
        return language
    except (ImportError, AttributeError, OSError):  # another layout of the package: the plain import
        import tree_sitter_bash

        fallback: object = tree_sitter_bash.language()
        return fallback


def plain_variable(text: str) -> str | None:
    """The variable a word is exactly (`$x` or `${x}`), or None."""
    match = _VAR_IN_BRACES.match(text)
    return (match.group(1) or match.group(2)) if match else None


def unwrap_string(node: Node) -> Node:
    """`"$x"` as `$x`."""
    if node.type == "string" and node.named_child_count == 1 and node.named_children[0].type in ("simple_expansion", "expansion"):
        return node.named_children[0]
    return node


def unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text) if "\\" in text else text


def flatten(nodes: list[Node]) -> list[Node]:
    parts: list[Node] = []
    for node in nodes:
        if node.type == "concatenation":
            parts.extend(node.children)
        elif node.type == "command_name" and node.named_child_count:
            parts.extend(flatten([node.named_children[0]]))
        else:
            parts.append(node)
    return parts


def substitution_nodes(node: Node) -> list[Node]:
    """The `$(...)` inside a value (not those nested in another)."""
    if node.type in ("command_substitution", "process_substitution"):
        return [node]
    found: list[Node] = []
    for child in node.named_children:
        found.extend(substitution_nodes(child))
    return found


def descendants(node: Node) -> list[Node]:
    """The node and every node under it, outside `$(...)` (a command of its own)."""
    if node.type in ("command_substitution", "process_substitution"):
        return []
    found = [node]
    for child in node.children:
        found.extend(descendants(child))
    return found


def unwrap(node: Node) -> Node:
    return node.named_children[0] if node.type == "command_name" and node.named_child_count else node


def word_runs(nodes: list[Node]) -> list[list[Node]]:
    """Group nodes that touch (no blank between them): one shell word each."""
    runs: list[list[Node]] = []
    for node in nodes:
        if runs and runs[-1][-1].end_byte == node.start_byte and node.type != "variable_assignment":
            runs[-1].append(node)
        else:
            runs.append([node])
    return runs


def argument_nodes(command: Node) -> list[Node]:
    out = []
    for child in command.named_children:
        if child.type == "command_name":
            out.append(unwrap(child))
        elif child.type not in ("file_redirect", "heredoc_redirect", "herestring_redirect", "comment", "variable_assignment"):
            out.append(child)
    return out


def clause_body(clause: Node) -> list[Node]:
    if clause.type == "else_clause":
        return [c for c in clause.children if c.is_named]
    body: list[Node] = []
    seen_then = False
    for child in clause.children:
        if child.type == "then":
            seen_then = True
        elif seen_then and child.is_named:
            body.append(child)
    return body


def clause_condition(clause: Node) -> list[Node]:
    condition: list[Node] = []
    for child in clause.children:
        if child.type == "then":
            break
        if child.is_named:
            condition.append(child)
    return condition


def case_parts(item: Node) -> tuple[list[Node], list[Node]]:
    patterns: list[Node] = []
    statements: list[Node] = []
    target = patterns
    for child in item.children:
        if child.type == ")":
            target = statements
        elif child.is_named:
            target.append(child)
    return statements, patterns


def assigned_names(node: Node, text: Callable[[Node], str]) -> list[str]:
    """Variables a loop assigns: its own variable, assignments and `read` targets in its body
    (not `X=$1`: an option loop's override is not a new value)."""
    names: list[str] = []
    stack = [node]
    while stack:
        current = stack.pop()
        value = current.child_by_field_name("value") if current.type == "variable_assignment" else None
        if value is not None and POSITIONAL.match(text(value)):
            pass
        elif current.type == "variable_assignment" or (current.type == "for_statement" and current is node):
            name = current.child_by_field_name("name") or current.child_by_field_name("variable")
            if name is not None:
                names.append(text(name))
        if current.type == "command" and current.named_child_count and text(current.named_children[0]) == "read":
            names.extend(text(c) for c in current.named_children[1:] if text(c).isidentifier())
        if current.type != "function_definition":
            stack.extend(current.children)
    return list(dict.fromkeys(names))


def parse_range(source: SourceText, start: int, end: int) -> Tree:
    import tree_sitter

    bash = parser()
    # the line table, not a count from the top: a README's thousands of fences stay linear
    bash.included_ranges = [tree_sitter.Range(source.point(start), source.point(end), start, end)]
    try:
        return bash.parse(source.data)
    finally:
        bash.included_ranges = []
