"""The toolkit registry: a toolkit registered from outside is checked end to end, and the order
in which toolkits claim a script is explicit."""

from __future__ import annotations

import json
from pathlib import Path

from recipelint import engine, fix
from recipelint.discovery import not_a_recipe
from recipelint.hardware.profile import dump_profile, load_profile
from recipelint.model import Recipe
from recipelint.parse.files import FileCache, SourceError
from recipelint.parse.shell import Command, ShellScript, parse_shell
from recipelint.parse.span import SourceText
from recipelint.rules import all_rules
from recipelint.settings import Resolver
from recipelint.toolkits import REGISTRY, Claim, Offer, Target, Toolkit, claimants, load_target, ranked, read_script, registered
from tests import toytool
from tests.helpers import A100, CORPUS, DATA, REPO, UPSTREAM, describe

EXAMPLES = REPO / "examples"


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
    assert [toolkit.name for toolkit in REGISTRY] == ["slurm", "kube", "wenet", "xtuner", "deepspeed", "unjudged"]


def test_a_batch_script_is_slurms_and_its_launch_the_trainers() -> None:
    """Slurm claims a batch script first and hands its launch to the toolkit that reads it: the
    recipe is WeNet's, with the job's allocation."""
    text = "#!/bin/bash\n#SBATCH --nodes=2 --gres=gpu:8\ntorchrun --nnodes $SLURM_NNODES --nproc_per_node 8 wenet/bin/train.py --config c.yaml\n"
    script = parse_shell(SourceText(Path("job.sh"), text.encode()))
    target = Target("script", Path("job.sh"))
    assert [t.name for t in ranked(target, script)] == ["slurm"]  # the only claim on the whole file
    [command] = script.commands
    assert _claimed(command, target, script) == ["wenet", "deepspeed"]
    assert REGISTRY[0].name == "slurm"
    [recipe] = REGISTRY[0].load(target, FileCache(), script)
    assert recipe.toolkit == "wenet" and recipe.allocation is not None
    assert recipe.launch is not None and recipe.launch.nnodes.value == 2


def test_a_training_manifest_is_kubes_before_wenets(tmp_path: Path) -> None:
    """A YAML with `apiVersion` and a kind Kubernetes runs (PyTorchJob, Job, Pod) is a manifest,
    claimed ahead of WeNet's train YAML; another YAML is not."""
    manifest = tmp_path / "job.yaml"
    manifest.write_text("apiVersion: v1\nkind: Pod\nspec:\n  containers: []\n")
    assert [t.name for t in ranked(Target("yaml", manifest), None)] == [
        "kube"
    ]  # WeNet claims a YAML on dataset_conf with its ASR model's keys only
    (tmp_path / "train.yaml").write_text("encoder: conformer\ndataset_conf: {}\naccum_grad: 1\n")
    assert ranked(Target("yaml", tmp_path / "train.yaml"), None)[0].name == "wenet"


def _script(text: str) -> tuple[Target, FileCache]:
    files = FileCache()
    return Target("command", Path("<command>"), text), files


def _claimed(command: Command, target: Target, script: ShellScript) -> list[str]:
    return [toolkit.name for _, toolkit in claimants(command, Offer(target, script, FileCache()))]


def test_a_wenet_launch_is_claimed_before_deepspeed() -> None:
    """No whole-file claim on a run script: its command is WeNet's (0.9, on train.py) before it
    is a plain DeepSpeed launch (0.4); XTuner does not claim it."""
    text = "python wenet/bin/train.py --config conf/train.yaml --deepspeed_config conf/ds.json\n"
    script = parse_shell(SourceText(Path("run.sh"), text.encode()))
    target = Target("script", Path("run.sh"))
    assert ranked(target, script) == []
    [command] = script.commands
    assert _claimed(command, target, script) == ["wenet", "deepspeed"]
    claim, _ = claimants(command, Offer(target, script, FileCache()))[0]
    assert (claim.confidence, claim.evidence) == (0.9, "runs wenet/bin/train.py")


