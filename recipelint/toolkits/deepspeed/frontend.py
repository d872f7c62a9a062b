"""Other launches that hand DeepSpeed a JSON: `deepspeed`, `torchrun`, `python` or `accelerate
launch` (alone, or under `srun` / `mpirun`) running any training script with
`--deepspeed_config x.json` (DeepSpeed's own argument: the JSON reaches DeepSpeed as is),
`--deepspeed x.json` (Hugging Face TrainingArguments: the trainer fills "auto"), or Accelerate's
`--deepspeed_config_file x.json`. The launch gives the world size the batch triple is checked
against.

The file a launch names is DeepSpeed's whatever its suffix (open-instruct's `.conf`). It is
looked up in the folders the launch may run from (`launchers.set_places`); one the script
writes itself (`cat <<EOF > $ds_config`) is not missing, and one found nowhere is kept as a
link with the folders tried, for RL010.

A distributed launch (torchrun, deepspeed, accelerate, srun/mpirun) with no DeepSpeed config is
still a recipe of toolkit "torch": the launch rules (rendezvous, process-group backend) apply.
"""

from __future__ import annotations

import os
import posixpath
import re
from pathlib import Path

from recipelint.model import Consumer, Launch, Link, Recipe, Setting
from recipelint.parse.files import FileCache, SourceError
from recipelint.parse.jsonfile import parse_json
from recipelint.parse.shell import Binding, Command, ShellScript, Word, Written, unknown_path
from recipelint.parse.span import SourceText, Span
from recipelint.parse.where import repo_root
from recipelint.records import replace
from recipelint.toolkits import Target
from recipelint.toolkits.accelerate import config_file_setting, deepspeed_file, is_config, options, options_start, parse_accelerate
from recipelint.toolkits.deepspeed.knowledge import named_deepspeed
from recipelint.toolkits.launchers import (
    DISTRIBUTED_MODULES,
    branch_values,
    distributed_module,
    launch_env,
    parse_deepspeed_launcher,
    parse_mpirun,
    parse_srun,
    parse_torchrun,
    scan_options,
    server,
    set_places,
    setting_from_word,
    word_text,
)

LAUNCHERS = {"deepspeed", "torchrun", "python", "python3", "accelerate"}
WRAPPERS = {"srun", "mpirun", "mpiexec"}
_PREFIXES = {"nohup", "exec", "time", "env", "stdbuf"}
_RUNNERS = {"uv", "poetry", "pipenv"}
# A DeepSpeed config flag in an assignment's text: `ds_args="--deepspeed_config $DS_CONFIG"`.
_FLAG_TEXT = re.compile(r"--deepspeed(_config(_file)?)?\b")
_REFERENCE = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")
DS_FLAGS = ("--deepspeed_config", "--deepspeed", "--deepspeed_config_file")
# What a launch flag alone says of the JSON's consumer, when the training code cannot be read.
FLAG_CONSUMER = {
    "--deepspeed": ("hf-trainer", "Hugging Face TrainingArguments"),
    "--deepspeed_config": ("deepspeed", "DeepSpeed's own argument, read by the script's deepspeed.initialize"),
    "--deepspeed_config_file": ("accelerate", "Accelerate's DeepSpeed plugin"),
}
ROLE = "DeepSpeed config"


def _name(word: Word) -> str:
    return Path(word_text(word)).name


def _launcher(words: list[Word]) -> int | None:
    """The launcher's word, past what only runs the rest of the command: `srun`/`mpirun` and their
    options, `nohup`, `env`, `uv run`, a job submitter's `... -- accelerate launch`; or a first
    word the run time decides (`${exe} train.py`, exe being `deepspeed` or `python`)."""
    index = 0
    submitted = next((i + 1 for i, w in enumerate(words[:-1]) if word_text(w) == "--" and _name(words[i + 1]) in LAUNCHERS), None)
    while index < len(words):
        name = _name(words[index])
        if name in LAUNCHERS:
            # `python mason.py ... -- accelerate launch ...`: a submitter script runs the launch after `--`
            return submitted if submitted is not None and name.startswith("python") else index
        if name in WRAPPERS:
            return next(
                (i for i, w in enumerate(words[index + 1 :], index + 1) if _name(w) in LAUNCHERS or word_text(w).endswith(".py")), None
            )
        if name in _PREFIXES or "=" in word_text(words[index]) and index > 0:
            index += 1
        elif name in _RUNNERS and index + 1 < len(words) and word_text(words[index + 1]) == "run":
            index += 2
        elif index == 0 and words[0].value is None and not _no_launcher_on_any_branch(words[0]):
            return 0
        else:
            break
    return submitted


