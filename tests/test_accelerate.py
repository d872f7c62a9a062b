"""`accelerate launch` as a launcher, on unmodified upstream files (tests/data/upstream/deepspeed,
each with its SOURCE.md): the sizes its config file gives, the default without one (one process
per visible GPU), the config file linked (missing: RL010) and the DeepSpeed JSON it names."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from recipelint.report import show
from tests.helpers import A100, clone, describe, item, items


def _launches(paths: list[Path], profile: Path | None = A100) -> list[show.Description]:
    """`show` for the paths, on the A100 node or (None) on a node recipelint knows nothing of."""
    if profile is None:
        from recipelint import engine
        from recipelint.hardware.profile import from_mapping
        from recipelint.parse.files import FileCache

        empty = from_mapping({}, "profile empty")
        found: list[show.Description] = []
        result = engine.check(
            paths, hardware=lambda: empty, files=FileCache(), observe=lambda ctx, kept: found.append(show.describe(ctx, kept))
        )
        assert not result.errors
        return found
    descriptions, result = describe(paths, profile)
    assert not result.errors
    return descriptions


def _one(descriptions: list[show.Description], path: Path) -> show.Description:
    (found,) = [d for d in descriptions if d.path == path]
    return found


@pytest.mark.parametrize("profile", [A100, None], ids=["a100", "no-profile"])
def test_llama_factory_sizes_come_from_the_config_file(tmp_path: Path, profile: Path | None) -> None:
    """LLaMA-Factory v0.7.0: `CUDA_VISIBLE_DEVICES=0,1,2,3 accelerate launch --config_file
    ../accelerate/master_config.yaml` was read as 1 rank ("not given: default 1"); accelerate takes
    num_processes (8, every machine's) and num_machines (2) from the file."""
    root = clone("deepspeed/LLaMA-Factory", tmp_path)
    folder = root / "v0.7.0/examples/lora_multi_gpu"
    descriptions = _launches([folder / "multi_node.sh", folder / "single_node.sh"], profile)
    multi = _one(descriptions, folder / "multi_node.sh")
    assert item(multi, "launch", "launcher").value == "accelerate"
    assert item(multi, "launch", "nodes").source == "accelerate config: num_machines 2 (master_config.yaml:11)"
    per_node = item(multi, "launch", "ranks per node")
    assert (per_node.value, per_node.source) == ("4", "accelerate config: num_processes 8 over 2 machines (master_config.yaml:12)")
    assert item(multi, "launch", "world size").value == "8"
    assert item(multi, "launch", "rendezvous").value == "192.168.0.1:29555"
    assert item(multi, "launch", "distributed type").value == "MULTI_GPU"
    precision = item(multi, "launch", "mixed precision")
    assert (precision.value, precision.source) == ("fp16", "accelerate config: mixed_precision fp16 (master_config.yaml:10)")
    (config,) = items(multi, "configs")["Accelerate config"]
    assert config.source == f"found at {folder.parent / 'accelerate' / 'master_config.yaml'}"  # shown normalised
    single = _one(descriptions, folder / "single_node.sh")
    assert item(single, "launch", "ranks per node").source == "accelerate config: num_processes 4 (single_config.yaml:10)"
    assert item(single, "launch", "world size").value == "4"
    assert [f.code for d in descriptions for f in d.findings if f.code == "RL010"] == []


def test_missing_config_file_is_reported(tmp_path: Path) -> None:
    """The same launch without the examples/accelerate folder beside it: accelerate stops at start
    (load_config_from_file's FileNotFoundError), and recipelint says so instead of assuming 1 rank."""
    root = clone("deepspeed/LLaMA-Factory", tmp_path)
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copy(root / "v0.7.0/examples/lora_multi_gpu/multi_node.sh", alone / "multi_node.sh")
    (description,) = _launches([alone / "multi_node.sh"])
    (finding,) = [f for f in description.findings if f.code == "RL010"]
    assert finding.message == (
        f"Accelerate config ../accelerate/master_config.yaml is not in any folder this launch may run from (tried {alone}/, {tmp_path}/); "
        f"no repository root (.git, pyproject.toml, setup.py) above the script: searched up to {tmp_path}/; "
        "accelerate launch stops at start when it is missing where the launch runs "
        "(FileNotFoundError: The passed configuration file `../accelerate/master_config.yaml` does not exist)"
    )
    assert (finding.span.line, finding.span.column) == (5, 19)
    # its processes are in the file recipelint could not read: the node's GPU count stands in, and says why
    per_node = item(description, "launch", "ranks per node")
    assert per_node.value == "8" and "in the accelerate config, which was not read" in per_node.source


def test_lmflow_names_an_accelerate_config_it_does_not_have(tmp_path: Path) -> None:
    """LMFlow's scripts/archive/run_rm_inference.sh names configs/accelerator_multigpu_config.yaml;
    LMFlow has configs/archive/accelerate_multigpu_config.yaml (which run_chatbot.sh names, found)."""
    root = clone("deepspeed/LMFlow", tmp_path)
    descriptions = _launches([root / "scripts/archive/run_rm_inference.sh", root / "scripts/archive/run_chatbot.sh"])
    inference = _one(descriptions, root / "scripts/archive/run_rm_inference.sh")
    (finding,) = [f for f in inference.findings if f.code == "RL010"]
    assert finding.message.startswith("Accelerate config configs/accelerator_multigpu_config.yaml is not in any folder")
    assert finding.message.endswith("does not exist)")
    # examples/rm_inference.py is LMFlow's and no file of that name is anywhere in it: the run stops
    assert str(finding.severity) == "error" and "no file named accelerator_multigpu_config.yaml anywhere in" in finding.evidence[-1]
    # run_chatbot.sh sets lora_args when `[ $# -ge 2 ]` (line 10): read both ways (#39), alike here
    chatbot, other = [d for d in descriptions if d.path == root / "scripts/archive/run_chatbot.sh"]
    assert item(other, "launch", "alternative").value == "2 of 2: when `[ $# -ge 2 ]` fails (line 10)"
    assert [f.code for f in chatbot.findings + other.findings if f.code == "RL010"] == []
    (config,) = items(chatbot, "configs")["Accelerate config"]
    assert config.source == f"found at {root / 'configs/archive/accelerate_multigpu_config.yaml'}"
    assert item(chatbot, "launch", "ranks per node").source == "accelerate config: num_processes 1 (accelerate_multigpu_config.yaml:11)"
    assert item(chatbot, "launch", "rendezvous").value == "127.0.0.1:11002"


@pytest.mark.parametrize("profile", [A100, None], ids=["a100", "no-profile"])
def test_without_a_config_one_process_per_visible_gpu(tmp_path: Path, profile: Path | None) -> None:
    """StableAvatar's `CUDA_VISIBLE_DEVICES=0,1,2,3 accelerate launch train_1B_rec_vec.py`: no
    config file, no --num_processes, so accelerate starts torch.cuda.device_count() processes: 4."""
    root = clone("deepspeed/StableAvatar", tmp_path)
    (description,) = _launches([root / "train_1B_rec_vec.sh"], profile)
    per_node = item(description, "launch", "ranks per node")
    assert (per_node.value, per_node.source) == ("4", "accelerate default: one process per visible GPU (CUDA_VISIBLE_DEVICES=0,1,2,3)")
    # a default config on the node would win: said as a condition, not a finding
    note = item(description, "launch", "accelerate config")
    assert note.value == "none named" and "~/.cache/huggingface/accelerate/default_config.yaml" in note.source


def test_without_a_config_or_visible_devices_the_node_decides(tmp_path: Path) -> None:
    """VideoX-Fun's `accelerate launch --mixed_precision="bf16" scripts/cogvideox_fun/train.py`:
    every GPU of the node; the profile's 8, unknown without one."""
    root = clone("deepspeed/VideoX-Fun", tmp_path)
    script = root / "scripts/cogvideox_fun/train.sh"
    (on_node,) = _launches([script])
    per_node = item(on_node, "launch", "ranks per node")
    assert per_node.value == "8"
    assert per_node.source.endswith(
        "the script leaves the GPU count to the run time (accelerate default: one process per visible GPU of the node)"
    )
    (alone,) = _launches([script], None)
    assert item(alone, "launch", "ranks per node").value == "unknown"


def test_many_machines_and_command_line_over_the_file(tmp_path: Path) -> None:
    """StableAvatar's 64 processes over 8 machines (8 per node); alignment-handbook's README runs
    from the repository's top, and its `--num_processes=1` wins over the config's 8."""
    avatar = clone("deepspeed/StableAvatar", tmp_path)
    (wide,) = _launches([avatar / "train_1B_rec_vec_64.sh"])
    assert [item(wide, "launch", label).value for label in ("nodes", "ranks per node", "world size")] == ["8", "8", "64"]
    handbook = clone("deepspeed/alignment-handbook", tmp_path)
    descriptions = _launches([handbook / "recipes/zephyr-7b-beta/README.md"])
    sizes = [(d.line, item(d, "launch", "ranks per node").value) for d in descriptions]
    assert sizes == [(18, "8"), (21, "8"), (29, "1"), (32, "1"), (40, "1"), (43, "1")]
    assert item(descriptions[2], "launch", "ranks per node").source == "`1` at README.md:29"
    (config,) = items(descriptions[0], "configs")["Accelerate config"]
    assert config.source == f"found at {handbook / 'recipes/accelerate_configs/zero3.yaml'}"


def test_the_deepspeed_json_an_accelerate_config_names(tmp_path: Path) -> None:
    """accelerate's sp-alst example, `python -m accelerate.commands.launch --config_file
    sp-alst.accelerate-config.yml`: the config's deepspeed_config_file is the recipe's DeepSpeed
    JSON, filled by accelerate; a config of `distributed_type: 'NO'` does not read its file."""
    root = clone("deepspeed/accelerate", tmp_path)
    folder = root / "examples/alst_ulysses_sequence_parallelism"
    (description,) = _launches([folder / "sp-alst.sh"])
    assert description.toolkit == "deepspeed"
    assert item(description, "launch", "launcher").value == "accelerate"
    assert item(description, "launch", "ranks per node").value == "4"
    (json_link,) = items(description, "configs")["DeepSpeed config"]
    assert json_link.source == f"found at {folder / 'sp-alst.ds-config.json'}"
    assert item(description, "settings", "deepspeed").source == "accelerate config: deepspeed_config_file (sp-alst.accelerate-config.yml:3)"
    ignored = _launches([root / "tests/test_configs/validate_launch_cmd.yaml"])
    assert [d.toolkit for d in ignored] == ["deepspeed"] and "configs" not in [s.title for s in ignored[0].sections]


def test_an_accelerate_config_alone_is_not_a_wenet_config(tmp_path: Path) -> None:
    """alignment-handbook's zero3.yaml named alone: WeNet declines it (RL011 called it "not a WeNet
    train config"); accelerate's template names its JSON, which is linked and checked."""
    handbook = clone("deepspeed/alignment-handbook", tmp_path)
    # named alone (what pre-commit does), it is judged with the launches of the repository that name it
    launches = _launches([handbook / "recipes/accelerate_configs/zero3.yaml"])
    assert launches and {d.toolkit for d in launches} <= {"deepspeed", "torch"}
    assert "RL011" not in {f.code for d in launches for f in d.findings}
    assert all(item(d, "configs", "judged with").source.endswith("this launch names it") for d in launches)
    templates = clone("deepspeed/accelerate", tmp_path) / "examples/config_yaml_templates"
    (template,) = _launches([templates / "deepspeed.yaml"])
    (json_link,) = items(template, "configs")["DeepSpeed config"]
    assert json_link.source.startswith("found at") and json_link.source.endswith("zero_stage1_config.json")


def test_a_config_name_only_the_run_time_knows(tmp_path: Path) -> None:
    """MindSpeed-MM's sd3 LoRA script: `--config_file ${config_file}`, a name its argument loop may
    replace. The link says why it is unknown; nothing is reported missing, and the sizes say they
    are in the config that was not read. The config checked alone finds the JSON it names
    (`./sd3/deepspeed_fp16.json`, relative to examples/diffusers, where the script runs from)."""
    root = clone("deepspeed/MindSpeed-MM", tmp_path)
    folder = root / "examples/diffusers/sd3"
    # read once per way its option loop runs (#39): with no arguments config_file is the script's own
    # ./sd3/fp16_accelerate_config.yaml, found; given arguments, the loop may replace it: unknown
    defaults, given = _launches([folder / "finetune_sd3_dreambooth_lora_deepspeed_fp16.sh"])
    assert item(defaults, "launch", "alternative").value.startswith("1 of 2: when the script is given no arguments (the loop at line 20)")
    assert items(defaults, "configs")["Accelerate config"][0].source.startswith("found at")
    (config,) = items(given, "configs")["Accelerate config"]
    assert config.value == "unknown" and "config_file is assigned in the loop at line 20" in config.source
    assert {f.code for d in (defaults, given) for f in d.findings} & {"RL010", "RL012"} == set()
    assert item(given, "launch", "rendezvous").source == "in the accelerate config, which was not read"
    (alone,) = _launches([folder / "fp16_accelerate_config.yaml"])
    (json_link,) = items(alone, "configs")["DeepSpeed config"]
    assert json_link.source == f"found at {root / 'examples/diffusers/sd3/deepspeed_fp16.json'}"


def test_accelerate_readme_config_written_first_and_cpu(tmp_path: Path) -> None:
    """accelerate's examples/README.md: `accelerate config --config_file config.yaml` (which writes
    it) before `accelerate launch --config_file config.yaml`: not missing; and
    `accelerate launch --cpu ./nlp_example.py` starts one process, not one per GPU."""
    root = clone("deepspeed/accelerate", tmp_path)
    readme = root / "examples/README.md"
    descriptions = _launches([readme])
    assert [f.code for d in descriptions for f in d.findings if f.code == "RL010"] == []
    written = [d for d in descriptions if "Accelerate config" in items(d, "configs")]
    assert [d.line for d in written] == [176, 186, 202]
    sources = [items(d, "configs")["Accelerate config"][0].source for d in written]
    assert sources == [f"written by the script itself at line {line}; not read" for line in (175, 185, 201)]
    cpu = next(d for d in descriptions if d.line == 48)
    assert (item(cpu, "launch", "ranks per node").value, item(cpu, "launch", "ranks per node").source) == (
        "1",
        "accelerate --cpu: one process",
    )


def test_alignment_handbook_readme_names_a_config_it_does_not_have(tmp_path: Path) -> None:
    """alignment-handbook's scripts/README.md runs `accelerate launch --config_file
    recipes/accelerate_configs/fsdp+qlora.yaml`; the repository has ddp, fsdp and zero3 configs
    (v0.3.0 had fsdp_qlora.yaml). Its ddp.yaml and zero3.yaml lines are found."""
    root = clone("deepspeed/alignment-handbook", tmp_path)
    descriptions = _launches([root / "scripts/README.md"])
    missing = [(d.line, f.message.split(" is not")[0]) for d in descriptions for f in d.findings if f.code == "RL010"]
    assert missing == [(28, "Accelerate config recipes/accelerate_configs/fsdp+qlora.yaml")]
    found = [items(d, "configs")["Accelerate config"][0].source for d in descriptions if d.line != 28]
    assert found and all(source.startswith("found at") for source in found)
