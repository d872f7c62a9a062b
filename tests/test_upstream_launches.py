"""Real launch commands: XTuner's Markdown docs and the DeepSpeed launch scripts of nine
repositories (unmodified files under tests/data/upstream, each with its SOURCE.md and LICENSE)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from recipelint.report import show
from tests.helpers import UPSTREAM, clone, describe, item, items

# A line that runs `xtuner train`: not a mention in a sentence (`xtuner train` in backticks),
# not a shell comment.
_MENTION = re.compile(r"`xtuner train`")
_COMMENTED = re.compile(r"^\s*(>\s*)?#")


def _xtuner_lines(root: Path) -> list[tuple[Path, int]]:
    found = []
    for path in sorted(root.rglob("*.md")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if "xtuner train" in line and not _MENTION.search(line) and not _COMMENTED.match(line):
                found.append((path, number))
    return found


def test_xtuner_markdown_commands_are_all_seen() -> None:
    root = UPSTREAM / "xtuner"
    lines = _xtuner_lines(root)
    descriptions, result = describe([root])
    assert not result.errors
    seen = {(d.path, n) for d in descriptions if d.toolkit.startswith("xtuner") for n in range(d.line, d.end_line + 1)}
    missed = [f"{p.relative_to(root)}:{n}" for p, n in lines if (p, n) not in seen]
    assert len(lines) == 137
    assert missed == []  # >= 99 % asked; all 137 are seen


def test_xtuner_markdown_blocks_other_than_bash() -> None:
    """The commands that a bash/sh/shell-only reader missed: a `diff` fence (the new side), an
    unlabelled fence, and every block after a fence of another language."""
    root = UPSTREAM / "xtuner" / "v0.1.23"
    dlc = root / "docs/zh_cn/user_guides/intern_repo_dataset.md"
    descriptions, _ = describe([dlc])
    starts = {d.line: d for d in descriptions}
    # ```diff block: `+ export EXP_NAME=...` kept, `- export ...` dropped, the launch seen at its own line
    assert 154 in starts and item(starts[154], "launch", "launcher").value == "xtuner"
    assert (
        item(starts[154], "launch", "nodes").source == "`${WORLD_SIZE}` at intern_repo_dataset.md:145: WORLD_SIZE is not set in the script"
    )
    # unlabelled fence with an srun launch
    assert 118 in starts and item(starts[118], "launch", "launcher").value == "srun"
    text = dlc.read_text(encoding="utf-8").splitlines()
    assert text[153].startswith("xtuner train internlm2_7b_w_tokenized_dataset_copy.py")
    assert text[117].startswith("srun ${SRUN_ARGS} xtuner train")


@pytest.fixture(scope="module")
def launches(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, list[show.Description]]]:
    base = tmp_path_factory.mktemp("launches")
    out = {}
    for folder in sorted((UPSTREAM / "deepspeed").iterdir()):
        root = clone(f"deepspeed/{folder.name}", base)
        paths = sorted(p for p in root.rglob("*") if p.suffix in (".sh", ".md") and p.name != "SOURCE.md")
        descriptions, result = describe(paths)
        assert not result.errors
        out[folder.name] = (root, descriptions)
    return out


def _config(launches: dict[str, tuple[Path, list[show.Description]]], repo: str, script: str) -> list[show.Item]:
    root, descriptions = launches[repo]
    found = [d for d in descriptions if d.path == root / script]
    assert found, f"no launch described in {script}"
    return [entry for d in found for entry in items(d, "configs").get("DeepSpeed config", [])]


def test_every_launch_naming_a_deepspeed_json_is_linked_or_reported(launches: dict[str, tuple[Path, list[show.Description]]]) -> None:
    linked = reported = elsewhere = 0
    for _, descriptions in launches.values():
        for description in descriptions:
            for entry in items(description, "configs").get("DeepSpeed config", []):
                codes = {f.code for f in description.findings}
                if entry.source.startswith(("found at", "written by the script")):
                    linked += 1
                elif entry.source.startswith("not found") and "RL010" in codes:
                    reported += 1
                elif entry.value == "unknown" and "RL012" in codes:
                    reported += 1
                elif (
                    entry.source.startswith("not found")
                    and "is in none of the folders tried" in item(description, "run", "working folder").source
                ):
                    # Megatron-DeepSpeed's MoE/ds_evalharness.sh, read once per `NO_PP` branch (it was
                    # "unknown", RL012): its ../../tasks/eval_harness/evaluate.py is not carried, so the
                    # launch runs in a checkout the tests do not hold and RL010 has nothing to judge
                    elsewhere += 1
                else:
                    pytest.fail(f"{description.path}: {entry}")
    # DeepSpeedExamples' compression/cifar/run_compress.sh: both configs found;
    # Megatron-DeepSpeed's curriculum_learning/ds_pretrain_gpt2.sh: an `eval ${run_cmd}` launch whose config an if sets two ways (RL012);
    # DeepSpeedExamples gpt2 (its working folder), Baichuan2 README x 2 (the clone); BELLE's run_dpo.sh
    # placeholder `...` (RL010 info), its inference backend and RewardTrainer launches (found);
    # Megatron-DeepSpeed's rebase/ds_pretrain_gpt_125M.sh (its sed-filled template, the flag in
    # ${deepspeed_options} on every branch), pretrain_llama2_distributed.sh (its heredoc) and
    # bert_with_pile/ds_finetune_bert_mnli.sh (its template, filled on both branches of an if) are written;
    # MiniCPM's minicpm_sala/finetune/README.md names configs/ds_config_zero3.json, which is configs/deepspeed/ (RL010);
    # Qwen3-VL's sft_30a3b.sh is linked, and its sft_30a3b_lora.sh names none: bash refuses the
    # assignment that holds its --deepspeed (RL014)
    # Read once per branch (#39): LMFlow's run_chatbot.sh twice (`[ $# -ge 2 ]` sets lora_args), both
    # linked; MindSpeed-MM's sd3 fp16 script, whose option loop sets config_file, is linked on the
    # way the loop does not run (it was a torch launch with no config); ds_evalharness.sh as above
    assert (linked, reported, elsewhere) == (27, 6, 1)


def test_scripts_run_from_the_repository_root(launches: dict[str, tuple[Path, list[show.Description]]]) -> None:
    """Qwen's finetune/finetune_ds.sh names finetune/ds_config_zero3.json, relative to the top."""
    root = launches["Qwen"][0]
    (entry,) = _config(launches, "Qwen", "finetune/finetune_ds.sh")
    assert entry.source == f"found at {root / 'finetune/ds_config_zero3.json'}"
    (lora,) = _config(launches, "Qwen", "finetune/finetune_lora_ds.sh")  # the default, before its option loop
    assert lora.value == "finetune/ds_config_zero2.json" and lora.source.startswith("found at")
    (llava,) = _config(launches, "LLaVA-NeXT", "scripts/archived/finetune_lora.sh")
    assert llava.source == f"found at {launches['LLaVA-NeXT'][0] / 'scripts/zero2.json'}"