def _no_launcher_on_any_branch(word: Word) -> bool:
    """A `$var` first word that each branch of an `if` sets to a command the script spells, none a
    launcher: wesep's tools/score.sh runs `${cmd} JOB=1:N log python -m wesep.bin.score` with cmd
    `./tools/run.pl --gpu 1` or `./tools/run.pl` (Kaldi's job runner), no distributed launch."""
    binding = word.binding
    if binding is None or binding.branches is None:
        return False
    runs = LAUNCHERS | WRAPPERS | _PREFIXES | _RUNNERS
    for branch in binding.branches:
        first = branch.value.split()[:1] if branch is not None and branch.value is not None else []
        if not first or Path(first[0]).name in runs:
            return False
    return True


def program(words: list[Word]) -> tuple[int, int] | None:
    """(index of the launcher, index of the training script: a *.py, or the module after -m);
    None for an inference server's start (toolkits/unjudged says it)."""
    launcher = _launcher(words) if words else None
    if launcher is None or server(words) is not None:
        return None
    if word_text(words[launcher]).endswith(".py"):
        return launcher, launcher
    for index in range(launcher + 1, len(words)):
        if word_text(words[index]).endswith(".py") or all(v.endswith(".py") for v in branch_values(words[index]) or ["-"]):
            return launcher, index
    inline = _inline_program(words, launcher)
    if inline is not None:
        return launcher, inline
    unknown = words[launcher].value is None
    for index in range(launcher + 1, len(words) - 1):
        module = word_text(words[index + 1])
        if word_text(words[index]) in ("-m", "--module") and module not in DISTRIBUTED_MODULES:
            if unknown and words[index + 1].value is None:
                # `./"$binary" -m "$model"` (gpt4all's launcher.sh runs a chat binary on a model
                # file): neither the program nor the module is known, nothing says it is a training launch
                return None
            return launcher, index + 1
    return None


def _inline_program(words: list[Word], launcher: int) -> int | None:
    """`torchrun --no-python python3 -c CODE` (kubeflow/trainer's examples/yaml): torchrun runs the
    program as given in each rank, here Python on code written in the command; the code is the
    training script (not a file, so nothing more of it is read)."""
    if _name(words[launcher]) != "torchrun" or not any(word_text(w) == "--no-python" for w in words[launcher + 1 :]):
        return None
    for index in range(launcher + 2, len(words) - 1):
        if word_text(words[index]) == "-c" and _name(words[index - 1]).startswith("python"):
            return index + 1
    return None


def ds_flag(words: list[Word], start: int) -> tuple[str, Word] | None:
    """The first DeepSpeed config flag after `start` with a value (Megatron's bare `--deepspeed`
    switch is skipped)."""
    for position in range(start, len(words)):
        word = words[position]
        value: Word | None
        if word.option is not None:
            name, value = word.option
        else:
            name = word_text(word)
            value = words[position + 1] if position + 1 < len(words) else None
        if name in DS_FLAGS and value is not None and not word_text(value).startswith("-"):
            return name, value
    return None


def _names_a_file(value: Word) -> bool:
    """A path, not a preset name such as ms-swift's `zero2` (no folder, no suffix)."""
    text = word_text(value)
    return value.value is None or "/" in text or "." in Path(text).name


