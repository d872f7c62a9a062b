"""Bash arrays, strings a later `bash -c` reads again, and files sourced from the folder a launch
runs in, as bash has them: synthetic shapes for each form, and unmodified upstream scripts that
hold them (tests/data/upstream/shell/*/SOURCE.md)."""

from __future__ import annotations

from pathlib import Path

from recipelint.parse.files import FileCache
from recipelint.parse.shell import ShellScript, Word, parse_shell
from recipelint.parse.span import SourceText
from tests.helpers import UPSTREAM, describe, item

SHELL = UPSTREAM / "shell"


def _parse(text: str) -> ShellScript:
    return parse_shell(SourceText(Path("job.sh"), text.encode()))


def _values(words: list[Word]) -> list[str | None]:
    return [word.value for word in words]


def test_indexed_and_associative_arrays_expand_as_bash_expands_them() -> None:
    script = _parse(
        "G=8\n"
        'declare -a ARGS=(--nproc_per_node=$G "--nnodes" 2)\n'
        'TRAIN=(train.py "--a b")\n'
        "TRAIN+=(--x 1)\n"
        "TRAIN[9]=last\n"
        'declare -A M=([k]=v [j]="w x")\n'
        'torchrun "${ARGS[@]}" "${TRAIN[@]}" ${#TRAIN[@]} "${TRAIN[1]}" "${M[j]}" ${M[j]} "${TRAIN[*]}" $TRAIN\n'
    )
    assert _values(script.commands[-1].words) == [
        "torchrun",
        "--nproc_per_node=8",
        "--nnodes",
        "2",
        "train.py",
        "--a b",  # quoted: one element, one word
        "--x",
        "1",
        "last",
        "5",
        "--a b",
        "w x",
        "w",  # unquoted: split on blanks
        "x",
        "train.py --a b --x 1 last",
        "train.py",  # $X is element 0
    ]
    first = script.commands[-1].words[1]
    assert first.option is not None and first.option[1].value == "8"


def test_an_array_element_points_at_where_the_array_writes_it() -> None:
    """A fix of `--nproc_per_node` edits the element inside `ARGS=(...)`, not the use."""
    text = "ARGS=(--nproc_per_node 4 --nnodes 1)\ntorchrun ${ARGS[@]} train.py\n"
    words = _parse(text).commands[-1].words
    assert words[2].value == "4" and words[2].edit_span is not None
    assert text.encode()[words[2].edit_span.start : words[2].edit_span.end] == b"4"
    assert words[2].span.line == 1


def test_an_array_a_branch_sets_two_ways_is_unknown_with_both() -> None:
    script = _parse('if [ -n "$X" ]; then A=(--nnodes 2); else A=(--nnodes 4); fi\ntorchrun "${A[@]}" train.py\n')
    word = script.commands[-1].words[1]
    assert word.value is None and word.reason is not None and "differs between the branches" in word.reason


def test_an_unset_array_is_said_to_be_unset() -> None:
    word = _parse('torchrun "${NOPE[@]}" train.py\n').commands[-1].words[1]
    assert word.value is None and word.reason == "NOPE is not set in the script"


def test_an_escaped_substitution_is_read_by_the_shell_bash_c_starts() -> None:
    """`--role \\$(hostname -s):` inside LAUNCHER="...": the inner shell runs hostname; the words
    after it (`--tee 3`, the training script) are still read."""
    script = _parse(
        "MASTER_ADDR=$(scontrol show hostnames $SLURM_JOB_NODELIST | head -n 1)\n"
        'export LAUNCHER="python -u -m torch.distributed.run \\\n'
        "    --nproc_per_node 8 \\\n"
        "    --rdzv_endpoint $MASTER_ADDR:6000 \\\n"
        "    --role \\$(hostname -s): \\\n"
        '    --tee 3 "\n'
        'srun bash -c "$LAUNCHER train.py --deepspeed ds.json"\n'
    )
    words = script.commands[-1].words
    texts = [w.text for w in words]
    assert texts[texts.index("--role") + 1] == "$(hostname -s):"
    assert _values(words)[-5:] == ["--tee", "3", "train.py", "--deepspeed", "ds.json"]


