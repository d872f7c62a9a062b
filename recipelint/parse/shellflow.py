"""Control flow for the shell reader: statements walked in order, values merged where bash
could take either way (`if`, `case`, `&&`/`||`), loops whose variables are unknown, subshells and
pipelines that keep their assignments, function bodies (run only when called), assignments and
declarations, and each command recorded with the variables in force.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from recipelint.parse.shellnodes import (
    POSITIONAL,
    assigned_names,
    case_parts,
    clause_body,
    clause_condition,
    descendants,
    substitution_nodes,
    unwrap,
    word_runs,
)
from recipelint.parse.shellrecords import (
    MAX_ITEMS,
    TOO_LARGE,
    Assignment,
    Binding,
    Command,
    Env,
    Failed,
    Override,
    Word,
    merge_binding,
    short,
    too_large,
)
from recipelint.parse.shellsource import SourceReader
from recipelint.records import replace

if TYPE_CHECKING:
    from tree_sitter import Node

# `${name` followed by what no parameter expansion allows (`${batch_size*2}`: arithmetic written
# as an expansion): bash says "bad substitution" (tree-sitter-bash makes it an ERROR node).
_BAD_SUBSTITUTION = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*[^A-Za-z0-9_:=?+#%/^,~@\[}-][^}]*\}")


class FlowReader(SourceReader):
    """The walk over statements."""

    # --- statements ---------------------------------------------------------------------
    def walk(self, node: Node) -> None:
        if node.is_error or node.is_missing:
            self.errors.append(node)
        handler = _HANDLERS.get(node.type)
        if handler is not None:
            handler(self, node)
        elif node.type == "function_definition":  # a body runs only when called (builtin: call)
            name, body = node.child_by_field_name("name"), node.child_by_field_name("body")
            if name is not None and body is not None:
                self.functions[self.text(name)] = [c for c in body.named_children if c.type != "comment"]
        else:
            for child in node.children:
                self.walk(child)

    def walk_all(self, nodes: list[Node]) -> None:
        for child in nodes:
            self.walk(child)

    def branch(self, nodes: list[Node], start: Env) -> Env:
        saved = self.env
        self.env = start.copy()
        self.walk_all(nodes)
        result, self.env = self.env, saved
        return result

    def merge(self, envs: list[Env], where: str) -> Env:
        live = [env for env in envs if not env.dead]
        if not live:
            dead = envs[0].copy()
            dead.dead = True
            return dead
        if len(live) == 1:
            return live[0]
        cwds = {env.cwd for env in live}
        out = Env({}, cwds.pop() if len(cwds) == 1 else None)
        for name in dict.fromkeys(n for env in live for n in env.vars):
            items = [env.vars.get(name) for env in live]
            out.vars[name] = merge_binding(name, items, where)
        return out

    def if_statement(self, node: Node) -> None:
        where = f"the if at line {self.line(node)}"
        condition: list[Node] = []
        body: list[Node] = []
        clauses: list[Node] = []
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
            where += f" ({short(self.text(first), 40)})"
        self.walk_all(condition)
        branches = [self.branch(body, self.env)]
        has_else = False
        for clause in clauses:
            has_else = has_else or clause.type == "else_clause"
            if clause.type == "elif_clause":
                self.walk_all(clause_condition(clause))
            branches.append(self.branch(clause_body(clause), self.env))
        if not has_else:
            branches.append(self.env)
        self.env = self.merge(branches, where)

    def case_statement(self, node: Node) -> None:
        where = f"the case at line {self.line(node)}"
        branches = []
        has_default = False
        for item in node.named_children:
            if item.type != "case_item":
                continue
            statements, patterns = case_parts(item)
            has_default = has_default or any(self.text(p) == "*" for p in patterns)
            branches.append(self.branch(statements, self.env))
        if not has_default or not branches:
            branches.append(self.env)
        self.env = self.merge(branches, where)

    def loop(self, node: Node) -> None:
        """A loop body may run any number of times: what it assigns is unknown inside and after it."""
        where = f"the loop at line {self.line(node)}"
        before = self.env
        start = before.copy()
        for name in assigned_names(node, self.text):
            start.vars[name] = Binding(None, None, f"{name} is assigned in {where}", name in self.exports)
        # a C-style for's `i = 0` runs once, before the body: inside, i is the loop's
        body = (
            [c for c in node.children if c.type in ("do_group", "compound_statement")]
            if node.type == "c_style_for_statement"
            else list(node.children)
        )
        ran = self.branch(body, start)
        self.env = self.merge([before, ran], where)

    def isolated(self, node: Node) -> None:
        """A subshell or a pipeline: its commands run, its assignments and `cd` stay inside."""
        saved = self.env
        self.env = saved.copy()
        for child in node.children:
            self.walk(child)
        self.env = saved

    def pipeline(self, node: Node) -> None:
        if len([c for c in node.named_children if c.type != "comment"]) <= 1:
            self.walk_all(node.children)
        else:
            self.isolated(node)

    def list_statement(self, node: Node) -> None:
        """`a && b`, `a || b`: b runs or not, so what it assigns is known only if both agree."""
        named = [c for c in node.children if c.is_named]
        if len(named) != 2:
            self.walk_all(node.children)
            return
        left, right = named
        self.walk(left)
        taken = self.branch([right], self.env)
        self.env = self.merge([self.env, taken], f"the {short(self.text(node), 40)!r} at line {self.line(node)}")

    def declaration(self, node: Node) -> None:
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

    def unset(self, node: Node) -> None:
        for child in node.named_children:
            if child.type in ("variable_name", "word"):
                self.env.vars.pop(self.text(child), None)

    def add_assignment(self, node: Node, exported: bool, tail: list[Node] | None = None) -> None:
        name_node = node.child_by_field_name("name")
        value_node = node.child_by_field_name("value")
        if name_node is None:
            return
        element = name_node if name_node.type == "subscript" and name_node.named_child_count else None
        name = self.text(element.named_children[0] if element is not None else name_node)
        if value_node is not None and not tail and POSITIONAL.match(self.text(value_node)) and "@" not in self.env.vars:
            self.argument(name, node, self.text(value_node))
            return
        if value_node is not None and self.refused(name, node, value_node):
            return
        appended = any(c.type == "+=" for c in node.children)
        word = self.assigned_word(name, node, value_node, tail, appended and element is None)
        items = self.assigned_items(name, element, value_node, word, appended)
        # an element from an array already too large leaves this one's length unknown too (else it
        # would start doubling again from its two unknown elements)
        if items is not None and (len(items) > MAX_ITEMS or any(TOO_LARGE in (w.reason or "") for w in items.values())):
            items, word.value, word.reason = None, None, too_large(self.line(node))
        elif items is not None:  # `$X` of an array is its element 0
            first = items.get("0")
            word.value, word.reason = (first.value, first.reason) if first is not None else ("", None)
        if self.recording and value_node is not None:  # `out=$(accelerate launch ...)` still runs its command
            for inner in substitution_nodes(value_node):
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
        plain = value_node is not None and not tail and not appended and items is None
        fields = self.fields(value_node) if plain and value_node is not None else None
        reason = _assignment_reason(name, word, self.line(node))
        self.env.vars[name] = Binding(word.value, assignment, reason, exported, fields, items=items)

    def assigned_word(self, name: str, node: Node, value_node: Node | None, tail: list[Node] | None, appended: bool) -> Word:
        """The word an assignment gives its variable; `X+=v` appends to the value before."""
        if value_node is None:
            empty = self.source.span(node.end_byte, node.end_byte)
            return Word("", empty, "", None, empty)
        if tail:
            word = self.joined_word([value_node, *tail])
        else:
            word = self.word(value_node)
            default = self.default_of(value_node)
            if default is not None:
                word.edit_span = self.span(default)
        if appended and value_node.type != "array":
            old, why = self.lookup(name)
            word.value = None if old is None or word.value is None else old + word.value
            word.reason = word.reason or why
            if word.value is not None and not self.budget.take(len(word.value)):
                word.value, word.reason = None, too_large(self.line(node))
            word.edit_span = None
        return word

    def assigned_items(
        self, name: str, element: Node | None, value_node: Node | None, word: Word, appended: bool
    ) -> dict[str, Word] | None:
        """An array's elements after `X=(...)`, `X+=(...)` or `X[i]=v`; None for a plain assignment."""
        if value_node is None or (element is None and value_node.type != "array"):
            return None
        before = self.env.vars.get(name)
        old = dict(before.items) if before is not None and before.items is not None else {}
        if before is not None and before.items is None and before.value is not None:
            old = {"0": Word(name, word.span, before.value)}
        if element is not None:
            key, _ = self.evaluate(element.named_children[1]) if element.named_child_count > 1 else (None, None)
            old[str(int(key)) if key is not None and key.isdigit() else key or "?"] = replace(word)
            return old
        if not appended:
            return self.array_items(value_node)
        start = max((int(k) + 1 for k in old if k.isdigit()), default=0)
        return old | self.array_items(value_node, start)

    def refused(self, name: str, node: Node, value_node: Node) -> bool:
        """Whether bash refuses the assignment for a bad substitution in its value (the variable
        stays as it was; recorded once, for the rule that follows it to a launch)."""
        errors = (n for n in descendants(value_node) if n.type == "ERROR")
        found = next(((n, m) for n in errors if (m := _BAD_SUBSTITUTION.match(self.text(n))) is not None), None)
        if found is None:
            return False
        if self.recording:
            start = found[0].start_byte
            span = self.source.span(start, start + len(found[1].group(0).encode()))
            self.failed.append(Failed(name, span, self.line(node), name in self.env.vars))
        return True

    def argument(self, name: str, node: Node, text: str) -> None:
        """`X=$1`: a value from the script's command line. A default assigned before stays the
        value recipelint reads (as with Kaldi's parse_options.sh); without one, or with an empty
        one (a placeholder the script checks), X is unknown: the command line decides it."""
        line = self.line(node)
        if self.recording:
            self.overrides.append(
                Override(name, self.span(node), f"{name} may be set from the command line ({text.strip(chr(34))} at line {line})")
            )
        before = self.env.vars.get(name)
        if before is None or before.value == "":  # `MODEL=""` above an option loop is a placeholder, not a value
            empty = f"; empty at line {before.origin.span.line} until the command line sets it" if before and before.origin else ""
            self.env.vars[name] = Binding(None, None, f"{name} is the script's argument {text.strip(chr(34))} (line {line}){empty}")

    def command(self, node: Node) -> None:
        named = [c for c in node.named_children if c.type not in ("file_redirect", "heredoc_redirect", "herestring_redirect", "comment")]
        runs = word_runs(named)
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
            word_node = unwrap(run[0])
            words.extend(self.expand_word(word_node))
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