def _launch(script: ShellScript, command: Command, launcher: int, index: int, recipe: Recipe, files: FileCache) -> Launch:
    first = _name(command.words[0])
    if command.words[launcher].value is None:
        return _unknown_launcher(script, command, launcher, index)
    if options_start(command.words, launcher) is not None:
        inner = Command(command.words[launcher:], command.span, command.env, command.scope, command.cwd)
        return parse_accelerate(script, inner, index - launcher, recipe, files)
    if first == "srun" and launcher != 0 and _name(command.words[launcher]) not in ("torchrun", "deepspeed", "accelerate"):
        # `python [-u] -m torch.distributed.run`: an elastic agent per task, which starts its own
        # ranks (bigscience's `srun ... bash -c "$LAUNCHER"`), not one rank per task
        if distributed_module(command.words, launcher, index) is None:
            return parse_srun(script, command, index, program=launcher)
    if first in ("mpirun", "mpiexec"):
        return parse_mpirun(script, command, index)
    inner = command
    if launcher:  # srun torchrun ...: the inner launcher's options decide
        inner = Command(command.words[launcher:], command.span, command.env, command.scope, command.cwd)
    if _name(inner.words[0]) == "deepspeed":
        return parse_deepspeed_launcher(script, inner, index - launcher)
    return parse_torchrun(script, inner, index - launcher)


def _unknown_launcher(script: ShellScript, command: Command, launcher: int, index: int) -> Launch:
    """`${exe} train.py ...`: the launcher itself is decided at run time, so are its processes."""
    word = command.words[launcher]
    per_node = Setting("nproc_per_node", None, True, word.span, None, word.ref, word)
    nodes = Setting("nnodes", 1, False, word.span)
    rendezvous = Setting("master_addr", None, False, word.span)
    return Launch(word.text, command, command.words[index], nodes, per_node, rendezvous, launch_env(script, command))


def launch_evidence(script: ShellScript, command: Command) -> str | None:
    """Why a command is a launch this front end reads (what `load_ds_launches` builds a recipe
    of): a launcher running a training script, or a launch whose DeepSpeed flag only the run time
    spells (`eval $cmd`); None: no launch of its."""
    found = program(command.words)
    if found is None:
        maybe = command.name == "eval" or _launcher(command.words) is not None
        return (
            "a launch whose DeepSpeed config flag is in a value the run time decides" if maybe and _hidden_flag(script, command) else None
        )
    launcher, index = found
    flag = ds_flag(command.words, launcher + 1)
    said = f"{word_text(command.words[launcher])} runs {word_text(command.words[index])}"
    return f"{said} with {flag[0]} {word_text(flag[1])}" if flag is not None else said


def load_ds_launches(script: ShellScript, files: FileCache, root: Path, commands: list[Command] | None = None) -> list[Recipe]:
    recipes = []
    for command in script.commands if commands is None else commands:
        found = program(command.words)
        flag = ds_flag(command.words, found[0] + 1) if found is not None else None
        if flag is None:
            maybe = found is not None or command.name == "eval" or _launcher(command.words) is not None
            hidden = _hidden_flag(script, command) if maybe else None
            flag = _flag_on_every_branch(hidden) if hidden is not None and found is not None else None
            if hidden is not None and flag is None:
                recipes.append(_unread_launch(script, root, command, found, hidden, files))
            elif found is not None and flag is None:
                recipes.extend(_plain_launch(script, root, command, *found, files))
            if flag is None:
                continue
        if found is None or not _names_a_file(flag[1]):
            continue
        launcher, index = found
        name, value = flag
        accelerate = options_start(command.words, launcher) is not None
        filler = "accelerate" if accelerate else ("hf" if name == "--deepspeed" else "none")
        recipe = Recipe(root=root, toolkit="deepspeed", script=script, ds_filler=filler)
        set_places(recipe, script, command, word_text(command.words[index]))  # before the launch: its Accelerate config is looked up there
        recipe.launch = _launch(script, command, launcher, index, recipe, files)
        decide_consumer(recipe, command.words, index, "accelerate launch" if accelerate else name, files)
        _link(recipe, script, command, value, files)
        _script_args(recipe, script, command, index)
        _model_parallel(recipe, command)
        read_hf_args(recipe, files)
        recipes.append(recipe)
    return recipes


# Megatron's parallel sizes: its data-parallel size is world // (TP x PP x SP)
# (Megatron-DeepSpeed megatron/core/parallel_state.py:154), and DeepSpeed takes it from the mpu.
_MEGATRON_PARALLEL = ("tensor_model_parallel_size", "pipeline_model_parallel_size", "ds_sequence_parallel_size")


