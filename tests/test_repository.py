"""The repository tests itself from a plain clone: its test inputs are inside it with their
sources and licences, and its own pre-commit hooks are the project's checks."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.helpers import DATA, REPO

# Folders of copied upstream files: each names its source and carries the upstream licence.
UPSTREAM_COPIES = sorted(
    [
        *(DATA / "corpus").iterdir(),
        DATA / "upstream" / "wenet",
        DATA / "upstream" / "xtuner",
        *(DATA / "upstream" / "deepspeed").iterdir(),  # one repository per folder
        DATA / "checkouts",
        DATA / "schemas",
        DATA / "reference",
    ]
)


@pytest.mark.parametrize("folder", [p for p in UPSTREAM_COPIES if p.is_dir()], ids=lambda p: str(p.relative_to(DATA)))
def test_copied_upstream_files_name_their_source_and_licence(folder: Path) -> None:
    assert (folder / "SOURCE.md").is_file()
    licences = list(folder.glob("LICENSE*")) or list(folder.glob("*/LICENSE"))  # corpus/deepspeed: one per repository
    assert licences, f"no upstream LICENSE in {folder.relative_to(REPO)}"


def test_no_test_reads_outside_the_repository() -> None:
    outside = re.compile(r"REPO\.parent|\.\./shared|/work/shared|\.mirror")
    offenders = [p.name for p in sorted((REPO / "tests").glob("*.py")) if p.name != Path(__file__).name and outside.search(p.read_text())]
    assert offenders == []


def test_the_repository_s_own_hooks() -> None:
    from pre_commit.clientlib import load_config

    config = load_config(str(REPO / ".pre-commit-config.yaml"))
    hooks = {hook["id"]: hook for repo in config["repos"] for hook in repo["hooks"]}
    assert sorted(hooks) == ["mypy", "recipelint-examples", "ruff", "ruff-format"]
    assert hooks["recipelint-examples"]["files"] == "^examples/" and "--exit-zero" in hooks["recipelint-examples"]["entry"]
    for hook in hooks.values():
        tool = hook["entry"].split()[0]
        assert tool.startswith(".venv/bin/"), tool  # the editable install's tools: offline, the pinned versions
