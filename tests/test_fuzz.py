"""Fuzzing with hypothesis: every front end on mutated inputs, and `fix` on generated recipes.

CI runs a few dozen examples per property. A long session:
    RECIPELINT_FUZZ_EXAMPLES=100000 python -m pytest tests/test_fuzz.py -p no:cacheprovider
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recipelint import engine, fix
from recipelint.hardware.profile import from_mapping
from recipelint.parse.files import FileCache
from recipelint.settings import Resolver
from tests.helpers import CORPUS, DS_JSON, NODE, REPO, RUN_SH, TRAIN_YAML, XTUNER_CONFIG, RecipeSpec

pytestmark = pytest.mark.slow  # generated inputs through the whole pipeline

EXAMPLES = int(os.environ.get("RECIPELINT_FUZZ_EXAMPLES", "40"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=EXAMPLES <= 100)
BOUND_SECONDS = 5.0
EXAMPLE = REPO / "examples" / "wenet-4node-v100"


def _seeds(suffix: str, extra: list[bytes]) -> list[bytes]:
    seeds = list(extra)
    seeds += [p.read_bytes() for p in sorted(CORPUS.rglob(f"*{suffix}"))[:12]]
    return seeds


SEEDS = {
    ".yaml": _seeds(
        ".yaml",
        [
            (EXAMPLE / "conf/train.yaml").read_bytes(),
            TRAIN_YAML.format(
                max_length=2000, shuffle_size=1500, sort_size=500, batch="    batch_type: static\n    batch_size: 16", extra=""
            ).encode(),
        ],
    ),
    ".json": _seeds(
        ".json", [(EXAMPLE / "conf/ds_stage2.json").read_bytes(), str(DS_JSON).replace("'", '"').replace("True", "true").encode()]
    ),
    ".sh": [
        (EXAMPLE / "run.sh").read_bytes(),
        RUN_SH.format(
            exports="",
            devices="0,1",
            nodes=2,
            rendezvous="head:1",
            assignments="num_workers=4",
            data_type="shard",
            flags=" --num_workers $num_workers",
        ).encode(),
        b"NPROC_PER_NODE=8 NNODES=2 xtuner train cfg.py --deepspeed ds.json\nsrun --nodes=2 xtuner train cfg.py --launcher=slurm\n",
    ],
    ".py": [XTUNER_CONFIG.format(sp=2, batch=1, workers=4, varlen=False, dist="").encode()],
    ".md": [b"# Train\n\n```bash\n$ NPROC_PER_NODE=8 NNODES=2 PORT=1 xtuner train cfg.py\n```\n"],
}
NOISE = st.binary(min_size=0, max_size=12) | st.sampled_from(
    [
        b"{",
        b"}",
        b"[",
        b"]",
        b":",
        b",",
        b'"',
        b"'",
        b"\\",
        b"\n",
        b"\r\n",
        b"$",
        b"${",
        b"$(",
        b"`",
        b"&",
        b"*",
        b"!!python/object/apply:os.system",
        b"\xef\xbb\xbf",
        b"\xff",
        b"\x00",
        b"#",
        b"  ",
        b"\t",
        b"=",
        b"--",
        b"auto",
        b"-1",
        b"1e400",
        b"0x",
        b"(",
        b")",
    ]
)


@st.composite
def mutated(draw: st.DrawFn, suffix: str) -> bytes:
    data = bytearray(draw(st.sampled_from(SEEDS[suffix])))
    for _ in range(draw(st.integers(0, 6))):
        if not data:
            data += draw(NOISE)
            continue
        at = draw(st.integers(0, len(data)))
        kind = draw(st.sampled_from(["insert", "delete", "replace", "duplicate"]))
        size = draw(st.integers(1, 16))
        if kind == "insert":
            data[at:at] = draw(NOISE)
        elif kind == "delete":
            del data[at : at + size]
        elif kind == "replace":
            data[at : at + size] = draw(NOISE)
        else:
            data[at:at] = data[at : at + size]
    return bytes(data)


def _check_one(name: str, content: bytes) -> None:
    profile = from_mapping(dict(NODE), "p")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_bytes(content)
        started = time.perf_counter()
        result = engine.check([path], hardware=lambda: profile, resolver=Resolver(isolated=True))  # must not raise
        assert time.perf_counter() - started < BOUND_SECONDS
        for error in result.errors:
            assert str(error).startswith(str(path)) and "\n" not in str(error)
            assert "internal error" not in str(error), str(error)  # the engine's guard must never be needed
        for diagnostic in result.diagnostics:
            size = diagnostic.span.path.stat().st_size
            assert 0 <= diagnostic.span.start <= diagnostic.span.end <= size


@SETTINGS
@given(mutated(".yaml"))
def test_fuzz_yaml(content: bytes) -> None:
    _check_one("train.yaml", content)


@SETTINGS
@given(mutated(".json"))
def test_fuzz_json(content: bytes) -> None:
    _check_one("ds_config.json", content)


@SETTINGS
@given(mutated(".sh"))
def test_fuzz_shell(content: bytes) -> None:
    _check_one("run.sh", content)


@SETTINGS
@given(mutated(".py"))
def test_fuzz_python(content: bytes) -> None:
    _check_one("cfg.py", content)


@SETTINGS
@given(mutated(".md"))
def test_fuzz_markdown(content: bytes) -> None:
    _check_one("README.md", content)


recipes = st.builds(
    RecipeSpec,
    devices=st.sampled_from(["0", "0,1", "0,1,2,3", "0,1,2,3,4,5,6,7"]),
    nodes=st.integers(1, 8),
    rendezvous=st.sampled_from(["localhost:0", "head:29400"]),
    variables=st.fixed_dictionaries(
        {"num_workers": st.integers(0, 64).map(str), "prefetch": st.integers(1, 1000).map(str), "timeout": st.integers(1, 4000).map(str)}
    ),
    flags=st.sampled_from(
        [
            ["--num_workers ${num_workers}", "--prefetch ${prefetch}"],
            ["--num_workers $num_workers", '--prefetch "$prefetch"', "--train_engine torch_fsdp", "--timeout ${timeout}"],
            ["--num_workers=${num_workers}"],
            [],
        ]
    ),
    shards=st.integers(1, 200),
    batch=st.sampled_from(["    batch_type: static\n    batch_size: 16", "    batch_type: dynamic\n    max_frames_in_batch: 36000"]),
    hardware=st.fixed_dictionaries(
        {
            "cpus": st.integers(1, 256),
            "memory_gib": st.integers(8, 2048),
            "shm_gib": st.integers(1, 512),
            "gpus": st.integers(1, 8),
            "inter_node_network": st.sampled_from(["ethernet", "infiniband"]),
        }
    ),
)


@SETTINGS
@given(recipes, st.booleans(), st.booleans())
def test_fix_is_confined_reparses_and_is_idempotent(spec: RecipeSpec, crlf: bool, bom: bool) -> None:
    profile = from_mapping(dict(spec.hardware), "p")
    with tempfile.TemporaryDirectory() as folder:
        script = spec.write(Path(folder))
        data = script.read_bytes()
        if crlf:
            data = data.replace(b"\n", b"\r\n")
        if bom:
            data = b"\xef\xbb\xbf" + data
        script.write_bytes(data)

        def run_check(files: FileCache):  # type: ignore[no-untyped-def]
            return engine.check([script], hardware=lambda: profile, files=files, resolver=Resolver(isolated=True)).diagnostics

        # One pass, checked independently: each edit's span holds the old value, and every
        # byte outside the spans is unchanged.
        diagnostics = run_check(FileCache())
        edits, chosen = fix.choose_edits(diagnostics, unsafe=False)
        for diagnostic in chosen:
            for edit in diagnostic.fix.edits:  # type: ignore[union-attr]
                old = data[edit.span.start : edit.span.end].decode()
                if edit.span.start != edit.span.end and diagnostic.setting in ("num_workers", "prefetch", "timeout"):
                    assert old.strip('"').isdigit(), (diagnostic.code, old)
        ordered = sorted(edits.get(script, []), key=lambda e: e.span.start)
        after = fix.apply_edits(data, ordered)
        cursor, rebuilt = 0, b""
        for edit in ordered:
            rebuilt += data[cursor : edit.span.start] + edit.content.encode()
            cursor = edit.span.end
        assert after == rebuilt + data[cursor:]

        outcome = fix.fix_paths(run_check, unsafe=False)
        fixed = outcome.changed.get(script, data)
        assert fixed.startswith(b"\xef\xbb\xbf") == bom
        assert (b"\r\n" in fixed) == crlf and fixed.count(b"\n") == data.count(b"\n")
        fix.reparse(script, fixed, data)
        if outcome.changed:
            fix.write_atomic(script, fixed, data)
        assert fix.fix_paths(run_check, unsafe=False).changed == {}


LOG_SEEDS = sorted((REPO / "tests" / "data" / "logs").glob("*.log"))


@SETTINGS
@given(
    st.sampled_from(LOG_SEEDS),
    st.lists(st.tuples(st.integers(0, 1 << 16), st.integers(0, 64), st.binary(max_size=64)), max_size=8),
    st.sampled_from([b"", b"\r", b"\r\n", b"\x00", b"\xff\xfe", b"\x1b[31m"]),
    st.sampled_from([1 << 20, 97, 4096]),
)
def test_diagnose_never_raises_on_mutated_logs(seed: Path, cuts: list[tuple[int, int, bytes]], noise: bytes, chunk: int) -> None:
    """Logs cut, spliced with bytes, CR/NUL/ANSI noise, read in odd chunk sizes: no exception, and
    every finding points at a line that exists and holds the text shown."""
    from recipelint.diagnose import diagnose, reader

    data = bytearray(seed.read_bytes())
    for at, length, piece in cuts:
        at %= len(data) + 1
        data[at : at + length] = piece + noise
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "mutated.log"
        path.write_bytes(bytes(data))
        old = reader.CHUNK
        reader.CHUNK = chunk
        try:
            start = time.perf_counter()
            report = diagnose([path], [])
            assert time.perf_counter() - start < BOUND_SECONDS
        finally:
            reader.CHUNK = old
        lines = bytes(data).split(b"\n")
        for finding in report.findings:
            number = finding.anchor.line.number
            assert 1 <= number <= report.logs[0].lines
            if b"\r" not in data and len(lines[number - 1]) < 500:
                assert finding.anchor.line.text == reader.decode(lines[number - 1])
