"""The code patterns of WeNet's known bugs (recipelint/knownissues/wenet.py names them), read
with `ast` from a checkout's package folder: each returns the spans where the pattern is, []
when the file is there without it, None when the file is not there (the version decides then).
Also what WeNet's padded batch holds (the loader memory model's bytes per frame)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

from recipelint.parse.checkout import Pattern
from recipelint.parse.span import Span

AUDIO_READERS = re.compile(
    r"(^|\.)(torchaudio\.load|torchaudio\.info|sox_io_backend\.load|soundfile\.read|sf\.read|soundfile\.SoundFile|sf\.SoundFile)$"
)


def _is_extractfile(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "extractfile"


def _tar_members(function: ast.FunctionDef) -> Iterator[tuple[str, list[ast.stmt]]]:
    """(name, where it holds a tar member): `with stream.extractfile(...) as f:` (its body), or
    `f = stream.extractfile(...)` (the function)."""
    for node in ast.walk(function):
        if isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if _is_extractfile(item.context_expr) and isinstance(item.optional_vars, ast.Name):
                    yield item.optional_vars.id, node.body
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and _is_extractfile(node.value)
        ):
            yield node.targets[0].id, function.body


def tar_member_to_decoder(package: Path) -> list[Span] | None:
    """A tar member's file object handed straight to torchaudio/soundfile (no io.BytesIO)."""
    from recipelint.parse import pycode  # the Python reader only when a checkout's code is read

    hits: list[Span] = []
    reads_tars = False  # without code that opens tar members, the files cannot tell
    for file in pycode.glob_files(package, "dataset/*.py"):
        for function in file.functions():
            for name, body in _tar_members(function):
                reads_tars = True
                for call in (n for stmt in body for n in ast.walk(stmt) if isinstance(n, ast.Call)):
                    first = call.args[0] if call.args else pycode.keyword(call, "filepath") or pycode.keyword(call, "uri")
                    if isinstance(first, ast.Name) and first.id == name and AUDIO_READERS.search(pycode.dotted(call.func)):
                        hits.append(file.span(call))
    return sorted(set(hits)) if reads_tars else None


def _sample_stores(node: ast.AST, keys: set[str]) -> bool:
    from recipelint.parse import pycode  # the Python reader only when a checkout's code is read

    return any(
        isinstance(target, ast.Subscript) and pycode.literal(target.slice) in keys
        for stmt in ([node] if isinstance(node, ast.Assign) else [])
        for target in stmt.targets
    )


def decode_wav_branch_assignment(package: Path) -> list[Span] | None:
    """`decode_wav` that stores sample['wav'] / sample['sample_rate'] only inside one if/else branch."""
    from recipelint.parse import pycode  # the Python reader only when a checkout's code is read

    file = pycode.parse_python(package / "dataset" / "processor.py")
    if file is None:
        return None
    hits = []
    for function in file.functions("decode_wav"):
        at_top = any(_sample_stores(stmt, {"wav", "sample_rate"}) for stmt in function.body)
        for branch in (n for n in ast.walk(function) if isinstance(n, ast.If)) if not at_top else ():
            inside = [s for part in (branch.body, branch.orelse) for s in part if _sample_stores(s, {"wav", "sample_rate"})]
            other = branch.orelse if inside and inside[0] in branch.body else branch.body
            if inside and not any(_sample_stores(s, {"wav", "sample_rate"}) for s in other):
                hits.append(file.span(inside[0]))
    return hits


def tar_opened_seekable(package: Path) -> list[Span] | None:
    """`tarfile.open(fileobj=..., mode='r:*')`: seek mode, which a wget pipe cannot serve."""
    from recipelint.parse import pycode  # the Python reader only when a checkout's code is read

    files = pycode.glob_files(package, "dataset/*.py")
    opens = [(f, c) for f in files for c in f.calls if pycode.dotted(c.func) == "tarfile.open" and pycode.keyword(c, "fileobj") is not None]
    if not opens:
        return None
    return [f.span(c) for f, c in opens if ":" in (pycode.literal(pycode.keyword(c, "mode")) or "r")]


def step_save_by_default(package: Path) -> list[Span] | None:
    """`info_dict.get('save_interval', 10000)`: in-loop barriers and CV every N steps unless the YAML says otherwise."""
    from recipelint.parse import pycode  # the Python reader only when a checkout's code is read

    file = pycode.parse_python(package / "utils" / "executor.py")
    if file is None:
        return None
    hits = []
    for call in file.calls:
        if (
            isinstance(call.func, ast.Attribute)
            and call.func.attr == "get"
            and len(call.args) == 2
            and pycode.literal(call.args[0]) == "save_interval"
        ):
            default = call.args[1]
            if isinstance(default, ast.Constant) and isinstance(default.value, int) and default.value < 10**12:
                hits.append(file.span(call))
    return hits


def padding_keys(package: Path) -> set[str] | None:
    """The keys of the batch dict `processor.padding` returns (WeNet)."""
    from recipelint.parse import pycode  # the Python reader only when a checkout's code is read

    file = pycode.parse_python(package / "dataset" / "processor.py")
    if file is None:
        return None
    keys: set[str] = set()
    for function in file.functions("padding"):
        for node in ast.walk(function):
            if isinstance(node, ast.Dict):
                keys.update(k for k in map(pycode.literal, node.keys) if k)
            elif isinstance(node, ast.Call) and pycode.dotted(node.func) == "dict":
                keys.update(k.arg for k in node.keywords if k.arg)
    return keys


PATTERNS: dict[str, Pattern] = {
    "step_save_by_default": step_save_by_default,
    "tar_member_to_decoder": tar_member_to_decoder,
    "decode_wav_branch_assignment": decode_wav_branch_assignment,
    "tar_opened_seekable": tar_opened_seekable,
}
