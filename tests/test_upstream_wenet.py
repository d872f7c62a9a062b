"""Every upstream WeNet recipe (examples/*/*/run*.sh at 01546996) on an 8 x A100, 96-CPU node.

The scripts, path.sh and conf/ are unmodified (tests/data/upstream/wenet). The data lists are
what the recipes' earlier stages would write; the test writes them with these line counts:
shard lists one line per shard of 1000 utterances (AISHELL-1 train: 120,098 utterances, 121
shards; GigaSpeech XL: 8,282,987 segments, 8,283 shards; AISHELL-4 train: 60 shards), raw lists
and the shard lists whose corpus size is not stated here a stand-in that exceeds every
recipe's readers (1,000 lines): the shard and loader checks only compare counts with
world_size x num_workers.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from recipelint.report import show
from tests.helpers import TRAIN_LISTS, clone, describe, item, items, write_train_lists

pytestmark = pytest.mark.slow  # every upstream WeNet recipe

# Scripts that fix their own device list: ranks per node from CUDA_VISIBLE_DEVICES (or one
# plain python process), not from the hardware.
WRITTEN_RANKS = {
    "aishell/NST/run_nst.sh": 8,
    "chime4/s0/run.sh": 1,
    "commonvoice/fr/run.sh": 3,
    "hkust/s0/run.sh": 4,
    "multi_cn/s0/run.sh": 4,
    "openasr2021/s0/run.sh": 4,
    "swbd/s0/run.sh": 2,
    "timit/s0/run.sh": 1,
    "wsj/s0/run.sh": 1,
}


@pytest.fixture(scope="module")
def wenet(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[show.Description]]:
    root = clone("wenet", tmp_path_factory.mktemp("upstream"))
    write_train_lists(root)
    descriptions, result = describe(sorted(root.glob("examples/*/*/run*.sh")))
    assert not result.errors
    return root, descriptions


def _recipe(root: Path, descriptions: list[show.Description], script: str) -> list[show.Description]:
    return [d for d in descriptions if d.path == root / "examples" / script]


def _upstream_scripts(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root / "examples")) for p in root.glob("examples/*/*/run*.sh"))


def test_every_script_with_a_launch_is_described(wenet: tuple[Path, list[show.Description]]) -> None:
    root, descriptions = wenet
    described = {str(d.path.relative_to(root / "examples")) for d in descriptions}
    # aishell/NST/run.sh trains through run_nst.sh; every other script launches wenet/bin/train.py itself
    assert described == set(_upstream_scripts(root)) - {"aishell/NST/run.sh"}
    assert len(_upstream_scripts(root)) == 30


def test_world_size_is_the_node_gpus_where_the_script_asks_nvidia_smi(wenet: tuple[Path, list[show.Description]]) -> None:
    root, descriptions = wenet
    detecting = [s for s in _upstream_scripts(root) if "nvidia-smi -L" in (root / "examples" / s).read_text()]
    assert len(detecting) == 16
    for script in detecting:
        (description,) = _recipe(root, descriptions, script)
        assert item(description, "launch", "world size").value == "8", script
        source = item(description, "launch", "ranks per node").source
        assert source.startswith("gpus 8 from profile a100-8x-96cpu-ib.yaml: the script leaves the GPU count to the run time"), source
        assert "gpu_list differs between the branches of the if at line" in source and "command -v nvidia-smi" in source, source
        unknown = item(description, "unknown", "ranks per node")
        assert unknown.value == "$num_gpus" and "(the hardware's GPU count is used)" in unknown.source


def test_npu_scripts_leave_the_count_to_the_run_time_too(wenet: tuple[Path, list[show.Description]]) -> None:
    root, descriptions = wenet
    npu = [s for s in _upstream_scripts(root) if "npu-smi info" in (root / "examples" / s).read_text()]
    assert len(npu) == 4
    for script in npu:
        (description,) = _recipe(root, descriptions, script)
        assert item(description, "launch", "world size").value == "8"
        assert (
            "npu_list differs between the branches of the if at line 7 (command -v npu-smi info"
            in item(description, "launch", "ranks per node").source
        )


def test_ranks_the_script_writes_itself(wenet: tuple[Path, list[show.Description]]) -> None:
    root, descriptions = wenet
    for script, ranks in WRITTEN_RANKS.items():
        first = _recipe(root, descriptions, script)[0]
        assert item(first, "launch", "ranks per node").value == str(ranks), script
        assert "profile" not in item(first, "launch", "ranks per node").source


def test_every_train_list_resolves(wenet: tuple[Path, list[show.Description]]) -> None:
    root, descriptions = wenet
    resolved = set()
    for folder, (name, lines) in TRAIN_LISTS.items():
        for description in descriptions:
            if description.path.parent != root / "examples" / folder:
                continue
            for entry in items(description, "data").get("train data", []):
                if entry.value == name and f"{root / 'examples' / folder / name}: {lines} lines" in entry.source:
                    resolved.add(folder)
    assert sorted(resolved) == sorted(TRAIN_LISTS), sorted(set(TRAIN_LISTS) - resolved)


def test_split_words_and_backticks_resolve(wenet: tuple[Path, list[show.Description]]) -> None:
    """`$wave_data/$train_set/data.list` (tree-sitter splits it after `$`) and
    train_set=train_`echo $set | tr 'A-Z' 'a-z'` read as bash would."""
    root, descriptions = wenet
    (libri,) = _recipe(root, descriptions, "librispeech/s0/run.sh")
    assert item(libri, "data", "train data").value == "data/train_960/data.list"
    (giga,) = _recipe(root, descriptions, "gigaspeech/s0/run.sh")
    assert item(giga, "data", "train data").value == "data/train_xl/data.list"
    (hkust,) = _recipe(root, descriptions, "hkust/s0/run.sh")
    assert item(hkust, "data", "train data").value == "raw_wav_bpe/train_nodev/data.list"


def test_sourced_path_sh_is_read_and_parse_options_noted(wenet: tuple[Path, list[show.Description]]) -> None:
    root, descriptions = wenet
    (recipe,) = _recipe(root, descriptions, "aishell/s0/run.sh")
    sources = items(recipe, "script")["sources"]
    assert [(s.value, s.source) for s in sources] == [
        ("./path.sh", "line 4: read for its assignments (6 values)"),
        ("tools/parse_options.sh", "line 71: Kaldi option parser: any variable assigned above may be overridden on the command line"),
    ]


def test_a_script_called_with_options_is_read_with_them(wenet: tuple[Path, list[show.Description]]) -> None:
    """aishell/NST/run.sh runs `bash run_nst.sh --data_list data_aishell.list ...` (stage 1) and
    again in a loop with `--data_list wenet_1khr_nst${i}.list` (stage 2)."""
    root, descriptions = wenet
    nst = _recipe(root, descriptions, "aishell/NST/run_nst.sh")
    called = {item(d, "launch", "called from").value: d for d in nst if "called from" in items(d, "launch")}
    assert sorted(called) == ["run.sh:33", "run.sh:51"]
    assert item(called["run.sh:33"], "data", "train data").value == "data/train/data_aishell.list"
    stage2 = item(called["run.sh:51"], "data", "train data")
    assert stage2.value == "unknown" and "i is assigned in the loop at line 48" in stage2.source
    alone = [d for d in nst if "called from" not in items(d, "launch")]
    assert item(alone[0], "data", "train data").value == "data/train/"  # data_list="" until a caller sets it


def _finding(descriptions: list[show.Description], code: str) -> list[tuple[int, str]]:
    return [(f.span.line, f.message) for d in descriptions for f in d.findings if f.code == code]


def test_gigaspeech_oversubscribes_96_cpus(wenet: tuple[Path, list[show.Description]]) -> None:
    root, descriptions = wenet
    (recipe,) = _recipe(root, descriptions, "gigaspeech/s0/run.sh")
    (finding,) = [f for f in recipe.findings if f.code == "RL102"]
    assert finding.message == "8 ranks x 16 workers = 128 worker processes per node, but only 96 CPUs are usable"
    assert finding.suggested == 12  # 96 // 8: the trainer waits on its GPU (docs/tuner.md, bench/fidelity)
    assert any("gpus 8 from profile a100-8x-96cpu-ib.yaml" in e for e in finding.evidence)
    # the fix edits the literal --num_workers 16 and passes the scaled default prefetch (100 x 12 // 16)
    assert finding.fix is not None
    assert [(e.span.line, e.content) for e in finding.fix.edits] == [(167, "12"), (159, " --prefetch 75")]
    assert (root / "examples/gigaspeech/s0/run.sh").read_text().splitlines()[166].strip() == "--num_workers 16 \\"


def test_aishell4_has_fewer_shards_than_readers(wenet: tuple[Path, list[show.Description]]) -> None:
    root, descriptions = wenet
    (recipe,) = _recipe(root, descriptions, "aishell4/s0/run.sh")
    (finding,) = [f for f in recipe.findings if f.code == "RL201"]
    assert finding.message.startswith("60 data.list lines for 8 ranks x 8 workers = 64 readers: 4 workers get no data")
    assert finding.suggested == 7  # 60 // 8


def test_aishell_paraformer_prefetch_500_is_over_the_node_memory(wenet: tuple[Path, list[show.Description]]) -> None:
    root, descriptions = wenet
    (recipe,) = _recipe(root, descriptions, "aishell/paraformer/run.sh")
    (finding,) = [f for f in recipe.findings if f.code == "RL103"]
    assert finding.message.startswith(
        "num_workers 8 and prefetch 500 take about 907.8 GiB per node: 8 ranks x (9.6 GiB of workers + 8 x 500 queued batches"
    )
    assert item(recipe, "hardware", "shm_gib").value == "512"


def test_no_finding_edits_a_branch(wenet: tuple[Path, list[show.Description]]) -> None:
    """num_gpus and gpu_list differ between the branches of the nvidia-smi if: no fix writes there."""
    root, descriptions = wenet
    for description in descriptions:
        text = description.path.read_text().splitlines()
        start = next((i for i, line in enumerate(text) if line.startswith("if command -v nvidia-smi")), None)
        if start is None:
            continue
        end = next(i for i in range(start, len(text)) if text[i] == "fi")
        for finding in description.findings:
            for edit in finding.fix.edits if finding.fix else ():
                assert not (edit.span.path == description.path and start < edit.span.line <= end + 1), finding.message