def test_a_command_that_calls_a_wenet_script_is_wenets_last(tmp_path: Path) -> None:
    """`bash other.sh` is WeNet's (0.1) when other.sh launches train.py; not from a command line."""
    (tmp_path / "other.sh").write_text("torchrun wenet/bin/train.py --config c.yaml\n")
    (tmp_path / "idle.sh").write_text("echo hi\n")
    run = tmp_path / "run.sh"
    script = parse_shell(SourceText(run, b"bash other.sh\nbash idle.sh\n"))
    target = Target("script", run)
    calls, idle = script.commands
    assert _claimed(calls, target, script) == ["wenet"] and _claimed(idle, target, script) == []
    assert _claimed(calls, Target("command", Path("<command>")), script) == []


def test_xtuner_wins_a_command_that_both_xtuner_and_deepspeed_could_read() -> None:
    target, files = _script("NPROC_PER_NODE=8 xtuner train internlm2_chat_7b_qlora_oasst1_e3 --deepspeed deepspeed_zero2\n")
    [recipe] = load_target(target, files)
    assert recipe.toolkit == "xtuner"
    target, files = _script("deepspeed train.py --deepspeed_config ds.json\n")
    assert [r.toolkit for r in load_target(target, files)] == ["deepspeed"]


def test_files_by_kind_go_to_their_toolkit(tmp_path: Path) -> None:
    (tmp_path / "ds.json").write_text(json.dumps({"train_batch_size": 8}))
    (tmp_path / "train.yaml").write_text("encoder: conformer\ndataset_conf: {}\naccum_grad: 1\n")
    for kind, name, toolkit in (("json", "ds.json", "deepspeed"), ("yaml", "train.yaml", "wenet"), ("python", "x.py", "xtuner")):
        assert ranked(Target(kind, tmp_path / name), None)[0].name == toolkit


def test_a_deepspeed_json_alone_is_a_deepspeed_recipe(tmp_path: Path) -> None:
    """Only the rules that apply to DeepSpeed run on it, and `show` and RL004 name DeepSpeed."""
    (tmp_path / "ds.json").write_text(json.dumps({"train_batch_size": 8}))
    (recipe,) = load_target(Target("json", tmp_path / "ds.json"), FileCache())
    assert recipe.toolkit == "deepspeed" and recipe.ds_config is not None


def test_an_accelerate_config_yaml_goes_to_deepspeed_alone() -> None:
    """alignment-handbook's zero3.yaml: no dataset_conf or encoder at its top, so WeNet does not
    claim it; DeepSpeed claims it on `distributed_type` and reads it."""
    path = UPSTREAM / "deepspeed/alignment-handbook/recipes/accelerate_configs/zero3.yaml"
    target = Target("yaml", path)
    assert [t.name for t in ranked(target, None)] == ["deepspeed"]
    (recipe,) = load_target(target, FileCache())
    assert recipe.toolkit == "deepspeed" and recipe.config is None and recipe.payload is not None


# -- the seam: a toolkit claims only on its own evidence ------------------------------------------

LLAMA_FACTORY = DATA / "nonrecipe/LLaMA-Factory"
LORA_SFT = LLAMA_FACTORY / "examples/train_lora/qwen3_lora_sft.yaml"
WENET_YAML = CORPUS / "wenet/examples/aishell/s0/conf/train_conformer.yaml"
ESPNET_YAML = DATA / "nonrecipe/espnet/egs2/aishell/asr1/conf/tuning/train_asr_conformer_e12_amp.yaml"


class TrainerArguments(Toolkit):
    """A toolkit as a reviewer would add one: LLaMA-Factory train YAMLs, on their own keys."""

    name = "llamafactory"
    suffixes: tuple[str, ...] = ()
    rules: tuple[str, ...] = ()
    preload: tuple[str, ...] = ()

    def claims(self, target: Target, script: ShellScript | None) -> float:
        if target.kind != "yaml":
            return 0.0
        text = target.path.read_text()
        return 1.0 if "\nstage:" in text and text.startswith("### model\nmodel_name_or_path:") else 0.0

    def load(self, target: Target, files: FileCache, script: ShellScript | None) -> list[Recipe]:
        from recipelint.parse.yamlfile import parse_yaml

        document = parse_yaml(files.read(target.path))
        return [Recipe(root=target.root, toolkit=self.name, explicit=target.explicit, payload=document)]


