"""Files a shell script writes from its own text, read without running anything.

Megatron-DeepSpeed's examples write their DeepSpeed JSON at run time: `cat <<EOT > ds_config.json`
with `$GLOBAL_BATCH` inside, or `sed "s/CONFIG_BATCH_SIZE/$GLOBAL_BATCH/" template.json | sed ...
> out.json`. The values are the script's own plain assignments, so the file is known without
running the script: `capture` records the heredoc's text piece by piece (each `$VAR` with the
assignment it comes from) or the sed substitutions and the template they read; `render` builds
the JSON, parses it, and maps every span back to where it was written: a literal to the heredoc
or the template, a value to the assignment that set it (so a fix edits `GLOBAL_BATCH=...`), or to
the `$VAR` when the assignment is not a plain literal. A value the script does not decide (`$1`,
a loop variable, a branch) leaves its key "decided at run time": taken out of the tree, and said.

Only what sed does with plain words is modelled: `s/WORD/REPLACEMENT/` and `s/WORD/REPLACEMENT/g`,
given as the script argument, with `-e`, or joined with `;`; a pipeline of such seds whose first
reads the template. Anything else (a regular expression, `&` in the replacement, other commands)
leaves the file unknown, with the reason.
"""

from __future__ import annotations

import bisect
import posixpath
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from recipelint.parse.files import SourceError
from recipelint.parse.shellnodes import argument_nodes
from recipelint.parse.shellrecords import Piece, Substitution, Word, Written
from recipelint.parse.shellvalue import arithmetic
from recipelint.parse.span import SourceText, Span
from recipelint.records import dataclass, field, replace

if TYPE_CHECKING:
    from tree_sitter import Node as SyntaxNode

    from recipelint.parse.shellwords import WordReader
    from recipelint.parse.tree import Document, Node

# The escapes an unquoted heredoc keeps: \$ \` \\ and a backslash-newline (a joined line).
_HEREDOC_ESCAPE = re.compile(rb"\\([$`\\\n])")
_PLAIN_PATTERN = re.compile(r"[A-Za-z0-9_]+")
_PLAIN_VARIABLE = re.compile(r"^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$|^\$([A-Za-z_][A-Za-z0-9_]*)$")
# What stands for a value the run time decides while the JSON is parsed: a number is valid JSON
# on its own and inside a string; the nodes it lands in are then taken out.
_STAND_IN = "0"
# A written DeepSpeed JSON is a few KiB; a heredoc of values the script doubled is not read past this.
_MAX_WRITTEN = 4 * 1024 * 1024


# --- capture (at parse time, with the shell reader's values) -----------------------------------


def capture(builder: WordReader, node: SyntaxNode, path: str, span: Span) -> Written | None:
    """The file a redirected statement writes, when it is a heredoc to `cat` or a sed pipeline."""
    heredoc = next((c for c in node.named_children if c.type == "heredoc_redirect"), None)
    body = node.named_children[0] if node.named_child_count else None
    if heredoc is not None and body is not None and body.type == "command" and builder.text(body).split()[:1] == ["cat"]:
        return _heredoc(builder, heredoc, path, span)
    if body is not None and body.type in ("command", "pipeline"):
        return _sed(builder, body, path, span)
    return None


def merge(earlier: Written, later: Written | None, span: Span) -> Written:
    """One file written twice, on two branches of an `if` (or once over the other): the same
    heredoc or template with the same substitutions keeps what both write, and a value that
    differs is decided at run time; anything else leaves the file unknown."""
    lines = f"lines {earlier.span.line} and {span.line}"
    if later is None or earlier.unknown or later.unknown:
        return replace(earlier, unknown=earlier.unknown or (later.unknown if later else None) or f"the script writes it at {lines}")
    if earlier.body is not None and later.body is not None and len(earlier.body) == len(later.body):
        body = [_agree(a, b, lines) for a, b in zip(earlier.body, later.body, strict=True)]
        return replace(earlier, body=body)
    same = [(e.pattern, e.every) for e in earlier.edits] == [(e.pattern, e.every) for e in later.edits]
    if earlier.body is None and later.body is None and earlier.template == later.template and same:
        edits = [
            replace(a, replacement=_agree(a.replacement, b.replacement, lines)) for a, b in zip(earlier.edits, later.edits, strict=True)
        ]
        return replace(earlier, edits=edits)
    return replace(earlier, unknown=f"the script writes it differently at {lines}")


def _agree(a: Piece, b: Piece, lines: str) -> Piece:
    if a.text is None or b.text is None:
        return a if a.text is None else b
    if a.text is not None and a.text == b.text and (a.literal or b.literal or a.origin is b.origin):
        return a if a.literal == b.literal and a.origin is b.origin else replace(a, origin=None, literal=False)
    return Piece(None, a.span, None, f"the script writes {a.text!r} and {b.text!r} here at {lines}")


