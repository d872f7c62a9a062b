"""A git checkout's commit and the commit's date, read from the `.git` files; no git process.

HEAD (a ref or a detached commit), loose refs and packed-refs give the commit; the commit
object, loose or in a pack (deltas resolved), gives its committer date. A worktree's `.git`
is a file naming its git dir, whose `commondir` leads to the refs and objects.
"""

from __future__ import annotations

import mmap
import re
import struct
import zlib
from datetime import datetime, timedelta, timezone
from pathlib import Path

from recipelint.records import dataclass

_SHA = re.compile(r"^[0-9a-f]{40}$")
_MAX_DELTA_CHAIN = 64
_MAX_OBJECT = 1 << 20  # a commit object is a few hundred bytes; refuse anything huge


@dataclass(frozen=True)
class GitHead:
    commit: str
    ref: str | None  # "refs/heads/main"; None when HEAD is detached
    source: str  # how the commit was read, for the evidence
    common_dir: Path  # where refs and objects live

    @property
    def branch(self) -> str | None:
        return self.ref.rsplit("/", 1)[-1] if self.ref else None


def _text(path: Path, limit: int = 1 << 20) -> str | None:
    from recipelint.parse.files import head

    data = head(path, limit)  # a FIFO named HEAD or .git never blocks the run
    return data.decode("utf-8", "replace") if data is not None else None


def git_dirs(worktree: Path) -> tuple[Path, Path] | None:
    """(git dir holding HEAD, common dir holding refs and objects) of a checkout."""
    dot = worktree / ".git"
    if dot.is_file():
        text = _text(dot) or ""
        match = re.match(r"gitdir:\s*(.+)", text.strip())
        if match is None:
            return None
        git_dir = Path(match.group(1).strip())
        git_dir = git_dir if git_dir.is_absolute() else worktree / git_dir
    elif dot.is_dir():
        git_dir = dot
    else:
        return None
    common = _text(git_dir / "commondir")
    common_dir = git_dir / common.strip() if common else git_dir
    return (git_dir, common_dir) if (git_dir / "HEAD").is_file() else None


def packed_refs(common_dir: Path) -> dict[str, str]:
    """ref name -> commit; an annotated tag's peeled commit (the `^` line) replaces the tag object."""
    refs: dict[str, str] = {}
    last = None
    for line in (_text(common_dir / "packed-refs", 64 << 20) or "").splitlines():
        if line.startswith("^") and last is not None and _SHA.match(line[1:41]):
            refs[last] = line[1:41]
        elif len(line) > 41 and _SHA.match(line[:40]):
            last = line[41:].strip()
            refs[last] = line[:40]
    return refs


def resolve_ref(common_dir: Path, git_dir: Path, ref: str) -> tuple[str, str] | None:
    """(commit, where it was found) for a ref name."""
    for base in (git_dir, common_dir):
        value = _text(base / ref)
        if value is not None and _SHA.match(value.strip()):
            return value.strip(), ref
    packed = packed_refs(common_dir).get(ref)
    return (packed, f"{ref} in packed-refs") if packed else None


def read_head(worktree: Path) -> GitHead | None:
    dirs = git_dirs(worktree)
    if dirs is None:
        return None
    git_dir, common_dir = dirs
    head = (_text(git_dir / "HEAD") or "").strip()
    if _SHA.match(head):
        return GitHead(head, None, ".git/HEAD (detached)", common_dir)
    match = re.match(r"ref:\s*(\S+)", head)
    if match is None:
        return None
    found = resolve_ref(common_dir, git_dir, match.group(1))
    if found is None:
        return None
    return GitHead(found[0], match.group(1), f".git/HEAD -> {found[1]}", common_dir)


def tags_at(common_dir: Path, commit: str) -> list[str]:
    """The checkout's own tags that name `commit` (lightweight, or annotated and peeled)."""
    names = {ref[len("refs/tags/") :] for ref, sha in packed_refs(common_dir).items() if ref.startswith("refs/tags/") and sha == commit}
    tags = common_dir / "refs" / "tags"
    if tags.is_dir():
        for path in tags.rglob("*"):
            if path.is_file() and (_text(path) or "").strip() == commit:
                names.add(path.relative_to(tags).as_posix())
    return sorted(names)


def commit_date(common_dir: Path, commit: str) -> str | None:
    """The committer date (YYYY-MM-DD, in the committer's time zone) of a commit object."""
    body = read_object(common_dir, commit)
    if body is None or body[0] != "commit":
        return None
    for line in body[1].split(b"\n"):
        if line.startswith(b"committer "):
            match = re.search(rb" (\d+) ([+-])(\d\d)(\d\d)$", line)
            if match is None:
                return None
            offset = timedelta(hours=int(match.group(3)), minutes=int(match.group(4)))
            zone = timezone(offset if match.group(2) == b"+" else -offset)
            return datetime.fromtimestamp(int(match.group(1)), zone).strftime("%Y-%m-%d")
        if not line:
            break
    return None


_TYPES = {1: "commit", 2: "tree", 3: "blob", 4: "tag"}


