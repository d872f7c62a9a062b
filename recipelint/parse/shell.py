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

The reader is split by concern: `shellrecords` (the records, a leaf), `shellnodes` (the parser and
the syntax tree's shapes), `shellwords` (word evaluation), `shellsource` (sourcing, `bash -c`,
`eval`, written files), `shellflow` (control flow); this module puts them together and keeps the
names the rest of recipelint imports.
"""

from __future__ import annotations

from recipelint.parse.files import SourceError
from recipelint.parse.shellflow import FlowReader
from recipelint.parse.shellnodes import _bash_grammar, argument_nodes, parse_range, parser
from recipelint.parse.shellrecords import (
    OPTION_PARSERS,
    Assignment,
    Binding,
    Broken,
    Command,
    Failed,
    Override,
    Piece,
    Reader,
    ShellScript,
    Sourced,
    Substitution,
    Word,
    Written,
    unknown_path,
)
from recipelint.parse.span import SourceText

__all__ = [
    "OPTION_PARSERS",
    "Assignment",
    "Binding",
    "Broken",
    "Command",
    "Failed",
    "Override",
    "Piece",
    "Reader",
    "ShellScript",
    "Sourced",
    "Substitution",
    "Word",
    "Written",
    "_bash_grammar",
    "argument_nodes",
    "parse_shell",
    "parser",
    "unknown_path",
]


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
    builder = FlowReader(source, read)
    builder.options = dict(options or {})
    if ranges is None:
        builder.walk(parser().parse(source.data).root_node)
    else:
        for start, end in ranges:
            builder.walk(parse_range(source, start, end).root_node)
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
        builder.broken,
    )