def _heredoc(builder: WordReader, heredoc: SyntaxNode, path: str, span: Span) -> Written | None:
    content = next((c for c in heredoc.named_children if c.type == "heredoc_body"), None)
    start = next((c for c in heredoc.named_children if c.type == "heredoc_start"), None)
    if content is None or start is None:
        return None
    quoted = any(mark in builder.text(start) for mark in "'\"\\")  # <<'EOT': no expansion at all
    pieces: list[Piece] = []
    position = content.start_byte
    expansions = [] if quoted else [c for c in content.named_children if c.type != "heredoc_content"]
    for child in [*expansions, None]:
        stop = child.start_byte if child is not None else content.end_byte
        pieces.extend(_literal(builder.source, position, stop, escapes=not quoted))
        if child is not None:
            pieces.append(_value(builder, child))
            position = child.end_byte
    return Written(path, span, body=pieces, command=f"cat <<{builder.text(start)}")


def _literal(source: SourceText, start: int, stop: int, escapes: bool) -> list[Piece]:
    """Literal heredoc text, one piece per stretch that maps byte for byte (escapes apart)."""
    pieces: list[Piece] = []
    data = source.data
    position = start
    for match in _HEREDOC_ESCAPE.finditer(data, start, stop) if escapes else ():
        if match.start() > position:
            pieces.append(
                Piece(data[position : match.start()].decode("utf-8", "replace"), source.span(position, match.start()), literal=True)
            )
        kept = "" if match.group(1) == b"\n" else match.group(1).decode()
        pieces.append(Piece(kept, source.span(match.start(), match.end())))
        position = match.end()
    if stop > position:
        pieces.append(Piece(data[position:stop].decode("utf-8", "replace"), source.span(position, stop), literal=True))
    return pieces


def _value(builder: WordReader, node: SyntaxNode) -> Piece:
    text = builder.text(node)
    if node.type == "command_substitution" and text.startswith("$((") and text.endswith("))"):
        value = arithmetic(text[3:-2], lambda name: builder.lookup(name)[0])  # tree-sitter's reading of $((...)) in a heredoc
        reason = None if value is not None else f"`{text}` is arithmetic on values unknown to the script"
    else:
        value, reason = builder.evaluate(node)
    binding = builder.plain_binding(node)
    origin = binding.origin if binding is not None else None
    return Piece(value, builder.span(node), origin, reason)


def _sed(builder: WordReader, body: SyntaxNode, path: str, span: Span) -> Written | None:
    commands = [body] if body.type == "command" else [c for c in body.named_children if c.type == "command"]
    if not commands or any(builder.text(c).split()[:1] != ["sed"] for c in commands):
        return None
    written = Written(path, span, command="sed")
    for index, command in enumerate(commands):
        words = [builder.word(n) for n in argument_nodes(command)[1:]]
        scripts, files, why = _sed_arguments(words)
        if why is None and (len(files) != (1 if index == 0 else 0)):
            why = "a sed in the pipeline reads files other than the one template"
        for script in scripts if why is None else ():
            why = _substitutions(builder, script, written.edits)
            if why is not None:
                break
        if why is not None:
            written.unknown = why
            return written
        if index == 0:
            written.template_span = files[0].span
            if builder.env.cwd is None or files[0].value is None or posixpath.isabs(files[0].value):
                written.unknown = f"the template {files[0].value} is an absolute path, or the folder sed runs in is unknown"
                return written
            written.template = posixpath.normpath(posixpath.join(builder.env.cwd or ".", files[0].value))
    return written


def _sed_arguments(words: list[Word]) -> tuple[list[Word], list[Word], str | None]:
    """(the script words, the file words, why the command is not modelled)."""
    scripts: list[Word] = []
    files: list[Word] = []
    index = 0
    while index < len(words):
        word = words[index]
        text = word.value if word.value is not None else word.text
        if text == "-e" and index + 1 < len(words):
            scripts.append(words[index + 1])
            index += 2
            continue
        if text.startswith("-"):
            return [], [], f"sed {text} is not modelled"
        if not scripts:
            scripts.append(word)
        else:
            if word.value is None:
                return [], [], word.reason or f"the template `{word.text}` is decided at run time"
            files.append(word)
        index += 1
    return scripts, files, None