def _may_hold(binding: Binding | None, depth: int) -> bool:
    """Whether a value only the run time knows may carry Megatron's parallel sizes: not when each
    branch's value is known and names none (`$WANDB_ARGS`, empty or the wandb flags)."""
    if binding is None:
        return True
    if binding.branches is not None:
        return depth < 0 or any(b is not None and _may_hold(b, depth - 1) for b in binding.branches)
    if binding.value is None:
        return True
    return any(word.lstrip("-").replace("-", "_") in _MEGATRON_PARALLEL for word in binding.value.split())


def _model_parallel(recipe: Recipe, command: Command) -> None:
    """The ranks per model replica of a Megatron-DeepSpeed launch, from its training flags: the
    batch triple holds for the data-parallel size, not the GPU count. A flag the launch may pass
    in a value only the run time knows leaves it unknown."""
    # Megatron's own flags are its evidence too when the script is not read (`\`pwd\`/pretrain_gpt.py`).
    if recipe.reader.kind != "megatron" and not any(name in recipe.args for name in _MEGATRON_PARALLEL[:2]):
        return
    product, said = 1, []
    for name in _MEGATRON_PARALLEL:
        setting = recipe.args.get(name)
        if setting is None:
            continue
        flag = "--" + name.replace("_", "-")
        if not isinstance(setting.value, int):
            why = setting.word.reason if setting.word is not None and setting.word.reason else "decided at run time"
            recipe.model_parallel = Setting("model_parallel", None, True, setting.span, origin=f"{flag}: {why}")
            return
        product *= setting.value
        said.append(f"{flag} {setting.value}")
    hidden = next((w for w in command.words if w.value is None and w.text.startswith("$") and _may_hold(w.binding, 6)), None)
    if hidden is not None and len(said) < len(_MEGATRON_PARALLEL):
        origin = f"Megatron's parallel sizes may come in `{hidden.text}`, which only the run time knows"
        recipe.model_parallel = Setting("model_parallel", None, False, hidden.span, origin=origin)
        return
    origin = " x ".join(said) if said else "no model-parallel flag: 1"
    recipe.model_parallel = Setting("model_parallel", product, bool(said), command.span, origin=f"Megatron: {origin}")


def _plain_launch(script: ShellScript, root: Path, command: Command, launcher: int, index: int, files: FileCache) -> list[Recipe]:
    """A distributed launch without a DeepSpeed config flag: the launch rules still apply. One
    plain `python train.py` process has nothing to rendezvous, so it is no recipe. An `accelerate
    launch` whose config file names a DeepSpeed JSON is a DeepSpeed recipe with that JSON."""
    accelerate = options_start(command.words, launcher)
    if _name(command.words[launcher]).startswith("python") and _name(command.words[0]) not in WRAPPERS and accelerate is None:
        if not any(word_text(w) in DISTRIBUTED_MODULES for w in command.words[launcher:index]):
            return []
    recipe = Recipe(root=root, toolkit="torch", script=script, ds_filler="none")
    set_places(recipe, script, command, word_text(command.words[index]))  # before the launch: its Accelerate config is looked up there
    recipe.launch = _launch(script, command, launcher, index, recipe, files)
    named = deepspeed_file(recipe) if accelerate is not None else None
    if named is not None:
        recipe.toolkit, recipe.ds_filler = "deepspeed", "accelerate"
        decide_consumer(recipe, command.words, index, "accelerate launch", files)
        recipe.args["deepspeed"] = named
        recipe.ds_config = recipe.read_config(named.value, parse_json, files, ROLE, named, accept=named_deepspeed)
    _script_args(recipe, script, command, index)
    read_hf_args(recipe, files)
    return [recipe]


def read_hf_args(recipe: Recipe, files: FileCache) -> None:
    """The training script's HfArgumentParser and TrainingArguments(...) (recipelint.parse.hfparser),
    for the Trainer's rules and `show`."""
    from recipelint.hftrainer import reading

    recipe.hf_args = reading(recipe, files)


def _script_args(recipe: Recipe, script: ShellScript, command: Command, index: int) -> None:
    """The training script's own `--name value` options (its process-group backend, for one)."""
    for name, word in scan_options(command.words, index + 1, len(command.words)).items():
        recipe.args.setdefault(name, setting_from_word(name, word, script, command.span.start))


