"""Claims per command: each launch of a script or README is offered to every toolkit and read by
the one whose evidence claims it, so a second kind of launch in one file is a recipe of its own
(issue 37). The files are real, or built from the closest real files where their SOURCE.md says so."""

from __future__ import annotations

from pathlib import Path
from typing import cast

from recipelint import engine
from recipelint.checkoptions import CheckOptions
from recipelint.parse.files import FileCache
from recipelint.settings import Resolver
from recipelint.toolkits import Offer, Target, Toolkit, claimants, configs_named, load_target, read_script
from tests.helpers import DATA, UPSTREAM, describe, item

WENET_THEN_DS = DATA / "claims" / "wenet-run-then-deepspeed"
FORK = UPSTREAM / "wenet-fork-sed"
FORK_RUN = FORK / "examples" / "stutter_event" / "s0" / "run.sh"


def _check(paths: list[Path]) -> engine.Result:
    return engine.check(paths, hardware=None, files=FileCache(), resolver=Resolver(isolated=True))


def _findings(result: engine.Result) -> list[tuple[str, str, int]]:
    return sorted((d.code, d.span.path.name, d.span.line) for d in result.diagnostics)


def test_a_wenet_run_script_with_a_later_deepspeed_stage_reads_both_launches() -> None:
    """WeNet's aishell run.sh with a stage 10 that starts `deepspeed ... --deepspeed_config
    ds_config.json`: the train.py launch is WeNet's, the deepspeed launch DeepSpeed's, and the
    JSON's batch-triple error (RL415) is found, as `--command` finds it for that line alone.
    Before, the script was WeNet's whole and RL415 appeared nowhere."""
    run = WENET_THEN_DS / "run.sh"
    recipes = load_target(Target("script", run), FileCache())
    assert [(r.toolkit, r.launch.command.span.line if r.launch else 0) for r in recipes] == [("wenet", 160), ("deepspeed", 317)]
    folder = _check([WENET_THEN_DS])
    alone = _check([run])
    assert ("RL415", "ds_config.json", 2) in _findings(folder)
    assert _findings(alone) == _findings(folder)
    line = "deepspeed --num_gpus 7 train.py --deepspeed_config " + str(WENET_THEN_DS / "ds_config.json")
    command = engine.check([], CheckOptions(command=line), hardware=None, files=FileCache(), resolver=Resolver(isolated=True))
    [triple] = [d for d in command.diagnostics if d.code == "RL415"]
    [same] = [d for d in folder.diagnostics if d.code == "RL415"]
    assert (triple.message, triple.span.path.resolve(), triple.span.start) == (same.message, same.span.path.resolve(), same.span.start)


def test_the_configs_a_script_names_are_those_its_claimed_launches_read() -> None:
    """The YAML of the WeNet launch and the JSON of the deepspeed launch are read with their
    launches, not a second time alone."""
    named = {path.name for path in configs_named(WENET_THEN_DS / "run.sh", FileCache())}
    assert {"train_conformer.yaml", "ds_config.json"} <= named


def test_show_lists_each_launch_with_its_toolkit_and_the_evidence_of_its_claim() -> None:
    descriptions, _ = describe([WENET_THEN_DS / "run.sh"])
    assert [(d.toolkit, d.line) for d in descriptions] == [("wenet", 160), ("deepspeed", 317)]
    wenet, deepspeed = (item(d, "launch", "claimed by") for d in descriptions)
    assert (wenet.value, wenet.source) == ("wenet (0.9)", "runs wenet/bin/train.py")
    assert (deepspeed.value, deepspeed.source) == ("deepspeed (0.4)", "deepspeed runs train.py with --deepspeed_config ds_config.json")