def read_object(common_dir: Path, sha: str) -> tuple[str, bytes] | None:
    """(type, body) of an object, loose or packed; None when it is not there or not readable."""
    try:
        loose = common_dir / "objects" / sha[:2] / sha[2:]
        if loose.is_file():
            with open(loose, "rb") as handle:
                raw = zlib.decompressobj().decompress(handle.read(_MAX_OBJECT), _MAX_OBJECT + 64)
            header, _, body = raw.partition(b"\0")
            return header.split(b" ")[0].decode(), body
        packs = common_dir / "objects" / "pack"
        for idx in sorted(packs.glob("pack-*.idx")) if packs.is_dir() else []:
            found = _read_from_pack(idx, bytes.fromhex(sha), common_dir)
            if found is not None:
                return found
    except (OSError, zlib.error, ValueError, struct.error, IndexError):
        return None
    return None


def _find_in_index(index: mmap.mmap, sha: bytes) -> int | None:
    """The pack offset of an object in a version-2 .idx file, by binary search."""
    if index[:8] != b"\xfftOc\x00\x00\x00\x02":
        return None
    fanout = 8
    low = struct.unpack_from(">I", index, fanout + 4 * (sha[0] - 1))[0] if sha[0] else 0
    high = struct.unpack_from(">I", index, fanout + 4 * sha[0])[0]
    total = struct.unpack_from(">I", index, fanout + 4 * 255)[0]
    names = fanout + 256 * 4
    while low < high:
        middle = (low + high) // 2
        current = index[names + 20 * middle : names + 20 * middle + 20]
        if current == sha:
            offsets = names + 24 * total  # after the names and the CRCs
            offset: int = struct.unpack_from(">I", index, offsets + 4 * middle)[0]
            if offset & 0x80000000:
                large = offsets + 4 * total + 8 * (offset & 0x7FFFFFFF)
                offset = struct.unpack_from(">Q", index, large)[0]
            return offset
        if current < sha:
            low = middle + 1
        else:
            high = middle
    return None


def _read_from_pack(idx: Path, sha: bytes, common_dir: Path) -> tuple[str, bytes] | None:
    with open(idx, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as index:
        offset = _find_in_index(index, sha)
    if offset is None:
        return None
    with open(idx.with_suffix(".pack"), "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as pack:
        return _unpack(pack, offset, idx, common_dir, 0)


def _unpack(pack: mmap.mmap, offset: int, idx: Path, common_dir: Path, depth: int) -> tuple[str, bytes] | None:
    if depth > _MAX_DELTA_CHAIN:
        return None
    byte = pack[offset]
    kind, size, shift, pos = (byte >> 4) & 7, byte & 15, 4, offset + 1
    while byte & 0x80:
        byte = pack[pos]
        size |= (byte & 0x7F) << shift
        shift, pos = shift + 7, pos + 1
    if size > _MAX_OBJECT:
        return None
    if kind in _TYPES:
        return _TYPES[kind], _inflate(pack, pos, size)
    if kind == 6:  # OFS_DELTA: the base sits earlier in the same pack
        byte = pack[pos]
        distance, pos = byte & 0x7F, pos + 1
        while byte & 0x80:
            byte = pack[pos]
            distance, pos = ((distance + 1) << 7) | (byte & 0x7F), pos + 1
        base = _unpack(pack, offset - distance, idx, common_dir, depth + 1)
    elif kind == 7:  # REF_DELTA: the base is named by its id
        base = read_object(common_dir, pack[pos : pos + 20].hex()) if depth < _MAX_DELTA_CHAIN else None
        pos += 20
    else:
        return None
    if base is None:
        return None
    return base[0], _apply_delta(base[1], _inflate(pack, pos, size))


def _inflate(pack: mmap.mmap, pos: int, size: int) -> bytes:
    inflater = zlib.decompressobj()
    out = bytearray()
    while not inflater.eof and len(out) < size:
        chunk = pack[pos : pos + 65536]
        if not chunk:
            break
        pos += len(chunk)
        out += inflater.decompress(chunk)
    return bytes(out[:size])


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[pos]
        value |= (byte & 0x7F) << shift
        shift, pos = shift + 7, pos + 1
        if not byte & 0x80:
            return value, pos


def _apply_delta(base: bytes, delta: bytes) -> bytes:
    _, pos = _varint(delta, 0)  # the base's size
    size, pos = _varint(delta, pos)
    out = bytearray()
    while pos < len(delta) and len(out) <= size:
        op = delta[pos]
        pos += 1
        if op & 0x80:  # copy a range of the base
            start = length = 0
            for bit in range(4):
                if op & (1 << bit):
                    start |= delta[pos] << (8 * bit)
                    pos += 1
            for bit in range(3):
                if op & (1 << (4 + bit)):
                    length |= delta[pos] << (8 * bit)
                    pos += 1
            out += base[start : start + (length or 0x10000)]
        elif op:  # insert the next `op` bytes
            out += delta[pos : pos + op]
            pos += op
        else:
            raise ValueError("bad delta opcode")
    return bytes(out)