def test_missing_json_is_reported_with_the_folders_tried(launches: dict[str, tuple[Path, list[show.Description]]]) -> None:
    root, descriptions = launches["LMFlow"]
    (recipe,) = [d for d in descriptions if d.path == root / "scripts/archive/run_finetune.sh"]
    (finding,) = [f for f in recipe.findings if f.code == "RL010"]
    # the working folder first: LMFlow's top holds examples/finetune.py
    tried = ", ".join(f"{folder}/" for folder in (root, root / "scripts/archive", root / "scripts"))
    assert (
        finding.message
        == f"DeepSpeed config configs/archive/ds_config_zero3.json is not in any folder this launch may run from (tried {tried})"
    )
    assert finding.span.line == 68
    # `${exe} examples/finetune.py`, exe being "deepspeed ..." or, where `[[ ${use_deepspeed} -eq 0 ]]`
    # (line 293), "python": the arm only assigns, so the script's own use_deepspeed=1 decides it
    (custom,) = [d for d in descriptions if d.path == root / "scripts/archive/run_finetune_with_custom_optim.sh"]
    assert item(custom, "launch", "launcher").value == "deepspeed"
    assert "RL010" in {f.code for f in custom.findings}
    # lora_args is set when `[ $# -ge 2 ]` (line 10): the launch is read both ways, the JSON found on each
    chatbots = _config(launches, "LMFlow", "scripts/archive/run_chatbot.sh")
    assert len(chatbots) == 2 and all(chatbot.source.startswith("found at") for chatbot in chatbots)


