"""Fixes: byte-range edits only, re-parsed before writing, idempotent, and written atomically."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from recipelint import engine, fix
from recipelint.diagnostics import Applicability, Diagnostic, Edit, Fix, Severity
from recipelint.hardware.profile import from_mapping
from recipelint.parse.files import FileCache, SourceError
from recipelint.parse.span import SourceText
from tests.helpers import NODE, RecipeSpec


def run_fix(paths: list[Path], hardware: dict, unsafe: bool = False) -> fix.FixOutcome:  # type: ignore[type-arg]
    profile = from_mapping(hardware, "profile test")
    return fix.fix_paths(lambda files: engine.check(paths, hardware=lambda: profile, files=files).diagnostics, unsafe)


def changed_lines(before: bytes, after: bytes) -> list[tuple[bytes, bytes]]:
    a, b = before.splitlines(), after.splitlines()
    assert len(a) == len(b)
    return [(x, y) for x, y in zip(a, b, strict=True) if x != y]


def test_fix_edits_only_values_and_is_idempotent(tmp_path: Path) -> None:
    spec = RecipeSpec(variables={"num_workers": "4   # per rank", "prefetch": "10"}, hardware={**NODE, "cpus": 12})
    script = spec.write(tmp_path)
    before = script.read_bytes()
    outcome = run_fix([script], spec.hardware)
    after = outcome.changed[script]
    assert changed_lines(before, after) == [(b"num_workers=4   # per rank", b"num_workers=3   # per rank")]
    fix.write_atomic(script, after, before)
    assert run_fix([script], spec.hardware).changed == {}


def test_fix_inserts_missing_flag(tmp_path: Path) -> None:
    spec = RecipeSpec(variables={}, flags=[])
    script = spec.write(tmp_path)
    outcome = run_fix([script], spec.hardware)
    text = outcome.changed[script].decode()
    inserted = text.split("wenet/bin/train.py")[1].split("\\\n")[0].split()
    # num_workers: upstream's 8 fits 64 CPUs; prefetch: the default 100 fits memory, so nothing to write
    assert sorted(zip(inserted[::2], inserted[1::2], strict=True)) == [("--num_workers", "8")]


def test_unsafe_fixes_need_the_flag(tmp_path: Path) -> None:
    spec = RecipeSpec(yaml_extra="grad_clipp: 5\n")
    spec.write(tmp_path)
    config = tmp_path / "conf/train.yaml"
    assert config not in run_fix([tmp_path / "run.sh"], spec.hardware).changed
    outcome = run_fix([tmp_path / "run.sh"], spec.hardware, unsafe=True)
    assert b"\ngrad_clip: 5\n" in outcome.changed[config].split(b"max_epoch")[1]


def test_a_fix_that_breaks_the_file_is_not_applied(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_bytes(b"a: 1\nb: [2]\n")
    source = SourceText(path, path.read_bytes())
    bad = Diagnostic("RL999", Severity.ERROR, "x", source.span(3, 4), fix=Fix((Edit(source.span(3, 4), "[oops"),), Applicability.SAFE))
    outcome = fix.fix_paths(lambda files: [bad], unsafe=False)
    assert outcome.changed == {} and outcome.errors and "does not parse" in outcome.errors[0].reason
    assert path.read_bytes() == b"a: 1\nb: [2]\n"


def test_overlapping_fixes_wait_for_the_next_pass() -> None:
    source = SourceText(Path("x"), b"abcdef")
    a = Diagnostic("A", Severity.ERROR, "", source.span(0, 3), fix=Fix((Edit(source.span(0, 3), "X"),)))
    b = Diagnostic("B", Severity.ERROR, "", source.span(2, 4), fix=Fix((Edit(source.span(2, 4), "Y"),)))
    edits, chosen = fix.choose_edits([a, b], unsafe=False)
    assert chosen == [a] and fix.apply_edits(b"abcdef", edits[Path("x")]) == b"Xdef"


@pytest.mark.parametrize("fail", ["write", "fsync", "replace"])
def test_write_atomic_keeps_the_original_on_failure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fail: str) -> None:
    path = tmp_path / "run.sh"
    path.write_bytes(b"original\r\n")
    os.chmod(path, 0o750)

    def boom(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    if fail == "write":
        real_fdopen = os.fdopen

        class Broken:
            def __init__(self, handle) -> None:  # type: ignore[no-untyped-def]
                self.handle = handle

            def __enter__(self):  # type: ignore[no-untyped-def]
                return self

            def __exit__(self, *exc: object) -> None:
                self.handle.close()

            def write(self, data: bytes) -> None:
                boom()

        monkeypatch.setattr(os, "fdopen", lambda fd, mode: Broken(real_fdopen(fd, mode)))
    else:
        monkeypatch.setattr(os, fail, boom)
    with pytest.raises(SourceError, match="could not write"):
        fix.write_atomic(path, b"new\r\n", b"original\r\n")
    assert path.read_bytes() == b"original\r\n"
    assert [p.name for p in tmp_path.iterdir()] == ["run.sh"]  # no temporary file left


def test_write_atomic_keeps_mode_and_refuses_a_changed_file(tmp_path: Path) -> None:
    path = tmp_path / "run.sh"
    path.write_bytes(b"a\n")
    os.chmod(path, 0o751)
    fix.write_atomic(path, b"b\n", b"a\n")
    assert path.read_bytes() == b"b\n" and os.stat(path).st_mode & 0o777 == 0o751
    with pytest.raises(SourceError, match="changed since it was checked; run fix again"):
        fix.write_atomic(path, b"c\n", b"a\n")
    assert path.read_bytes() == b"b\n"


def test_crlf_and_bom_survive_a_fix(tmp_path: Path) -> None:
    spec = RecipeSpec(hardware={**NODE, "cpus": 12})
    script = spec.write(tmp_path)
    script.write_bytes(b"\xef\xbb\xbf" + script.read_bytes().replace(b"\n", b"\r\n"))
    outcome = run_fix([script], spec.hardware)
    after = outcome.changed[script]
    assert after.startswith(b"\xef\xbb\xbf") and b"num_workers=3\r\n" in after and after.count(b"\r\n") == after.count(b"\n")


def test_file_cache_reads_once(tmp_path: Path) -> None:
    path = tmp_path / "a.yaml"
    path.write_text("a: 1\n")
    files = FileCache()
    assert files.read(path) is files.read(path)