def named_json(command: Command) -> list[str]:
    """The DeepSpeed configs (and Accelerate configs) a launch names, so a folder check lints
    each with its launch, not a second time alone."""
    words = command.words
    launch = program(words)
    if launch is None:
        return []
    found = []
    flag = ds_flag(words, launch[0] + 1)
    if flag is not None and flag[1].value and _names_a_file(flag[1]):
        found.append(flag[1].value)
    start = options_start(words, launch[0])
    config = options(words, start, launch[1]).get("config_file") if start is not None else None
    if config is not None and config.value:
        found.append(config.value)
    return found


def _hidden_flag(script: ShellScript, command: Command) -> Word | None:
    """An unquoted expansion the run time decides whose assignments spell a DeepSpeed config
    flag (`deepspeed pretrain_gpt.py ${deepspeed_options}`, `eval ${run_cmd}`)."""
    evaluated = command.name == "eval"  # eval re-reads its argument, quoted or not
    for word in command.words:
        unquoted = word.text.startswith("$") or evaluated
        if word.ref is not None and word.value is None and unquoted and _mentions(script, word.ref, 4):
            return word
    return None


def _flag_on_every_branch(word: Word) -> tuple[str, Word] | None:
    """The DeepSpeed config flag a variable carries on every branch that sets it, with the same
    file (`ds_args` with `--deepspeed_config=$DS_CONFIG` before an `if` that only adds
    `--deepspeed-activation-checkpointing`); None when a branch lacks it or names another file."""
    found = _branch_flags(word.binding, 6)
    if not found or len({(name, value.value, _origin(value)) for name, value in found}) != 1:
        return None
    return found[0]


def _origin(word: Word) -> int | None:
    """Where a word's variable is set, for a value the run time decides (`${config_json}`)."""
    origin = word.binding.origin if word.value is None and word.binding is not None else None
    return origin.order if origin is not None else None


def _branch_flags(binding: Binding | None, depth: int) -> list[tuple[str, Word]] | None:
    """The flag on each path to this value: a value built from another that differs between
    branches (`opts="${opts} --no-pipeline-parallel"` after an `if`) follows that one's branches."""
    if binding is None or depth < 0:
        return None
    if binding.branches is not None:
        out: list[tuple[str, Word]] = []
        for branch in binding.branches:
            flags = _branch_flags(branch, depth - 1)
            if flags is None:
                return None
            out.extend(flags)
        return out
    words = binding.fields or []
    flag = ds_flag(words, 0)
    if flag is not None and (flag[1].value is not None or _origin(flag[1]) is not None):
        return [flag]
    inner = [w.binding for w in words if w.value is None and w.binding is not None and w.binding.branches is not None]
    return _branch_flags(inner[0], depth - 1) if len(inner) == 1 else None


def _mentions(script: ShellScript, name: str, depth: int, seen: dict[str, int] | None = None) -> bool:
    # each name looked at once per depth: `b=$a; a=$b$b` written 64 times would otherwise be 64**depth walks
    seen = seen if seen is not None else {}
    if seen.get(name, -1) >= depth:
        return False
    seen[name] = depth
    for assignment in script.assignments:
        if assignment.name != name:
            continue
        text = assignment.value.text
        if _FLAG_TEXT.search(text):
            return True
        if depth > 0 and any(ref != name and _mentions(script, ref, depth - 1, seen) for ref in _REFERENCE.findall(text)):
            return True
    return False


def _unread_launch(
    script: ShellScript, root: Path, command: Command, found: tuple[int, int] | None, word: Word, files: FileCache
) -> Recipe:
    """A launch whose DeepSpeed config flag sits in a value only the run time knows: kept with an
    unknown link, so RL012 and `show` say the DeepSpeed checks did not run."""
    recipe = Recipe(root=root, toolkit="deepspeed", script=script, ds_filler="none")
    if found is not None:
        set_places(recipe, script, command, word_text(command.words[found[1]]))
        recipe.launch = _launch(script, command, *found, recipe, files)
        decide_consumer(recipe, command.words, found[1], None, files)
    else:
        recipe.consumer = Consumer("unknown", inferred="the launch itself is in a value only the run time knows")
    setting = Setting("deepspeed", None, True, word.span, None, word.ref, word)
    recipe.links.append(Link(ROLE, setting, None, []))
    return recipe