def test_srun_wrapped_python_launch(launches: dict[str, tuple[Path, list[show.Description]]]) -> None:
    root, descriptions = launches["InternVL"]
    script = root / "internvl_g/shell/finetune/internvl_stage2_finetune_flickr_364_bs1024_ep10.sh"
    (recipe,) = [d for d in descriptions if d.path == script]
    assert item(recipe, "launch", "launcher").value == "srun"
    assert item(recipe, "launch", "nodes").value == "4"  # NODES=$((GPUS / GPUS_PER_NODE)), GPUS=${GPUS:-32}
    assert item(recipe, "launch", "ranks per node").value == "8"
    assert item(recipe, "launch", "world size").value == "32"
    (entry,) = items(recipe, "configs")["DeepSpeed config"]
    assert entry.source == f"found at {root / 'internvl_g/zero_stage1_config.json'}"


def test_accelerate_deepspeed_config_file(launches: dict[str, tuple[Path, list[show.Description]]]) -> None:
    root, descriptions = launches["open-instruct"]
    (entry,) = _config(launches, "open-instruct", "scripts/finetune_with_accelerate_config.sh")
    assert entry.source == f"found at {root / 'configs/ds_configs/stage3_no_offloading_accelerate.conf'}"
    # its "auto" buckets and train_batch_size are Accelerate's to fill (accelerator.prepare): no RL416
    (recipe,) = [d for d in descriptions if d.path == root / "scripts/finetune_with_accelerate_config.sh"]
    assert recipe.findings == []
    assert item(recipe, "launch", "launcher").value == "accelerate"
    assert "NUM_GPUS is the script's argument $1 (line 14)" in item(recipe, "launch", "ranks per node").source
    # inside `run1_output=$(uv run python mason.py ... -- accelerate launch ...)`
    entries = _config(launches, "open-instruct", "scripts/train/debug/dpo/checkpoint_integration_test.sh")
    assert entries and all(e.source.startswith("found at") for e in entries)


def test_configs_only_the_run_time_knows(launches: dict[str, tuple[Path, list[show.Description]]]) -> None:
    root, descriptions = launches["FastChat"]
    (recipe,) = [d for d in descriptions if d.path == root / "scripts/train_lora.sh"]
    (finding,) = [f for f in recipe.findings if f.code == "RL012"]
    assert finding.evidence == ["PATH_TO_DEEPSPEED_CONFIG is not set in the script"]
    root, descriptions = launches["Megatron-DeepSpeed"]
    (written,) = _config(launches, "Megatron-DeepSpeed", "examples_deepspeed/run_deepspeed_example.sh")
    assert written.value == "ds_config.json"
    assert written.source == "written by the script itself at line 22; read from cat <<EOT at line 22 with the script's values"
    # the flag sits in ${deepspeed_options} on every branch; the file it names is what the sed writes
    (filled,) = _config(launches, "Megatron-DeepSpeed", "examples_deepspeed/rebase/ds_pretrain_gpt_125M.sh")
    assert filled.value == "ds_config_gbs256_mbs2_log10_zero1.json" and "filling ds_config_gpt_TEMPLATE.json" in filled.source
    (hidden,) = _config(launches, "Megatron-DeepSpeed", "examples_deepspeed/curriculum_learning/ds_pretrain_gpt2.sh")
    # read through `eval ${run_cmd}`: the config is ${config_json}, which an if at line 73 sets two ways
    assert hidden.value == "unknown" and "config_json differs between the branches of the if at line 73" in hidden.source