def test_a_forks_own_trainer_that_imports_wenets_training_code_is_wenets() -> None:
    """ronggong/wenet's stutter_event recipe runs `torchrun ... wenet/bin/train_sed.py`, which
    imports wenet.utils.executor: WeNet claims it (it was a plain torchrun launch, no WeNet rule
    on it), reads its flags from train_sed.py of the fork beside it, and the YAML with it."""
    files = FileCache()
    target = Target("script", FORK_RUN)
    script = read_script(target, files)
    assert script is not None
    [launch] = [c for c in script.commands if any((w.value or "").endswith("train_sed.py") for w in c.words)]
    claims = claimants(launch, Offer(target, script, files))
    assert [(toolkit.name, claim.confidence) for claim, toolkit in claims] == [("wenet", 0.9), ("deepspeed", 0.4)]
    assert claims[0][0].evidence == "runs wenet/bin/train_sed.py, which imports wenet.utils.executor (WeNet's trainer)"
    descriptions, result = describe([FORK_RUN])
    [described] = descriptions
    assert described.toolkit == "wenet" and described.line == 90
    flags = item(described, "code", "train_sed.py flags")
    assert flags.value == "28 flags" and "wenet/bin/train_sed.py" in flags.source
    codes = {d.code for d in result.diagnostics}
    assert "RL601" not in codes  # --ddp.init_method and the rest are train_sed.py's own flags
    assert not result.errors


def test_a_fork_trainer_that_imports_no_wenet_code_stays_a_plain_launch(tmp_path: Path) -> None:
    """The evidence is the import: a wenet/bin/train_x.py that does not import WeNet's training
    code is not claimed by WeNet (a plain torchrun launch, as before)."""
    (tmp_path / "wenet" / "bin").mkdir(parents=True)
    (tmp_path / "wenet" / "bin" / "train_x.py").write_text("import torch\n")
    (tmp_path / "run.sh").write_text("torchrun --nproc_per_node 2 wenet/bin/train_x.py --config c.yaml\n")
    [recipe] = load_target(Target("script", tmp_path / "run.sh"), FileCache())
    assert recipe.toolkit == "torch"


def test_a_toolkit_added_from_outside_reads_its_launch_and_deepspeed_keeps_its_own(tmp_path: Path) -> None:
    """A torchtune toolkit, registered with one line (tests/tunetool.py: no core module edited),
    reads the `tune run` launch of a script that also starts a deepspeed launch: both are recipes,
    its finding (TOY002) and DeepSpeed's RL415 both appear, and the YAML its launch names is read
    with the launch, not alone. Unregistered, the tune launch is the unjudged toolkit's (RL013)."""
    from recipelint.toolkits import registered
    from tests import tunetool

    (tmp_path / "ds_config.json").write_text((WENET_THEN_DS / "ds_config.json").read_text())
    (tmp_path / "8B_lora.yaml").write_text("batch_size: 2\n")
    (tmp_path / "train.sh").write_text(
        "tune run lora_finetune_distributed --config 8B_lora.yaml\ndeepspeed --num_gpus 7 train.py --deepspeed_config ds_config.json\n"
    )
    without = _check([tmp_path])
    assert [r.toolkit for r in without.recipes] == ["unjudged", "deepspeed"]
    assert {"RL013", "RL415"} <= {d.code for d in without.diagnostics}
    with registered(tunetool.Torchtune()):
        result = _check([tmp_path])
        named = {p.name for p in configs_named(tmp_path / "train.sh", FileCache())}
    assert [r.toolkit for r in result.recipes] == ["torchtune", "deepspeed"]
    assert ("TOY002", "train.sh", 1) in _findings(result) and ("RL415", "ds_config.json", 2) in _findings(result)
    assert "RL013" not in {d.code for d in result.diagnostics}
    assert named == {"8B_lora.yaml", "ds_config.json"}


class Typo(Toolkit):
    """A toolkit that claims nothing and brings a rule whose TOOLKITS misspells `deepspeed`."""

    name = "typo"
    suffixes: tuple[str, ...] = ()
    rules: tuple[str, ...] = ("tests.typorule",)
    preload: tuple[str, ...] = ()


def test_a_misspelt_toolkit_in_a_rules_toolkits_fails_when_the_rules_load() -> None:
    """Recipe kinds are what registered toolkits build (Toolkit.name and Toolkit.kinds): a rule
    limited to a kind nobody builds would never run, so loading the rules refuses it."""
    import pytest

    from recipelint.rules import all_rules, rules_for
    from recipelint.toolkits import kinds, registered

    assert {"wenet", "deepspeed", "torch", "xtuner", "xtuner-v1", "slurm", "kube", "unjudged"} <= set(kinds())
    assert all_rules()  # the shipped rules name only kinds that exist
    with (
        registered(Typo()),
        pytest.raises(RuntimeError, match="tests.typorule: TOOLKITS names 'deepsped', which no registered toolkit builds"),
    ):
        rules_for(None)
    assert "TOY901" not in all_rules()


