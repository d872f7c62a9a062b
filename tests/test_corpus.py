"""Every file of the corpus (tests/data/corpus) is read without a crash."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from recipelint import engine
from recipelint.hardware.profile import from_mapping
from tests.helpers import CORPUS, NODE

pytestmark = pytest.mark.slow  # every corpus file, checked and fixed


def test_corpus_is_read_without_errors(capsys: pytest.CaptureFixture[str]) -> None:
    profile = from_mapping(dict(NODE), "profile test")
    files = sorted(p for p in CORPUS.rglob("*") if p.suffix in (".yaml", ".yml", ".json"))
    result = engine.check(files, hardware=lambda: profile)
    assert len(files) >= 80
    assert result.errors == []
    per_rule = Counter(d.code for d in result.diagnostics)
    with capsys.disabled():
        print(f"\ncorpus: {len(files)} files, {len(result.diagnostics)} findings {dict(sorted(per_rule.items()))}")
    # The three upstream configs whose filter max_length 40960 exceeds the batch budget (wenet.md 4)
    # use it as "no limit": RL704 leaves them to the corpus.
    assert [d for d in result.diagnostics if d.code == "RL704"] == []


def test_corpus_fix_sweep_on_copies(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import difflib
    import shutil

    from recipelint import fix
    from recipelint.parse.files import FileCache
    from recipelint.settings import Resolver

    copy = tmp_path / "corpus"
    shutil.copytree(CORPUS, copy)
    profile = from_mapping(dict(NODE), "profile test")
    files = sorted(p for p in copy.rglob("*") if p.suffix in (".yaml", ".yml", ".json"))
    before = {p: p.read_bytes() for p in files}

    def run_check(cache: FileCache):  # type: ignore[no-untyped-def]
        return engine.check(files, hardware=lambda: profile, files=cache, resolver=Resolver(isolated=True)).diagnostics

    outcome = fix.fix_paths(run_check, unsafe=True)
    assert outcome.errors == []
    for path, data in outcome.changed.items():
        fix.reparse(path, data, before[path])
        # Edits stay inside their values: every changed line differs only where a fix wrote.
        changed = [line for line in difflib.ndiff(before[path].decode().splitlines(), data.decode().splitlines()) if line[:1] in "+-"]
        assert len(changed) <= 2 * len(outcome.applied), path
        fix.write_atomic(path, data, before[path])
    again = fix.fix_paths(run_check, unsafe=True)
    assert again.changed == {}, sorted(str(p) for p in again.changed)
    per_rule = Counter(d.code for d in outcome.applied)
    with capsys.disabled():
        print(
            f"\ncorpus fix sweep: {len(files)} files, {len(outcome.applied)} fixes in {len(outcome.changed)} files {dict(sorted(per_rule.items()))}; second pass: 0 changes"
        )
