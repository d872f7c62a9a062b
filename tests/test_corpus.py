"""Every file of the shared corpus is read without a crash (skipped in a plain clone)."""

from __future__ import annotations

from collections import Counter

import pytest

from recipelint import engine
from recipelint.hardware.profile import from_mapping
from tests.conftest import CORPUS, NODE

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is not beside this checkout")


def test_corpus_is_read_without_errors(capsys: pytest.CaptureFixture[str]) -> None:
    profile = from_mapping(dict(NODE), "profile test")
    files = sorted(p for p in CORPUS.rglob("*") if p.suffix in (".yaml", ".yml", ".json"))
    result = engine.check(files, lambda: profile)
    assert len(files) >= 80
    assert result.errors == []
    per_rule = Counter(d.code for d in result.diagnostics)
    with capsys.disabled():
        print(f"\ncorpus: {len(files)} files, {len(result.diagnostics)} findings {dict(sorted(per_rule.items()))}")
    # The three upstream configs whose filter allows utterances over the batch budget (wenet.md 4).
    flagged = sorted(d.span.path.parts[-4] for d in result.diagnostics if d.code == "RL704")
    assert flagged == ["aishell2", "commonvoice", "wenetspeech"]