def test_tune_plans_both_launches_of_one_script() -> None:
    """`tune` plans WeNet's loader and the deepspeed launch of the same script (its DataLoader
    workers, #46): nothing is left unplanned, so no "offers no tune" line."""
    from recipelint import tune
    from recipelint.hardware.profile import load_profile
    from tests.helpers import A100

    profile = load_profile(A100)
    found, errors, skipped = tune.recipes([WENET_THEN_DS], lambda: profile, Resolver(isolated=True))
    assert [r.toolkit for r in found] == ["wenet", "deepspeed"] and errors == [] and skipped == []


MINICPM_README = UPSTREAM / "deepspeed" / "MiniCPM" / "minicpm_sala" / "finetune" / "README.md"


def test_a_readme_with_fences_of_two_toolkits_reads_every_launch() -> None:
    """OpenBMB/MiniCPM's minicpm_sala/finetune/README.md has a `deepspeed ... finetune.py
    --deepspeed configs/ds_config_zero3.json` fence, two `accelerate launch` ones, and two
    `llamafactory-cli train` fences: the DeepSpeed launches keep their findings (RL010) and the
    LLaMA-Factory launches, lost before (the README was DeepSpeed's whole), are each said (RL013)."""
    recipes = load_target(Target("markdown", MINICPM_README), FileCache())
    assert [(r.toolkit, r.launch.command.span.line if r.launch else None) for r in recipes] == [
        ("deepspeed", 72),
        ("torch", 106),
        ("unjudged", None),
        ("torch", 256),
        ("unjudged", None),
    ]
    result = _check([MINICPM_README])
    assert [(code, line) for code, _, line in _findings(result)] == [
        ("RL004", 256),
        ("RL010", 92),
        ("RL010", 257),
        ("RL013", 250),
        ("RL013", 263),
    ]
    descriptions, _ = describe([MINICPM_README])
    claims = [(d.toolkit, item(d, "launch", "claimed by").source) for d in descriptions]
    unjudged = "starts LLaMA-Factory (`llamafactory-cli train`), a trainer recipelint does not judge"
    assert claims == [
        ("deepspeed", "deepspeed runs finetune.py with --deepspeed configs/ds_config_zero3.json"),
        ("torch", "accelerate runs finetune.py"),
        ("unjudged", unjudged),
        ("torch", "accelerate runs src/train.py"),
        ("unjudged", unjudged),
    ]


def test_contributings_toolkit_template_runs_as_written() -> None:
    """The `Megatron` template of CONTRIBUTING.md's "Add a toolkit", executed as written: it
    claims a Megatron launch over DeepSpeed's plain reading of it (0.45 > 0.4), and no other."""
    import re

    from recipelint.parse.shell import parse_shell
    from recipelint.parse.span import SourceText
    from recipelint.toolkits import registered
    from tests.helpers import REPO

    text = (REPO / "CONTRIBUTING.md").read_text()
    [template] = [block for block in re.findall(r"```python\n(.*?)```", text, re.S) if "class Megatron(Toolkit)" in block]
    namespace: dict[str, object] = {"__name__": "megatron_template"}
    exec(compile("\n".join(line[3:] for line in template.splitlines()), "CONTRIBUTING.md", "exec"), namespace)
    assert Toolkit in type(namespace["MEGATRON"]).__mro__
    megatron = cast(Toolkit, namespace["MEGATRON"])
    run = Path("run.sh")
    script = parse_shell(SourceText(run, b"deepspeed pretrain_gpt.py --deepspeed_config ds.json\ntorchrun train.py\n"))
    target = Target("script", run)
    with registered(megatron):
        names = [[t.name for _, t in claimants(c, Offer(target, script, FileCache()))] for c in script.commands]
    assert names == [["megatron", "deepspeed"], ["deepspeed"]]