def test_markdown_launch_with_placeholders(launches: dict[str, tuple[Path, list[show.Description]]]) -> None:
    """`--master_port=<your_random_port>` is a placeholder, not a redirection."""
    root, descriptions = launches["stanford_alpaca"]
    (entry,) = _config(launches, "stanford_alpaca", "README.md")
    assert entry.source == f"found at {root / 'configs/default_offload_opt_param.json'}"
    # three torchrun launches: the FSDP ones are launches too (the rendezvous rules read them)
    recipes = [d for d in descriptions if d.path == root / "README.md"]
    assert [item(recipe, "launch", "ranks per node").value for recipe in recipes] == ["4", "4", "4"]


def test_trainer_arguments_json_is_not_deepspeed(tmp_path: Path) -> None:
    root = clone("deepspeed/ms-swift", tmp_path)
    sft = root / "examples/yaml/deepspeed/sft.json"
    descriptions, _ = describe([sft])
    codes = [f.code for d in descriptions for f in d.findings]
    assert codes == ["RL011"]
    (finding,) = descriptions[0].findings
    assert finding.message.startswith(
        "sft.json is not a DeepSpeed config (0 DeepSpeed signature key(s) of 26; 25 keys DeepSpeed does not know"
    )
    # the folder walk does not report it (not named), and its launch names a preset, not a file;
    # that launch (`swift sft`) is ms-swift's own, which recipelint says it does not judge
    descriptions, _ = describe([root])
    assert [f.code for d in descriptions for f in d.findings] == ["RL013"]


@pytest.mark.parametrize("script", ["finetune/finetune_ds.sh", "finetune/finetune_lora_ds.sh"])
def test_launcher_options_held_in_a_variable_are_split_as_bash_splits_them(
    launches: dict[str, tuple[Path, list[show.Description]]], script: str
) -> None:
    """Qwen: `DISTRIBUTED_ARGS="--nproc_per_node $GPUS_PER_NODE --nnodes $NNODES ..."` then
    `torchrun $DISTRIBUTED_ARGS finetune.py`: read as one word, torchrun looked like 1 rank on
    1 node at 127.0.0.1:29500; split, GPUS_PER_NODE ($(python -c '...device_count()')) is the
    node's GPU count, NNODES defaults to 1, and the rendezvous is MASTER_ADDR:MASTER_PORT."""
    root, descriptions = launches["Qwen"]
    (recipe,) = [d for d in descriptions if d.path == root / script]
    per_node = item(recipe, "launch", "ranks per node")
    assert per_node.value == "8" and "from profile" in per_node.source and "torch.cuda.device_count" in per_node.source
    nodes = item(recipe, "launch", "nodes")
    assert nodes.value == "1" and nodes.source.startswith("`$NNODES`")
    assert item(recipe, "launch", "rendezvous").value == "localhost:6001"


def test_ib_disable_on_one_node_is_not_a_finding() -> None:
    """MiniCPM's one-node LLaMA-Factory launch exports NCCL_IB_DISABLE=1: on one node NCCL never
    uses the network, so the A100 profile's InfiniBand gives no RL502."""
    script = UPSTREAM / "deepspeed" / "MiniCPM" / "finetune" / "llama_factory_example" / "single_node.sh"
    described, result = describe([script])
    assert result.errors == [] and described and described[0].toolkit == "torch"
    assert "RL502" not in {d.code for d in result.diagnostics}


