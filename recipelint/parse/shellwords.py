"""Word evaluation for the shell reader: quoting, expansions, word splitting, and each word's
static value where the script alone decides it (`${VAR:-d}`, `$((...))`, the pure pipelines of
shellvalue). The walk's state lives here too (`WordReader`), so the control-flow and sourcing
readers built on it share one set of variables.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from recipelint.parse.shellnodes import argument_nodes, flatten, plain_variable, unescape, unwrap_string
from recipelint.parse.shellrecords import (
    MAX_ITEMS,
    MAX_VARIANT_COMMANDS,
    Assignment,
    Binding,
    Broken,
    Budget,
    Command,
    Env,
    Failed,
    Override,
    Reader,
    Sourced,
    Value,
    Word,
    Written,
    merge_binding,
    short,
    too_large,
)
from recipelint.parse.shellvalue import arithmetic, pure_pipeline
from recipelint.parse.span import SourceText, Span
from recipelint.records import replace

if TYPE_CHECKING:
    from tree_sitter import Node

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_GLOB = re.compile(r"[*?\[]")
# `$(dirname $0)`, `$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)`: the folder the script is in.
_SCRIPT_DIR = re.compile(
    r'\$\(\s*(?:cd\s+"?)?\$\(\s*dirname\s+"?\$\{?(?:0|BASH_SOURCE(?:\[0\])?)\}?"?\s*\)"?\s*(?:(?:&&|;)\s*pwd\s*)?\)|\$\(\s*dirname\s+"?\$\{?(?:0|BASH_SOURCE(?:\[0\])?)\}?"?\s*\)'
)
_QUOTED_ESCAPE = re.compile(r'\\([$`"\\\n])')
# Variables bash itself gives a value (https://www.gnu.org/software/bash/manual/html_node/Bash-Variables.html):
# never "not set in the script".
_BASH_SETS = frozenset(
    {
        "RANDOM",
        "SRANDOM",
        "SECONDS",
        "LINENO",
        "BASHPID",
        "PPID",
        "UID",
        "EUID",
        "HOSTNAME",
        "HOSTTYPE",
        "OSTYPE",
        "MACHTYPE",
        "EPOCHSECONDS",
        "EPOCHREALTIME",
        "BASH_VERSION",
        "PWD",
        "OLDPWD",
        "SHLVL",
        "GROUPS",
        "BASH_SOURCE",
        "FUNCNAME",
    }
)


class WordReader:
    """The walk's state, and the value of every word at the point the walk has reached."""

    def __init__(self, source: SourceText, read: Reader | None = None, depth: int = 0, order: int | None = None) -> None:
        self.options: dict[str, Binding] = {}  # values a caller passes to parse_options.sh
        self.source = source
        self.data = source.data
        self.read = read
        self.depth = depth
        self.order = order  # for a sourced file: the offset of the `.` command in the script
        self.recording = order is None
        self.env = Env()
        self.assignments: list[Assignment] = []
        self.commands: list[Command] = []
        self.exports: set[str] = set()
        self.errors: list[Node] = []
        self.sourced: list[Sourced] = []
        self.cd_dirs: list[str] = []
        self.clones: list[str] = []
        self.written: dict[str, Span] = {}
        self.templates: dict[str, Written] = {}
        self.overrides: list[Override] = []
        self.failed: list[Failed] = []
        self.broken: list[Broken] = []
        self.seen: set[Path] = {source.path}
        self.assigned = 0
        self.budget = Budget()
        self.variants_left = MAX_VARIANT_COMMANDS  # variant commands this script may still build
        # functions the script defines (name: body statements), shared with what it sources
        self.functions: dict[str, list[Node]] = {}
        self.called: set[str] = set()
        self.calling: list[str] = []

    def text(self, node: Node) -> str:
        return self.data[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def span(self, node: Node) -> Span:
        return self.source.span(node.start_byte, node.end_byte)

    def line(self, node: Node) -> int:
        return int(node.start_point.row) + 1

    # --- values -----------------------------------------------------------------------
    def lookup(self, name: str) -> Value:
        binding = self.env.vars.get(name)
        if binding is None and name in _BASH_SETS:
            return None, f"{name} is set by bash at run time"
        if binding is None:
            return None, f"{name} is not set in the script"
        return binding.value, binding.reason

    def word(self, node: Node) -> Word:
        value, reason = self.evaluate(node)
        ref = None
        binding = None
        edit_span: Span | None = self.span(node)
        kind = node.type
        inner = node
        if kind == "string" and node.named_child_count == 1 and node.named_children[0].type in ("simple_expansion", "expansion"):
            inner = node.named_children[0]
        if inner.type in ("simple_expansion", "expansion"):
            ref = plain_variable(self.text(inner))
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
        word.pattern = self.pattern(node, value)
        if word.option is not None and word.option[1].value is None and word.option[1].pattern is None:
            word.option[1].pattern = _tail_pattern(word.pattern, word.option[0])
        return word

    def pattern(self, node: Node, value: str | None) -> str | None:
        """The glob of a path only the run time completes (Word.pattern): None when the script
        decides it (and it holds no unquoted glob) or nothing of it is known."""
        if value is not None:
            return value if node.type in ("word", "concatenation") and _GLOB.search(value) else None
        found = self.glob_of(node, 0)
        return found if found is not None and found.strip("*/") and "*" in found else None

    def glob_of(self, node: Node, depth: int) -> str | None:
        kind = node.type
        if kind in ("string", "concatenation") and depth < 8:
            pieces = [self.glob_of(c, depth + 1) for c in node.children if c.type != '"']
            return None if None in pieces else "".join(p for p in pieces if p is not None)
        value, _ = self.evaluate(node) if kind != "command_substitution" else (None, None)
        if value is not None:
            return _GLOB.sub(lambda m: "[" + m.group(0) + "]", value) if kind in ("simple_expansion", "expansion") else value
        binding = self.plain_binding(node)
        origin = binding.origin.value if binding is not None and binding.origin is not None else None
        written = origin.text if origin is not None else self.text(node)
        if _SCRIPT_DIR.fullmatch(written.strip('"')):
            return "."  # the script's own folder, where the glob is looked up
        return origin.pattern if origin is not None and origin.pattern is not None else "*"

    def expand_word(self, node: Node) -> list[Word]:
        """The words one argument becomes: an array's elements (`"${ARGS[@]}"`), an unquoted
        value split on blanks, or the word itself."""
        found = self.array_use(node)
        if found is None:
            found = self.split_use(node)
        return found if found is not None else [self.word(node)]

    def subscript(self, node: Node) -> tuple[str, Node] | None:
        """(the array, the index node) of `${X[i]}`, `${X[@]}`, `${#X[@]}`; None for anything else."""
        sub = next((c for c in node.named_children if c.type == "subscript"), None) if node.type == "expansion" else None
        if sub is None or sub.named_child_count < 2:
            return None
        return self.text(sub.named_children[0]), sub.named_children[1]

    def array_use(self, node: Node) -> list[Word] | None:
        """`"${X[@]}"`: each element one word; `"${X[*]}"`: one word, the elements joined by a
        blank; unquoted, each element split on blanks. None when the node is not such a use or X
        holds no known elements (then the word's value says why)."""
        inner = unwrap_string(node)
        quoted = inner is not node
        sub = self.subscript(inner) if len(inner.children) == 3 else None  # `${`, the subscript, `}`
        if inner.type == "simple_expansion" and self.text(inner) in ("$@", "$*"):
            sub = ("@", inner)  # the positional parameters, an array bash names @
        if sub is None or self.text(sub[1])[-1:] not in ("@", "*"):
            return None
        binding = self.env.vars.get(sub[0])
        if binding is None or binding.items is None:
            return None
        items = list(binding.items.values())
        if quoted and self.text(sub[1])[-1:] == "*":
            value, reason = _joined(items)
            return [Word(self.text(node), self.span(node), value, reason=reason)]
        if quoted:
            return [replace(item) for item in items]
        return [piece for item in items for piece in (_split(item.value, item.span) or [replace(item)])]

    def element(self, node: Node, name: str, index: Node) -> Value:
        """`${X[i]}`, `${X[@]}` inside a longer word (the elements joined by blanks), `${#X[@]}`."""
        binding = self.env.vars.get(name)
        if binding is None:
            return self.lookup(name)
        if binding.value is None and binding.items is None:
            return None, binding.reason
        items = binding.items if binding.items is not None else {"0": Word(name, self.span(node), binding.value)}
        every = self.text(index) in ("@", "*")
        if any(c.type == "#" for c in node.children):
            return (str(len(items)), None) if every else (None, f"`{short(self.text(node))}` is computed at run time")
        if every:
            return _joined(list(items.values()))
        key, why = self.evaluate(index)
        if key is None:
            return None, why
        key = str(int(key)) if key.lstrip("-").isdigit() else key
        found = items.get(key)
        if found is None:
            return "", None  # bash: an unset element is empty
        return found.value, None if found.value is not None else f"{name}[{key}]: {found.reason}"

    def array_items(self, node: Node, start: int = 0) -> dict[str, Word]:
        """The elements of `(a "b c" ${Y[@]} [k]=v)`, by index or key."""
        items: dict[str, Word] = {}
        index = start
        for child in node.named_children:
            if child.type == "comment":
                continue
            keyed = self.keyed_element(child)
            if keyed is not None:
                items[keyed[0]] = keyed[1]
                index = int(keyed[0]) + 1 if keyed[0].isdigit() else index
                continue
            for word in self.expand_word(child):
                items[str(index)] = word
                index += 1
            if len(items) > MAX_ITEMS:
                break
        return items

    def keyed_element(self, node: Node) -> tuple[str, Word] | None:
        """`[key]=value` inside `( ... )`: the key and the value's word."""
        parts = node.children if node.type == "concatenation" else []
        close = next((i for i, c in enumerate(parts) if c.type == "word" and self.text(c) == "]"), None)
        if not parts or self.text(parts[0]) != "[" or close is None or close + 1 >= len(parts):
            return None
        equals = parts[close + 1]
        if not self.text(equals).startswith("="):
            return None
        key, _ = self.evaluate_parts(list(parts[1:close]))
        start = equals.start_byte + 1
        pieces: list[Node | str] = [self.data[start : equals.end_byte].decode("utf-8", "replace"), *parts[close + 2 :]]
        value, reason = self.evaluate_parts(pieces)
        span = self.source.span(start, node.end_byte)
        literal = close + 2 == len(parts)
        text = self.data[start : node.end_byte].decode("utf-8", "replace")
        return (key or "?"), Word(text, span, value, None, span if literal else None, reason=reason)

    def plain_binding(self, node: Node) -> Binding | None:
        """The binding of the variable an expansion node is exactly, if any."""
        text = self.text(node)
        name = plain_variable(text[text.find("$") :]) if node.type in ("simple_expansion", "expansion") else None
        return self.env.vars.get(name) if name else None

    def split_use(self, node: Node) -> list[Word] | None:
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

    def fields(self, node: Node) -> list[Word] | None:
        """The words a quoted value (`"--nproc_per_node $GPUS \\ --nnodes 2"`) splits into at an
        unquoted use; `A=$B` takes B's. None when the value has no blank outside an expansion."""
        if node.type in ("simple_expansion", "expansion"):
            binding = self.plain_binding(node)
            return binding.fields if binding is not None else None
        if node.type not in ("string", "raw_string"):
            return None
        start, end = node.start_byte + 1, node.end_byte - 1
        atoms = [c for c in node.named_children if c.type != "string_content"] if node.type == "string" else []
        groups: list[list[tuple[int, int, Node | str]]] = [[]]  # (start, end, a node or the literal text)
        position = start
        for atom in [*atoms, None]:
            stop = self.atom_start(atom) if atom is not None else end
            self.split_literal(position, stop, groups, node.type == "string")
            if atom is not None:
                groups[-1].append((stop, atom.end_byte, atom))
                position = atom.end_byte
        words = [word for group in groups if group for word in self.field_words(group)]
        return words if len(words) != 1 else None

    def atom_start(self, atom: Node) -> int:
        """Where an expansion inside a string starts: tree-sitter-bash gives `"$A \\\n    $B"`'s
        second expansion the blanks and the backslash-newline before its `$` (Megatron-DeepSpeed's
        ds_evalharness.sh), which are the string's text, not the expansion's."""
        if atom.type != "simple_expansion":
            return int(atom.start_byte)
        return int(atom.start_byte) + max(self.data[atom.start_byte : atom.end_byte].find(b"$"), 0)

    def field_words(self, group: list[tuple[int, int, Node | str]]) -> list[Word]:
        """The words one blank-free stretch of a quoted value gives at an unquoted use: an
        expansion in it is split in turn (`ds_args=" --deepspeed_config=x ${ds_args}"`)."""
        if len(group) == 1 and not isinstance(group[0][2], str):
            fields = self.fields(group[0][2])
            if fields is not None:
                return [replace(field) for field in fields]
        word = self.field_word(group)
        pieces = _split(word.value, word.span)
        return pieces if pieces is not None else [word]

    def split_literal(self, start: int, stop: int, groups: list[list[tuple[int, int, Node | str]]], escapes: bool) -> None:
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

    def field_word(self, group: list[tuple[int, int, Node | str]]) -> Word:
        start, end = group[0][0], group[-1][1]
        span = self.source.span(start, end)
        value, reason = self.evaluate_parts([part for _, _, part in group])
        text = self.data[start:end].decode("utf-8", "replace")
        literal = all(isinstance(part, str) for _, _, part in group)
        word = Word(text, span, value, None, span if literal and text == value else None, reason=reason)
        if len(group) == 1 and not literal:
            word.ref = plain_variable(text)
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

    def joined_word(self, nodes: list[Node]) -> Word:
        """A word tree-sitter-bash split in pieces with nothing between them (`$a/$b/c` becomes
        `$a/$` and `b/c`): evaluated whole."""
        start, end = nodes[0].start_byte, nodes[-1].end_byte
        value, reason = self.evaluate_parts(flatten(nodes))
        span = self.source.span(start, end)
        word = Word(self.data[start:end].decode("utf-8", "replace"), span, value, None, None, reason=reason)
        word.option = self.option_of(nodes)
        return word

    def option_of(self, nodes: list[Node]) -> tuple[str, Word] | None:
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
        parts = [p for p in flatten(nodes) if p.end_byte > cut]
        if len(parts) == 1 and parts[0].start_byte >= cut:
            return match.group(1), self.word(parts[0])
        pieces: list[Node | str] = []
        for part in parts:
            if part.start_byte < cut:  # the literal tail of `--name=tail`
                pieces.append(self.data[cut : part.end_byte].decode("utf-8", "replace"))
            else:
                pieces.append(part)
        value, reason = self.evaluate_parts(pieces)
        return match.group(1), Word(literal, span, value, None, None, reason=reason)

    def expansion_name(self, node: Node) -> str | None:
        for child in node.named_children:
            if child.type == "variable_name":
                return self.text(child)
        return None

    def default_of(self, node: Node) -> Node | None:
        """The node holding `d` in ${VAR:-d} / ${VAR-d} / ${VAR:=d}, or None."""
        if node.type != "expansion":
            return None
        children = node.children
        for i, child in enumerate(children):
            if child.type in (":-", "-", ":=", "=") and i + 1 < len(children) and children[i + 1].type != "}":
                return children[i + 1]
        return None

    def evaluate_parts(self, parts: Sequence[Node | str]) -> Value:
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
            following = parts[index] if index < len(parts) else None
            if part.type == "$" and following is not None and not isinstance(following, str) and following.type == "word":
                tail = self.text(following)
                index += 1
                match = _IDENTIFIER.match(tail)
                if match is None:
                    out.append("$" + tail)
                    continue
                value, reason = self.lookup(match.group(0))
                if value is None:
                    return None, reason
                out.append(value + unescape(tail[match.end() :]))
                continue
            value, reason = self.evaluate(part)
            if value is None:
                return None, reason
            out.append(value)
        if len(out) > 1 and not self.budget.take(sum(map(len, out))):
            return None, too_large(next((self.line(p) for p in parts if not isinstance(p, str)), 0))
        return "".join(out), None

    def evaluate(self, node: Node) -> Value:
        kind = node.type
        if kind in ("word", "number"):
            return unescape(self.text(node)), None
        if kind == "raw_string":
            return self.text(node)[1:-1], None
        if kind in ("string", "concatenation"):
            return self.evaluate_parts([c for c in node.children if c.type != '"'])
        if kind == "string_content":  # inside double quotes a backslash escapes only $ ` " \ and a newline
            return _QUOTED_ESCAPE.sub(lambda m: "" if m.group(1) == "\n" else m.group(1), self.text(node)), None
        if kind == "$":  # a `$` nothing follows is itself
            return "$", None
        if kind == "simple_expansion":  # from its `$` (see atom_start)
            text = self.text(node)
            return self.simple_expansion(text[text.find("$") + 1 :])
        if kind == "expansion":
            return self.expansion(node)
        if kind == "command_substitution":
            return self.substitution(node)
        if kind == "arithmetic_expansion":
            value = arithmetic(self.text(node)[3:-2], lambda name: self.lookup(name)[0])
            return (
                (value, None) if value is not None else (None, f"`{short(self.text(node))}` is arithmetic on values unknown to the script")
            )
        return None, f"`{short(self.text(node))}` is computed at run time"

    def simple_expansion(self, variable: str) -> Value:
        if variable in self.env.vars:  # $1, $@, $# of a function call or after `set --`
            return self.lookup(variable)
        if variable.isdigit() or variable in ("@", "*", "#"):
            return None, f"${variable} is the script's argument: the command line decides it"
        if not variable.isidentifier():
            return None, f"${variable} is set by the shell at run time"
        return self.lookup(variable)

    def expansion(self, node: Node) -> Value:
        sub = self.subscript(node)
        if sub is not None:
            return self.element(node, *sub)
        name = self.expansion_name(node)
        if name is None:
            return None, f"`{short(self.text(node))}` is computed at run time"
        current, reason = self.lookup(name)
        operators = [c.type for c in node.children]
        default = self.default_of(node)
        if default is not None:
            empty_too = ":-" in operators or ":=" in operators
            if name not in self.env.vars or (empty_too and current == ""):
                value, why = self.evaluate(default)
                if ":=" in operators or "=" in operators:  # `${X:=d}` also assigns X
                    self.env.vars[name] = Binding(value, None, why or None)
                return value, why
            binding = self.env.vars[name]
            if binding.branches is not None and (":=" in operators or "=" in operators):
                return self.assign_default(name, binding, default, empty_too)
            return current, reason
        if ":+" in operators or "+" in operators:
            return None, f"`{short(self.text(node))}` is present or absent at run time"
        if len(node.children) > 3:  # ${#x}, ${x/a/b}, ${x%y}: not worth modelling
            return None, f"`{short(self.text(node))}` transforms {name} at run time"
        return current, reason

    def assign_default(self, name: str, binding: Binding, default: Node, empty_too: bool) -> Value:
        """`${X:=d}` where X differs between branches: d on each branch that leaves X unset (or
        empty), the branch's own value elsewhere; X holds the merge."""
        value, why = self.evaluate(default)
        filled = Binding(value, None, why, binding.exported)
        assert binding.branches is not None
        items: list[Binding | None] = [b if b is not None and not (empty_too and b.value == "") else filled for b in binding.branches]
        merged = merge_binding(name, items, binding.where, binding.labels)
        self.env.vars[name] = merged
        return merged.value, merged.reason

    def substitution(self, node: Node) -> Value:
        """`$(...)` and backticks: a few pure text filters are modelled, the rest is run time."""
        body = [c for c in node.named_children if c.type in ("command", "pipeline")]
        text = short(self.text(node))
        stages: list[list[str | None]] = []
        why = None
        if len(body) == 1:
            commands = [body[0]] if body[0].type == "command" else [c for c in body[0].named_children if c.type == "command"]
            for command in commands:
                words = [self.evaluate(w) for w in argument_nodes(command)]
                stages.append([value for value, _ in words])
                why = why or next((reason for value, reason in words if value is None), None)
        value = pure_pipeline(stages)
        if value is not None:
            return value, None
        if why is not None and stages and stages[0] and stages[0][0] == "echo":
            return None, why
        return None, f"`{text}` runs at run time (line {self.line(node)})"


def _tail_pattern(pattern: str | None, option: str) -> str | None:
    """The glob of `--name=VALUE`'s value from the whole word's glob."""
    prefix = option + "="
    return pattern[len(prefix) :] if pattern is not None and pattern.startswith(prefix) and pattern[len(prefix) :].strip("*/") else None


def _joined(items: list[Word]) -> Value:
    """Elements joined by a blank (`${X[*]}`, or `${X[@]}` inside a longer word)."""
    unknown = next((item for item in items if item.value is None), None)
    if unknown is not None:
        return None, unknown.reason
    return " ".join(item.value or "" for item in items), None


def _split(value: str | None, span: Span) -> list[Word] | None:
    """A known value's words after bash splits it, each at `span` (where the expansion is: the
    value came from text that holds no single place for each piece); None when splitting leaves
    it as it is (no blank in it) or it is unknown. An empty value gives no word; past MAX_ITEMS
    words, one word the run time decides."""
    if value is None or value.split() == [value]:
        return None
    if len(value.split(maxsplit=MAX_ITEMS)) > MAX_ITEMS:
        return [Word(value[:60], span, None, reason=too_large(span.line))]
    pieces = []
    for piece in value.split():
        word = Word(piece, span, piece, None, None)
        name, equals, rest = piece.partition("=")
        if equals and name.startswith("-"):
            word.option = (name, Word(rest, span, rest, None, None))
        pieces.append(word)
    return pieces