def _substitutions(builder: WordReader, word: Word, out: list[Substitution]) -> str | None:
    """`s/A/x/;s/B/y/g` of one script word, each replacement with where it is written; None, or
    why the script is not modelled."""
    raw = word.text
    quote = raw[:1] if raw[:1] in ("'", '"') and raw[-1:] == raw[:1] and len(raw) > 1 else ""
    inner_start = len(quote)
    text = raw[inner_start : len(raw) - len(quote)]
    offset = word.span.start + inner_start  # bytes: where each command starts in the script
    for written in text.split(";"):
        command = written.strip()
        at = offset + len(written[: len(written) - len(written.lstrip())].encode())
        offset += len(written.encode()) + 1
        if not command:
            continue
        parts = command.split(command[1]) if len(command) > 1 and command[0] == "s" else []
        if len(parts) != 4 or parts[3] not in ("", "g") or not _PLAIN_PATTERN.fullmatch(parts[1]):
            return f"the sed command `{command}` is not a plain s/WORD/VALUE/"
        piece = _replacement(builder, parts[2], at + 3 + len(parts[1]), quote)
        if piece is None:
            return f"the sed replacement `{parts[2]}` is not modelled"
        out.append(Substitution(parts[1], piece, parts[3] == "g"))
    return None


def _replacement(builder: WordReader, raw: str, at: int, quote: str) -> Piece | None:
    span = builder.source.span(at, at + len(raw.encode()))
    if "&" in raw or "\\" in raw:
        return None
    variable = _PLAIN_VARIABLE.match(raw)
    if variable is not None and quote != "'":
        name = variable.group(1) or variable.group(2)
        binding = builder.env.vars.get(name)
        if binding is None:
            return Piece(None, span, None, f"{name} is not set in the script")
        return Piece(binding.value, span, binding.origin, binding.reason)
    if "$" not in raw and "`" not in raw or quote == "'":
        return Piece(raw, span, literal=True)
    return None  # a replacement mixing text and expansions: not modelled


# --- render (at load time, with the template file) -------------------------------------------


@dataclass
class Rendered:
    """A written JSON as the script would write it, spans mapped back to where each part is written."""

    document: Document
    runtime: list[tuple[str, Span, str]] = field(default_factory=list)  # (key path, where, why) decided at run time
    sources: list[str] = field(default_factory=list)  # what it was read from, in words


@dataclass
class _Segment:
    start: int  # in the rendered text, bytes
    text: bytes
    piece: Piece


def render(written: Written, script: SourceText, template: SourceText | None) -> Rendered:
    """The written file parsed as JSON; SourceError (at the script's or the template's line) when
    the result is not JSON, or when what writes it is not modelled."""
    from recipelint.parse.jsonfile import parse_json
    from recipelint.parse.tree import Document

    if written.unknown is not None:
        raise SourceError(
            script.path, f"what {written.command} writes is decided at run time: {written.unknown}", written.span.line, written.span.column
        )
    sources = {script.path: script} | ({template.path: template} if template is not None else {})
    pieces = written.body if written.body is not None else _filled(written, template, sources)
    segments: list[_Segment] = []
    size = 0
    for piece in pieces:
        data = (piece.text if piece.text is not None else _STAND_IN).encode()
        segments.append(_Segment(size, data, piece))
        size += len(data)
        if size > _MAX_WRITTEN:
            raise SourceError(
                script.path,
                f"what {written.command} writes is too large to evaluate (over {_MAX_WRITTEN} bytes)",
                written.span.line,
                written.span.column,
            )
    text = SourceText(script.path, b"".join(s.text for s in segments))
    mapper = _Mapper(segments, sources)
    try:
        document = parse_json(text)
    except SourceError as error:
        at = mapper.point(text.offset((error.line or 1) - 1, (error.column or 1) - 1))
        raise SourceError(at.path, f"{error.reason} (in what {written.command} writes to {written.path})", at.line, at.column) from None
    runtime = _take_out_runtime(document.root, mapper)
    _remap(document.root, mapper)
    notes = [(kind, _remap_note(value, mapper)) for kind, value in document.notes]
    home = template if written.body is None and template is not None else script
    return Rendered(Document(home, document.root, "json", notes), runtime)


def _filled(written: Written, template: SourceText | None, sources: dict[Path, SourceText]) -> list[Piece]:
    """The template's text with each substitution applied as sed does: line by line, the first
    match on a line (every match with g), in the order the script gives them."""
    if template is None:
        raise SourceError(
            written.span.path, f"the template sed reads for {written.path} is not found", written.span.line, written.span.column
        )
    pieces = [Piece(template.text, template.span(template.bom, len(template.data)), literal=True)]
    for edit in written.edits:
        out: list[Piece] = []
        for piece in pieces:
            source = sources.get(piece.span.path)
            out.extend(_substitute(piece, edit, source) if piece.literal and piece.text and source is not None else [piece])
        pieces = out
    return pieces


