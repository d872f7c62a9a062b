"""Shell scripts, parsed with tree-sitter-bash and never run.

The model keeps what a linter of training launches needs: variable assignments (with
`export` and `${var:-default}`), every simple command with its words, and for each word its
static value where the script alone decides it.

Values follow the script's control flow the way bash would have them: a variable assigned
differently on the branches of an `if` or `case`, inside a loop, or by a command substitution
(`$(nvidia-smi -L | wc -l)`) is unknown at its use, with the reason; where every branch agrees
it is that value. Local files the script sources (`. ./path.sh`) are read, never run, for
their assignments and exports. A word that is `$var` remembers the assignment its value came
from, so a fix writes to that assignment rather than to the use, and never to one branch.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from recipelint.parse.files import SourceError
from recipelint.parse.shellvalue import arithmetic, pure_pipeline
from recipelint.parse.span import SourceText, Span
from recipelint.records import dataclass, field, replace

_PARSER: Any = None
# Kaldi's option parser: sourcing it lets `--name value` on the command line override any
# variable assigned above; it changes no value the script itself gives.
OPTION_PARSERS = frozenset({"parse_options.sh"})
_MAX_SOURCE_DEPTH = 4
# `bash -c STRING` (often `srun ... bash -c "$LAUNCHER $CMD"`): the string is read as the command it runs.
_C_SHELLS = frozenset({"bash", "sh", "/bin/bash", "/bin/sh", "/usr/bin/bash"})
_EXPANSION = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


def parser() -> Any:
    global _PARSER
    if _PARSER is None:
        import tree_sitter

        _PARSER = tree_sitter.Parser(tree_sitter.Language(_bash_grammar()))
    return _PARSER


def _bash_grammar() -> Any:
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
        return binding.language()
    except (ImportError, AttributeError, OSError):  # another layout of the package: the plain import
        import tree_sitter_bash

        return tree_sitter_bash.language()


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
    reason: str | None = None  # why `value` is None, in words
    binding: Binding | None = None  # for a $var word: the variable's value at this point
    # The word is in the command only when this holds (a flag carried by one branch's value of a
    # variable, or by ${x:+--flag v}); None: always, as far as the script tells.
    condition: str | None = None


@dataclass
class Assignment:
    name: str
    value: Word
    span: Span
    exported: bool
    order: int  # byte offset in the script (for a sourced file: of the `.` command)


@dataclass
class Binding:
    """A variable's value at one point of the script."""

    value: str | None  # None: unknown to the script
    origin: Assignment | None  # the one assignment the value comes from; None when several could
    reason: str | None = None  # why the value is unknown: a sentence starting with the variable
    exported: bool = False
    # The words an unquoted use splits into (`torchrun $DISTRIBUTED_ARGS ...`), each with its span
    # in the assignment and its value as the assignment evaluated it; None: nothing to split.
    fields: list[Word] | None = None
    # A value that differs between branches: each branch's binding (None: unset there), and the
    # branching statement, so a use can say which value comes from where.
    branches: tuple[Binding | None, ...] | None = None
    where: str = ""


@dataclass
class Command:
    words: list[Word]
    span: Span
    env: dict[str, Word] = field(default_factory=dict)  # `VAR=x cmd` prefixes
    scope: dict[str, Binding] = field(default_factory=dict)  # the variables in force when it runs
    cwd: str | None = ""  # the folder it runs in, relative to the script's folder; None: unknown

    @property
    def name(self) -> str:
        return self.words[0].value or self.words[0].text if self.words else ""

    def variable(self, name: str) -> Binding | None:
        return self.scope.get(name)


@dataclass
class Sourced:
    """A file the script sources with `.` or `source`."""

    path: str  # as written (evaluated when possible)
    span: Span
    read: bool  # its assignments and exports were taken in
    note: str  # what was done with it, or why it was not read


@dataclass
class Failed:
    """An assignment bash refuses: its value holds a bad substitution (`${batch_size*2}`), so
    bash prints an error, leaves the variable as it was and goes on with the next command."""

    name: str  # the variable the assignment would set
    span: Span  # the bad substitution
    line: int  # the assignment's line
    earlier: bool  # the variable had a value before it (from the script, or for all it knows)


@dataclass
class Override:
    """A variable the script's command line may set (`X=$1` in an option loop)."""

    name: str
    span: Span
    note: str


@dataclass
class Piece:
    """A stretch of a file the script writes from its own text: literal text of a heredoc or a
    template, or a value the script puts in (`$GLOBAL_BATCH`, sed's replacement)."""

    text: str | None  # None: decided at run time
    span: Span  # where it is written: the literal bytes, or the `$VAR` / replacement in the script
    origin: Assignment | None = None  # the assignment the value comes from (a fix edits it there)
    reason: str | None = None  # why `text` is None
    literal: bool = False  # text is exactly the bytes at span (offsets inside it map one to one)


@dataclass
class Substitution:
    """One `s/PATTERN/REPLACEMENT/[g]` of a sed that fills a template."""

    pattern: str  # a plain word: recipelint models no regular expression
    replacement: Piece
    every: bool  # the g flag: every match on a line, not only the first


@dataclass
class Written:
    """A file the script writes from text it holds: a heredoc (`cat <<EOT > ds_config.json`) or a
    template filled by sed (`sed "s/GBSIZE/$GB/" template.json > out.json`). Never run: the
    values are the script's own, as far as it decides them."""

    path: str  # relative to the script's folder, normalised
    span: Span  # the redirection that writes it
    body: list[Piece] | None = None  # a heredoc's text, piece by piece
    template: str | None = None  # sed: the file it reads, relative to the script's folder
    template_span: Span | None = None
    edits: list[Substitution] = field(default_factory=list)
    unknown: str | None = None  # why the content cannot be told (a sed script recipelint does not model)
    command: str = ""  # what writes it, as written (for messages): "cat <<EOT", "sed"


