"""Control flow for the shell reader: statements walked in order, values merged where bash
could take either way (`if`, `case`, `&&`/`||`), loops whose variables are unknown, subshells and
pipelines that keep their assignments, function bodies (run only when called), assignments and
declarations, and each command recorded with the variables in force.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from recipelint.parse.shellnodes import (
    POSITIONAL,
    argument_nodes,
    assigned_names,
    case_parts,
    clause_body,
    clause_condition,
    descendants,
    plain_variable,
    substitution_nodes,
    unwrap,
    word_runs,
)
from recipelint.parse.shellrecords import (
    MAX_ITEMS,
    MAX_VARIANT_COMMANDS,
    MAX_VARIANTS,
    TOO_LARGE,
    Assignment,
    Binding,
    Command,
    Env,
    Failed,
    Override,
    Variant,
    Word,
    merge_binding,
    short,
    too_large,
)
from recipelint.parse.shellsource import SourceReader
from recipelint.parse.shellvariants import combinations, compared, outcome
from recipelint.records import replace

if TYPE_CHECKING:
    from tree_sitter import Node

# `${name` followed by what no parameter expansion allows (`${batch_size*2}`: arithmetic written
# as an expansion): bash says "bad substitution" (tree-sitter-bash makes it an ERROR node).
# The variables a command's text uses (`$X`, `${X}`, `${X:-d}`, `${X[@]}`), for its variants.
_REFERENCE = re.compile(r"\$\{?#?([A-Za-z_][A-Za-z0-9_]*)")
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

    def branch(self, nodes: list[Node], start: Env, told: dict[str, Binding] | None = None) -> Env:
        saved = self.env
        self.env = start.copy()
        self.env.vars.update(told or {})
        self.walk_all(nodes)
        result, self.env = self.env, saved
        for name, binding in (told or {}).items():  # what a test told holds inside the arm: not merged after it
            if result.vars.get(name) is binding:
                result.vars.pop(name)
        return result

    def merge(self, envs: list[Env], where: str, labels: list[str] | None = None) -> Env:
        """The variables after a branching statement: each branch's `Env`, with its condition in
        words (`labels`, in the same order) for the launches read once per branch."""
        said = labels if labels is not None and len(labels) == len(envs) else [f"on branch {i + 1} of {where}" for i in range(len(envs))]
        live = [(env, label) for env, label in zip(envs, said, strict=True) if not env.dead]
        if not live:
            dead = envs[0].copy()
            dead.dead = True
            return dead
        if len(live) == 1:
            return live[0][0]
        cwds = {env.cwd for env, _ in live}
        first = live[0][0].vars
        # Only the variables some branch changed are merged; the others keep the first branch's
        # binding, the one object every branch holds. Walking every variable at every `if` made a
        # script of n ifs cost n x its variables (6,000 ifs: 98 s of CPU).
        differing: dict[str, None] = {}
        for env, _ in live[1:]:
            differing.update(dict.fromkeys([name for name, binding in env.vars.items() if first.get(name) is not binding]))
            differing.update(dict.fromkeys(first.keys() - env.vars.keys()))
        out = Env(dict(first), cwds.pop() if len(cwds) == 1 else None)
        names = tuple(label for _, label in live)
        for name in differing:
            items = [env.vars.get(name) for env, _ in live]
            out.vars[name] = merge_binding(name, items, where, names)
        return out

    def if_statement(self, node: Node) -> None:
        """Each arm whose test the script's own values decide is taken or skipped as bash would;
        the others are branches, merged with their conditions in words."""
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
        arms = [(condition, body, self.line(node))]
        arms.extend((clause_condition(c) if c.type == "elif_clause" else [], clause_body(c), self.line(c)) for c in clauses)
        first = next((c for c in condition if c.type != "comment"), None)
        if first is not None:
            where += f" ({short(self.text(first), 40)})"
        has_else = any(c.type == "else_clause" for c in clauses)
        runs = any(_runs_commands(statements) for _, statements, _ in arms)
        branches: list[Env] = []
        labels: list[str] = []
        failed: list[tuple[str, int]] = []  # the tests before this arm the run time decides
        tried: list[Node | None] = []
        for index, (checks, statements, line) in enumerate(arms):
            test = next((c for c in checks if c.type != "comment"), None)
            else_arm = has_else and index == len(arms) - 1
            if not else_arm:
                self.walk_all(checks)
            decided = True if else_arm else self.decide(test, runs)
            if decided is False:
                continue
            text = self.text(test) if test is not None else ""
            labels.append(_none_held(failed) if else_arm or decided else outcome(text, True, line))
            told = self.narrowed([(t, False) for t in tried] + ([] if else_arm else [(test, True)]))
            branches.append(self.branch(statements, self.env, told))
            if decided:
                break
            failed.append((text, line))
            tried.append(test)
        else:
            told = self.narrowed([(t, False) for t in tried])
            branches.append(self.env if not told else Env({**self.env.vars, **told}, self.env.cwd, self.env.dead))
            labels.append(_none_held(failed))
        self.env = self.merge(branches, where, labels)

    def narrowed(self, tests: list[tuple[Node | None, bool]]) -> dict[str, Binding]:
        """What an arm's tests tell of variables the script does not set: on the arm where `[ -n
        "$X" ]` holds (or `[ -z "$X" ]` fails) X is set and not empty, where `[ "$X" == v ]` holds
        it is v. (Where X is empty, unset says as much.)"""
        out: dict[str, Binding] = {}
        for test, holds in tests:
            found = self.told(test, holds) if test is not None and test.type == "test_command" else None
            known = found is not None and found[0] in self.env.vars and self.env.vars[found[0]].value is not None
            if found is not None and not known and found[1].value != "":
                out[found[0]] = found[1]
        return out

    def told(self, test: Node, holds: bool) -> tuple[str, Binding] | None:
        """The variable a `[ ... ]` test speaks of and what it says of it on the arm (holds or not)."""
        named = [c for c in test.named_children if c.type != "comment"]
        parts = named[0].children if len(named) == 1 else []
        texts = [self.text(p) for p in parts]
        line = self.line(test)
        if len(parts) == 2 and texts[0] in ("-n", "-z"):
            name = plain_variable(texts[1].strip('"'))
            empty = (texts[0] == "-z") == holds
            said = f"{name} is set before the script runs and not empty (the test at line {line})"
            return (name, Binding("", None) if empty else Binding(None, None, said)) if name else None
        if len(parts) == 3 and ((texts[1] in ("=", "==")) == holds) and texts[1] in ("=", "==", "!="):
            name = plain_variable(texts[0].strip('"'))
            value = self.evaluate(parts[2])[0]
            return (name, Binding(value, None)) if name and value is not None and not any(c in value for c in "*?[") else None
        return None

    def decide(self, node: Node | None, runs: bool) -> bool | None:
        """Whether a condition holds with the script's own values (`$cmvn` being `true`, `[
        "$engine" == "deepspeed" ]`); None: the run time decides. Decided only where the arms it
        chooses between assign (`$cmvn && cmvn_opts=...`), as every value is read with the
        script's defaults (the command line may set them: parse_options.sh, `X=$1`); where they
        run commands (a stage guard, a launch per engine, a launch a toggle turns off) each arm
        stays a branch, so no launch is lost to a default the user edits or the caller changes."""
        if node is None or runs:
            return None
        return self.decided(node)

    def decided(self, node: Node | None) -> bool | None:
        kind = node.type if node is not None else ""
        if node is None or kind not in ("negated_command", "list", "test_command", "command"):
            return None
        named = [c for c in node.named_children if c.type != "comment"]
        if kind == "negated_command":
            inner = self.decided(named[0]) if len(named) == 1 else None
            return None if inner is None else not inner
        if kind == "list":
            operator = next((c.type for c in node.children if c.type in ("&&", "||")), None)
            if len(named) != 2 or operator is None:
                return None
            return _combined(self.decided(named[0]), lambda: self.decided(named[1]), operator == "&&")
        if kind == "test_command":
            expression = named[0] if len(named) == 1 else None
            if expression is None or expression.type not in ("unary_expression", "binary_expression"):
                return None
            operands = [self.text(p) if p.type == "test_operator" or not p.is_named else self.evaluate(p)[0] for p in expression.children]
            return compared(operands)
        words = [self.evaluate(part)[0] for part in argument_nodes(node)]
        if words in (["true"], [":"], ["false"]):
            return words != ["false"]
        return compared(words[1:]) if words[:1] == ["test"] else None

    def case_statement(self, node: Node) -> None:
        where = f"the case at line {self.line(node)}"
        value = node.child_by_field_name("value")
        chosen = self.chosen_case(node, value)
        if chosen is not None:  # the script's own value picks the arm, as bash would
            self.walk_all(chosen)
            return
        written = self.text(value).strip("\"'") if value is not None else ""
        subject = plain_variable(written) or short(written, 30) or "the value"
        branches = []
        labels = []
        has_default = False
        for item in node.named_children:
            if item.type != "case_item":
                continue
            statements, patterns = case_parts(item)
            default = any(self.text(p) == "*" for p in patterns)
            has_default = has_default or default
            written = "|".join(self.text(p) for p in patterns)
            labels.append(
                f"when {subject} matches no other pattern (line {self.line(item)})"
                if default
                else f"when {subject} matches `{short(written, 40)}` (line {self.line(item)})"
            )
            branches.append(self.branch(statements, self.env))
        if not has_default or not branches:
            branches.append(self.env)
            labels.append(f"when {subject} matches no pattern of the case at line {self.line(node)}")
        self.env = self.merge(branches, where, labels)

    def chosen_case(self, node: Node, value: Node | None) -> list[Node] | None:
        """The statements of the arm a case runs when the script decides the value and every
        pattern up to the match ([] when none matches); None: the run time decides."""
        known = self.evaluate(value)[0] if value is not None else None
        if known is None or value is None:
            return None
        arms = [case_parts(c)[0] for c in node.named_children if c.type == "case_item"]
        if any(_runs_commands(a) for a in arms):
            return None  # an arm that runs commands is always read (see decide)
        for item in (c for c in node.named_children if c.type == "case_item"):
            statements, patterns = case_parts(item)
            for pattern in patterns:
                written = self.text(pattern) if pattern.type == "extglob_pattern" else self.evaluate(pattern)[0]
                if written is None:
                    return None
                if fnmatch.fnmatchcase(known, written):
                    return statements
        return []

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
        line = self.line(node)
        labels = [f"when the loop at line {line} does not run", f"when the loop at line {line} runs"]
        if node.type == "for_statement" and re.search(r"\bin\s+\"?\$[@*]", self.text(node).split("\n", 1)[0]):
            labels = [
                f"when the script is given no arguments (the loop at line {line})",
                f"when the script is given arguments (the loop at line {line})",
            ]
        self.env = self.merge([before, ran], where, labels)

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
        succeeds = not any(c.type == "||" for c in node.children)  # `a || b`: b runs when a fails
        decided = self.decide(left, _runs_commands([right]))
        if decided is not None:  # `$cmvn && cmvn_opts=...` with cmvn=true: b runs, or not, as bash decides
            if decided == succeeds:
                self.walk(right)
            return
        taken = self.branch([right], self.env)
        line = self.line(node)
        labels = [outcome(self.text(left), not succeeds, line), outcome(self.text(left), succeeds, line)]
        self.env = self.merge([self.env, taken], f"the {short(self.text(node), 40)!r} at line {line}", labels)

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
        if appended and self.distributed(name, node, exported, tail):
            return
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

    def distributed(self, name: str, node: Node, exported: bool, tail: list[Node] | None) -> bool:
        """`X+=(...)` (or `X+=v`) where X differs between branches: appended on each branch, so X
        keeps its branches (FedML's `CMD+=(--hostfile ...)` in one if, `CMD+=(--num_gpus ...)` in
        the next: each combination is the launch's words). False when X has no branches, or too
        many ways to keep (then X is unknown after it, as before)."""
        before = self.env.vars.get(name)
        if before is None or before.branches is None or _leaves(before) > MAX_VARIANTS:
            return False
        results: list[Binding | None] = []
        recording = self.recording
        for index, branch in enumerate(before.branches):
            if branch is None:
                self.env.vars.pop(name, None)
            else:
                self.env.vars[name] = branch
            self.recording = recording and index == 0  # the assignment is recorded once
            try:
                self.add_assignment(node, exported, tail)
            finally:
                self.recording = recording
            results.append(self.env.vars.get(name))
        self.env.vars[name] = merge_binding(name, results, before.where, before.labels)
        return True

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
        words, env = self.command_words(prefixes, rest)
        command = Command(words, self.span(node), env, dict(self.env.vars), self.env.cwd)
        if self.recording:
            self.variants(command, node, prefixes, rest)
            self.commands.append(command)
        for child in node.named_children:  # commands inside $(...) are not launches, but look anyway
            if child.type in ("command_substitution", "process_substitution"):
                self.isolated(child)
        self.builtin(command, node)

    def variants(self, command: Command, node: Node, prefixes: list[list[Node]], rest: list[list[Node]]) -> None:
        """The command once per combination of the branches its variables come from (a launch
        whose `$DISTRIBUTED_ARGS` an `if` sets two ways is two launches, each read whole), unless
        every combination gives the same words. Past MAX_VARIANTS: none, and why."""
        if command.name in _QUIET:  # `echo $X`, `mkdir -p $dir`: never a launch, never read again
            return
        names = list(dict.fromkeys(_REFERENCE.findall(self.text(node))))
        if self.variants_left <= 0:  # spent: a branched variable leaves the command read once
            if any(self.env.vars[n].branches is not None for n in names if n in self.env.vars):
                command.undecided = f"unknown: too many alternatives (the script's commands read over {MAX_VARIANT_COMMANDS} ways in all)"
            return
        choices = combinations(self.env.vars, names)
        if choices is None:
            command.undecided = f"unknown: too many alternatives (over {MAX_VARIANTS} combinations of the branches its variables come from)"
            return
        if not choices:
            return
        if len(choices) > self.variants_left:
            command.undecided = f"unknown: too many alternatives (the script's commands read over {MAX_VARIANT_COMMANDS} ways in all)"
            return
        self.variants_left -= len(choices)
        saved, recording = self.env, self.recording
        self.recording = False  # reading a variant again records nothing (no command, no assignment)
        found: dict[tuple[object, ...], Variant] = {}
        try:
            for labels, chosen in choices:
                self.env = saved.copy()
                for name, binding in chosen.items():
                    if binding is None:
                        self.env.vars.pop(name, None)
                    else:
                        self.env.vars[name] = binding
                words, env = self.command_words(prefixes, rest)
                key = tuple((w.value, w.reason is None) for w in [*words, *env.values()])
                if key in found:  # two combinations, one command
                    found[key].ways += (labels,)
                    continue
                found[key] = Variant(Command(words, command.span, env, dict(self.env.vars), self.env.cwd), (labels,))
        finally:
            self.env, self.recording = saved, recording
        if len(found) > 1:
            command.variants = list(found.values())

    def command_words(self, prefixes: list[list[Node]], rest: list[list[Node]]) -> tuple[list[Word], dict[str, Word]]:
        """A command's words and its `VAR=x` prefixes, as the variables in force give them."""
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
        return inline if inline is not None else (words, env)


# What an arm may run beside assignments without changing what a launch gets.
_QUIET = frozenset({"echo", "printf", ":", "true", "false", "export", "local", "declare", "readonly", "mkdir", "cp", "set", "shift"})


def _runs_commands(statements: list[Node]) -> bool:
    """Whether statements run a command other than an assignment, a message or a copy."""
    for statement in statements:
        for node in descendants(statement):
            if node.type == "command":
                name = node.child_by_field_name("name")
                if name is None or name.text is None or name.text.decode("utf-8", "replace") not in _QUIET:
                    return True
    return False


def _leaves(binding: Binding | None) -> int:
    """The ways a binding's branches (and theirs) hold."""
    if binding is None or binding.branches is None:
        return 1
    return sum(_leaves(branch) for branch in binding.branches)


def _combined(left: bool | None, right: Callable[[], bool | None], both: bool) -> bool | None:
    """`a && b` (both) or `a || b` from what each side is known to give (None: unknown)."""
    if left is (not both):  # `false && b`, `true || b`: b is not looked at
        return left
    later = right()
    if left is not None:
        return later
    return later if later is (not both) else None


def _none_held(tests: list[tuple[str, int]]) -> str:
    """The label of an `if`'s else (or of no branch taken): every test failed."""
    if len(tests) == 1:
        return outcome(tests[0][0], False, tests[0][1])
    return "when " + " and ".join(outcome(text, False, line).removeprefix("when ") for text, line in tests)


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