def decide_consumer(recipe: Recipe, words: list[Word], index: int, flag: str | None, files: FileCache) -> None:
    """Which code reads the JSON: the training script (or `-m` module) read with ast; else what
    the launch flag says, marked inferred. `ds_filler` follows, except under `accelerate launch`,
    whose plugin fills "auto" unless the script runs a Hugging Face Trainer (which fills first)."""
    from recipelint.toolkits.deepspeed.consumer import read_consumer

    word = words[index]
    module = index > 0 and word_text(words[index - 1]) in ("-m", "--module")
    consumer: Consumer | None = None
    text = word.value if word.value is not None else _under_cwd(recipe.script, word.text)
    if text is None:
        why = f"the training script `{word.text}` is decided at run time"
    else:
        path, top = recipe.locate_script(text, module)
        if path is None or top is None:
            why = f"the training script {text} is not found here"
        else:
            consumer = read_consumer(path, files, top)
            why = f"{text} and the modules it imports show no deepspeed.initialize, Trainer or Accelerator"
    if consumer is None:
        kind, meaning = FLAG_CONSUMER.get("--deepspeed_config_file" if flag == "accelerate launch" else flag or "", ("unknown", ""))
        said = "from accelerate launch" if flag == "accelerate launch" else f"from the flag {flag}"
        consumer = Consumer(kind, inferred=f"{why}; {said}: {meaning}" if meaning else why)
    recipe.consumer = consumer
    # Under `accelerate launch` the plugin fills "auto"; a Hugging Face Trainer in the script fills
    # first (its HfTrainerDeepSpeedConfig: the optimizer's betas and eps too), so it decides.
    if flag != "accelerate launch" or consumer.kind == "hf-trainer":
        recipe.ds_filler = consumer.filler or FILLER_OF.get(consumer.kind, recipe.ds_filler)


# Who replaces "auto" before DeepSpeed reads the JSON, for each consumer that is not a toolkit's
# own code (a toolkit's consumer says it: Consumer.filler).
FILLER_OF = {"hf-trainer": "hf", "accelerate": "accelerate", "deepspeed": "none", "megatron": "none"}


_CWD_WORD = re.compile(r"^\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/(.+)$")
_CWD_VALUES = {"`pwd`", "$(pwd)", "$PWD", "${PWD}", '"$PWD"', '"$(pwd)"', '"`pwd`"'}


def _under_cwd(script: ShellScript | None, text: str) -> str | None:
    """`${dir}/../../pretrain_gpt.py` with dir=`pwd` (Megatron-DeepSpeed's examples): the path
    relative to the folder the launch runs from, which the recipe's places already search."""
    match = _CWD_WORD.match(text)
    if match is None or script is None:
        return None
    values = {a.value.text for a in script.assignments if a.name == match.group(1)}
    return match.group(2) if values and values <= _CWD_VALUES else None


def _link(recipe: Recipe, script: ShellScript, command: Command, value: Word, files: FileCache) -> None:
    setting = setting_from_word("deepspeed", value, script, command.span.start)
    recipe.args["deepspeed"] = setting
    text = value.value
    origin = value.binding.origin if value.binding is not None else None
    template = script.templates.get(unknown_path(origin)) if text is None and origin is not None else None
    if template is not None:  # a name the run time decides, written by the script through the same variable
        link = Link(ROLE, setting, None, [], written_at=template.span)
        recipe.links.append(link)
        _read_written(recipe, script, template, link, files)
        return
    if text is None:  # the name itself is decided at run time: RL012 says so
        recipe.links.append(Link(ROLE, setting, None, []))
        return
    if command.cwd is not None and not posixpath.isabs(text):
        key = posixpath.normpath(posixpath.join(command.cwd or ".", text))
        written = script.written.get(key)
        if written is not None:
            link = Link(ROLE, setting, None, [], written_at=written)
            recipe.links.append(link)
            template = script.templates.get(key)
            if template is not None:
                _read_written(recipe, script, template, link, files)
            return
    recipe.ds_config = recipe.read_config(text, parse_json, files, ROLE, setting, accept=named_deepspeed)


