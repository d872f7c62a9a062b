"""Shell code blocks in Markdown, where launch commands are documented.

The blocks are kept at their byte offsets and everything else is blanked (each byte outside a
block becomes a space, newlines stay), so spans from the shell parser are positions in the
Markdown file itself. Doc decorations before a command (`$ `, `(DIST) `, `(SLURM) `) are
blanked too.
"""

from __future__ import annotations

import re

from recipelint.span import SourceText

_FENCE = re.compile(rb"^(\s*)(```|~~~)\s*(bash|shell|sh|console|zsh)?\s*$")
_PROMPT = re.compile(rb"^(\s*)(\$ |\(DIST\) |\(SLURM\) )")
SHELL_LANGS = {b"bash", b"shell", b"sh", b"console", b"zsh"}


def shell_blocks(source: SourceText) -> SourceText | None:
    """The Markdown file with only its shell code blocks left; None if it has none."""
    out = bytearray()
    inside = False
    keep = False
    found = False
    for line in source.data.splitlines(keepends=True):
        body = line.rstrip(b"\r\n")
        ending = line[len(body) :]
        fence = _FENCE.match(body)
        if fence and not inside:
            inside, keep = True, fence.group(3) in SHELL_LANGS
            out += b" " * len(body) + ending
            continue
        if inside and body.strip() in (b"```", b"~~~"):
            inside = keep = False
            out += b" " * len(body) + ending
            continue
        if inside and keep:
            found = True
            prompt = _PROMPT.match(body)
            if prompt:
                body = prompt.group(1) + b" " * len(prompt.group(2)) + body[prompt.end() :]
            out += body + ending
        else:
            out += bytes(b if b in b"\r\n" else 0x20 for b in line)
    if not found:
        return None
    return SourceText(source.path, bytes(out))
