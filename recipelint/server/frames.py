"""The server's side of the wire: LSP frames (`Content-Length: N` headers, a blank line, N bytes
of JSON) read so that no frame can stop the server or silence it.

pygls's own loop reads a header line, then exactly the length it names: a frame with no length,
or one that is not a number, negative or past memory (`Content-Length: 999999999999`) left it
reading a body as headers, waiting for bytes that never come, or raised MemoryError, and every
later request went unanswered, `shutdown` included. Here a length must be digits and at most
`MAX_FRAME`; a header block without one is skipped, and the reader finds the next frame by its
`Content-Length:` (the last one before a blank line: the bytes of a broken frame are no header).
A body too short or too long for its JSON is cut at the next header it holds. A body that is not
JSON is answered with a parse error, a message that is not a request of the protocol (a params
object of the wrong shape) with an invalid-request or invalid-params error naming its id."""

from __future__ import annotations

import json
import re
from typing import Any

from recipelint.parse.files import MAX_FILE_BYTES

# A frame carries a document (capped at the file limit) escaped as JSON: up to 6 bytes a byte.
MAX_FRAME = 6 * MAX_FILE_BYTES + 64 * 1024
_HEADER_END = b"\r\n\r\n"
_LENGTH = re.compile(rb"Content-Length:[ \t]*([^\r\n]*)", re.IGNORECASE)
_KEEP = 64 * 1024  # bytes of an unframed stream held while its next header is looked for

PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS = -32700, -32600, -32602


class Frames:
    """Bytes in, whole frame bodies out (`feed`), with one line for each frame that was refused."""

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.refused: list[str] = []

    def feed(self, data: bytes) -> list[bytes]:
        self.buffer += data
        bodies: list[bytes] = []
        while True:
            body = self._next()
            if body is None:
                return bodies
            bodies.append(body)

    def _next(self) -> bytes | None:
        while True:
            end = self.buffer.find(_HEADER_END)
            if end < 0:
                self._trim()
                return None
            lengths = list(_LENGTH.finditer(bytes(self.buffer[:end])))
            value = lengths[-1].group(1).strip() if lengths else None
            if value is not None and value.isdigit() and 0 < int(value) <= MAX_FRAME:
                break
            # no usable length: drop the header block, look for the next frame's
            self.refused.append(_why(value))
            del self.buffer[: end + len(_HEADER_END)]
        size = int(value)
        start = end + len(_HEADER_END)
        if len(self.buffer) < start + size:
            return None
        body = bytes(self.buffer[start : start + size])
        del self.buffer[: start + size]
        cut = _LENGTH.search(body)
        if cut is not None and not _is_json(body):
            # a length too long took the next frame's header: give those bytes back
            self.buffer[:0] = body[cut.start() :]
            body = body[: cut.start()]
        return body

    def _trim(self) -> None:
        """An unframed stream (a body whose header was refused, with no newline) is held only up
        to `_KEEP` bytes, from where a header may start."""
        if len(self.buffer) <= _KEEP:
            return
        found = self.buffer.rfind(b"Content-Length")
        keep_from = found if found >= 0 and len(self.buffer) - found <= _KEEP else len(self.buffer) - 64
        del self.buffer[:keep_from]


def _why(value: bytes | None) -> str:
    if value is None:
        return "a frame with no Content-Length header: skipped"
    shown = value[:20].decode("ascii", "replace")
    return f"a frame with Content-Length {shown!r} (not a length from 1 to {MAX_FRAME} bytes): skipped"


def _is_json(body: bytes) -> bool:
    try:
        json.loads(body)
    except ValueError:
        return False
    return True


def error_response(request_id: Any, code: int, message: str) -> bytes:
    """One JSON-RPC error response, framed."""
    payload = json.dumps({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(payload), payload)


def request_id(body: bytes) -> tuple[Any, str | None]:
    """The id of a message, and why it is no request of the protocol (None when it may be one)."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return None, "parse error: not JSON"
    if not isinstance(data, dict):
        return None, "invalid request: not a JSON object"
    found = data.get("id")
    if found is not None and (isinstance(found, bool) or not isinstance(found, (int, str))):
        return None, "invalid request: the id is neither a number nor a string"
    method = data.get("method")
    if data.get("jsonrpc") != "2.0" or (method is not None and not isinstance(method, str)):
        return found, "invalid request: not a JSON-RPC 2.0 message"
    if "params" in data and not isinstance(data["params"], (dict, list)):
        return found, "invalid params: params is neither an object nor an array"
    return found, None
