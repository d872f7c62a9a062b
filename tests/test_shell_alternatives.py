"""Branches as alternatives (#39): a launch whose variables an `if`, a `case`, `${X:=d}` or
`[ ... ] && X=...` sets several ways is read once per combination, each named by its conditions;
a verdict on every way keeps its severity, on some is a warning naming them, on none is silent."""

from __future__ import annotations

from pathlib import Path

from recipelint.diagnostics import Diagnostic, Severity
from recipelint.parse.shell import parse_shell
from recipelint.parse.shellrecords import MAX_VARIANTS
from recipelint.parse.shellvariants import described, outcome
from recipelint.parse.span import SourceText
from tests.helpers import describe, item, lint


def _script(tmp_path: Path, text: str) -> Path:
    (tmp_path / ".git").mkdir(exist_ok=True)
    (tmp_path / "train.py").write_text("import deepspeed\n")
    script = tmp_path / "run.sh"
    script.write_text(text)
    return script


def _found(tmp_path: Path, code: str, text: str) -> list[Diagnostic]:
    return [d for d in lint(_script(tmp_path, text)) if d.code == code]


def test_conditions_are_said_in_words_with_their_line() -> None:
    assert outcome('[ -n "$CONTAINER_IMAGE" ]', False, 12) == "when CONTAINER_IMAGE is empty (line 12)"
    assert outcome("[[ -z $X ]]", True, 3) == "when X is empty (line 3)"
    assert outcome('[ "$MODE" == "multi" ]', False, 4) == "when MODE is not multi (line 4)"
    assert outcome("[ $NNODES -gt 1 ]", False, 5) == "when NNODES <= 1 (line 5)"
    assert outcome("! [ -f ds.json ]", True, 6) == "when the file ds.json does not exist (line 6)"
    assert outcome("grep -q a b", False, 7) == "when `grep -q a b` fails (line 7)"


def test_combinations_are_said_by_what_picks_them_out() -> None:
    a, b = ("when A (line 1)", "when B (line 2)"), ("when A (line 1)", "when not B (line 2)")
    c, d = ("when not A (line 1)", "when B (line 2)"), ("when not A (line 1)", "when not B (line 2)")
    every = [a, b, c, d]
    assert described([a, b], every) == "when A (line 1)"
    assert described([a, d], every) == "when A (line 1) and B (line 2) or when not A (line 1) and not B (line 2)"


def test_a_launch_is_read_once_per_combination_of_its_branches(tmp_path: Path) -> None:
    text = (
        'if [ -n "$CONTAINER_IMAGE" ]; then\n  export TRAIN_SCRIPT=./train.py\nfi\n'
        ': "${TRAIN_SCRIPT:=../src/train.py}"\n'
        'case "$MODE" in\n  multi) ARGS="--nnodes 2 --nproc_per_node 8";;\n  *) ARGS="--nproc_per_node 4";;\nesac\n'
        "torchrun $ARGS $TRAIN_SCRIPT --lr 1\n"
    )
    script = parse_shell(SourceText(Path("run.sh"), text.encode()))
    launch = script.commands[-1]
    assert len(launch.variants) == 4
    words = [[w.value for w in v.command.words] for v in launch.variants]
    assert words[0] == ["torchrun", "--nnodes", "2", "--nproc_per_node", "8", "./train.py", "--lr", "1"]
    assert words[3] == ["torchrun", "--nproc_per_node", "4", "../src/train.py", "--lr", "1"]
    assert launch.variants[0].ways == (("when MODE matches `multi` (line 6)", "when CONTAINER_IMAGE is not empty (line 1)"),)
    assert launch.variants[3].ways == (("when MODE matches no other pattern (line 7)", "when CONTAINER_IMAGE is empty (line 1)"),)


def test_a_list_and_combinations_that_give_the_same_words_are_one_variant() -> None:
    text = (
        '[ -n "$SLURM_JOB_ID" ] && NODES=4\nX=1\nif [ -n "$Y" ]; then X=1; fi\ntorchrun --nnodes ${NODES:-1} --nproc_per_node $X train.py\n'
    )
    launch = parse_shell(SourceText(Path("run.sh"), text.encode())).commands[-1]
    assert [[w.value for w in v.command.words][2] for v in launch.variants] == ["1", "4"]
    assert launch.variants[1].ways[0] == ("when SLURM_JOB_ID is not empty (line 1)",)


def test_past_the_bound_a_launch_is_read_once_and_says_why(tmp_path: Path) -> None:
    # 5 independent ifs: 32 combinations, over MAX_VARIANTS (16)
    branches = "".join(f'if [ -n "$C{i}" ]; then A{i}=--a{i}; else A{i}=--b{i}; fi\n' for i in range(5))
    uses = " ".join(f"$A{i}" for i in range(5))
    script = _script(tmp_path, branches + f"torchrun --nproc_per_node 8 train.py {uses}\n")
    launch = parse_shell(SourceText(script, script.read_bytes())).commands[-1]
    assert launch.variants == [] and launch.undecided is not None and f"over {MAX_VARIANTS}" in launch.undecided
    (recipe,), _ = describe([script])
    assert item(recipe, "launch", "alternatives").value.startswith("unknown: too many alternatives")


def test_a_verdict_on_some_branches_is_a_warning_naming_them(tmp_path: Path) -> None:
    text = (
        'if [ -n "$PICK" ]; then\n  FILTER="--include localhost:0,1"\nelse\n  FILTER=""\nfi\n'
        "deepspeed $FILTER --num_gpus 2 train.py --deepspeed ds.json\n"
    )
    (finding,) = _found(tmp_path, "RL508", text)
    assert finding.severity is Severity.WARNING and finding.fix is None
    assert finding.message.endswith("(when PICK is not empty (line 1))")
    assert "holds on 1 of the 2 ways the launch runs; not when PICK is empty (line 1)" in finding.evidence


