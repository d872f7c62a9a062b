"""Rule documentation: complete for every rule, and docs/rules.md up to date."""

from __future__ import annotations

import functools
import re
import shutil
from pathlib import Path

import pytest

from recipelint.docs import rules_markdown
from recipelint.rules import all_rules
from tests.helpers import REPO

SECTIONS = ("## What it does", "## Why is this bad", "## Example", "## Fix", "## Fix safety")


@pytest.mark.parametrize("code", sorted(all_rules()))
def test_rule_doc_has_every_section(code: str) -> None:
    rule = all_rules()[code]
    for section in SECTIONS:
        assert section in rule.doc, f"{code} lacks {section}"
    assert rule.source and rule.name == rule.name.lower()


def test_generated_rules_doc_is_current() -> None:
    assert (REPO / "docs" / "rules.md").read_text() == rules_markdown(), "run: python -m recipelint.docs > docs/rules.md"


@pytest.mark.parametrize(
    "name",
    [
        "wenet/train.schema.json",
        "hardware/profile.schema.json",
        "deepspeed/ds_config.schema.json",
        "xtuner/launch.schema.json",
        "xtuner/config.schema.json",
    ],
)
def test_every_schema_is_valid_2020_12_with_id_and_title(name: str) -> None:
    from jsonschema import Draft202012Validator

    from recipelint.schemas import load_schema

    schema = load_schema(name)
    Draft202012Validator.check_schema(schema)
    assert schema["$id"].endswith(name) and schema["title"] and schema["description"]


@functools.cache
def _rules_listing() -> str:
    from typer.testing import CliRunner

    from recipelint.cli import app

    return CliRunner().invoke(app, ["rules"]).output


@pytest.mark.parametrize("code", sorted(all_rules()))
def test_rules_listing_shows_the_whole_first_sentence(code: str) -> None:
    """`recipelint rules` shows the docstring's whole first paragraph: a summary wrapped over two
    lines (RL104's) was cut mid-sentence."""
    rule = all_rules()[code]
    first = " ".join(rule.doc.strip().split("\n\n", 1)[0].split())
    assert rule.summary == first and first.endswith((".", ")", "?")), rule.summary
    row = next(line for line in _rules_listing().splitlines() if line.startswith(f"{code} "))
    assert row.endswith(rule.summary)


# What a rule page may cite: every source a user can open. An upstream file at a tag or commit
# (`owner/repo@ref:path`), an upstream issue or pull request (`owner/repo#N`), a page of docs/,
# a file of this repository, or a public URL. The private reference notes (`wenet.md 3.2`) are
# none of these.
_UPSTREAM = re.compile(r"(?<![\w/.-])([A-Za-z0-9][\w.-]*/[\w.-]+)@([\w.+-]+):([\w./-]+)")
_ISSUE = re.compile(r"(?<![\w/.-])[A-Za-z0-9][\w.-]*/[\w.-]+#\d+")
_DOCS = re.compile(r"(?<![\w/.-])docs/[\w./-]+\.md")
_LOCAL = re.compile(r"(?<![\w/.-])(?:recipelint|schemas|bench|examples|tools)/[\w./-]*[\w/]")
_URL = re.compile(r"https://[^\s);,]+")
_NOTES = re.compile(r"(?<![\w/-])(?:wenet|deepspeed|xtuner|xtuner-commands|anchors)\.md\b|shared/reference")
_REF = re.compile(r"v?\d+(?:\.\d+)*(?:[-.+]\w+)*|[0-9a-f]{7,40}")


@functools.cache
def _fetched_commits() -> dict[str, set[str]]:
    """The commits and tags each upstream repository's files in tests/data were copied from."""
    refs: dict[str, set[str]] = {}
    for source in (REPO / "tests" / "data").rglob("SOURCE.md"):
        text = source.read_text()
        named = set(re.findall(r"github\.com/([\w.-]+/[\w.-]+)", text))
        for row in re.findall(r"\|\s*`?[\w.-]+`?\s*\|\s*([\w.-]+/[\w.-]+)\s*\|\s*`([0-9a-f]{40})`", text):
            refs.setdefault(row[0], set()).add(row[1])
        for repo in named:
            refs.setdefault(repo.removesuffix(".git"), set()).update(re.findall(r"\b[0-9a-f]{40}\b", text))
    return refs


def _citations(code: str) -> tuple[str, str]:
    rule = all_rules()[code]
    return rule.source, rule.doc


@pytest.mark.parametrize("code", sorted(all_rules()))
def test_rule_sources_are_pages_a_user_can_open(code: str) -> None:
    source, doc = _citations(code)
    for text in (source, doc):
        assert not _NOTES.search(text), f"{code} cites a private note: {_NOTES.search(text)}"
        for page in _DOCS.findall(text):
            assert (REPO / page).is_file(), f"{code} cites {page}, which docs/ does not have"
        for repo, ref, path in _UPSTREAM.findall(text):
            assert _REF.fullmatch(ref) and not path.startswith("/"), f"{code}: {repo}@{ref}:{path}"
            known = _fetched_commits().get(repo)
            if known and re.fullmatch(r"[0-9a-f]{7,40}", ref):
                assert any(c.startswith(ref) for c in known), f"{code}: {repo}@{ref} is none of the commits tests/data holds"
    openable = [pattern.search(source) for pattern in (_UPSTREAM, _ISSUE, _DOCS, _LOCAL, _URL)]
    assert any(openable), f"{code}'s SOURCE cites nothing a user can open: {source!r}"
    for local in _LOCAL.findall(_UPSTREAM.sub("", _URL.sub("", source))):
        assert (REPO / local).exists(), f"{code} cites {local}, which this repository does not have"


