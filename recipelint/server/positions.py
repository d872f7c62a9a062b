"""Byte offsets of a file to LSP positions and back: 0-based lines, and columns counted in the
position encoding the client and server agreed on: UTF-16 code units by default (the
protocol's; an emoji is two), UTF-8 bytes or UTF-32 characters when the client prefers them."""

from __future__ import annotations


def position(data: bytes, offset: int, encoding: str = "utf-16") -> tuple[int, int]:
    """(line, character) of a byte offset; an offset inside a character counts the part before."""
    offset = max(0, min(offset, len(data)))
    line = data.count(b"\n", 0, offset)
    start = data.rfind(b"\n", 0, offset) + 1
    return line, units(data[start:offset].decode("utf-8", "ignore"), encoding)


def offset(data: bytes, line: int, character: int, encoding: str = "utf-16") -> int:
    """The byte offset of an LSP position; a position past a line's end is its end."""
    start = 0
    for _ in range(line):
        found = data.find(b"\n", start)
        if found < 0:
            return len(data)
        start = found + 1
    end = data.find(b"\n", start)
    text = data[start : end if end >= 0 else len(data)].decode("utf-8", "replace")
    counted = 0
    for index, char in enumerate(text):
        if counted >= character:
            return start + len(text[:index].encode("utf-8"))
        counted += units(char, encoding)
    return start + len(text.encode("utf-8"))


def units(text: str, encoding: str = "utf-16") -> int:
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    if encoding == "utf-32":
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def changed_range(before: bytes, after: bytes) -> tuple[int, int, bytes]:
    """The one byte range of `before` to replace, and what replaces it, to get `after`: an edit
    that leaves the rest of an open document (and the editor's cursor and undo) alone."""
    limit = min(len(before), len(after))
    start = 0
    while start < limit and before[start] == after[start]:
        start += 1
    while 0 < start < len(before) and (before[start] & 0xC0) == 0x80:  # never split a UTF-8 character
        start -= 1
    end = 0
    while end < limit - start and before[len(before) - 1 - end] == after[len(after) - 1 - end]:
        end += 1
    while end > 0 and (before[len(before) - end] & 0xC0) == 0x80:
        end -= 1
    return start, len(before) - end, after[start : len(after) - end]
