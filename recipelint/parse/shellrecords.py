"""The shell reader's records: what a parsed script holds (words, assignments, bindings,
commands, sourced and written files) and the walk's state. A leaf: it imports no other part of
the reader, so the evaluation, control-flow and sourcing modules and shelltemplate all build on it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from recipelint.parse.span import SourceText, Span
from recipelint.records import dataclass, field

# Kaldi's option parser: sourcing it lets `--name value` on the command line override any
# variable assigned above; it changes no value the script itself gives.
OPTION_PARSERS = frozenset({"parse_options.sh"})
Reader = Callable[[Path], SourceText]
# Bounds on what the reader builds, so a script that doubles a value in a loop of assignments
# (`a="$a$a"` 64 times: 2**65 bytes) is read in bounded time and memory: a value, an array, a
# word list past these is "unknown: too large to evaluate", and the recipe is still read. A real
# launch's longest value (Megatron's argument strings) is a few KiB; 64 KiB leaves room.
MAX_VALUE = 65_536  # characters in one value
MAX_ITEMS = 4_096  # elements of one array, words one value splits into
MAX_SPENT = 16 * 1024 * 1024  # characters of all the values one script (with what it sources) builds
# A launch whose variables differ between branches is read once per combination of their values;
# past this many combinations it is read once, its facts "unknown: too many alternatives". Real
# scripts branch a launch on one or two conditions (single or multi node, container or not): 4 to 8.
MAX_VARIANTS = 16
# Variant commands one script (with what it sources) builds in all: each is a command read again
# with its scope, so 10,000 lines that use a branched variable cannot cost 16 times the script.
MAX_VARIANT_COMMANDS = 2_048
Value = tuple[str | None, str | None]  # (value, why it is unknown)


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
    # A path only the run time completes, as a glob: `configs/${1}.yaml` is `configs/*.yaml` (each
    # part the script does not decide a `*`), and an unquoted `conf/*.yaml` itself; None otherwise.
    pattern: str | None = None


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
    # Each branch's condition in words, in the order of `branches` ("when CONTAINER_IMAGE is empty
    # (line 12)"), so a launch read once per branch can name the one it was read on.
    labels: tuple[str, ...] | None = None
    # An array's elements by index (`"0"`, `"1"`, ...) or key (`declare -A`), in order; `value` is
    # element 0, as `$X` gives. None: a plain variable.
    items: dict[str, Word] | None = None


@dataclass
class Command:
    words: list[Word]
    span: Span
    env: dict[str, Word] = field(default_factory=dict)  # `VAR=x cmd` prefixes
    scope: dict[str, Binding] = field(default_factory=dict)  # the variables in force when it runs
    cwd: str | None = ""  # the folder it runs in, relative to the script's folder; None: unknown
    # The command as bash runs it on each combination of the branches its variables come from, each
    # with the conditions that choose it; empty when no variable it uses differs between branches.
    variants: list[Variant] = field(default_factory=list)
    undecided: str | None = None  # why it has no variants though it has branches (too many)

    @property
    def name(self) -> str:
        return self.words[0].value or self.words[0].text if self.words else ""

    def variable(self, name: str) -> Binding | None:
        return self.scope.get(name)


@dataclass
class Variant:
    """One way a command runs: its words with each branched variable fixed to one branch's value."""

    command: Command
    # The combinations of branches that run it, each its conditions ("when CONTAINER_IMAGE is empty
    # (line 12)", ...): several when they give the same words.
    ways: tuple[tuple[str, ...], ...] = ()


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
class Broken:
    """A line written as an assignment that bash runs as a command instead (`NGPU = 8`: the command
    NGPU with the arguments `=` and `8`; `$X=8`: a command named after X's value), so the variable
    is not assigned: bash says "command not found" and goes on."""

    name: str  # the variable the line meant to set
    span: Span  # the line's command
    line: int
    said: str  # bash's error, as it prints it


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
    broken: list[Broken] = field(default_factory=list)  # lines bash reads as a command, not the assignment they look like

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


def positional(words: list[Word], span_of: Word | None = None) -> dict[str, Binding]:
    """The bindings `$1`..`$N`, `$@` and `$#` take from a call's (or `set --`'s) words."""
    out: dict[str, Binding] = {str(i): Binding(w.value, None, w.reason) for i, w in enumerate(words, 1)}
    first = words[0].value if words else ""
    out["@"] = Binding(first, None, words[0].reason if words else None, items={str(i): w for i, w in enumerate(words)})
    out["#"] = Binding(str(len(words)), None)
    return out


@dataclass
class Budget:
    """Characters of built values, shared by a script and what it sources or reads again."""

    spent: int = 0

    def take(self, size: int) -> bool:
        """Whether a value of `size` characters may be built (it is counted when it may)."""
        if size > MAX_VALUE or self.spent + size > MAX_SPENT:
            return False
        self.spent += size
        return True


TOO_LARGE = "too large to evaluate"


def too_large(line: int) -> str:
    return f"unknown: {TOO_LARGE} (line {line}; recipelint bounds one value at {MAX_VALUE} characters, an array at {MAX_ITEMS} elements)"


@dataclass
class Env:
    """The variables and folder at one point of the walk; `dead` after `exit`."""

    vars: dict[str, Binding] = field(default_factory=dict)
    cwd: str | None = ""
    dead: bool = False

    def copy(self) -> Env:
        return Env(dict(self.vars), self.cwd, self.dead)


def short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def unknown_path(origin: Assignment) -> str:
    """The key of a file whose name only the run time knows, written and read through the same
    assignment (`config_json="ds_config_gpt_${NAME}.json"`): the variable and where it is set."""
    return f"${{{origin.name}}}@{origin.order}"


def describe_binding(binding: Binding | None) -> str:
    if binding is None:
        return "unset"
    origin = binding.origin
    where = f" (line {origin.span.line})" if origin is not None else ""
    if binding.value is not None:
        return f'"{short(binding.value, 80)}"{where}'
    if origin is not None:
        return f"`{short(origin.value.text, 50)}`{where}"
    return "unknown"


def merge_binding(name: str, items: list[Binding | None], where: str, labels: tuple[str, ...] | None = None) -> Binding:
    first = items[0]
    exported = any(item is not None and item.exported for item in items)
    if all(item is first for item in items) and first is not None:
        return first
    if (
        first is not None
        and first.value is not None
        and all(item is not None and (item.value, item.items) == (first.value, first.items) for item in items)
    ):
        origin = first.origin if all(item is not None and item.origin is first.origin for item in items) else None
        return Binding(first.value, origin, None, exported, first.fields if origin is not None else None, items=first.items)
    alternatives = list(dict.fromkeys(describe_binding(item) for item in items))
    reason = f"{name} differs between the branches of {where}: {' or '.join(alternatives)}"
    return Binding(None, None, reason, exported, branches=tuple(items), where=where, labels=labels)
