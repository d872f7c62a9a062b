"""The block-style YAML reader (recipelint.parse.yamlblock) against ruamel's composer: whatever it
reads must be the tree ruamel gives, node for node and span for span; whatever ruamel rejects it
must decline, so the error is ruamel's."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recipelint.parse.files import SourceError
from recipelint.parse.span import SourceText
from recipelint.parse.tree import Node
from recipelint.parse.yamlblock import read_block
from recipelint.parse.yamlfile import compose_yaml, parse_yaml, resolve_scalar
from tests import test_fuzz as fuzz
from tests.helpers import DATA, REPO


def difference(ours: Node, theirs: Node) -> str | None:
    """Where two trees differ (values compared with their types), or None."""
    fields = ("kind", "span", "path", "tag", "quoted")
    if [getattr(ours, f) for f in fields] != [getattr(theirs, f) for f in fields]:
        return f"{ours.path}: {[getattr(ours, f) for f in fields]} != {[getattr(theirs, f) for f in fields]}"
    if type(ours.value) is not type(theirs.value) or (ours.value != theirs.value and ours.value == ours.value):
        return f"{ours.path}: {ours.value!r} != {theirs.value!r}"
    if [(k, s) for k, s, _ in ours.items] != [(k, s) for k, s, _ in theirs.items] or len(ours.children) != len(theirs.children):
        return f"{ours.path}: keys or items differ"
    pairs = [(a, b) for (_, _, a), (_, _, b) in zip(ours.items, theirs.items, strict=True)]
    for a, b in pairs + list(zip(ours.children, theirs.children, strict=True)):
        found = difference(a, b)
        if found:
            return found
    return None


def agrees(text: bytes) -> bool:
    """Checks the reader on `text`; True when it read it (False: declined)."""
    try:
        source = SourceText(Path("doc.yaml"), text)
    except UnicodeDecodeError:
        return False  # not text: the file reader reports it before any YAML reader sees it
    ours = read_block(source, resolve_scalar)
    try:
        theirs = compose_yaml(source).root
    except SourceError:
        assert ours is None, "read a document ruamel rejects"
        return False
    if ours is None:
        return False
    found = difference(ours, theirs)
    assert found is None, found
    return True


YAML_FILES = sorted(p for root in (DATA, REPO / "examples") for p in root.rglob("*") if p.suffix in (".yaml", ".yml"))


def test_every_yaml_file_the_tests_carry_reads_as_ruamel_reads_it() -> None:
    read = [path for path in YAML_FILES if agrees(path.read_bytes())]
    wenet = [path for path in YAML_FILES if "wenet" in str(path) and path.parent.name == "conf"]
    assert len(wenet) >= 25 and set(wenet) <= set(read)  # the real configs take the fast path


@pytest.mark.parametrize(
    "text",
    [
        b"a:\nb: 1\n",
        b"a:   # c\n  # x\nb: 1",
        b"a:\n- 1\n- x: 2\n  y: 3\n# end\n\n",
        b"a:\n  - 1\n  - [2, {b: 3}]\nc: 4\n",
        b"'k': \"v\"\n\"q\": 'it''s'\n",
        b"a: [1, {b: 2}, 'c']\nd: {}\ne: []\n",
        b"a: 1\n  # deeper comment\nb:\n  c: ~\n  d: null\n",
        b"x: 1 # c\ny: http://h:80/p#frag\nz: -1\nw: 1_000\nv: .inf\nu: 0x1F\n",
        b"<blank>: 0\n<sos/eos>: 1\n",
        b"a:\n  b:\n    c: 1\n  d: 2\ne: 3",
        b"a:\n- b:\n  - 1\n  c: 2\n",
        b"dup: 1\ndup: 2\n",
    ],
)
def test_the_subset_reads_as_ruamel_reads_it(text: bytes) -> None:
    assert agrees(text)


@pytest.mark.parametrize(
    "text",
    [
        b"a: &x 1\nb: *x\n",  # anchors, aliases
        b"a: !!str 1\n",  # tags
        b"a: |\n  text\n",  # block scalars
        b"a: multi\n  line\n",  # a multi-line plain scalar
        b"a: [1,\n  2]\n",  # a multi-line flow collection
        b'a: "esc\\n"\n',  # escapes
        b"---\na: 1\n",  # document markers
        b"a:\n\tb: 1\n",  # tabs
        b"a: 1\r\nb: 2\r\n",  # CR
        "a: caf\u00e9\n".encode(),  # non-ASCII
        b"a b: 1\n",  # a key with a space
        b"- 1\n- 2\n",  # a sequence at the root
        b"",  # nothing
        b"a: b: c\n",  # invalid: ruamel says why
        b"a: [1, 2\n",
        b"a: 1\n b: 2\n",
        b"a: 'open\n",
    ],
)
def test_what_is_outside_the_subset_is_left_to_ruamel(text: bytes) -> None:
    assert read_block(SourceText(Path("doc.yaml"), text), resolve_scalar) is None
    assert not agrees(text)


def test_parse_yaml_errors_are_ruamels() -> None:
    with pytest.raises(SourceError, match=r"doc.yaml:1:5: invalid YAML: mapping values are not allowed in this context"):
        parse_yaml(SourceText(Path("doc.yaml"), b"a: b: c\n"))


SCALARS = st.sampled_from(
    [
        "1", "-1", "1.5e3", "true", "False", "~", "null", "", "a b", "a#b", "a #b", "'q'", '"d"', "'it''s'", "[1, 2]",
        "{a: 1}", "[]", "{}", "x: y", "-", "- a", "&a", "*a", "!t x", "|", ">", "http://x", "a:", ":a", "?a",
        "[1, [2, {b: c}]]", "[a: 1]", "[1,]", "{a}", "0x1F", ".inf", "1_000", '"a\\nb"', "<blank>", "[ 1 , 'x' ]",
        "{a: [1], 'b': {c: d}}", "'unclosed", '"x" y', "'a' # c", "#c", "a  ", "-x", "0o17", "+1", ".5", "1.",
    ]
)  # fmt: skip
KEYS = st.sampled_from(["a", "b_c", "<blank>", "'q k'", '"d"', "a b", "x.y", "1", "true", "-k", "k ", "a:b", "[k]"])
COMMENTS = st.sampled_from(["", "", " # note", "   #x", "#glued"])


@st.composite
def block(draw: st.DrawFn, indent: int = 0, depth: int = 0) -> list[str]:
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 4))):
        pad = " " * indent
        key = draw(KEYS)
        shape = draw(st.sampled_from(["scalar", "scalar", "map", "seq", "indentless"] if depth < 3 else ["scalar"]))
        if draw(st.booleans()) and not draw(st.booleans()):
            lines.append(draw(st.sampled_from(["", "# c", pad + "  # deeper", "   "])))
        if shape == "scalar":
            lines.append(f"{pad}{key}: {draw(SCALARS)}{draw(COMMENTS)}")
        elif shape == "map":
            lines.append(f"{pad}{key}:{draw(COMMENTS)}")
            lines += draw(block(indent + draw(st.integers(1, 4)), depth + 1))
        else:
            lines.append(f"{pad}{key}:")
            column = indent if shape == "indentless" else indent + draw(st.integers(1, 3))
            for _ in range(draw(st.integers(1, 3))):
                if draw(st.booleans()):
                    lines.append(f"{' ' * column}- {draw(SCALARS)}{draw(COMMENTS)}")
                else:
                    inner = draw(block(column + 2, depth + 1))
                    lines.append(" " * column + "- " + inner[0].lstrip(" "))
                    lines += inner[1:]
    return lines


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(block(), st.booleans())
def test_generated_documents_read_as_ruamel_reads_them(lines: list[str], final_newline: bool) -> None:
    agrees(("\n".join(lines) + ("\n" if final_newline else "")).encode())


@fuzz.SETTINGS
@given(fuzz.mutated(".yaml"))
def test_mutated_real_configs_read_as_ruamel_reads_them(content: bytes) -> None:
    """Real configs with bytes inserted, deleted, replaced and repeated (tests/test_fuzz.py's
    mutations; RECIPELINT_FUZZ_EXAMPLES sets how many): each read as ruamel reads it, or declined."""
    agrees(content)


def test_control_characters_are_left_to_ruamel() -> None:
    """Found by the mutation test: a NUL in a comment is invalid YAML; the reader took it."""
    assert not agrees(b"#\x00 comment\na: 1\n")
    assert not agrees(b"a: 1\x7f\n")