def test_a_verdict_on_every_branch_keeps_its_severity(tmp_path: Path) -> None:
    text = (
        'if [ -n "$PICK" ]; then\n  FILTER="--include localhost:0,1"\nelse\n  FILTER="--include localhost:2,3"\nfi\n'
        "deepspeed $FILTER --num_gpus 2 train.py --deepspeed ds.json\n"
    )
    (finding,) = _found(tmp_path, "RL508", text)
    assert finding.severity is Severity.ERROR and "when" not in finding.message


def test_a_verdict_on_no_branch_is_silent(tmp_path: Path) -> None:
    text = (
        'if [ -n "$PICK" ]; then\n  FILTER="--include localhost:0,1"\nelse\n  FILTER="--num_gpus 2"\nfi\n'
        "deepspeed $FILTER train.py --deepspeed ds.json\n"
    )
    assert _found(tmp_path, "RL508", text) == []


def _family(tmp_path: Path, batches: dict[str, int]) -> Path:
    """DeepSpeedExamples' shape: `config_json="$script_dir/ds_zero_stage_${stage}_config_${CONFIG}.json"`,
    CONFIG and stage the script's arguments, a JSON per pair beside it."""
    for name, batch in batches.items():
        (tmp_path / name).write_text(
            f'{{"train_batch_size": {batch}, "train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 1}}\n'
        )
    return _script(
        tmp_path,
        "CONFIG=$1\nstage=$2\nscript_dir=$(dirname $0)\n"
        'config_json="$script_dir/ds_zero_stage_${stage}_config_${CONFIG}.json"\n'
        "deepspeed --num_gpus 8 train.py --deepspeed --deepspeed_config $config_json\n",
    )


def test_a_config_the_arguments_choose_is_each_file_that_matches(tmp_path: Path) -> None:
    names = {"ds_zero_stage_1_config_a.json": 16, "ds_zero_stage_2_config_a.json": 32, "ds_zero_stage_2_config_b.json": 32}
    script = _family(tmp_path, names)
    (error,) = [d for d in lint(script) if d.code == "RL415"]
    # the file's own finding keeps its severity (it is that file's launch) and says which launch
    assert error.severity is Severity.ERROR and error.span.path.name == "ds_zero_stage_1_config_a.json"
    assert "when" not in error.message
    assert error.evidence[-1].startswith(
        "judged with the launch at run.sh:5, whose config is one of 3 files (ds_zero_stage_*_config_*.json"
    )
    described_, _ = describe([script])
    assert [item(d, "configs", "DeepSpeed config").value for d in described_] == sorted(names)
    assert item(described_[0], "launch", "alternative").value == (
        "1 of 3: when the config is ds_zero_stage_1_config_a.json (one of the 3 files ds_zero_stage_*_config_*.json matches)"
    )


def test_a_config_no_file_or_too_many_files_match_stays_unknown(tmp_path: Path) -> None:
    script = _family(tmp_path, {})
    assert [d.code for d in lint(script) if d.code == "RL012"] == ["RL012"]
    script = _family(tmp_path, {f"ds_zero_stage_{i}_config_a.json": 32 for i in range(17)})  # over MAX_CHOICES (16)
    assert [d.code for d in lint(script) if d.code == "RL012"] == ["RL012"]


UPSTREAM_SHELL = Path(__file__).parent / "data" / "upstream" / "shell"


def test_a_branch_dependent_upstream_script_is_read_each_way(tmp_path: Path) -> None:
    """FedML-AI/llm-finetune@24c11862's scripts/train_deepspeed.sh builds deepspeed's options in an
    array two ifs extend: it was one launch whose options were unknown. Now four ways, each named by
    its conditions, with the options of that way; `--include` and `--num_gpus` are never on one
    way, so RL508 is quiet, and the JSON is found from the root the script cds to."""
    import shutil

    root = tmp_path / "llm-finetune"
    shutil.copytree(UPSTREAM_SHELL / "llm-finetune", root)
    (root / ".git").mkdir()
    script = root / "scripts" / "train_deepspeed.sh"
    launch = parse_shell(SourceText(script, script.read_bytes())).commands[-1]
    options = [[w.value for w in v.command.words[1:6]] for v in launch.variants]
    assert options[0][:4] == ["--master_addr=localhost", "--master_port=12355", "--hostfile", None]
    assert [o for o in options if any(str(w).startswith("--include") for w in o) and "--num_gpus" in str(o)] == []
    described_, result = describe([script])
    assert [item(d, "launch", "alternative").value.split(": ", 1)[1] for d in described_] == [
        "when CUDA_VISIBLE_DEVICES is not set (line 26) and HOST_FILE is not empty (line 19)",
        "when CUDA_VISIBLE_DEVICES is not set (line 26) and HOST_FILE is empty (line 19)",
        "when CUDA_VISIBLE_DEVICES is set (line 26) and HOST_FILE is not empty (line 19)",
        "when CUDA_VISIBLE_DEVICES is set (line 26) and HOST_FILE is empty (line 19)",
    ]
    assert all(item(d, "configs", "DeepSpeed config").source.startswith("found at") for d in described_)
    assert item(described_[1], "launch", "rendezvous").value == "localhost:12355"
    assert "RL508" not in {d.code for d in result.diagnostics}
