"""Shell scripts, parsed with tree-sitter-bash and never run.

The model keeps what a linter of training launches needs: variable assignments (with
`export` and `${var:-default}`), every simple command with its words, and for each word its
static value where the script alone decides it. A word that is `$var` remembers the variable,
so a fix writes to the assignment rather than to the use.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from recipelint.sources.files import SourceError
from recipelint.span import SourceText, Span

_PARSER: Any = None


def _parser() -> Any:
    global _PARSER
    if _PARSER is None:
        import tree_sitter
        import tree_sitter_bash

        _PARSER = tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))
    return _PARSER


@dataclass
class Word:
    """One shell word of a command (or an assignment's value)."""

    text: str  # as written
    span: Span
    value: str | None  # its static value; None when it depends on the run time
    ref: str | None = None  # the variable when the word is exactly $var, ${var} or "$var"
    # Where a new value is written: the literal itself, or the default of ${VAR:-default}.
    edit_span: Span | None = None
    conditional: bool = False  # ${x:+...}: present or absent at run time
    option: tuple[str, Word] | None = None  # `--name=value` split into the name and the value's word


@dataclass
class Assignment:
    name: str
    value: Word
    span: Span
    exported: bool
    order: int  # byte offset; later assignments win


@dataclass
class Command:
    words: list[Word]
    span: Span
    env: dict[str, Word] = field(default_factory=dict)  # `VAR=x cmd` prefixes

    @property
    def name(self) -> str:
        return self.words[0].value or self.words[0].text if self.words else ""


@dataclass
class ShellScript:
    source: SourceText
    assignments: list[Assignment]
    commands: list[Command]
    exports: set[str]
    error_count: int = 0  # tree-sitter ERROR/MISSING nodes: a fix must not add any

    def assignment(self, name: str, before: int | None = None) -> Assignment | None:
        """The assignment of `name` in force at byte `before` (the last one above it)."""
        found = None
        for item in self.assignments:
            if item.name == name and (before is None or item.order < before):
                found = item
        if found is None and before is not None:
            return self.assignment(name)
        return found


_VAR_IN_BRACES = re.compile(r"^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$|^\$([A-Za-z_][A-Za-z0-9_]*)$")


class _Builder:
    def __init__(self, source: SourceText) -> None:
        self.source = source
        self.data = source.data
        self.assignments: list[Assignment] = []
        self.commands: list[Command] = []
        self.exports: set[str] = set()
        self.errors: list[Any] = []

    def text(self, node: Any) -> str:
        return self.data[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def span(self, node: Any) -> Span:
        return self.source.span(node.start_byte, node.end_byte)

    # Static evaluation: assignments seen so far are the only environment.
    def lookup(self, name: str, at: int) -> str | None:
        for item in reversed(self.assignments):
            if item.name == name and item.order < at:
                return item.value.value
        return None

    def word(self, node: Any) -> Word:
        value = self.evaluate(node)
        ref = None
        edit_span: Span | None = self.span(node)
        kind = node.type
        inner = node
        if kind == "string" and node.named_child_count == 1 and node.named_children[0].type in ("simple_expansion", "expansion"):
            inner = node.named_children[0]
        if inner.type in ("simple_expansion", "expansion"):
            match = _VAR_IN_BRACES.match(self.text(inner))
            if match:
                ref = match.group(1) or match.group(2)
            edit_span = None
            default = self.default_of(inner)
            if default is not None:
                ref = self.expansion_name(inner)
        elif kind == "string":
            # Write inside the quotes, so a fix keeps the user's quoting.
            edit_span = self.source.span(node.start_byte + 1, node.end_byte - 1) if value is not None else None
        elif kind == "raw_string":
            edit_span = self.source.span(node.start_byte + 1, node.end_byte - 1)
        elif value is None:
            edit_span = None
        conditional = inner.type == "expansion" and ":+" in self.text(inner)[:64] and ref is None
        word = Word(self.text(node), self.span(node), value, ref, edit_span, conditional)
        word.option = self.option_of(node)
        return word

    def option_of(self, node: Any) -> tuple[str, Word] | None:
        """Split `--name=value` (a plain word or a concatenation such as `--x=$y`)."""
        text = self.text(node)
        match = re.match(r"(-{1,2}[A-Za-z0-9_.\-]+)=", text)
        if not match or node.type not in ("word", "concatenation"):
            return None
        name = match.group(1)
        cut = node.start_byte + len(match.group(0).encode())
        if node.type == "word" or (node.named_children and node.named_children[0].end_byte > cut):
            span = self.source.span(cut, node.end_byte)
            literal = self.data[cut : node.end_byte].decode("utf-8", "replace")
            if node.type == "word":
                return name, Word(literal, span, literal, None, span)
        rest = [child for child in node.children if child.start_byte >= cut]
        if len(rest) == 1:
            return name, self.word(rest[0])
        parts = [self.evaluate(child) for child in rest]
        value = None if any(part is None for part in parts) else "".join(p for p in parts if p is not None)
        span = self.source.span(cut, node.end_byte)
        return name, Word(self.data[cut : node.end_byte].decode("utf-8", "replace"), span, value, None, None)

    def expansion_name(self, node: Any) -> str | None:
        for child in node.named_children:
            if child.type == "variable_name":
                return self.text(child)
        return None

    def default_of(self, node: Any) -> Any:
        """The node holding `d` in ${VAR:-d} / ${VAR-d} / ${VAR:=d}, or None."""
        if node.type != "expansion":
            return None
        children = node.children
        for i, child in enumerate(children):
            if child.type in (":-", "-", ":=", "=") and i + 1 < len(children) and children[i + 1].type != "}":
                return children[i + 1]
        return None

    def evaluate(self, node: Any) -> str | None:
        kind = node.type
        if kind in ("word", "number"):
            text = self.text(node)
            return re.sub(r"\\(.)", r"\1", text) if "\\" in text else text
        if kind == "raw_string":
            return self.text(node)[1:-1]
        if kind in ("string", "concatenation"):
            parts = []
            for child in node.children:
                if child.type == '"':
                    continue
                part = self.evaluate(child)
                if part is None:
                    return None
                parts.append(part)
            return "".join(parts)
        if kind == "string_content":
            return self.text(node)
        if kind == "simple_expansion":
            variable = self.text(node)[1:]
            return self.lookup(variable, node.start_byte) if variable.isidentifier() else None
        if kind == "expansion":
            name = self.expansion_name(node)
            if name is None:
                return None
            current = self.lookup(name, node.start_byte)
            operators = [c.type for c in node.children]
            default = self.default_of(node)
            if default is not None:
                return current if current not in (None, "") else self.evaluate(default)
            if ":+" in operators or "+" in operators:
                return None
            if len(node.children) > 3:  # ${#x}, ${x/a/b}, ${x%y}: not worth modelling
                return None
            return current
        return None

    def visit(self, node: Any, exported: bool = False) -> None:
        kind = node.type
        if node.is_error or node.is_missing:
            self.errors.append(node)
        if kind == "variable_assignment":
            self.add_assignment(node, exported)
            return
        if kind == "declaration_command":
            is_export = self.text(node).startswith("export")
            for child in node.named_children:
                if child.type == "variable_assignment":
                    self.add_assignment(child, is_export)
                elif child.type == "variable_name" and is_export:
                    self.exports.add(self.text(child))
            return
        if kind == "command":
            self.add_command(node)
            for child in node.named_children:  # commands inside $(...) are not launches, but look anyway
                if child.type in ("command_substitution", "process_substitution"):
                    self.visit(child)
            return
        if kind == "function_definition":
            return  # bodies run only if called; recipes define helpers, not launches, in functions
        for child in node.children:
            self.visit(child)

    def add_assignment(self, node: Any, exported: bool) -> None:
        name_node = node.child_by_field_name("name")
        value_node = node.child_by_field_name("value")
        if name_node is None:
            return
        name = self.text(name_node)
        if value_node is None:
            empty = self.source.span(node.end_byte, node.end_byte)
            word = Word("", empty, "", None, empty)
        else:
            word = self.word(value_node)
            default = self.default_of(value_node)
            if default is not None:
                word.edit_span = self.span(default)
        if exported:
            self.exports.add(name)
        self.assignments.append(Assignment(name, word, self.span(node), exported, node.start_byte))

    def add_command(self, node: Any) -> None:
        words: list[Word] = []
        env: dict[str, Word] = {}
        for child in node.named_children:
            if child.type == "variable_assignment":
                name_node = child.child_by_field_name("name")
                value_node = child.child_by_field_name("value")
                if name_node is not None and value_node is not None:
                    env[self.text(name_node)] = self.word(value_node)
            elif child.type == "command_name":
                words.append(self.word(child.named_children[0] if child.named_child_count else child))
            elif child.type in ("file_redirect", "heredoc_redirect", "herestring_redirect", "comment"):
                continue
            else:
                words.append(self.word(child))
        if words:
            self.commands.append(Command(words, self.span(node), env))


def parse_shell(source: SourceText) -> ShellScript:
    tree = _parser().parse(source.data)
    builder = _Builder(source)
    builder.visit(tree.root_node)
    if builder.errors and not builder.commands and not builder.assignments:
        first = builder.errors[0]
        line, column = first.start_point.row + 1, first.start_point.column + 1
        raise SourceError(source.path, "shell syntax the parser cannot read", line, column)
    return ShellScript(source, builder.assignments, builder.commands, builder.exports, len(builder.errors))
