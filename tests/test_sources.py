"""Front ends: positions, values and errors of YAML, JSON, shell and data.list."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recipelint.parse import yamlfile
from recipelint.parse.files import FileCache, SourceError
from recipelint.parse.jsonfile import parse_json
from recipelint.parse.shell import parse_shell
from recipelint.parse.span import SourceText
from recipelint.parse.yamlfile import parse_yaml
from recipelint.toolkits.wenet.frontend import load_recipe


def src(text: str | bytes, name: str = "f") -> SourceText:
    return SourceText(Path(name), text.encode() if isinstance(text, str) else text)


def test_yaml_positions_and_values() -> None:
    doc = parse_yaml(src("a: 1  # c\nb:\n  c: [1, 2.5]\n  d: 'x'\n  e: yes\n"))
    node = doc.root.get("b.c")
    assert node is not None and [c.value for c in node.children] == [1, 2.5]
    d = doc.root.get("b.d")
    assert d is not None and d.value == "x" and d.quoted and (d.span.line, d.span.column) == (4, 6)
    assert doc.root.scalar("b.e") == "yes"  # YAML 1.2: not a boolean
    assert doc.source.data[d.span.start : d.span.end] == b"'x'"


def test_yaml_non_ascii_offsets_are_bytes() -> None:
    doc = parse_yaml(src("name: 语音\nn: 5\n"))
    node = doc.root.get("n")
    assert node is not None and doc.source.data[node.span.start : node.span.end] == b"5"


def test_yaml_tags_are_not_constructed(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    doc = parse_yaml(src(f"a: !!python/object/apply:os.system ['touch {marker}']\n"))
    assert doc.root.get("a").tag == "tag:yaml.org,2002:python/object/apply:os.system"  # type: ignore[union-attr]
    assert not marker.exists()


def test_yaml_errors_have_positions() -> None:
    with pytest.raises(SourceError) as info:
        parse_yaml(src("a: [1, 2\nb: 3\n"))
    assert info.value.line > 0 and "invalid YAML" in info.value.reason


def test_yaml_alias_bomb_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    # A budget of 2,000 nodes against 10**5: the walk stops at the budget, whatever its size (the
    # real 200,000 is met end to end by test_robustness's bomb through the command line).
    monkeypatch.setattr(yamlfile, "MAX_NODES", 2_000)
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 5):
        prev = chr(ord("a") + i - 1)
        cur = chr(ord("a") + i)
        lines.append(f"{cur}: &{cur} [" + ", ".join([f"*{prev}"] * 10) + "]")
    with pytest.raises(SourceError, match="alias bomb"):
        parse_yaml(src("\n".join(lines) + "\n"))


def test_json_positions_comments_trailing_commas_duplicates() -> None:
    doc = parse_json(src('{\n  // c\n  "a": 1,\n  "b": {"c": 5e8,},\n  "a": 2\n}\n'))
    assert doc.root.scalar("a") == 2  # last wins, as json does
    c = doc.root.get("b.c")
    assert c is not None and c.value == 5e8 and (c.span.line, c.span.column) == (4, 14)
    kinds = [kind for kind, _ in doc.notes]
    assert kinds == ["comment", "trailing-comma", "duplicate"]


@pytest.mark.parametrize("text", ["", "{", '{"a" 1}', '{"a": tru}', "[1,,2]", '{"a": "x\ny"}'])
def test_json_errors(text: str) -> None:
    with pytest.raises(SourceError) as info:
        parse_json(src(text))
    assert info.value.reason.startswith("invalid JSON")


def test_shell_values_defaults_and_refs() -> None:
    script = parse_shell(src('x=4  # c\ny=${Y:-250}\nexport Z="a,b"\ncmd --n ${x} --m="$y" --k=$Z\n'))
    assert [(a.name, a.value.value) for a in script.assignments] == [("x", "4"), ("y", "250"), ("Z", "a,b")]
    y = script.assignment("y")
    assert y is not None and y.value.edit_span is not None and script.source.slice(y.value.edit_span) == "250"
    assert "Z" in script.exports
    words = script.commands[0].words
    assert (words[2].value, words[2].ref) == ("4", "x")
    name, value = words[3].option  # type: ignore[misc]
    assert (name, value.value, value.ref) == ("--m", "250", "y")


def test_wenet_recipe_links_its_files(tmp_path: Path) -> None:
    from recipelint.toolkits.wenet.part import train_data
    from tests.helpers import DS_JSON, RecipeSpec

    spec = RecipeSpec(flags=["--num_workers ${num_workers}", "--train_engine deepspeed", "--deepspeed_config conf/ds.json"], ds=DS_JSON)
    script = spec.write(tmp_path)
    recipe = load_recipe(script, FileCache())
    assert recipe.launch is not None and recipe.launch.launcher == "torchrun"
    assert recipe.launch.nproc_per_node.value == 4  # counted from CUDA_VISIBLE_DEVICES
    assert recipe.config is not None and recipe.ds_config is not None
    assert train_data(recipe)[0].lines == 64
    workers = recipe.arg("num_workers")
    assert workers.value == 4 and workers.via == "num_workers"
    assert workers.edit_span is not None and workers.edit_span.line == 6  # the assignment, not the flag
    assert recipe.arg("prefetch").given is False and recipe.arg("prefetch").value == 100


def test_data_list_schemes_and_compression(tmp_path: Path) -> None:
    from recipelint.model import Setting
    from recipelint.toolkits.wenet.datalist import read_data_list

    local = tmp_path / "a.tar"
    local.write_bytes(b"BZh91AY")
    listing = tmp_path / "data.list"
    listing.write_text(f"{local}\nhttps://h/x.tar.gz\n" + '{"key": "k", "wav": "http://h/y.wav", "txt": "t"}\n\n')
    data = read_data_list(listing, Setting("train_data", str(listing), True), tmp_path)
    assert data.lines == 4  # the blank last line too: WeNet's TextLineDataPipe yields it as an entry
    assert data.schemes == {"file": 2, "https": 1, "http": 1}
    assert data.compression == {"bz2": 1, "gzip": 1}


def test_v2_python_loop_launch(tmp_path: Path) -> None:
    script = tmp_path / "run.sh"
    script.write_text(
        'export CUDA_VISIBLE_DEVICES="0,1"\nnum_nodes=1\n'
        "num_gpus=$(echo $CUDA_VISIBLE_DEVICES | awk -F \",\" '{print NF}')\n"
        "for ((i = 0; i < $num_gpus; ++i)); do\n{\n  python wenet/bin/train.py --gpu $i --config conf/x.yaml --num_workers 2\n} &\ndone\n"
    )
    recipe = load_recipe(script, FileCache())
    assert recipe.launch is not None and recipe.launch.launcher == "python"
    assert recipe.launch.nproc_per_node.value == 2
    assert [name for name, _ in recipe.unknown_args] == ["gpu"]


@settings(max_examples=200, deadline=None)
@given(
    text=st.text(alphabet="ab\n: é", max_size=40),
    marks=st.lists(st.integers(min_value=0, max_value=12), min_size=4, max_size=4),
)
def test_the_bound_spanner_gives_span_between_s_spans(text: str, marks: list[int]) -> None:
    from recipelint.parse.span import SourceText

    for data in (text.encode(), b"\xef\xbb\xbf" + text.encode()):
        source = SourceText(Path("x.yaml"), data)
        assert source.spanner()(*marks) == source.span_between(*marks)
