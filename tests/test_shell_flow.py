"""Shell values the way bash would have them, or unknown with the reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from recipelint.parse.files import FileCache
from recipelint.parse.markdown import code_blocks
from recipelint.parse.shell import ShellScript, Word, parse_shell
from recipelint.parse.span import SourceText
from tests.helpers import UPSTREAM, RecipeSpec, lint


def script(text: str, path: Path = Path("run.sh")) -> ShellScript:
    return parse_shell(SourceText(path, text.encode()))


def last_words(text: str) -> list[Word]:
    return script(text).commands[-1].words


def test_branches_that_differ_make_the_value_unknown() -> None:
    words = last_words("if command -v nvidia-smi &> /dev/null; then\n  n=$(nvidia-smi -L | wc -l)\nelse\n  n=-1\nfi\necho $n\n")
    assert words[1].value is None
    assert words[1].reason == (
        "n differs between the branches of the if at line 1 (command -v nvidia-smi &> /dev/null): "
        '`$(nvidia-smi -L | wc -l)` (line 2) or "-1" (line 4)'
    )
    assert words[1].binding is not None and words[1].binding.origin is None  # no single assignment to edit


def test_branches_that_agree_keep_the_value_but_not_an_edit_span() -> None:
    words = last_words("if a; then\n  x=4\nelse\n  x=4\nfi\ncmd $x\n")
    assert words[1].value == "4"
    assert words[1].binding is not None and words[1].binding.origin is None


def test_an_if_without_else_may_leave_the_old_value() -> None:
    words = last_words("x=1\nif a; then x=2; fi\ncmd $x\n")
    assert (
        words[1].value is None and 'x differs between the branches of the if at line 2 (a): "2" (line 2) or "1" (line 1)' == words[1].reason
    )
    same = last_words("x=1\nif a; then y=2; fi\ncmd $x\n")
    assert same[1].value == "1" and same[1].binding is not None and same[1].binding.origin is not None


def test_a_branch_that_exits_does_not_count() -> None:
    words = last_words('x=1\nif [ -z "$x" ]; then\n  echo usage; exit 1\nfi\n. ./path.sh || exit 1\ncmd $x\n')
    assert words[1].value == "1"


def test_case_and_loops() -> None:
    assert last_words("case $m in a) x=1;; *) x=2;; esac\ncmd $x\n")[1].value is None
    assert last_words("case $m in a) x=1;; *) x=1;; esac\ncmd $x\n")[1].value == "1"
    looped = last_words("for i in 1 2; do x=$i; done\ncmd $x\n")[1]
    assert looped.value is None and looped.reason is not None and "loop at line 1" in looped.reason
    inside = script("x=0\nfor ((i = 0; i < 2; ++i)); do\n  cmd $i $x\ndone\n").commands[0].words
    assert inside[1].reason == "i is assigned in the loop at line 2" and inside[2].value == "0"


def test_command_substitutions_are_run_time_except_pure_text_filters() -> None:
    words = last_words(
        "set=XL\ndevs=0,1,2\n"
        "a=train_`echo $set | tr 'A-Z' 'a-z'`\n"
        "b=$(echo $devs | awk -F \",\" '{print NF}')\n"
        "c=$(nvidia-smi -L | wc -l)\n"
        "d=$((2 * 8 / 4))\n"
        "cmd $a $b $c $d\n"
    )
    assert [w.value for w in words[1:]] == ["train_xl", "3", None, "4"]
    assert words[3].reason == "c is set by `$(nvidia-smi -L | wc -l)` at run time (line 5)"


def test_split_concatenations_resolve_whole() -> None:
    """tree-sitter-bash splits `$a/$b/c` into `$a/$` and `b/c`; bash reads one word."""
    words = last_words('a=data\nb=train\nx=$a/$b/list\ncmd $a/$b/data.list "${a}"/x $a$b ${a}_${b}/$b/d.list --t=$a/$b/l\necho $x\n')
    assert words[1].value == "data/train/list"
    cmd = script('a=data\nb=train\ncmd $a/$b/data.list "${a}"/x $a$b ${a}_${b}/$b/d.list --t=$a/$b/l\n').commands[-1]
    assert [w.value for w in cmd.words[1:]] == [
        "data/train/data.list",
        "data/x",
        "datatrain",
        "data_train/train/d.list",
        "--t=data/train/l",
    ]
    assert [w.text for w in cmd.words[1:2]] == ["$a/$b/data.list"]
    assert cmd.words[-1].option is not None and cmd.words[-1].option[1].value == "data/train/l"


def test_sourced_files_are_read_for_assignments(tmp_path: Path) -> None:
    (tmp_path / "path.sh").write_text("export NCCL_SOCKET_IFNAME=ib0\nnum_workers=4\n")
    (tmp_path / "run.sh").write_text(". ./path.sh || exit 1\n. tools/parse_options.sh\nsource missing.sh\ncmd $num_workers\n")
    files = FileCache()
    parsed = parse_shell(files.read(tmp_path / "run.sh"), files.read)
    word = parsed.commands[-1].words[1]
    assert word.value == "4" and word.binding is not None and word.binding.origin is not None
    assert word.binding.origin.span.path == tmp_path / "path.sh"
    assert parsed.commands[-1].variable("NCCL_SOCKET_IFNAME") is not None
    assert [(s.path, s.read) for s in parsed.sourced] == [("./path.sh", True), ("tools/parse_options.sh", False), ("missing.sh", False)]
    assert parsed.overridable is not None
    assert parsed.sourced[2].note == f"not read: no such file {tmp_path / 'missing.sh'}"


def test_option_loop_keeps_the_default() -> None:
    words = last_words(
        'D="a.json"\nwhile [[ "$1" != "" ]]; do\n  case $1 in\n    --deepspeed ) shift; D=$1 ;;\n  esac\n  shift\ndone\ncmd $D\n'
    )
    assert words[1].value == "a.json"


def test_cd_and_written_files() -> None:
    parsed = script("cd sub\ncat <<EOF > ds.json\n{}\nEOF\ncmd x\n")
    assert parsed.cd_dirs == ["sub"] and parsed.commands[-1].cwd == "sub"
    assert list(parsed.written) == ["sub/ds.json"]


def test_cd_into_the_scripts_own_folder() -> None:
    """`cd "$(dirname "$0")"/..` and its spellings lead to a folder relative to the script's own,
    wherever it is started (01-ai/Yi's finetune scripts); a part only the run time knows does not."""
    spellings = {
        'cd "$(dirname "${BASH_SOURCE[0]}")/../sft/"': "../sft",
        'cd "$(dirname $0)"/..': "..",
        "cd `dirname $0`": ".",
        'cd sub\ncd "$(dirname "$0")/conf"': "conf",
        'cd "$(dirname "$0")/$sub"': None,
        'cd "$(dirname "$config")"': None,
    }
    for text, cwd in spellings.items():
        assert script(f"{text}\ncmd x\n").commands[-1].cwd == cwd, text


def test_upstream_aishell_s0_gpu_count_is_unknown() -> None:
    path = UPSTREAM / "wenet/examples/aishell/s0/run.sh"
    files = FileCache()
    parsed = parse_shell(files.read(path), files.read)
    launch = next(c for c in parsed.commands if c.name == "torchrun")
    per_node = next(w for w in launch.words if w.option and w.option[0] == "--nproc_per_node")
    assert per_node.option is not None and per_node.option[1].value is None
    assert "gpu_list differs between the branches of the if at line 7" in (per_node.option[1].reason or "")
    data = next(i for i, w in enumerate(launch.words) if w.text == "--train_data")
    assert launch.words[data + 1].value == "data/train/data.list"


def test_a_value_set_on_two_branches_gets_no_fix(tmp_path: Path) -> None:
    """Both branches say 16, so RL102 judges 16; but no single assignment holds it, so no fix
    edits one branch and leaves the other."""
    spec = RecipeSpec(variables={"prefetch": "10"}, devices="0,1,2,3,4,5,6,7")
    run = spec.write(tmp_path)
    run.write_text(run.read_text().replace("prefetch=10", 'prefetch=10\nif [ "$big" = 1 ]; then num_workers=16; else num_workers=16; fi'))
    (found,) = [d for d in lint(run, spec.hardware) if d.code == "RL102"]
    assert found.message == "8 ranks x 16 workers = 128 worker processes per node, but only 64 CPUs are usable"
    assert found.fix is None
    # the same value from one assignment is fixed in place
    single = RecipeSpec(variables={"num_workers": "16", "prefetch": "10"}, devices="0,1,2,3,4,5,6,7")
    (fixed,) = [d for d in lint(single.write(tmp_path / "one"), single.hardware) if d.code == "RL102"]
    assert fixed.fix is not None and fixed.fix.edits[0].content == "8"  # 64 CPUs // 8 ranks


def test_markdown_blocks_parsed_one_at_a_time() -> None:
    text = "```bash\necho 'unclosed\n```\n\n```Bash\nxtuner train a.py\n```\n"
    blocks = code_blocks(SourceText(Path("doc.md"), text.encode()))
    assert blocks is not None
    source, ranges = blocks
    assert len(ranges) == 2
    parsed = parse_shell(source, ranges=ranges)
    launch = [c for c in parsed.commands if c.name == "xtuner"]
    assert launch and launch[0].span.line == 6


def test_an_unquoted_variable_is_split_into_words_as_bash_splits_it() -> None:
    text = 'G=8\nN=2\nA="--nproc_per_node $G \\\n  --nnodes=${N} --tag \\"x y\\""\nB=$A\ntorchrun $A "$A" ${B} t.py\n'
    words = last_words(text)
    source = text.encode()
    assert [w.text for w in words[:5]] == ["torchrun", "--nproc_per_node", "$G", "--nnodes=${N}", "--tag"]
    assert [w.value for w in words[1:7]] == ["--nproc_per_node", "8", "--nnodes=2", "--tag", '"x', 'y"']
    # each word keeps its place in the assignment: a fix to the literal edits it there
    assert source[words[1].span.start : words[1].span.end] == b"--nproc_per_node" and words[1].edit_span == words[1].span
    assert words[2].ref == "G" and words[2].binding is not None and words[2].binding.value == "8"
    option = words[3].option
    assert option is not None and option[0] == "--nnodes" and option[1].value == "2"
    quoted = words[7]  # "$A" stays one word
    assert quoted.text == '"$A"' and quoted.value is not None and quoted.value.startswith("--nproc_per_node 8")
    assert [w.value for w in words[8:14]] == ["--nproc_per_node", "8", "--nnodes=2", "--tag", '"x', 'y"']  # B=$A: the same words
    assert words[-1].text == "t.py"


def test_a_value_without_blanks_or_unknown_stays_one_word() -> None:
    words = last_words('A="--x=1"\nB=$(nproc)\nrun $A $B\n')
    assert [(w.text, w.value) for w in words] == [("run", "run"), ("$A", "--x=1"), ("$B", None)]
    words = last_words("A='a  b'\nrun $A\n")
    assert [w.value for w in words] == ["run", "a", "b"]


def test_an_expansion_with_a_default_is_split_too() -> None:
    words = last_words('deepspeed train.py ${ds_args:-"--deepspeed_config ds.json"}\n')
    assert [w.value for w in words] == ["deepspeed", "train.py", "--deepspeed_config", "ds.json"]


def test_a_bash_c_string_is_read_as_its_command() -> None:
    """`srun bash -c "$L train.py"`: the string's command, its `--name=value` split as elsewhere,
    every word at the string's place and with nowhere to write (the value lives in L's assignment)."""
    from pathlib import Path

    from recipelint.parse.shell import parse_shell
    from recipelint.parse.span import SourceText

    text = b'L="torchrun --nproc_per_node=8 --nnodes $N"\nsrun bash -c "$L train.py"\n'
    command = parse_shell(SourceText(Path("job.sh"), text)).commands[-1]
    assert [w.text for w in command.words] == ["srun", "torchrun", "--nproc_per_node=8", "--nnodes", "$N", "train.py"]
    option = command.words[2].option
    assert option is not None and option[0] == "--nproc_per_node" and option[1].value == "8"
    assert all(w.span.line == 2 and w.edit_span is None for w in command.words[1:])
    assert option[1].span.line == 2 and option[1].edit_span is None
    plain = parse_shell(SourceText(Path("job.sh"), b'srun bash -c "$UNSET_CMD"\n')).commands[-1]
    assert [w.text for w in plain.words] == ["srun", "bash", "-c", '"$UNSET_CMD"']  # nothing to read: left as it is


def test_a_bad_substitution_refuses_the_assignment() -> None:
    """`${batch_size*2}` (QwenLM/Qwen3-VL's sft_30a3b_lora.sh): bash says 'bad substitution',
    leaves args as it was and goes on; `$((batch_size*2))`, `${x:-d}`, `${!p*}` and `${x[0]}` are read."""
    parsed = script('batch_size=1\nargs="--a 1 --b ${batch_size*2} --c"\ncmd ${args}\n')
    ((failed,),) = [parsed.failed]
    assert (failed.name, failed.line, failed.earlier) == ("args", 2, False)
    assert parsed.source.data[failed.span.start : failed.span.end] == b"${batch_size*2}"
    assert [a.name for a in parsed.assignments] == ["batch_size"]
    assert parsed.commands[-1].words[1].reason == "args is not set in the script"
    for good in ("$((batch_size*2))", "${batch_size:-2}", "${!batch*}", "${batch_size[0]}", "${batch_size^^}", "${batch_size~~}"):
        parsed = script(f'batch_size=1\nargs="--b {good}"\ncmd ${{args}}\n')
        assert parsed.failed == [] and [a.name for a in parsed.assignments] == ["batch_size", "args"], good


@pytest.mark.parametrize(
    ("use", "words"),
    [
        ("eval $CMD", ["torchrun", "--nnodes", "2", "--nproc_per_node", None, "train.py", "--deepspeed", "ds.json"]),
        ("eval ${CMD}", ["torchrun", "--nnodes", "2", "--nproc_per_node", None, "train.py", "--deepspeed", "ds.json"]),
        # quoted, the line break stays: bash runs `torchrun ... $GPUS` alone, then `train.py ...`
        ('eval "$CMD"', ["torchrun", "--nnodes", "2", "--nproc_per_node", None]),
    ],
)
def test_an_eval_of_a_variable_is_read_as_the_command_it_holds(use: str, words: list[str | None]) -> None:
    """`CMD="torchrun ..."; eval $CMD`: the shell joins eval's arguments and reads them again; an
    unquoted $CMD is split on blanks and newlines first (Megatron-DeepSpeed's `eval ${run_cmd}`)."""
    # opts holds an argument of the script (its value only the run time knows) and ends in a line break
    text = 'GPUS=$1\nopts="--nnodes 2 \\\n  --nproc_per_node $GPUS\n"\nCMD="torchrun ${opts} train.py --deepspeed ds.json"\n' + use + "\n"
    script = parse_shell(SourceText(Path("run.sh"), text.encode()))
    (command,) = [c for c in script.commands if c.words and c.words[0].value == "torchrun"]
    assert [w.value for w in command.words] == words
    assert all(w.edit_span is None for w in command.words)  # read from a string: nothing to edit in place