def _assignment_reason(name: str, word: Word, line: int) -> str | None:
    if word.value is not None:
        return None
    if word.ref is not None and word.binding is not None and word.reason:
        return f"{name} comes from {word.ref} (line {line}); {_clip(word.reason)}"
    text = word.text if len(word.text) <= 60 else word.text[:57] + "..."
    if word.reason and "runs at run time" in word.reason and ("$(" in word.text or "`" in word.text):
        code = text if text.startswith("`") else f"`{text}`"
        return f"{name} is set by {code} at run time (line {line})"
    return f"{name} = {text} (line {line}); {_clip(word.reason or 'decided at run time')}"


def _clip(reason: str, limit: int = 320) -> str:
    """A reason that quotes another, kept to its start and its end (where the chain begins): a
    chain of `b=$a; a=$b$b` would otherwise grow with every line."""
    return reason if len(reason) <= limit else f"{reason[: limit // 2]} ... {reason[-limit // 2 :]}"


_HANDLERS: dict[str, Callable[[FlowReader, Node], None]] = {
    "variable_assignment": lambda b, n: b.add_assignment(n, False),
    "declaration_command": FlowReader.declaration,
    "unset_command": FlowReader.unset,
    "command": FlowReader.command,
    "if_statement": FlowReader.if_statement,
    "case_statement": FlowReader.case_statement,
    "for_statement": FlowReader.loop,
    "c_style_for_statement": FlowReader.loop,
    "while_statement": FlowReader.loop,
    "subshell": FlowReader.isolated,
    "pipeline": FlowReader.pipeline,
    "list": FlowReader.list_statement,
    "redirected_statement": FlowReader.redirected,
    "comment": lambda b, n: None,
    "heredoc_body": lambda b, n: None,
}