def test_a_job_runner_the_script_names_on_every_branch_is_no_launch(tmp_path: Path) -> None:
    """wenet-e2e/wesep@cf8ee7f's tools/score.sh runs `${cmd} JOB=1:N log python -m
    wesep.bin.score`, cmd being Kaldi's `./tools/run.pl --gpu ${n_gpu}` or `./tools/run.pl` on
    the two branches of an `if`: it was read as a torch launch whose GPU count the run time
    decides (RL004). wesep carries no licence, so the test writes a script of the same shape
    instead of copying it. With `deepspeed` on a branch (LMFlow's `${exe}`, the test above) it is
    a launch."""
    script = tmp_path / "score.sh"
    body = 'n_gpu=1\nif ${use_gpu}; then\n    cmd="./tools/run.pl --gpu ${n_gpu}"\nelse\n    cmd="./tools/run.pl"\nfi\n'
    script.write_text(body + "${cmd} JOB=1:4 log/score.JOB.log python -m mypkg.bin.score --part JOB\n")
    descriptions, result = describe([script])
    assert descriptions == [] and result.recipes == [] and result.diagnostics == [] and result.errors == []
    script.write_text(body.replace("./tools/run.pl --gpu ${n_gpu}", "deepspeed --num_gpus ${n_gpu}") + "${cmd} train.py\n")
    descriptions, _ = describe([script])  # the deepspeed arm is a launch; the other is Kaldi's runner
    assert [item(d, "launch", "launcher").value for d in descriptions] == ["deepspeed"]
    assert item(descriptions[0], "launch", "alternative").value == "1 of 2: when `${use_gpu}` holds (line 2)"


def test_a_cd_into_the_scripts_own_folder_decides_the_working_folder(launches: dict[str, tuple[Path, list[show.Description]]]) -> None:
    """01-ai/Yi's finetune/scripts/run_sft_Yi_6b.sh does `cd "$(dirname "${BASH_SOURCE[0]}")/../sft/"`
    before `deepspeed main.py`: the launch runs from finetune/sft/, wherever the script is started
    (it was undecided, main.py in none of the folders tried, so its code was never read)."""
    root, descriptions = launches["Yi"]
    (recipe,) = [d for d in descriptions if d.path == root / "finetune/scripts/run_sft_Yi_6b.sh"]
    folder = item(recipe, "run", "working folder")
    assert folder.value.rstrip("/").endswith("finetune/sft") and folder.source.endswith("main.py is there")


def test_a_rendezvous_port_only_the_run_time_knows_is_shown_as_written(
    launches: dict[str, tuple[Path, list[show.Description]]],
) -> None:
    """Qwen3-VL's sft_30a3b.sh: `--master_port=${MASTER_PORT}`, MASTER_PORT being
    `${MASTER_PORT:-$(shuf -i 20001-29999 -n 1)}`; show said `127.0.0.1:None`."""
    root, descriptions = launches["Qwen3-VL"]
    (recipe,) = [d for d in descriptions if d.path == root / "qwen-vl-finetune/scripts/sft_30a3b.sh"]
    assert item(recipe, "launch", "rendezvous").value == "127.0.0.1:${MASTER_PORT}"


def test_a_rendezvous_with_only_its_port_given_says_so() -> None:
    """modelscope/FunASR's examples/aishell/paraformer/run.sh: `torchrun ... --master_port
    ${master_port}` and no --master_addr; show said 'not given: default 127.0.0.1:12345'."""
    script = UPSTREAM.parent / "nonrecipe/FunASR/examples/aishell/paraformer/run.sh"
    (recipe,) = describe([script])[0]
    rendezvous = item(recipe, "launch", "rendezvous")
    assert rendezvous.value == "127.0.0.1:12345"
    assert rendezvous.source == "`${master_port}` at run.sh:118; --master_addr not given: default 127.0.0.1"