def test_a_toolkit_appended_to_the_registry_gets_the_yaml_its_evidence_claims() -> None:
    """Appended last, it still reads LLaMA-Factory's YAML (WeNet claimed every YAML at 1.0 and won
    the tie), and a WeNet train YAML stays WeNet's."""
    with registered(TrainerArguments()):
        assert [t.name for t in ranked(Target("yaml", LORA_SFT), None)] == ["llamafactory"]
        result = engine.check([LORA_SFT], resolver=Resolver(isolated=True))
        assert [r.toolkit for r in result.recipes] == ["llamafactory"]
        assert [t.name for t in ranked(Target("yaml", WENET_YAML), None)] == ["wenet"]


def test_another_trainers_yaml_is_no_wenet_recipe() -> None:
    """Without a toolkit for them, LLaMA-Factory's train YAMLs and ESPnet's (`encoder: conformer`,
    `encoder_conf`, `decoder` as in WeNet's, but no `dataset_conf`, `tokenizer` or `cmvn`: WeNet's
    rules called it a WeNet v3 config that stops with KeyError, and nine keys ignored) are
    nobody's: no recipe, no RL011 'not a WeNet train config', no '(wenet)' in show. A WeNet train
    YAML named alone is WeNet's."""
    for path in (LORA_SFT, LLAMA_FACTORY / "examples/train_lora/qwen3_lora_sft_ds3.yaml", ESPNET_YAML):
        assert ranked(Target("yaml", path, explicit=True), None) == []
        descriptions, result = describe([path])
        assert descriptions == [] and result.recipes == [] and result.diagnostics == []
    descriptions, _ = describe([WENET_YAML])
    assert [d.toolkit for d in descriptions] == ["wenet"]


def test_files_of_the_tools_around_a_repository_are_not_recipes() -> None:
    """pre-commit passes every changed YAML; its own config, a workflow, a compose file and a
    hardware profile (the examples' own, and the one recipelint.toml names) are none of the recipes."""
    profile = EXAMPLES / "wenet-4node-v100/hardware-v100-node.yaml"
    named = [
        LLAMA_FACTORY / ".pre-commit-config.yaml",
        LLAMA_FACTORY / ".github/workflows/tests.yml",
        LLAMA_FACTORY / "docker/docker-cuda/docker-compose.yml",
        profile,
        A100,
    ]
    assert [not_a_recipe(path) is not None for path in named] == [True] * len(named)
    result = engine.check(named, resolver=Resolver(isolated=True))
    assert result.recipes == [] and result.diagnostics == [] and result.errors == []
    # the same text under another name is still told apart: it validates as a profile
    assert not_a_recipe(WENET_YAML) is None


def test_a_profile_written_as_json_is_not_read_as_a_deepspeed_config(tmp_path: Path) -> None:
    """`recipelint probe --format json` writes a profile DeepSpeed would read as a config with
    no DeepSpeed key (RL011); a DeepSpeed JSON with a `gpus` key is still a DeepSpeed config."""
    path = tmp_path / "node.json"
    path.write_text(dump_profile(load_profile(A100), "json"))
    assert not_a_recipe(path) == "a recipelint hardware profile"
    result = engine.check([path], resolver=Resolver(isolated=True))
    assert result.recipes == [] and result.diagnostics == []
    (tmp_path / "ds.json").write_text(json.dumps({"train_batch_size": 8, "gpus": 8, "cpus": 96}))
    assert not_a_recipe(tmp_path / "ds.json") is None
    assert [r.toolkit for r in engine.check([tmp_path / "ds.json"], resolver=Resolver(isolated=True)).recipes] == ["deepspeed"]