def test_citation_check_refuses_a_private_note_and_a_dead_page() -> None:
    assert _NOTES.search("wenet.md 3.2: torch DataLoader rejects prefetch_factor")
    assert not _NOTES.search("docs/toolkits/deepspeed.md and docs/hardware.md")
    assert not (REPO / "docs" / "nowhere.md").exists()
    assert _UPSTREAM.findall("wenet-e2e/wenet@01546996:wenet/bin/train.py (argparse)") == [
        ("wenet-e2e/wenet", "01546996", "wenet/bin/train.py")
    ]
    assert any(c.startswith("01546996") for c in _fetched_commits()["wenet-e2e/wenet"])


# A page or rule doc stating the CPU formula: `ranks x num_workers`, `ranks_per_node x
# (dataloader_num_workers + 1)`, ...; group 1 is the `+ 1` of a core kept for each trainer.
_CPU_STATED = re.compile(r"ranks(?:_per_node)? x \(?(?:dataloader_)?num_workers( \+ 1)?")


def test_one_cpu_formula_in_the_code_the_rules_and_the_pages() -> None:
    from recipelint import tuner

    for cpus in range(1, 130):
        for ranks in (1, 2, 3, 4, 8, 16):
            cap = tuner.loader_worker_cap(cpus, ranks)
            assert cap == 1 or ranks * cap <= cpus < ranks * (cap + 1), (cpus, ranks, cap)
    assert tuner.CPU_FORMULA == "ranks_per_node x num_workers <= usable CPUs"
    texts = {str(page.relative_to(REPO)): page.read_text() for page in (REPO / "docs").rglob("*.md")}
    texts.update({code: rule.doc for code, rule in all_rules().items()})
    stated = {name: [m.group(0) for m in _CPU_STATED.finditer(text)] for name, text in texts.items()}
    assert all(s.endswith("num_workers") for found in stated.values() for s in found), {n: f for n, f in stated.items() if f}
    for name in ("docs/tuner.md", "RL102"):
        assert tuner.CPU_FORMULA in texts[name], name
    assert stated["docs/hardware.md"] and stated["RL807"] and stated["RL101"]
    old = _CPU_STATED.search("ranks x (num_workers + 1)")  # what docs/hardware.md said
    assert old is not None and old.group(1)


# Documented example runs: a fenced block whose first line is `$ recipelint ...` shows what the
# command prints, shortened. Each line of the block is found in the output, in order; `...` in
# a line stands for text left out, a line of `...` alone for lines left out.
_EXAMPLE_FILES = REPO / "tests" / "data" / "diagnose" / "wenet-4node-v100"  # the logs the examples name


def _examples() -> list[tuple[str, str, list[str]]]:
    found = []
    for page in sorted((REPO / "docs").rglob("*.md")):
        blocks = re.findall(r"^```[^\n]*\n(.*?)^```", page.read_text(), re.M | re.S)
        for block in blocks:
            first, *shown = block.rstrip("\n").split("\n")
            if first.startswith("$ recipelint "):
                found.append((str(page.relative_to(REPO)), first[2:], shown))
    return found


def _shown_in(line: str, output: str) -> bool:
    pieces = line.rstrip().split("...")
    if not output.startswith(pieces[0].rstrip()):  # the line's start, its indent included
        return False
    at = 0
    for piece in pieces:
        at = output.find(piece.strip(), at)
        if at < 0:
            return False
        at += len(piece.strip())
    return True


def test_the_docs_show_their_examples() -> None:
    assert [page for page, _, _ in _examples()] == ["docs/diagnose.md", "docs/tuner.md", "docs/tuner.md"]


@pytest.mark.parametrize(("page", "command", "shown"), _examples(), ids=[page for page, _, _ in _examples()])
def test_a_documented_example_prints_what_the_page_shows(page: str, command: str, shown: list[str], tmp_path: Path) -> None:
    import shlex

    from tests.helpers import cli

    (tmp_path / "examples").symlink_to(REPO / "examples")
    (tmp_path / "tests").symlink_to(REPO / "tests")  # the upstream files the tests carry (docs/tuner.md's Slurm job)
    for log in _EXAMPLE_FILES.iterdir():
        shutil.copy(log, tmp_path / log.name)
    result = cli(*shlex.split(command)[1:], cwd=tmp_path)
    output = (result.stdout + result.stderr).splitlines()
    at = 0
    for line in shown:
        if not line.strip() or line.strip() == "...":
            continue
        while at < len(output) and not _shown_in(line, output[at]):
            at += 1
        assert at < len(output), f"{page}: `{command}` does not print, at this point or later:\n{line}"
        at += 1


def test_an_example_line_the_run_does_not_print_is_caught() -> None:
    assert _shown_in("Found 2 failure signatures ... 2 fixable with ...", "Found 2 failure signatures in 2 logs. 2 fixable with x")
    assert not _shown_in("Found 2 failure signatures ... 3 fixable with ...", "Found 2 failure signatures in 2 logs. 2 fixable with x")


def test_every_deepspeed_rule_states_its_severity() -> None:
    """docs/toolkits/deepspeed.md: error = DeepSpeed rejects it or the run fails at start-up or on
    the first step; warning = it runs, not as written; info = harmless or not judged. Each
    DeepSpeed rule says which of its findings is which, and what decides it."""
    import importlib

    import recipelint.toolkits.deepspeed.rules as family
    from recipelint.packages import submodules

    missing, seen = [], 0
    for name, _ in submodules(family.__path__):
        module = importlib.import_module(f"{family.__name__}.{name}")
        if getattr(module, "CODE", None):
            seen += 1
            if "## Severity\n" not in (module.__doc__ or ""):
                missing.append(module.CODE)
    assert seen >= 19 and missing == []