def test_a_sourced_file_is_found_from_the_repository_root(tmp_path: Path) -> None:
    """`source scripts/setups/train.sh` in scripts/run.sh, run as `bash scripts/run.sh` from the
    repository's top: bash finds it there, not beside the script."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "scripts" / "setups").mkdir(parents=True)
    (tmp_path / "scripts" / "setups" / "train.sh").write_text("GPUS=4\n")
    run = tmp_path / "scripts" / "run.sh"
    run.write_text("source scripts/setups/train.sh\ntorchrun --nproc_per_node $GPUS train.py\n")
    files = FileCache()
    script = parse_shell(files.read(run), files.read)
    assert script.commands[-1].words[2].value == "4"
    assert script.sourced[0].read and "repository root" in script.sourced[0].note


def test_megatron_arrays_carry_the_launch() -> None:
    """NVIDIA/Megatron-LM's gpt3 175B example: every torchrun option is in DISTRIBUTED_ARGS=(...),
    used unquoted; it was read as 1 rank at 127.0.0.1:29500 (defaults), it is 8 ranks on 1 node
    at localhost:6000, each from its line."""
    script = SHELL / "Megatron-LM" / "examples" / "gpt3" / "train_gpt3_175b_distributed.sh"
    (recipe,), _ = describe([script])
    assert item(recipe, "launch", "ranks per node").value == "8"
    assert "GPUS_PER_NODE at line 7" in item(recipe, "launch", "ranks per node").source
    assert item(recipe, "launch", "nodes").value == "1"
    assert item(recipe, "launch", "rendezvous").value == "localhost:6000"


def test_open_r1_array_element_is_unknown_with_its_reason() -> None:
    """huggingface/open-r1's slurm/train.slurm: MASTER_ADDR=${NODELIST[0]} of an array filled by
    `$(scontrol ...)`: the run time decides it, and says so (it was `computed at run time` of the
    expansion as a whole); the launch under `srun ... bash -c` is still read."""
    script = SHELL / "open-r1" / "slurm" / "train.slurm"
    (recipe,) = [d for d in describe([script])[0] if d.toolkit != "unjudged"]  # beside it, TRL's vLLM server (RL556)
    assert item(recipe, "launch", "launcher").value == "accelerate"
    rendezvous = item(recipe, "launch", "rendezvous")
    assert rendezvous.value == "unknown" and "scontrol show hostnames" in rendezvous.source


def test_a_function_called_with_arguments_is_read_with_them() -> None:
    """`train 8 --nnodes 2` runs train's body with $1=8, and "$@" after `shift` is the rest; the
    launch inside is recorded once (a second call reads it again, records nothing new)."""
    script = _parse(
        'train() {\n    local gpus=$1\n    shift\n    torchrun --nproc_per_node $gpus "$@" train.py\n}\ntrain 8 --nnodes 2\ntrain 4\n'
    )
    launches = [c for c in script.commands if c.name == "torchrun"]
    assert len(launches) == 1
    assert _values(launches[0].words) == ["torchrun", "--nproc_per_node", "8", "--nnodes", "2", "train.py"]


def test_a_function_never_called_is_not_read() -> None:
    script = _parse("train() {\n    torchrun --nproc_per_node 8 train.py\n}\necho no call\n")
    assert [c.name for c in script.commands] == ["echo"]


def test_set_and_shift_move_the_positional_parameters() -> None:
    script = _parse('set -- 4 --nnodes 2\nn=$1\nshift\ntorchrun --nproc_per_node $n "$@" train.py $#\n')
    assert _values(script.commands[-1].words) == ["torchrun", "--nproc_per_node", "4", "--nnodes", "2", "train.py", "2"]


def test_the_scripts_own_arguments_are_named_unknowns() -> None:
    word = _parse("torchrun --nproc_per_node $1 train.py\n").commands[-1].words[2]
    assert word.value is None and word.reason == "$1 is the script's argument: the command line decides it"


def test_an_empty_placeholder_an_option_loop_fills_is_no_value() -> None:
    """huggingface/open-r1's slurm/train.slurm: `MODEL=""` then `--model) MODEL="$2"`: the config
    path was shown as `recipes///config_.yaml` (the placeholder taken as the value); it is unknown,
    with the loop and the empty default named."""
    script = SHELL / "open-r1" / "slurm" / "train.slurm"
    (recipe,) = [d for d in describe([script])[0] if d.toolkit != "unjudged"]  # beside it, TRL's vLLM server (RL556)
    config = item(recipe, "settings", "config")
    assert config.value == "unknown" and '"" (line 40) or unknown' in config.source


def test_srun_tasks_meet_where_the_script_exports_not_at_a_default() -> None:
    """nebius/ml-cookbook's checkpoint_train.sh exports MASTER_ADDR (scontrol) and MASTER_PORT (a
    free port a Python heredoc picks, on one branch of an if): the rendezvous is unknown with both
    reasons, where it was srun's default `(first host of SLURM_NODELIST):29500`."""
    script = SHELL / "ml-cookbook" / "slurm" / "object-storage-checkpointing" / "checkpoint_train.sh"
    (recipe,), _ = describe([script])
    rendezvous = item(recipe, "launch", "rendezvous")
    assert rendezvous.value == "unknown"
    assert "MASTER_ADDR is set by `$(scontrol" in rendezvous.source and "MASTER_PORT differs between the branches" in rendezvous.source


