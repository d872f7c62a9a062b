"""data.list streaming: the same counts as reading every line, in bounded memory, without
parsing the JSON of lines that cannot be remote or compressed."""

from __future__ import annotations

import json
import tracemalloc
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recipelint.model import Setting
from recipelint.toolkits.wenet import datalist
from recipelint.toolkits.wenet.datalist import read_data_list


def reference(path: Path, base: Path) -> tuple[int, Counter[str], Counter[str], dict[str, str]]:
    """Every line as WeNet's TextLineDataPipe reads it (text mode), each one classified in full."""
    lines, schemes, compression, example = 0, Counter[str](), Counter[str](), dict[str, str]()
    probed = 0
    with open(path, encoding="utf-8", errors="replace") as handle:
        for number, raw in enumerate(handle, 1):
            line = raw.strip()
            lines += 1
            location = line
            if line.startswith("{"):
                try:
                    record = json.loads(line)
                except ValueError:
                    record = None
                if isinstance(record, dict):
                    location = str(record.get("wav") or record.get("path") or "")
            scheme = urlsplit(location).scheme.lower() if "://" in location else "file"
            schemes[scheme] += 1
            example.setdefault(scheme, location)
            local = None
            if scheme == "file" and number <= datalist.SAMPLE_LINES and probed < datalist.MAGIC_SAMPLE:
                probed += 1
                candidate = Path(location.removeprefix("file://"))
                local = candidate if candidate.is_absolute() else base / candidate
            kind = datalist._compression(location, local)
            if kind:
                compression[kind] += 1
                example.setdefault(kind, location)
    return lines, schemes, compression, example


def read(path: Path) -> tuple[int, Counter[str], Counter[str], dict[str, str]]:
    item = read_data_list(path, Setting("train_data", str(path), True), path.parent)
    return item.lines, item.schemes, item.compression, item.example


LINES = [
    "/data/shards/shard_000001.tar",
    "shard_2.tar.gz",
    "SHARD_3.TGZ",
    "https://host/a/shard_4.tar",
    "HTTP://HOST/B.TAR.GZ",
    "s3://bucket/c.tar.zst",
    "file:///data/d.tar.xz",
    "  /padded/shard.tar  ",
    "",
    "   ",
    "\u3000",
    '{"key": "k1", "wav": "/wav/a.wav", "txt": "厨房用具"}',
    '{"key": "k2", "wav": "http://host/x.wav", "txt": "t"}',
    '{"key": "k3", "wav": "a\\u007a.g\\u007a", "txt": "escaped z"}',
    '{"key": "k4", "wav": "https:\\/\\/host\\/y.wav", "txt": "escaped slashes"}',
    '{"key": "k5", "path": "oss://bucket/x.flac"}',
    '{"key": "k6", "wav": 5}',
    "{not json at all.gz",
    "读取/数据.tar",
    "/odd://path.tar",
    "gzipped_magic.tar",
]


@pytest.fixture(autouse=True)
def _magic_file(tmp_path: Path) -> None:
    (tmp_path / "gzipped_magic.tar").write_bytes(b"\x1f\x8b\x08rest")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    picks=st.lists(st.sampled_from(LINES), max_size=60),
    ends=st.lists(st.sampled_from(["\n", "\r\n", "\r"]), min_size=60, max_size=60),
    final_newline=st.booleans(),
    block=st.integers(min_value=1, max_value=96),
    sample=st.integers(min_value=0, max_value=6),
)
def test_streamed_counts_equal_reading_every_line(
    tmp_path: Path, picks: list[str], ends: list[str], final_newline: bool, block: int, sample: int
) -> None:
    text = "".join(line + end for line, end in zip(picks, ends, strict=False))
    if picks and not final_newline:
        text = text.rstrip("\r\n")
    path = tmp_path / "data.list"
    path.write_bytes(text.encode())
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(datalist, "BLOCK", block)
        patch.setattr(datalist, "SAMPLE_LINES", sample)
        assert read(path) == reference(path, tmp_path)