def _substitute(piece: Piece, edit: Substitution, source: SourceText) -> list[Piece]:
    """One substitution over a literal piece (the template's text, or an earlier literal
    replacement, which a later sed of the pipeline sees as text too)."""
    assert piece.text is not None
    out: list[Piece] = []
    data = piece.text.encode()
    pattern = edit.pattern.encode()
    position = 0
    base = piece.span.start
    for line_start, line in _lines(data):
        found = line.find(pattern)
        while found != -1:
            at = line_start + found
            if at > position:
                out.append(Piece(data[position:at].decode(), source.span(base + position, base + at), literal=True))
            out.append(edit.replacement)
            position = at + len(pattern)
            found = line.find(pattern, found + len(pattern)) if edit.every else -1
    if position < len(data):
        out.append(Piece(data[position:].decode(), source.span(base + position, base + len(data)), literal=True))
    return out


def _lines(data: bytes) -> list[tuple[int, bytes]]:
    out = []
    start = 0
    for line in data.split(b"\n"):
        out.append((start, line))
        start += len(line) + 1
    return out


class _Mapper:
    """From offsets in the rendered text to spans where each byte is written."""

    def __init__(self, segments: list[_Segment], sources: dict[Path, SourceText]) -> None:
        self.segments = segments
        self.starts = [s.start for s in segments]
        self.sources = sources

    def segment(self, offset: int) -> _Segment:
        return self.segments[max(bisect.bisect_right(self.starts, offset) - 1, 0)]

    def point(self, offset: int) -> Span:
        return self._at(self.segment(offset), offset)

    def span(self, span: Span) -> Span:
        first, last = self.segment(span.start), self.segment(max(span.end - 1, span.start))
        if first is last and not first.piece.literal:
            whole = span.start == first.start and span.end == first.start + len(first.text)
            origin = first.piece.origin
            if whole and origin is not None and origin.value.edit_span is not None and origin.value.value == first.piece.text:
                return origin.value.edit_span  # a fix writes the assignment, not the heredoc
            return first.piece.span
        start, end = self._at(first, span.start), self._at(last, span.end)
        if start.path != end.path or end.end < start.start or start.path not in self.sources:
            return start
        return self.sources[start.path].span(start.start, end.end)

    def _at(self, segment: _Segment, offset: int) -> Span:
        """The place of one offset: inside a literal piece, that byte; else the whole piece."""
        span = segment.piece.span
        source = self.sources.get(span.path)
        if not segment.piece.literal or source is None:
            return span
        at = min(span.start + offset - segment.start, span.end)
        return source.span(at, at)


def _take_out_runtime(node: Node, mapper: _Mapper) -> list[tuple[str, Span, str]]:
    """Remove the entries whose key or value holds a value the run time decides; a sequence with
    one is decided at run time as a whole."""
    out: list[tuple[str, Span, str]] = []
    kept = []
    for key, key_span, child in node.items:
        unknown = _unknown_in(key_span, mapper) or (_unknown_in(child.span, mapper) if child.kind != "map" else None)
        if unknown is not None:
            out.append((child.path, unknown.span, unknown.reason or "decided at run time"))
            continue
        if child.kind == "map":
            out.extend(_take_out_runtime(child, mapper))
        kept.append((key, key_span, child))
    node.items = kept
    return out


def _unknown_in(span: Span, mapper: _Mapper) -> Piece | None:
    index = max(bisect.bisect_right(mapper.starts, span.start) - 1, 0)
    for segment in mapper.segments[index:]:
        if segment.start >= span.end and segment.start > span.start:
            break
        if segment.piece.text is None:
            return segment.piece
    return None


def _remap(root: Node, mapper: _Mapper) -> None:
    for node in root.walk():
        node.span = mapper.span(node.span)
        node.items = [(key, mapper.span(key_span), child) for key, key_span, child in node.items]


def _remap_note(value: Any, mapper: _Mapper) -> Any:
    if isinstance(value, tuple) and all(isinstance(v, Span) for v in value):
        return tuple(mapper.span(v) for v in value)
    return mapper.span(value) if isinstance(value, Span) else value


# --- a template checked alone ------------------------------------------------------------------

# A bare upper-case word where a JSON value goes (`"train_batch_size": GBSIZE,`): a placeholder sed fills.
_PLACEHOLDER = re.compile(rb"[:\[,]\s*([A-Z][A-Z0-9_]*[A-Z0-9])\s*(?=[,}\]\r\n])")


@dataclass
class Template:
    """A JSON template with placeholders, read alone: not JSON until a script fills it."""

    source: SourceText
    placeholders: list[tuple[str, Span]]
    filled_by: list[Span] = field(default_factory=list)  # the seds of scripts in the tree that fill it
    error: SourceError | None = None  # what the JSON reader says of it as it is


def placeholders(source: SourceText) -> list[tuple[str, Span]]:
    """The bare upper-case words in value places; empty when there is none (then the file is
    simply broken JSON)."""
    return [(m.group(1).decode(), source.span(m.start(1), m.end(1))) for m in _PLACEHOLDER.finditer(source.data)]