def test_no_two_toolkits_claim_a_real_file_equally() -> None:
    """Ties go by registry order, which a toolkit added later cannot see: on every real config and
    run script the tests carry, and on every command of those scripts, the claims that are not 0 differ."""
    files = FileCache()
    paths = [p for p in sorted(DATA.rglob("*")) if p.is_file() and p.suffix in (".yaml", ".yml", ".json", ".sh", ".py")]
    paths += sorted(EXAMPLES.rglob("*.sh"))
    kinds = {".yaml": "yaml", ".yml": "yaml", ".json": "json", ".sh": "script", ".py": "python"}
    checked = commands = 0
    for path in paths:
        target = Target(kinds[path.suffix], path)
        script = None
        if target.kind == "script":
            try:
                script = read_script(target, files)
            except SourceError:
                continue
        claims = [c for c in (toolkit.claims(target, script) for toolkit in REGISTRY) if c > 0]
        assert len(claims) == len(set(claims)), f"{path}: equal claims {claims}"
        checked += 1
        for command in script.commands if script is not None else []:
            offer = Offer(target, script, files)  # type: ignore[arg-type]
            on = [c.confidence for c in (toolkit.claim(command, offer) for toolkit in REGISTRY) if c is not None and c.confidence > 0]
            assert len(on) == len(set(on)), f"{path}:{command.span.line}: equal claims {on}"
            commands += bool(on)
    assert checked > 500 and commands > 300


# -- the rule loop: one rule's bug costs no other rule's findings ---------------------------------


class Broken(Toolkit):
    """A toolkit that claims nothing and brings one rule that raises on every recipe."""

    name = "broken"
    suffixes: tuple[str, ...] = ()
    rules: tuple[str, ...] = ("tests.brokenrule",)
    preload: tuple[str, ...] = ()

    def claims(self, target: Target, script: ShellScript | None) -> float:
        return 0.0

    def load(self, target: Target, files: FileCache, script: ShellScript | None) -> list[Recipe]:
        return []


def test_a_rule_that_raises_is_named_and_the_other_findings_are_kept() -> None:
    """On examples/ (three WeNet cases) the findings are the same with a broken rule among the
    rules; each recipe says which rule failed instead of losing all its findings."""
    before = engine.check([EXAMPLES], hardware=lambda: load_profile(A100), resolver=Resolver(isolated=True))
    assert len(before.diagnostics) >= 5 and before.errors == []
    with registered(Broken()):
        after = engine.check([EXAMPLES], hardware=lambda: load_profile(A100), resolver=Resolver(isolated=True))
    assert [(d.code, d.span, d.message) for d in after.diagnostics] == [(d.code, d.span, d.message) for d in before.diagnostics]
    assert len(after.errors) == len(after.recipes) == len(before.recipes)
    assert {str(e).split(": ", 1)[1] for e in after.errors} == {
        f"internal error in TOY900: RuntimeError: broken on {r.root.name}" for r in after.recipes
    }


class ToyNamer(Broken):
    """A toolkit whose launches name a `.toy` file with `--toy FILE` (it claims such a command,
    and builds nothing of it)."""

    name = "namer"
    rules: tuple[str, ...] = ()

    def claim(self, command: Command, offer: Offer) -> Claim | None:
        return Claim(0.3, "passes --toy") if any(word.value == "--toy" for word in command.words) else None

    def configs_named(self, command: Command, offer: Offer) -> list[str]:
        words = [word.value or "" for word in command.words]
        return [after for before, after in zip(words, words[1:], strict=False) if before == "--toy"]


def test_discovery_asks_every_toolkit_which_configs_a_script_names(tmp_path: Path) -> None:
    """A config a script's launch names is read with the launch, not again alone: discovery asks
    each registered toolkit (Toolkit.configs_named), not WeNet's front end."""
    from recipelint.discovery import discover

    (tmp_path / "run.sh").write_text("python train.py --toy train.toy\n")
    (tmp_path / "train.toy").write_text("workers = 0\n")
    (tmp_path / "other.toy").write_text("workers = 0\n")
    with registered(toytool.Toytool()):
        alone = [t.path.name for t in discover([tmp_path], FileCache())]
        with registered(ToyNamer()):
            named = [t.path.name for t in discover([tmp_path], FileCache())]
    assert alone == ["run.sh", "other.toy", "train.toy"]
    assert named == ["run.sh", "other.toy"]