def test_a_long_plain_raw_list_is_counted_without_parsing_its_json(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "data.list"
    with open(path, "w", encoding="utf-8") as handle:
        for i in range(30_000):
            handle.write(json.dumps({"key": f"IC{i:06d}", "wav": f"/data/wav/IC{i:06d}.wav", "txt": "厨房用具"}, ensure_ascii=False) + "\n")
    calls = Counter[str]()
    real = json.loads

    def counting(text: str) -> object:
        calls["loads"] += 1
        return real(text)

    monkeypatch.setattr(json, "loads", counting)  # the module datalist reads with
    monkeypatch.setattr(datalist, "BLOCK", 64 * 1024)  # several blocks
    lines, schemes, compression, example = read(path)
    assert (lines, schemes, compression) == (30_000, Counter(file=30_000), Counter())
    assert example == {"file": "/data/wav/IC000000.wav"}
    assert calls["loads"] == datalist.MAGIC_SAMPLE  # the lines whose local file is opened for its magic bytes
    monkeypatch.setattr(json, "loads", real)
    assert read(path) == reference(path, tmp_path)


@pytest.mark.parametrize("fields", [{"duration": 2.5}, {"start": 1.0, "end": 3.5}])
def test_a_raw_list_with_durations_sums_every_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fields: dict[str, float]) -> None:
    path = tmp_path / "data.list"
    with open(path, "w", encoding="utf-8") as handle:
        for i in range(5_000):
            handle.write(json.dumps({"key": f"IC{i:06d}", "wav": f"/data/wav/IC{i:06d}.wav", "txt": "厨房", **fields}) + "\n")
    monkeypatch.setattr(datalist, "BLOCK", 64 * 1024)  # several blocks beyond the sample
    item = read_data_list(path, Setting("train_data", str(path), True), tmp_path)
    assert (item.lines, item.timed) == (5_000, 5_000)
    assert item.seconds == pytest.approx(5_000 * 2.5)


def test_a_list_without_durations_states_none(tmp_path: Path) -> None:
    path = tmp_path / "data.list"
    path.write_text(
        "".join(json.dumps({"key": f"k{i}", "wav": f"/w/{i}.wav", "txt": "end"}) + "\n" for i in range(3_000)), encoding="utf-8"
    )
    item = read_data_list(path, Setting("train_data", str(path), True), tmp_path)
    assert (item.lines, item.timed, item.seconds) == (3_000, 0, 0.0)


def test_a_remote_shard_list_keeps_exact_counts(tmp_path: Path) -> None:
    path = tmp_path / "data.list"
    rows = [f"https://host/shards/s_{i:05d}.tar" if i % 3 else f"/local/s_{i:05d}.tar.gz" for i in range(5_000)]
    path.write_text("\n".join(rows) + "\n")
    lines, schemes, compression, example = read(path)
    assert lines == 5_000
    assert schemes == Counter(https=3_333, file=1_667)
    assert compression == Counter(gzip=1_667)
    assert example == {"file": "/local/s_00000.tar.gz", "gzip": "/local/s_00000.tar.gz", "https": "https://host/shards/s_00001.tar"}


def test_blank_lines_count_as_wenet_reads_them(tmp_path: Path) -> None:
    # TextLineDataPipe yields every line with its newline stripped: a blank line is a (bad) entry.
    path = tmp_path / "data.list"
    path.write_text("/a.tar\n\n/b.tar\r\n/c.tar\r/d.tar")
    assert read(path)[:2] == (5, Counter(file=5))


def test_memory_stays_flat_and_an_overlong_line_counts_once(tmp_path: Path) -> None:
    path = tmp_path / "data.list"
    with open(path, "wb") as handle:
        handle.write(b"/first.tar\n" + b"x" * (3 * datalist.MAX_LINE) + b"\n")
        for _ in range(60):
            handle.write(b"/data/shards/shard_0000000001.tar\n" * 10_000)  # 20 MiB in all
    tracemalloc.start()
    try:
        lines = read(path)[0]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert lines == 2 + 600_000
    assert peak < 10 * datalist.BLOCK < path.stat().st_size  # a few blocks and a line's start, not the file