@dataclass
class ShellScript:
    source: SourceText
    assignments: list[Assignment]
    commands: list[Command]
    exports: set[str]
    error_count: int = 0  # tree-sitter ERROR/MISSING nodes: a fix must not add any
    sourced: list[Sourced] = field(default_factory=list)
    cd_dirs: list[str] = field(default_factory=list)  # folders the script cds into (relative, as resolved)
    written: dict[str, Span] = field(default_factory=dict)  # files the script writes (`> file`), relative to its folder
    overrides: list[Override] = field(default_factory=list)
    # Folders `git clone URL [DIR]` makes, by name (README steps: `git clone .../Baichuan2.git; cd
    # Baichuan2/fine-tune`): a later `cd NAME/...` goes into the clone, not a folder beside the script.
    clones: list[str] = field(default_factory=list)
    # What the script writes from its own text (heredocs, sed-filled templates), by the written path.
    templates: dict[str, Written] = field(default_factory=dict)
    failed: list[Failed] = field(default_factory=list)  # assignments bash refuses

    def assignment(self, name: str, before: int | None = None) -> Assignment | None:
        """The assignment of `name` in this file in force at byte `before` (the last one above it)."""
        found = None
        for item in self.assignments:
            if item.name == name and (before is None or item.order < before):
                found = item
        if found is None and before is not None:
            return self.assignment(name)
        return found

    @property
    def overridable(self) -> Sourced | None:
        """The `. tools/parse_options.sh` line, when the script lets the command line override its variables."""
        return next((s for s in self.sourced if Path(s.path).name in OPTION_PARSERS), None)


_VAR_IN_BRACES = re.compile(r"^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$|^\$([A-Za-z_][A-Za-z0-9_]*)$")


def _plain_variable(text: str) -> str | None:
    """The variable a word is exactly (`$x` or `${x}`), or None."""
    match = _VAR_IN_BRACES.match(text)
    return (match.group(1) or match.group(2)) if match else None