class Preloading(Broken):
    """A toolkit whose front end needs a module loaded before worker processes fork."""

    name = "preloading"
    rules: tuple[str, ...] = ()
    preload: tuple[str, ...] = ("colorsys",)  # a standard module nothing else of a check imports


def test_the_engine_preloads_what_each_toolkit_names_before_workers_fork(tmp_path: Path) -> None:
    import sys

    from recipelint.hardware.machines import Machines
    from recipelint.settings import Settings

    sys.modules.pop("colorsys", None)
    job = engine.Job(FileCache(), None, Machines(None), True, False)
    engine._prepare(job, [(Target("script", tmp_path / "run.sh"), Settings())])
    assert "colorsys" not in sys.modules
    with registered(Preloading()):
        engine._prepare(job, [(Target("script", tmp_path / "run.sh"), Settings())])
    assert "colorsys" in sys.modules


def test_a_sister_toolkits_yaml_is_not_wenets() -> None:
    """wenet-e2e/wekws shares WeNet's `dataset_conf` but its YAMLs describe a keyword spotter
    (`model: {...}`, `training_config`) read by wekws/bin/train.py: no WeNet rule judges them,
    while a WeNet YAML with the same `dataset_conf` and an encoder is WeNet's."""
    from recipelint import engine
    from recipelint.settings import Resolver

    root = DATA / "nonrecipe" / "wekws" / "examples" / "hi_xiaowen" / "s0"
    for name in ("ds_tcn.yaml", "fsmn_ctc.yaml"):
        assert ranked(Target("yaml", root / "conf" / name), None) == []
    result = engine.check([root], hardware=None, files=FileCache(), resolver=Resolver(isolated=True))
    assert not result.errors and [d.code for d in result.diagnostics if d.code.startswith("RL7")] == []


FUNASR = DATA / "nonrecipe" / "FunASR"


def test_funasrs_train_yamls_are_not_wenets() -> None:
    """modelscope/FunASR's train YAMLs have `dataset_conf`, `encoder`, `decoder`, `ctc_conf` and
    `tokenizer` as WeNet's do, but keep their trainer's settings under `train_conf` (read by
    funasr/bin/train.py): as WeNet configs they got RL701 warnings for every FunASR key and
    RL702/RL705 errors. None of WeNet's trainer keys is at their top, so WeNet does not claim them;
    every WeNet train YAML the tests carry keeps its claim."""
    yamls = sorted(FUNASR.rglob("*.yaml"))
    assert len(yamls) == 3
    for path in yamls:
        assert ranked(Target("yaml", path, explicit=True), None) == []
    result = engine.check([FUNASR], hardware=None, files=FileCache(), resolver=Resolver(isolated=True))
    assert not result.errors and [d.code for d in result.diagnostics if d.code.startswith("RL7")] == []
    wenet = [p for p in sorted((DATA / "corpus" / "wenet").rglob("*.yaml")) + sorted(UPSTREAM.rglob("wenet/**/conf/*.yaml"))]
    assert len(wenet) > 100
    for path in wenet:
        assert [t.name for t in ranked(Target("yaml", path), None)][:1] == ["wenet"], path


def test_an_unknown_program_with_an_unknown_module_is_no_launch() -> None:
    """gpt4all's launcher.sh runs `./"$binary_filename" -m "$selected_bin_file"` (its chat binary
    on a model file): neither the program nor the module after -m is known, so nothing says it is
    a training launch; `$exe train.py` (a training script) stays one (LMFlow's, in test_upstream_launches)."""
    from recipelint import engine
    from recipelint.settings import Resolver

    script = DATA / "nonrecipe" / "gpt4all" / "gpt4all-training" / "launcher.sh"
    result = engine.check([script], hardware=None, files=FileCache(), resolver=Resolver(isolated=True))
    assert not result.errors and result.diagnostics == [] and result.judged == []
