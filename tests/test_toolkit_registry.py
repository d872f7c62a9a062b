"""The toolkit registry: a toolkit registered from outside is checked end to end, and the order
in which toolkits claim a script is explicit."""

from __future__ import annotations

import json
from pathlib import Path

from recipelint import engine, fix
from recipelint.parse.files import FileCache
from recipelint.parse.shell import parse_shell
from recipelint.parse.span import SourceText
from recipelint.rules import all_rules
from recipelint.settings import Resolver
from recipelint.toolkits import REGISTRY, Target, load_target, ranked, registered
from tests import toytool
from tests.helpers import UPSTREAM


def test_a_registered_toolkit_is_discovered_read_checked_and_fixed(tmp_path: Path) -> None:
    (tmp_path / "train.toy").write_text("# a toy recipe\nworkers = 0\n")
    (tmp_path / "ok.toy").write_text("workers = 4\n")
    with registered(toytool.Toytool()):
        assert all_rules()["TOY001"].toolkits == ("toytool",)
        result = engine.check([tmp_path], resolver=Resolver(isolated=True))
    assert "TOY001" not in all_rules()  # gone with its toolkit
    assert [r.toolkit for r in result.recipes] == ["toytool", "toytool"]
    [finding] = result.diagnostics
    assert (finding.code, finding.span.path.name, finding.span.line, finding.span.column) == ("TOY001", "train.toy", 2, 11)
    assert finding.message == "workers = 0 loads data in the trainer; use workers = 2"
    assert finding.fix is not None
    edits, _ = fix.choose_edits([finding], unsafe=False)
    path = tmp_path / "train.toy"
    assert fix.apply_edits(path.read_bytes(), edits[path]) == b"# a toy recipe\nworkers = 2\n"


def test_an_unregistered_suffix_is_not_a_target(tmp_path: Path) -> None:
    (tmp_path / "train.toy").write_text("workers = 0\n")
    result = engine.check([tmp_path], resolver=Resolver(isolated=True))
    assert result.recipes == [] and result.diagnostics == []


def test_the_registry_order() -> None:
    assert [toolkit.name for toolkit in REGISTRY] == ["slurm", "kube", "wenet", "xtuner", "deepspeed"]


def test_a_batch_script_is_slurms_and_its_launch_the_trainers() -> None:
    """Slurm claims a batch script first and hands its launch to the toolkit that reads it: the
    recipe is WeNet's, with the job's allocation."""
    text = "#!/bin/bash\n#SBATCH --nodes=2 --gres=gpu:8\ntorchrun --nnodes $SLURM_NNODES --nproc_per_node 8 wenet/bin/train.py --config c.yaml\n"
    script = parse_shell(SourceText(Path("job.sh"), text.encode()))
    target = Target("script", Path("job.sh"))
    assert [t.name for t in ranked(target, script)] == ["slurm", "wenet", "xtuner", "deepspeed"]
    assert REGISTRY[0].name == "slurm"
    [recipe] = REGISTRY[0].load(target, FileCache(), script)
    assert recipe.toolkit == "wenet" and recipe.allocation is not None
    assert recipe.launch is not None and recipe.launch.nnodes.value == 2


def test_a_training_manifest_is_kubes_before_wenets(tmp_path: Path) -> None:
    """A YAML with `apiVersion` and a kind Kubernetes runs (PyTorchJob, Job, Pod) is a manifest,
    claimed ahead of WeNet's train YAML; another YAML is not."""
    manifest = tmp_path / "job.yaml"
    manifest.write_text("apiVersion: v1\nkind: Pod\nspec:\n  containers: []\n")
    assert [t.name for t in ranked(Target("yaml", manifest), None)][:2] == ["kube", "wenet"]
    (tmp_path / "train.yaml").write_text("dataset_conf: {}\n")
    assert ranked(Target("yaml", tmp_path / "train.yaml"), None)[0].name == "wenet"


def _script(text: str) -> tuple[Target, FileCache]:
    files = FileCache()
    return Target("command", Path("<command>"), text), files


def test_a_wenet_launch_is_claimed_before_xtuner_and_deepspeed() -> None:
    text = "python wenet/bin/train.py --config conf/train.yaml --deepspeed_config conf/ds.json\n"
    script = parse_shell(SourceText(Path("run.sh"), text.encode()))
    target = Target("script", Path("run.sh"))
    assert [t.name for t in ranked(target, script)] == ["wenet", "xtuner", "deepspeed"]


def test_a_script_without_a_wenet_launch_goes_to_xtuner_then_deepspeed_then_wenet_called_scripts() -> None:
    script = parse_shell(SourceText(Path("run.sh"), b"bash other.sh\n"))
    target = Target("script", Path("run.sh"))
    assert [t.name for t in ranked(target, script)] == ["xtuner", "deepspeed", "wenet"]
    # a command line is never a WeNet run script
    assert [t.name for t in ranked(Target("command", Path("<command>")), script)] == ["xtuner", "deepspeed"]


def test_xtuner_wins_a_command_that_both_xtuner_and_deepspeed_could_read() -> None:
    target, files = _script("NPROC_PER_NODE=8 xtuner train internlm2_chat_7b_qlora_oasst1_e3 --deepspeed deepspeed_zero2\n")
    [recipe] = load_target(target, files)
    assert recipe.toolkit == "xtuner"
    target, files = _script("deepspeed train.py --deepspeed_config ds.json\n")
    assert [r.toolkit for r in load_target(target, files)] == ["deepspeed"]


def test_files_by_kind_go_to_their_toolkit(tmp_path: Path) -> None:
    (tmp_path / "ds.json").write_text(json.dumps({"train_batch_size": 8}))
    (tmp_path / "train.yaml").write_text("dataset_conf: {}\n")
    for kind, name, toolkit in (("json", "ds.json", "deepspeed"), ("yaml", "train.yaml", "wenet"), ("python", "x.py", "xtuner")):
        assert ranked(Target(kind, tmp_path / name), None)[0].name == toolkit


def test_a_deepspeed_json_alone_is_a_deepspeed_recipe(tmp_path: Path) -> None:
    """Only the rules that apply to DeepSpeed run on it, and `show` and RL004 name DeepSpeed."""
    (tmp_path / "ds.json").write_text(json.dumps({"train_batch_size": 8}))
    (recipe,) = load_target(Target("json", tmp_path / "ds.json"), FileCache())
    assert recipe.toolkit == "deepspeed" and recipe.ds_config is not None


def test_an_accelerate_config_yaml_goes_to_deepspeed_after_wenet_declines_it() -> None:
    """alignment-handbook's zero3.yaml: WeNet claims every YAML first, but its load declines an
    Accelerate config (top-level distributed_type and compute_environment); DeepSpeed reads it."""
    path = UPSTREAM / "deepspeed/alignment-handbook/recipes/accelerate_configs/zero3.yaml"
    target = Target("yaml", path)
    assert [t.name for t in ranked(target, None)] == ["wenet", "deepspeed"]
    (recipe,) = load_target(target, FileCache())
    assert recipe.toolkit == "deepspeed" and recipe.config is None and recipe.payload is not None
