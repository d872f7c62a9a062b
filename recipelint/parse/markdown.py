"""Shell code blocks in Markdown, where launch commands are documented.

The blocks are kept at their byte offsets and everything else is blanked (each byte outside a
block becomes a space, newlines stay), so spans from the shell parser are positions in the
Markdown file itself. Placeholders such as `<your_port>` become `_your_port_` (same length), so
they read as words rather than redirections.

Blocks follow CommonMark: a fence is three or more backticks or tildes with any info string
(`Bash`, `shell`, `diff`, `python`, none), possibly inside a blockquote or a list item, and it
is closed only by a fence of the same character at least as long, so a fence recipelint does
not read never flips the state. Shell-like and unlabelled fences, `diff` fences (the new side),
and indented code blocks are read. A paragraph line that is itself an `xtuner train` command
(tutorials write them outside code) is read too. Doc decorations before a command (`$ `,
`(DIST) `, `(SLURM) `) are blanked.
"""

from __future__ import annotations

import re

from recipelint.parse.span import SourceText

_OPEN = re.compile(rb"^(?P<prefix>[ \t]*(?:>[ \t]?)*[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^\r\n]*)$")
_QUOTE = re.compile(rb"^[ \t]*(?:>[ \t]?)+")
_PROMPT = re.compile(rb"^(\s*)(\$ |\(DIST\) |\(SLURM\) )")
_PLACEHOLDER = re.compile(rb"<[A-Za-z_][^<>\s]*>")
_LIST_ITEM = re.compile(rb"^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+")
_PROSE_COMMAND = re.compile(rb"^[ \t]*(?:[A-Za-z_][A-Za-z0-9_]*=\S*[ \t]+)*(?:srun[ \t][^\r\n]*?)?xtuner[ \t]+train\b")
# Info strings whose block is read as shell; other languages are skipped, but still close properly.
SHELL_LANGS = {
    b"",
    b"bash",
    b"sh",
    b"shell",
    b"zsh",
    b"console",
    b"shell-session",
    b"shellsession",
    b"bash-session",
    b"sh-session",
    b"terminal",
    b"text",
    b"txt",
    b"plain",
    b"plaintext",
    b"none",
    b"diff",
}


def fence_language(info: bytes) -> bytes:
    """The language of an info string: its first word, lower case, without `{}` or a leading dot;
    after a MyST directive (```` ```{code-block} bash ````, XTuner's docs), the directive's argument."""
    words = info.strip().split()
    if len(words) > 1 and words[0].lower() in (b"{code-block}", b"{code}", b"{sourcecode}"):
        words = words[1:]
    return words[0].strip(b"{}").lstrip(b".").lower() if words else b""


class _Blocks:
    def __init__(self) -> None:
        self.out = bytearray()
        self.fence: bytes | None = None  # the open fence's characters
        self.keep = False
        self.quoted = False  # the open fence sits in a blockquote: strip `>` from its lines
        self.diff = False
        self.found = False
        self.previous_blank = True
        self.in_list = False
        self.continuation = False  # the previous kept prose line ended with a backslash
        self.in_code = False  # inside an indented code block
        self.ranges: list[tuple[int, int]] = []  # byte ranges of the blocks, each parsed on its own
        self.current: int | None = None  # index in `ranges` of the block being read

    def blank(self, line: bytes, ends_block: bool = True) -> None:
        self.out += bytes(b if b in b"\r\n" else 0x20 for b in line)
        if ends_block:
            self.current = None

    def keep_line(self, body: bytes, ending: bytes) -> None:
        self.found = True
        prompt = _PROMPT.match(body)
        if prompt:
            body = prompt.group(1) + b" " * len(prompt.group(2)) + body[prompt.end() :]
        if b"<" in body:  # `--master_port=<your_port>` is a placeholder, not a redirection
            body = _PLACEHOLDER.sub(lambda m: b"_" + m.group(0)[1:-1] + b"_", body)
        start = len(self.out)
        self.out += body + ending
        if self.current is None:
            self.current = len(self.ranges)
            self.ranges.append((start, len(self.out)))
        else:
            self.ranges[self.current] = (self.ranges[self.current][0], len(self.out))

    def in_fence(self, body: bytes, ending: bytes, line: bytes) -> None:
        assert self.fence is not None
        inner = body
        if self.quoted:
            quote = _QUOTE.match(body)
            if quote:
                inner = b" " * quote.end() + body[quote.end() :]
        stripped = inner.strip()
        if stripped and set(stripped) == {self.fence[0]} and len(stripped) >= len(self.fence):
            self.fence = None
            self.blank(line)
            return
        if not self.keep:
            self.blank(line)
            return
        if self.diff:
            text = inner.lstrip()
            if text.startswith((b"- ", b"---", b"+++", b"@@")) or text == b"-":
                self.blank(line, ends_block=False)
                return
            if text.startswith(b"+ ") or text == b"+":
                at = len(inner) - len(text)
                inner = inner[:at] + b" " + inner[at + 1 :]
        self.keep_line(inner, ending)

    def outside(self, body: bytes, ending: bytes, line: bytes) -> None:
        opening = _OPEN.match(body)
        if opening and not (opening.group("fence")[:1] == b"`" and b"`" in opening.group("info")):
            self.fence = opening.group("fence")
            language = fence_language(opening.group("info"))
            self.keep = language in SHELL_LANGS
            self.diff = language == b"diff"
            self.quoted = b">" in opening.group("prefix")
            self.blank(line)
            return
        indented = body.startswith((b"    ", b"\t")) and body.strip() != b""
        if indented and (self.previous_blank or self.in_code) and not self.in_list:
            self.in_code = True
            self.keep_line(body, ending)
            return
        self.in_code = False
        if body.strip():
            self.in_list = bool(_LIST_ITEM.match(body)) or (self.in_list and body[:1] in (b" ", b"\t"))
        if self.continuation or _PROSE_COMMAND.match(body):
            self.continuation = body.rstrip().endswith(b"\\")
            self.keep_line(body, ending)
            return
        self.blank(line)


def shell_blocks(source: SourceText) -> SourceText | None:
    """The Markdown file with only its shell code blocks left; None if it has none."""
    found = code_blocks(source)
    return found[0] if found is not None else None


def code_blocks(source: SourceText) -> tuple[SourceText, list[tuple[int, int]]] | None:
    """The Markdown file with only its shell code blocks left, and the byte range of each block
    (parse them one at a time: an unclosed quote in one block must not swallow the next)."""
    state = _Blocks()
    for line in source.data.splitlines(keepends=True):
        body = line.rstrip(b"\r\n")
        ending = line[len(body) :]
        if state.fence is not None:
            state.in_fence(body, ending, line)
        else:
            state.outside(body, ending, line)
        state.previous_blank = body.strip() == b""
    if not state.found:
        return None
    return SourceText(source.path, bytes(state.out)), state.ranges