def test_launcher_options_an_if_sets_two_ways_are_a_launch_per_branch(tmp_path: Path) -> None:
    """`DISTRIBUTED_ARGS` set by a multi-node `if` two ways: torchrun was read as 1 rank at
    127.0.0.1:29500, defaults the file does not imply; now the launch is read once per branch,
    each named by its condition: 8 ranks on both, the rendezvous of each branch's own words."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "train.py").write_text("import torch\n")
    script = tmp_path / "run.sh"
    script.write_text(
        "GPUS_PER_NODE=8\n"
        'if [ "$NNODES" -gt 1 ]; then\n'
        '  DISTRIBUTED_ARGS="--nproc_per_node $GPUS_PER_NODE --nnodes $NNODES --master_addr $MASTER_ADDR --master_port 6000"\n'
        "else\n"
        '  DISTRIBUTED_ARGS="--nproc_per_node $GPUS_PER_NODE --standalone"\n'
        "fi\n"
        "torchrun $DISTRIBUTED_ARGS train.py\n"
    )
    (multi, single), _ = describe([script])
    assert item(multi, "launch", "alternative").value == "1 of 2: when NNODES > 1 (line 2)"
    assert item(single, "launch", "alternative").value == "2 of 2: when NNODES <= 1 (line 2)"
    for recipe in (multi, single):
        per_node = item(recipe, "launch", "ranks per node")
        assert per_node.value == "8" and "GPUS_PER_NODE at line 1" in per_node.source
    assert item(multi, "launch", "rendezvous").value == "$MASTER_ADDR:6000"
    assert item(multi, "launch", "nodes").value == "unknown"  # $NNODES: the run time decides, never a default
    assert item(single, "launch", "nodes").value == "1"  # --standalone: one node


def test_a_training_script_an_if_sets_is_a_launch_with_both_values(tmp_path: Path) -> None:
    """`export TRAIN_SCRIPT=./train.py` inside an if, then `: "${TRAIN_SCRIPT:=../src/train.py}"`:
    the job was "no recipes found"; `:=` assigns on the branch that left it unset, the launch is
    read, and the script word names both values with their lines."""
    (tmp_path / ".git").mkdir()
    script = tmp_path / "job.sh"
    script.write_text(
        "#!/bin/bash\n#SBATCH --nodes=4\n#SBATCH --gres=gpu:8\n"
        'if [ -n "$CONTAINER_IMAGE" ]; then\n  export TRAIN_SCRIPT=./train.py\nfi\n'
        ': "${TRAIN_SCRIPT:=../src/train.py}"\n'
        "srun torchrun --nproc_per_node 8 --nnodes 4 ${TRAIN_SCRIPT} --lr 1\n"
    )
    files = FileCache()
    word = parse_shell(files.read(script), files.read).commands[-1].words[6]
    assert word.value is None and word.reason is not None
    assert '"./train.py" (line 5) or "../src/train.py"' in word.reason and "the if at line 4" in word.reason
    (set_, unset), _ = describe([script])
    assert item(set_, "launch", "alternative").value == "1 of 2: when CONTAINER_IMAGE is not empty (line 4)"
    assert item(unset, "launch", "alternative").value == "2 of 2: when CONTAINER_IMAGE is empty (line 4)"
    for recipe in (set_, unset):
        assert item(recipe, "launch", "ranks per node").value == "8" and item(recipe, "launch", "nodes").value == "4"
    assert "./train.py" in item(set_, "launch", "claimed by").source and "../src/train.py" in item(unset, "launch", "claimed by").source