# `X=$1` in an option loop (`case $1 in --deepspeed) shift; DS=$1`): the command line may override X.
_POSITIONAL = re.compile(r'^"?\$(\{[1-9]\}|[1-9]|\{?OPTARG\}?)"?$')
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# `${name` followed by what no parameter expansion allows (`${batch_size*2}`: arithmetic written
# as an expansion): bash says "bad substitution" (tree-sitter-bash makes it an ERROR node).
_BAD_SUBSTITUTION = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*[^A-Za-z0-9_:=?+#%/^,~@\[}-][^}]*\}")
# `cd "$(dirname "${BASH_SOURCE[0]}")/../sft/"` (01-ai/Yi's finetune scripts): the script's own
# folder, whatever folder it was started from, then a path the script spells (quotes removed).
_OWN_FOLDER = re.compile(r"^(?:\$\(\s*dirname\s+(?P<a>[^()`]+)\s*\)|`\s*dirname\s+(?P<b>[^()`]+)`)(?P<rest>/[^$`']*)?$")
_OWN_PATH = ("$0", "${0}", "$BASH_SOURCE", "${BASH_SOURCE}", "${BASH_SOURCE[0]}")
Reader = Callable[[Path], SourceText]
Value = tuple[str | None, str | None]  # (value, why it is unknown)


@dataclass
class _Env:
    """The variables and folder at one point of the walk; `dead` after `exit`."""

    vars: dict[str, Binding] = field(default_factory=dict)
    cwd: str | None = ""
    dead: bool = False

    def copy(self) -> _Env:
        return _Env(dict(self.vars), self.cwd, self.dead)


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


class _Builder:
    def __init__(self, source: SourceText, read: Reader | None = None, depth: int = 0, order: int | None = None) -> None:
        self.options: dict[str, Binding] = {}  # values a caller passes to parse_options.sh
        self.source = source
        self.data = source.data
        self.read = read
        self.depth = depth
        self.order = order  # for a sourced file: the offset of the `.` command in the script
        self.recording = order is None
        self.env = _Env()
        self.assignments: list[Assignment] = []
        self.commands: list[Command] = []
        self.exports: set[str] = set()
        self.errors: list[Any] = []
        self.sourced: list[Sourced] = []
        self.cd_dirs: list[str] = []
        self.clones: list[str] = []
        self.written: dict[str, Span] = {}
        self.templates: dict[str, Written] = {}
        self.overrides: list[Override] = []
        self.failed: list[Failed] = []
        self.seen: set[Path] = {source.path}
        self.assigned = 0

    def text(self, node: Any) -> str:
        return self.data[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def span(self, node: Any) -> Span:
        return self.source.span(node.start_byte, node.end_byte)

    def line(self, node: Any) -> int:
        return int(node.start_point.row) + 1

    # --- values -----------------------------------------------------------------------
    def lookup(self, name: str) -> Value:
        binding = self.env.vars.get(name)
        if binding is None:
            return None, f"{name} is not set in the script"
        return binding.value, binding.reason

    def word(self, node: Any) -> Word:
        value, reason = self.evaluate(node)
        ref = None
        binding = None
        edit_span: Span | None = self.span(node)
        kind = node.type
        inner = node
        if kind == "string" and node.named_child_count == 1 and node.named_children[0].type in ("simple_expansion", "expansion"):
            inner = node.named_children[0]
        if inner.type in ("simple_expansion", "expansion"):
            ref = _plain_variable(self.text(inner))
            edit_span = None
            if self.default_of(inner) is not None:
                ref = self.expansion_name(inner)
            binding = self.env.vars.get(ref) if ref else None
        elif kind == "string":
            # Write inside the quotes, so a fix keeps the user's quoting.
            edit_span = self.source.span(node.start_byte + 1, node.end_byte - 1) if value is not None else None
        elif kind == "raw_string":
            edit_span = self.source.span(node.start_byte + 1, node.end_byte - 1)
        elif value is None:
            edit_span = None
        conditional = inner.type == "expansion" and ":+" in self.text(inner)[:64] and ref is None
        word = Word(self.text(node), self.span(node), value, ref, edit_span, conditional, reason=reason, binding=binding)
        word.option = self.option_of([node])
        return word

    def plain_binding(self, node: Any) -> Binding | None:
        """The binding of the variable an expansion node is exactly, if any."""
        name = _plain_variable(self.text(node)) if node.type in ("simple_expansion", "expansion") else None
        return self.env.vars.get(name) if name else None

    def split_use(self, node: Any) -> list[Word] | None:
        """The words an unquoted expansion becomes when its value has blanks (bash splits it;
        an empty value passes no word): for `$var`, copies of the words var's assignment
        recorded, each in its place there; else the value's pieces at the expansion
        (`${args:-"--a 1"}`). None: one word, as written."""
        if node.type not in ("simple_expansion", "expansion"):
            return None
        binding = self.plain_binding(node)
        if binding is not None and binding.fields is not None:
            return [replace(field) for field in binding.fields]
        value = binding.value if binding is not None else self.evaluate(node)[0]
        return _split(value, self.span(node))

    def fields(self, node: Any) -> list[Word] | None:
        """The words a quoted value (`"--nproc_per_node $GPUS \\ --nnodes 2"`) splits into at an
        unquoted use; `A=$B` takes B's. None when the value has no blank outside an expansion."""
        if node.type in ("simple_expansion", "expansion"):
            binding = self.plain_binding(node)
            return binding.fields if binding is not None else None
        if node.type not in ("string", "raw_string"):
            return None
        start, end = node.start_byte + 1, node.end_byte - 1
        atoms = [c for c in node.named_children if c.type != "string_content"] if node.type == "string" else []
        groups: list[list[tuple[int, int, Any]]] = [[]]  # (start, end, a node or the literal text)
        position = start
        for atom in [*atoms, None]:
            stop = atom.start_byte if atom is not None else end
            self.split_literal(position, stop, groups, node.type == "string")
            if atom is not None:
                groups[-1].append((atom.start_byte, atom.end_byte, atom))
                position = atom.end_byte
        words = [word for group in groups if group for word in self.field_words(group)]
        return words if len(words) != 1 else None

    def field_words(self, group: list[tuple[int, int, Any]]) -> list[Word]:
        """The words one blank-free stretch of a quoted value gives at an unquoted use: an
        expansion in it is split in turn (`ds_args=" --deepspeed_config=x ${ds_args}"`)."""
        if len(group) == 1 and not isinstance(group[0][2], str):
            fields = self.fields(group[0][2])
            if fields is not None:
                return [replace(field) for field in fields]
        word = self.field_word(group)
        pieces = _split(word.value, word.span)
        return pieces if pieces is not None else [word]

    def split_literal(self, start: int, stop: int, groups: list[list[tuple[int, int, Any]]], escapes: bool) -> None:
        """Literal bytes of a quoted value, cut at blanks into the groups (a backslash-newline
        inside double quotes joins the lines; `\\"`, `\\$`, `\\\\` and `\\``` are the character)."""
        data, at, piece_start, piece = self.data, start, start, bytearray()

        def close_piece(until: int) -> None:
            if piece:
                groups[-1].append((piece_start, until, piece.decode("utf-8", "replace")))

        while at < stop:
            char = data[at]
            if escapes and char == 0x5C and at + 1 < stop and data[at + 1] in b'\n"$`\\':
                if data[at + 1] != 0x0A:
                    if not piece:
                        piece_start = at
                    piece.append(data[at + 1])
                at += 2
                continue
            if char in b" \t\n":
                close_piece(at)
                if groups[-1]:
                    groups.append([])
                piece = bytearray()
                at += 1
                piece_start = at
                continue
            if not piece:
                piece_start = at
            piece.append(char)
            at += 1
        close_piece(stop)

    def field_word(self, group: list[tuple[int, int, Any]]) -> Word:
        start, end = group[0][0], group[-1][1]
        span = self.source.span(start, end)
        value, reason = self.evaluate_parts([part for _, _, part in group])
        text = self.data[start:end].decode("utf-8", "replace")
        literal = all(isinstance(part, str) for _, _, part in group)
        word = Word(text, span, value, None, span if literal and text == value else None, reason=reason)
        if len(group) == 1 and not literal:
            word.ref = _plain_variable(text)
            word.binding = self.env.vars.get(word.ref) if word.ref else None
        option = re.match(r"(-{1,2}[A-Za-z0-9_.\-]+)=", text)
        if option and literal:
            cut = start + len(option.group(0).encode())
            rest = self.source.span(cut, end)
            tail = text[len(option.group(0)) :]
            word.option = (
                option.group(1),
                Word(tail, rest, value[len(option.group(0)) :] if value else None, None, rest if word.edit_span else None),
            )
        elif option:
            cut = start + len(option.group(0).encode())
            tail_value = value[len(option.group(0)) :] if value is not None and value.startswith(option.group(0)) else None
            word.option = (
                option.group(1),
                Word(text[len(option.group(0)) :], self.source.span(cut, end), tail_value, None, None, reason=reason),
            )
        return word

    def joined_word(self, nodes: list[Any]) -> Word:
        """A word tree-sitter-bash split in pieces with nothing between them (`$a/$b/c` becomes
        `$a/$` and `b/c`): evaluated whole."""
        start, end = nodes[0].start_byte, nodes[-1].end_byte
        value, reason = self.evaluate_parts(_flatten(nodes))
        span = self.source.span(start, end)
        word = Word(self.data[start:end].decode("utf-8", "replace"), span, value, None, None, reason=reason)
        word.option = self.option_of(nodes)
        return word

    def option_of(self, nodes: list[Any]) -> tuple[str, Word] | None:
        """Split `--name=value` (a plain word or a concatenation such as `--x=$y`)."""
        start, end = nodes[0].start_byte, nodes[-1].end_byte
        text = self.data[start:end].decode("utf-8", "replace")
        match = re.match(r"(-{1,2}[A-Za-z0-9_.\-]+)=", text)
        if not match or nodes[0].type not in ("word", "concatenation"):
            return None
        cut = start + len(match.group(0).encode())
        span = self.source.span(cut, end)
        literal = self.data[cut:end].decode("utf-8", "replace")
        if len(nodes) == 1 and nodes[0].type == "word":
            return match.group(1), Word(literal, span, literal, None, span)
        parts = [p for p in _flatten(nodes) if p.end_byte > cut]
        if len(parts) == 1 and parts[0].start_byte >= cut:
            return match.group(1), self.word(parts[0])
        pieces: list[Any] = []
        for part in parts:
            if part.start_byte < cut:  # the literal tail of `--name=tail`
                pieces.append(self.data[cut : part.end_byte].decode("utf-8", "replace"))
            else:
                pieces.append(part)
        value, reason = self.evaluate_parts(pieces)
        return match.group(1), Word(literal, span, value, None, None, reason=reason)

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

    def evaluate_parts(self, parts: list[Any]) -> Value:
        """Concatenate pieces (nodes or literal strings); a bare `$` followed by a word starting
        with a name is tree-sitter's split of `$name...`."""
        out: list[str] = []
        index = 0
        while index < len(parts):
            part = parts[index]
            index += 1
            if isinstance(part, str):
                out.append(part)
                continue
            if part.type == "$" and index < len(parts) and not isinstance(parts[index], str) and parts[index].type == "word":
                tail = self.text(parts[index])
                index += 1
                match = _IDENTIFIER.match(tail)
                if match is None:
                    out.append("$" + tail)
                    continue
                value, reason = self.lookup(match.group(0))
                if value is None:
                    return None, reason
                out.append(value + _unescape(tail[match.end() :]))
                continue
            value, reason = self.evaluate(part)
            if value is None:
                return None, reason
            out.append(value)
        return "".join(out), None

    def evaluate(self, node: Any) -> Value:
        kind = node.type
        if kind in ("word", "number"):
            return _unescape(self.text(node)), None
        if kind == "raw_string":
            return self.text(node)[1:-1], None
        if kind in ("string", "concatenation"):
            return self.evaluate_parts([c for c in node.children if c.type != '"'])
        if kind == "string_content":
            return self.text(node), None
        if kind == "$":  # a `$` nothing follows is itself
            return "$", None
        if kind == "simple_expansion":
            variable = self.text(node)[1:]
            if not variable.isidentifier():
                return None, f"${variable} is set by the shell at run time"
            return self.lookup(variable)
        if kind == "expansion":
            return self.expansion(node)
        if kind == "command_substitution":
            return self.substitution(node)
        if kind == "arithmetic_expansion":
            value = arithmetic(self.text(node)[3:-2], lambda name: self.lookup(name)[0])
            return (
                (value, None) if value is not None else (None, f"`{_short(self.text(node))}` is arithmetic on values unknown to the script")
            )
        return None, f"`{_short(self.text(node))}` is computed at run time"

    def expansion(self, node: Any) -> Value:
        name = self.expansion_name(node)
        if name is None:
            return None, f"`{_short(self.text(node))}` is computed at run time"
        current, reason = self.lookup(name)
        operators = [c.type for c in node.children]
        default = self.default_of(node)
        if default is not None:
            empty_too = ":-" in operators or ":=" in operators
            if name not in self.env.vars or (empty_too and current == ""):
                return self.evaluate(default)
            return current, reason
        if ":+" in operators or "+" in operators:
            return None, f"`{_short(self.text(node))}` is present or absent at run time"
        if len(node.children) > 3:  # ${#x}, ${x/a/b}, ${x%y}: not worth modelling
            return None, f"`{_short(self.text(node))}` transforms {name} at run time"
        return current, reason

    def substitution(self, node: Any) -> Value:
        """`$(...)` and backticks: a few pure text filters are modelled, the rest is run time."""
        body = [c for c in node.named_children if c.type in ("command", "pipeline")]
        text = _short(self.text(node))
        stages: list[list[str | None]] = []
        why = None
        if len(body) == 1:
            commands = [body[0]] if body[0].type == "command" else [c for c in body[0].named_children if c.type == "command"]
            for command in commands:
                words = [self.evaluate(w) for w in _argument_nodes(command)]
                stages.append([value for value, _ in words])
                why = why or next((reason for value, reason in words if value is None), None)
        value = pure_pipeline(stages)
        if value is not None:
            return value, None
        if why is not None and stages and stages[0] and stages[0][0] == "echo":
            return None, why
        return None, f"`{text}` runs at run time (line {self.line(node)})"

    # --- statements ---------------------------------------------------------------------
    def walk(self, node: Any) -> None:
        if node.is_error or node.is_missing:
            self.errors.append(node)
        handler = _HANDLERS.get(node.type)
        if handler is not None:
            handler(self, node)
        elif node.type != "function_definition":  # bodies run only if called; recipes define helpers there
            for child in node.children:
                self.walk(child)

    def walk_all(self, nodes: list[Any]) -> None:
        for child in nodes:
            self.walk(child)

    def branch(self, nodes: list[Any], start: _Env) -> _Env:
        saved = self.env
        self.env = start.copy()
        self.walk_all(nodes)
        result, self.env = self.env, saved
        return result

    def merge(self, envs: list[_Env], where: str) -> _Env:
        live = [env for env in envs if not env.dead]
        if not live:
            dead = envs[0].copy()
            dead.dead = True
            return dead
        if len(live) == 1:
            return live[0]
        cwds = {env.cwd for env in live}
        out = _Env({}, cwds.pop() if len(cwds) == 1 else None)
        for name in dict.fromkeys(n for env in live for n in env.vars):
            items = [env.vars.get(name) for env in live]
            out.vars[name] = _merge_binding(name, items, where)
        return out

    def if_statement(self, node: Any) -> None:
        where = f"the if at line {self.line(node)}"
        condition: list[Any] = []
        body: list[Any] = []
        clauses: list[Any] = []
        target = condition
        for child in node.children:
            if child.type == "then":
                target = body
            elif child.type in ("elif_clause", "else_clause"):
                clauses.append(child)
            elif child.is_named:
                target.append(child)
        first = next((c for c in condition if c.type != "comment"), None)
        if first is not None:
            where += f" ({_short(self.text(first), 40)})"
        self.walk_all(condition)
        branches = [self.branch(body, self.env)]
        has_else = False
        for clause in clauses:
            has_else = has_else or clause.type == "else_clause"
            if clause.type == "elif_clause":
                self.walk_all(_clause_condition(clause))
            branches.append(self.branch(_clause_body(clause), self.env))
        if not has_else:
            branches.append(self.env)
        self.env = self.merge(branches, where)

    def case_statement(self, node: Any) -> None:
        where = f"the case at line {self.line(node)}"
        branches = []
        has_default = False
        for item in node.named_children:
            if item.type != "case_item":
                continue
            statements, patterns = _case_parts(item)
            has_default = has_default or any(self.text(p) == "*" for p in patterns)
            branches.append(self.branch(statements, self.env))
        if not has_default or not branches:
            branches.append(self.env)
        self.env = self.merge(branches, where)

    def loop(self, node: Any) -> None:
        """A loop body may run any number of times: what it assigns is unknown inside and after it."""
        where = f"the loop at line {self.line(node)}"
        before = self.env
        start = before.copy()
        for name in _assigned_names(node, self.text):
            start.vars[name] = Binding(None, None, f"{name} is assigned in {where}", name in self.exports)
        # a C-style for's `i = 0` runs once, before the body: inside, i is the loop's
        body = (
            [c for c in node.children if c.type in ("do_group", "compound_statement")]
            if node.type == "c_style_for_statement"
            else list(node.children)
        )
        ran = self.branch(body, start)
        self.env = self.merge([before, ran], where)

    def isolated(self, node: Any) -> None:
        """A subshell or a pipeline: its commands run, its assignments and `cd` stay inside."""
        saved = self.env
        self.env = saved.copy()
        for child in node.children:
            self.walk(child)
        self.env = saved

    def pipeline(self, node: Any) -> None:
        if len([c for c in node.named_children if c.type != "comment"]) <= 1:
            self.walk_all(node.children)
        else:
            self.isolated(node)

    def list_statement(self, node: Any) -> None:
        """`a && b`, `a || b`: b runs or not, so what it assigns is known only if both agree."""
        named = [c for c in node.children if c.is_named]
        if len(named) != 2:
            self.walk_all(node.children)
            return
        left, right = named
        self.walk(left)
        taken = self.branch([right], self.env)
        self.env = self.merge([self.env, taken], f"the {_short(self.text(node), 40)!r} at line {self.line(node)}")

    def declaration(self, node: Any) -> None:
        text = self.text(node)
        exported = text.startswith("export") or any(self.text(c) == "-x" for c in node.named_children if c.type == "word")
        for child in node.named_children:
            if child.type == "variable_assignment":
                self.add_assignment(child, exported)
            elif child.type == "variable_name" and exported:
                name = self.text(child)
                self.exports.add(name)
                binding = self.env.vars.get(name)
                if binding is not None:
                    self.env.vars[name] = replace(binding, exported=True)

    def unset(self, node: Any) -> None:
        for child in node.named_children:
            if child.type in ("variable_name", "word"):
                self.env.vars.pop(self.text(child), None)

    def add_assignment(self, node: Any, exported: bool, tail: list[Any] | None = None) -> None:
        name_node = node.child_by_field_name("name")
        value_node = node.child_by_field_name("value")
        if name_node is None:
            return
        name = self.text(name_node)
        if value_node is not None and not tail and _POSITIONAL.match(self.text(value_node)):
            self.argument(name, node, self.text(value_node))
            return
        if value_node is not None and self.refused(name, node, value_node):
            return
        if value_node is None:
            empty = self.source.span(node.end_byte, node.end_byte)
            word = Word("", empty, "", None, empty)
        elif tail:
            word = self.joined_word([value_node, *tail])
        else:
            word = self.word(value_node)
            default = self.default_of(value_node)
            if default is not None:
                word.edit_span = self.span(default)
        if any(c.type == "+=" for c in node.children):
            old, why = self.lookup(name)
            word.value = None if old is None or word.value is None else old + word.value
            word.reason = word.reason or why
            word.edit_span = None
        if self.recording and value_node is not None:  # `out=$(accelerate launch ...)` still runs its command
            for inner in _substitutions(value_node):
                self.isolated(inner)
        end = tail[-1].end_byte if tail else node.end_byte
        span = self.source.span(node.start_byte, end)
        order = self.order if self.order is not None else node.start_byte
        assignment = Assignment(name, word, span, exported, order)
        exported = exported or name in self.exports or bool(self.env.vars.get(name) and self.env.vars[name].exported)
        if exported:
            self.exports.add(name)
        if self.recording:
            self.assignments.append(assignment)
        self.assigned += 1
        appended = any(c.type == "+=" for c in node.children)
        fields = self.fields(value_node) if value_node is not None and not tail and not appended else None
        self.env.vars[name] = Binding(word.value, assignment, _assignment_reason(name, word, self.line(node)), exported, fields)

    def refused(self, name: str, node: Any, value_node: Any) -> bool:
        """Whether bash refuses the assignment for a bad substitution in its value (the variable
        stays as it was; recorded once, for the rule that follows it to a launch)."""
        errors = (n for n in _descendants(value_node) if n.type == "ERROR")
        found = next(((n, m) for n in errors if (m := _BAD_SUBSTITUTION.match(self.text(n))) is not None), None)
        if found is None:
            return False
        if self.recording:
            start = found[0].start_byte
            span = self.source.span(start, start + len(found[1].group(0).encode()))
            self.failed.append(Failed(name, span, self.line(node), name in self.env.vars))
        return True

    def argument(self, name: str, node: Any, text: str) -> None:
        """`X=$1`: a value from the script's command line. A default assigned before stays the
        value recipelint reads (as with Kaldi's parse_options.sh); without one, X is unknown."""
        line = self.line(node)
        if self.recording:
            self.overrides.append(
                Override(name, self.span(node), f"{name} may be set from the command line ({text.strip(chr(34))} at line {line})")
            )
        if name not in self.env.vars:
            self.env.vars[name] = Binding(None, None, f"{name} is the script's argument {text.strip(chr(34))} (line {line})")

    def command(self, node: Any) -> None:
        named = [c for c in node.named_children if c.type not in ("file_redirect", "heredoc_redirect", "herestring_redirect", "comment")]
        runs = _runs(named)
        prefixes = [run for run in runs if run[0].type == "variable_assignment"]
        rest = [run for run in runs if run[0].type != "variable_assignment"]
        if not rest:  # `a=$x/$y/z`: tree-sitter took the tail for a command name
            for run in prefixes:
                self.add_assignment(run[0], False, run[1:])
            return
        env: dict[str, Word] = {}
        for run in prefixes:
            name_node = run[0].child_by_field_name("name")
            value_node = run[0].child_by_field_name("value")
            if name_node is not None and value_node is not None:
                env[self.text(name_node)] = self.word(value_node) if len(run) == 1 else self.joined_word([value_node, *run[1:]])
        words: list[Word] = []
        for run in rest:
            if len(run) > 1:
                words.append(self.joined_word(run))
                continue
            word_node = _unwrap(run[0])
            fields = self.split_use(word_node)
            words.extend(fields if fields is not None else [self.word(word_node)])
        inline = self.inline_c(words, env)
        if inline is not None:
            words, env = inline
        command = Command(words, self.span(node), env, dict(self.env.vars), self.env.cwd)
        if self.recording:
            self.commands.append(command)
        for child in node.named_children:  # commands inside $(...) are not launches, but look anyway
            if child.type in ("command_substitution", "process_substitution"):
                self.isolated(child)
        self.builtin(command, node)

    def inline_c(self, words: list[Word], env: dict[str, Word]) -> tuple[list[Word], dict[str, Word]] | None:
        """`bash -c STRING` and `eval ARGS`: the words before it, then the command the string (the
        arguments eval joins) holds, its variables put in as the script assigned them (an exported
        `LAUNCHER="accelerate launch ..."`, `CMD="torchrun ..."; eval $CMD`, read as written) and the
        rest left for the run time. The words read from the string all stand at the string's place
        (eval's first argument) with no place to write: a finding points at it, a fix edits nothing."""
        reread = self._reread(words) if self.depth < _MAX_SOURCE_DEPTH else None
        if reread is None:
            return None
        before, string, text = reread
        if text is None:
            return None
        child = _Builder(SourceText(self.source.path, text.encode()), None, _MAX_SOURCE_DEPTH)
        child.env = self.env.copy()
        for override in self.overrides:  # `X="$2"` in an option loop: the command line decides it
            child.env.vars[override.name] = Binding(None, None, override.note)
        child.walk(parser().parse(text.encode()).root_node)
        inner = next((c for c in child.commands if c.words), None)
        if inner is None or inner.words[0].value is None:
            return None  # the string names no program the script decides: `bash -c` is what is known

        def placed(word: Word) -> Word:
            option = (word.option[0], placed(word.option[1])) if word.option is not None else None
            return replace(word, span=string.span, edit_span=None, option=option)

        return before + [placed(w) for w in inner.words], {**env, **{k: placed(v) for k, v in inner.env.items()}}

    def _reread(self, words: list[Word]) -> tuple[list[Word], Word, str | None] | None:
        """What `bash -c STRING` or `eval ARGS` hands the shell to read again: the words before
        it, the word its findings stand at, and the text (None: the run time decides it)."""
        at = next((i for i, w in enumerate(words[:-2]) if w.value in _C_SHELLS and words[i + 1].value == "-c"), None)
        if at is not None:
            return words[:at], words[at + 2], self.substituted(words[at + 2].text, 0)
        if len(words) > 1 and words[0].value == "eval":  # eval joins its arguments and reads them again
            pieces = [self._eval_piece(w.text) for w in words[1:]]
            return [], words[1], None if None in pieces else " ".join(p for p in pieces if p is not None)
        return None

    def _eval_piece(self, text: str) -> str | None:
        """One argument of `eval` as the shell hands it over: an unquoted `$CMD` is split on blanks
        and newlines (its value's line breaks, and the continuations of the assignment it was
        written in, separate words, not commands); a quoted one keeps its lines."""
        piece = self.substituted(text, 0)
        if piece is None or text.startswith(('"', "'")):
            return piece
        return " ".join(piece.replace("\\\n", " ").split())

    def substituted(self, text: str, depth: int) -> str | None:
        """A `-c` string as the shell hands it over: quotes taken off and each plain `$VAR` replaced
        by its value, or, when the value waits on the run time and the assignment holds several
        words (`LAUNCHER="python -m torch.distributed.run --nnodes $NNODES ..."`), by what the
        assignment wrote (itself substituted, a few levels deep). A one-word variable with an
        unknown value, one with no single assignment, or one the script's command line may set
        (an option loop's `X="$2"`) stays `$VAR`: read as the variable."""
        if depth > 3:
            return None
        if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
            text = text[1:-1]

        def value(match: re.Match[str]) -> str:
            name = match.group(1) or match.group(2)
            binding = self.env.vars.get(name)
            if binding is None or binding.origin is None or any(o.name == name for o in self.overrides):
                return match.group(0)
            if binding.value is not None:
                return binding.value
            written = binding.origin.value.text
            if not any(c.isspace() for c in written.strip("\"'")):
                return match.group(0)  # one word (a path): read as the variable, linked to its assignment
            inner = self.substituted(written, depth + 1)
            return inner if inner is not None else match.group(0)

        return _EXPANSION.sub(value, text)

    def builtin(self, command: Command, node: Any) -> None:
        name = command.name
        args = command.words[1:]
        if name in ("exit", "return"):
            self.env.dead = True
        elif name in (".", "source") and args:
            self.source_file(args[0], node)
        elif name in ("cd", "pushd"):
            self.change_dir(args[0] if args else None)
        elif name == "git" and args and args[0].value == "clone":
            self.clone(args[1:])
        elif name == "popd":
            self.env.cwd = None
        elif name == "read":
            line = self.line(node)
            for word in args:
                if word.value and word.value.isidentifier():
                    self.env.vars[word.value] = Binding(None, None, f"{word.value} is read by `read` at run time (line {line})")

    def redirected(self, node: Any) -> None:
        """A command with redirections: it runs as usual, and the files it writes are noted
        (a script that writes its DeepSpeed JSON with `cat <<EOF > $ds_config` names no missing file)."""
        self.walk_all(node.children)
        if not self.recording:
            return
        redirects = [c for c in node.named_children if c.type == "file_redirect"]
        for heredoc in (c for c in node.named_children if c.type == "heredoc_redirect"):
            redirects.extend(c for c in heredoc.named_children if c.type == "file_redirect")
        for redirect in redirects:
            operators = {c.type for c in redirect.children if not c.is_named}
            target = redirect.named_children[-1] if redirect.named_child_count else None
            if target is None or not operators & {">", ">>", "&>", ">|", "&>>"}:
                continue
            value, _ = self.evaluate(target)
            if value and not posixpath.isabs(value) and self.env.cwd is not None:
                path = posixpath.normpath(posixpath.join(self.env.cwd or ".", value))
                self.written.setdefault(path, self.span(redirect))
                self.template(node, path, self.span(redirect))
            elif value is None:  # `> ${config_json}`, its name decided at run time: kept by its assignment
                # (whatever the folder: the launch reads it through the same variable, from the same place)
                binding = self.plain_binding(_unwrap_string(target))
                if binding is not None and binding.origin is not None:
                    self.template(node, unknown_path(binding.origin), self.span(redirect))

    def template(self, node: Any, path: str, span: Span) -> None:
        """What a heredoc or a sed pipeline writes, when it writes it from the script's own text."""
        heredoc = any(c.type == "heredoc_redirect" for c in node.named_children)
        if not heredoc and not self.data.startswith(b"sed", node.start_byte):
            return  # `> log.txt`: nothing to read, and no reader to import
        from recipelint.parse import shelltemplate  # only for scripts that write files

        written = shelltemplate.capture(self, node, path, span)
        earlier = self.templates.get(path)
        if earlier is not None:  # written twice (on two branches, or over itself): what both write
            self.templates[path] = shelltemplate.merge(earlier, written, span)
        elif written is not None:
            self.templates[path] = written

    def change_dir(self, target: Word | None) -> None:
        own = _OWN_FOLDER.match(target.text.replace('"', "")) if target is not None and target.value is None else None
        if own is not None and (own.group("a") or own.group("b") or "").strip() in _OWN_PATH:
            self.env.cwd = posixpath.normpath("." + (own.group("rest") or ""))
            if self.recording and self.env.cwd not in self.cd_dirs:
                self.cd_dirs.append(self.env.cwd)
            return
        if target is None or target.value is None or target.value in ("-", "~") or target.value.startswith("~"):
            self.env.cwd = None
            return
        if posixpath.isabs(target.value):
            self.env.cwd = None  # a folder of the training machine, not of this checkout
            return
        if self.env.cwd is None:
            return
        self.env.cwd = posixpath.normpath(posixpath.join(self.env.cwd or ".", target.value))
        if self.recording and self.env.cwd not in self.cd_dirs:
            self.cd_dirs.append(self.env.cwd)

    def clone(self, args: list[Word]) -> None:
        """`git clone [options] URL [DIR]`: the folder it makes is DIR, else the URL's last part without `.git`."""
        plain = [word.value for word in args if word.value is not None and not word.value.startswith("-")]
        if not plain:
            return
        name = plain[1] if len(plain) > 1 else posixpath.basename(plain[0].rstrip("/"))
        name = name[:-4] if len(plain) == 1 and name.endswith(".git") else name
        if name and self.recording and name not in self.clones:
            self.clones.append(name)

    def source_file(self, target: Word, node: Any) -> None:
        span = self.span(node)
        written = target.value if target.value is not None else target.text
        if Path(written).name in OPTION_PARSERS:
            note = "Kaldi option parser: any variable assigned above may be overridden on the command line"
            if self.options:
                note += f"; the caller sets {', '.join(sorted(self.options))}"
            self.sourced.append(Sourced(written, span, False, note))
            for name, binding in self.options.items():
                if name in self.env.vars:  # parse_options.sh rejects an option no variable declares
                    self.env.vars[name] = Binding(binding.value, None, binding.reason, self.env.vars[name].exported)
            return
        path, why = self.sourced_path(target)
        if path is None:
            self.sourced.append(Sourced(written, span, False, f"not read: {why}"))
            return
        try:
            text = self.read(path) if self.read is not None else None
        except SourceError as error:
            self.sourced.append(Sourced(written, span, False, f"not read: {error.reason}"))
            return
        if text is None:
            return
        child = _Builder(text, self.read, self.depth + 1, self.order if self.order is not None else node.start_byte)
        child.env, child.exports, child.seen = self.env, self.exports, self.seen | {path}
        child.walk(parser().parse(text.data).root_node)
        self.env = child.env
        self.env.dead = False  # a sourced helper's `return` (or `exit` under `|| exit`) is not this script's end
        self.sourced.append(Sourced(written, span, True, f"read for its assignments ({child.assigned} values)"))
        self.sourced.extend(child.sourced)

    def sourced_path(self, target: Word) -> tuple[Path | None, str]:
        if self.read is None:
            return None, "no files are read for a command line"
        if target.value is None:
            return None, target.reason or "its path is decided at run time"
        if posixpath.isabs(target.value) or target.value.startswith("~"):
            return None, "an absolute path on the training machine"
        if self.depth >= _MAX_SOURCE_DEPTH:
            return None, "sourced files nested too deeply"
        if self.env.cwd is None:
            return None, "the script's current folder is unknown here"
        path = self.source.path.parent / (self.env.cwd or ".") / target.value
        if path in self.seen:
            return None, "it sources itself"
        if not path.is_file():
            return None, f"no such file {path}"
        return path, ""


def unknown_path(origin: Assignment) -> str:
    """The key of a file whose name only the run time knows, written and read through the same
    assignment (`config_json="ds_config_gpt_${NAME}.json"`): the variable and where it is set."""
    return f"${{{origin.name}}}@{origin.order}"


def _unwrap_string(node: Any) -> Any:
    """`"$x"` as `$x`."""
    if node.type == "string" and node.named_child_count == 1 and node.named_children[0].type in ("simple_expansion", "expansion"):
        return node.named_children[0]
    return node


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text) if "\\" in text else text


def _flatten(nodes: list[Any]) -> list[Any]:
    parts: list[Any] = []
    for node in nodes:
        if node.type == "concatenation":
            parts.extend(node.children)
        elif node.type == "command_name" and node.named_child_count:
            parts.extend(_flatten([node.named_children[0]]))
        else:
            parts.append(node)
    return parts


def _substitutions(node: Any) -> list[Any]:
    """The `$(...)` inside a value (not those nested in another)."""
    if node.type in ("command_substitution", "process_substitution"):
        return [node]
    found: list[Any] = []
    for child in node.named_children:
        found.extend(_substitutions(child))
    return found


def _descendants(node: Any) -> list[Any]:
    """The node and every node under it, outside `$(...)` (a command of its own)."""
    if node.type in ("command_substitution", "process_substitution"):
        return []
    found = [node]
    for child in node.children:
        found.extend(_descendants(child))
    return found


def _unwrap(node: Any) -> Any:
    return node.named_children[0] if node.type == "command_name" and node.named_child_count else node


def _runs(nodes: list[Any]) -> list[list[Any]]:
    """Group nodes that touch (no blank between them): one shell word each."""
    runs: list[list[Any]] = []
    for node in nodes:
        if runs and runs[-1][-1].end_byte == node.start_byte and node.type != "variable_assignment":
            runs[-1].append(node)
        else:
            runs.append([node])
    return runs


def _split(value: str | None, span: Span) -> list[Word] | None:
    """A known value's words after bash splits it, each at `span` (where the expansion is: the
    value came from text that holds no single place for each piece); None when splitting leaves
    it as it is (no blank in it) or it is unknown. An empty value gives no word."""
    if value is None or value.split() == [value]:
        return None
    pieces = []
    for piece in value.split():
        word = Word(piece, span, piece, None, None)
        name, equals, rest = piece.partition("=")
        if equals and name.startswith("-"):
            word.option = (name, Word(rest, span, rest, None, None))
        pieces.append(word)
    return pieces


def _argument_nodes(command: Any) -> list[Any]:
    out = []
    for child in command.named_children:
        if child.type == "command_name":
            out.append(_unwrap(child))
        elif child.type not in ("file_redirect", "heredoc_redirect", "herestring_redirect", "comment", "variable_assignment"):
            out.append(child)
    return out


def _clause_body(clause: Any) -> list[Any]:
    if clause.type == "else_clause":
        return [c for c in clause.children if c.is_named]
    body: list[Any] = []
    seen_then = False
    for child in clause.children:
        if child.type == "then":
            seen_then = True
        elif seen_then and child.is_named:
            body.append(child)
    return body


def _clause_condition(clause: Any) -> list[Any]:
    condition: list[Any] = []
    for child in clause.children:
        if child.type == "then":
            break
        if child.is_named:
            condition.append(child)
    return condition


def _case_parts(item: Any) -> tuple[list[Any], list[Any]]:
    patterns: list[Any] = []
    statements: list[Any] = []
    target = patterns
    for child in item.children:
        if child.type == ")":
            target = statements
        elif child.is_named:
            target.append(child)
    return statements, patterns


def _assigned_names(node: Any, text: Callable[[Any], str]) -> list[str]:
    """Variables a loop assigns: its own variable, assignments and `read` targets in its body
    (not `X=$1`: an option loop's override is not a new value)."""
    names: list[str] = []
    stack = [node]
    while stack:
        current = stack.pop()
        value = current.child_by_field_name("value") if current.type == "variable_assignment" else None
        if value is not None and _POSITIONAL.match(text(value)):
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


def _assignment_reason(name: str, word: Word, line: int) -> str | None:
    if word.value is not None:
        return None
    if word.ref is not None and word.binding is not None and word.reason:
        return f"{name} comes from {word.ref} (line {line}); {word.reason}"
    text = word.text if len(word.text) <= 60 else word.text[:57] + "..."
    if word.reason and "runs at run time" in word.reason:
        code = text if text.startswith("`") else f"`{text}`"
        return f"{name} is set by {code} at run time (line {line})"
    return f"{name} = {text} (line {line}); {word.reason or 'decided at run time'}"


def _describe(binding: Binding | None) -> str:
    if binding is None:
        return "unset"
    origin = binding.origin
    where = f" (line {origin.span.line})" if origin is not None else ""
    if binding.value is not None:
        return f'"{binding.value}"{where}'
    if origin is not None:
        return f"`{_short(origin.value.text, 50)}`{where}"
    return "unknown"


def _merge_binding(name: str, items: list[Binding | None], where: str) -> Binding:
    first = items[0]
    exported = any(item is not None and item.exported for item in items)
    if all(item is first for item in items) and first is not None:
        return first
    if first is not None and first.value is not None and all(item is not None and item.value == first.value for item in items):
        origin = first.origin if all(item is not None and item.origin is first.origin for item in items) else None
        return Binding(first.value, origin, None, exported, first.fields if origin is not None else None)
    alternatives = list(dict.fromkeys(_describe(item) for item in items))
    reason = f"{name} differs between the branches of {where}: {' or '.join(alternatives)}"
    return Binding(None, None, reason, exported, branches=tuple(items), where=where)


def _parse_range(source: SourceText, start: int, end: int) -> Any:
    import tree_sitter

    bash = parser()
    # the line table, not a count from the top: a README's thousands of fences stay linear
    bash.included_ranges = [tree_sitter.Range(source.point(start), source.point(end), start, end)]
    try:
        return bash.parse(source.data)
    finally:
        bash.included_ranges = []


_HANDLERS: dict[str, Callable[[_Builder, Any], None]] = {
    "variable_assignment": lambda b, n: b.add_assignment(n, False),
    "declaration_command": _Builder.declaration,
    "unset_command": _Builder.unset,
    "command": _Builder.command,
    "if_statement": _Builder.if_statement,
    "case_statement": _Builder.case_statement,
    "for_statement": _Builder.loop,
    "c_style_for_statement": _Builder.loop,
    "while_statement": _Builder.loop,
    "subshell": _Builder.isolated,
    "pipeline": _Builder.pipeline,
    "list": _Builder.list_statement,
    "redirected_statement": _Builder.redirected,
    "comment": lambda b, n: None,
    "heredoc_body": lambda b, n: None,
}


def parse_shell(
    source: SourceText,
    read: Reader | None = None,
    ranges: list[tuple[int, int]] | None = None,
    options: dict[str, Binding] | None = None,
) -> ShellScript:
    """Read a script; with `read`, local files it sources are read too (never run). With
    `ranges`, only those byte ranges are shell (Markdown code blocks), each parsed on its own
    so a syntax error in one cannot swallow the next; variables carry over from one to the next.
    `options` are the `--name value` pairs a calling script passes, applied where the script
    sources Kaldi's parse_options.sh."""
    builder = _Builder(source, read)
    builder.options = dict(options or {})
    if ranges is None:
        builder.walk(parser().parse(source.data).root_node)
    else:
        for start, end in ranges:
            builder.walk(_parse_range(source, start, end).root_node)
    if builder.errors and not builder.commands and not builder.assignments:
        first = builder.errors[0]
        line, column = first.start_point.row + 1, first.start_point.column + 1
        raise SourceError(source.path, "shell syntax the parser cannot read", line, column)
    return ShellScript(
        source,
        builder.assignments,
        builder.commands,
        builder.exports,
        len(builder.errors),
        builder.sourced,
        builder.cd_dirs,
        builder.written,
        builder.overrides,
        builder.clones,
        builder.templates,
        builder.failed,
    )