def _read_written(recipe: Recipe, script: ShellScript, written: Written, link: Link, files: FileCache) -> None:
    """A JSON the script writes from its own text (a heredoc, a sed-filled template) is this
    launch's DeepSpeed config, read with the script's values. A key whose value the run time
    decides is left out and named; the code-set keys tell the batch rules not to judge them."""
    from recipelint.parse.shelltemplate import render

    try:
        template = files.read(script.source.path.parent / written.template) if written.template is not None else None
        rendered = render(written, script.source, template)
    except SourceError as error:
        link.read_as = f"not read: {error.reason}"
        return
    recipe.ds_config = rendered.document
    how = f"{written.command} at line {written.span.line}"
    if template is not None:
        how += f", filling {template.path.name}"
    link.read_as = f"read from {how} with the script's values"
    if rendered.runtime:
        said = "; ".join(f"{key} ({why}, line {span.line})" for key, span, why in rendered.runtime)
        link.read_as += f"; decided at run time, not judged: {said}"
        top = tuple(dict.fromkeys(key.split(".")[0] for key, _, _ in rendered.runtime))
        consumer = recipe.reader
        recipe.consumer = replace(consumer, code_sets=tuple(dict.fromkeys((*consumer.code_sets, *top))))


def load_accelerate_config(target: Target, files: FileCache) -> list[Recipe]:
    """An Accelerate config YAML checked alone: the DeepSpeed JSON it names (looked up from its
    folder up to the repository's top, since the launch's folder is unknown) is the recipe's
    DeepSpeed config. Who fills its "auto" is not known here: the plugin fills its own keys, and a
    Hugging Face Trainer in the script the config will launch fills the optimizer's too, so the
    filler is "unknown" (the launches that name the config judge it with their script). A YAML
    that is not an Accelerate config is no recipe."""
    from recipelint.parse.yamlfile import parse_yaml

    document = parse_yaml(files.read(target.path))
    if not is_config(document.root):
        return []
    recipe = Recipe(root=target.root, toolkit="deepspeed", ds_filler="unknown", explicit=target.explicit, payload=document)
    recipe.consumer = Consumer("unknown", inferred="an Accelerate config checked alone: the script it launches decides")
    top = repo_root(target.root.absolute())
    folder = target.root
    recipe.places = [folder]
    while top is not None and folder.absolute() != top and folder.parent != folder:
        folder = folder.parent
        recipe.places.append(folder)
    named = config_file_setting(document, set())
    if named is not None:
        recipe.args["deepspeed"] = named
        # where the launch runs is unknown here: a JSON not found is not reported
        recipe.ds_config = recipe.read_config(named.value, parse_json, files, ROLE, named, report_missing=False, accept=named_deepspeed)
    return [recipe]


_MAX_SCRIPTS = 2000  # shell scripts looked through for the seds that fill a template


def load_template(target: Target, files: FileCache, source: SourceText, error: SourceError) -> list[Recipe]:
    """A DeepSpeed JSON template with placeholders (`"train_batch_size": GBSIZE`), checked alone:
    not a file error but a recipe whose payload says which scripts fill it (their launches judge
    the filled JSON). Broken JSON without placeholders stays the reader's error."""
    from recipelint.parse.shelltemplate import Template, placeholders

    words = placeholders(source)
    if not words:
        raise error
    template = Template(source, words, _fillers(target.path, files), error)
    return [Recipe(root=target.root, explicit=target.explicit, toolkit="deepspeed", payload=template)]


def _fillers(path: Path, files: FileCache) -> list[Span]:
    """The seds of the repository's shell scripts that read this template (the first 2000
    scripts; a script is parsed only when its text names the template)."""
    from recipelint.parse.shell import parse_shell
    from recipelint.parse.where import SKIP_DIRS

    top = repo_root(path.parent.absolute()) or path.parent
    name = path.name.encode()
    found: list[Span] = []
    seen = 0
    for folder, dirs, names in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for file in sorted(n for n in names if n.endswith(".sh")):
            seen += 1
            script_path = Path(folder) / file
            try:
                text = files.read(script_path)
                if name not in text.data:
                    continue
                script = parse_shell(text)
            except SourceError:
                continue
            found.extend(_reads(script, script_path, path))
        if seen > _MAX_SCRIPTS:
            break
    return found


def _reads(script: ShellScript, script_path: Path, template: Path) -> list[Span]:
    spans = []
    for written in script.templates.values():
        read = os.path.normpath((script_path.parent / written.template).absolute()) if written.template is not None else None
        if read is not None and read == os.path.normpath(template.absolute()):
            spans.append(written.template_span or written.span)
    return spans
