"""WeNet recipes: run.sh, the train YAML it names, the DeepSpeed JSON and the data lists.

train.py's flags are read from the WeNet checkout the recipe runs (recipelint.parse.checkout),
when there is one; else they come from this table of `wenet/bin/train.py` and
`wenet/utils/train_utils.py` at WeNet HEAD 015469960d (reference: shared/reference/wenet.md
sections 1 and 5).
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from recipelint.deps import Memo
from recipelint.model import Launch, Link, Recipe, Setting
from recipelint.parse.checkout import find_checkout
from recipelint.parse.files import FileCache, SourceError
from recipelint.parse.flags import Flag
from recipelint.parse.jsonfile import parse_json
from recipelint.parse.shell import Binding, Command, ShellScript, Word, parse_shell
from recipelint.parse.where import shown
from recipelint.parse.yamlfile import parse_yaml
from recipelint.records import replace
from recipelint.toolkits import Offer
from recipelint.toolkits.deepspeed.knowledge import named_deepspeed
from recipelint.toolkits.launchers import parse_torchrun, set_places, setting_from_word, to_value
from recipelint.toolkits.wenet import WENET, named_train_config
from recipelint.toolkits.wenet.checkout import TRAIN_ENTRY, WENET_CODE, flags_source, package_entry
from recipelint.toolkits.wenet.checkout import train_flags as checkout_flags
from recipelint.toolkits.wenet.datalist import read_data_list
from recipelint.toolkits.wenet.part import WenetPart, lone_entry

BAKED_IN = "recipelint's table of train.py at WeNet HEAD 015469960d"

# train.py's arguments at HEAD, by the name users write (without dashes).
TRAIN_FLAGS: dict[str, Flag] = {
    "train_engine": Flag("value", "torch_ddp"),
    "device": Flag("value", "cuda"),
    "config": Flag("value"),
    "model_dir": Flag("value"),
    "checkpoint": Flag("value"),
    "tensorboard_dir": Flag("value", "tensorboard"),
    "override_config": Flag("value"),
    "enc_init": Flag("value"),
    "enc_init_mods": Flag("value", "encoder."),
    "freeze_modules": Flag("value", ""),
    "data_type": Flag("value", "raw"),
    "train_data": Flag("value"),
    "cv_data": Flag("value"),
    "num_workers": Flag("value", 0),
    "pin_memory": Flag("store_true", False),
    "prefetch": Flag("value", 100),
    "ddp.dist_backend": Flag("value", "nccl"),
    "use_amp": Flag("store_true", False),
    "fp16_grad_sync": Flag("store_true", False),
    "use_lora": Flag("bool", False),
    "only_optimize_lora": Flag("bool", False),
    "lora_modules": Flag("value"),
    "lora_attn_attr": Flag("value"),
    "lora_list": Flag("value"),
    "lora_rank": Flag("value", 8),
    "lora_alpha": Flag("value", 8),
    "lora_dropout": Flag("value", 0),
    "lora_ckpt_path": Flag("value"),
    "lora_reinit": Flag("bool", False),
    "lora_init_yaml": Flag("value"),
    "timeout": Flag("value", 30),
    "local_rank": Flag("value", -1),
    "deepspeed.save_states": Flag("value", "model_only"),
    "deepspeed": Flag("store_true", False),
    "deepspeed_config": Flag("value"),
    "deepscale": Flag("store_true", False),
    "deepscale_config": Flag("value"),
    "deepspeed_mpi": Flag("store_true", False),
    "dtype": Flag("value", "fp32"),
    "fsdp_cpu_offload": Flag("bool", False),
    "fsdp_sync_module_states": Flag("bool", True),
    "fsdp_sharding_strategy": Flag("value", "zero2"),
    "jit": Flag("store_true", False),
    "print_model": Flag("store_true", False),
}

# Flags the v3 refactor removed (v2.2.1 had them); HEAD's argparse rejects them.
REMOVED_FLAGS = {
    "gpu": "the GPU comes from LOCAL_RANK under torchrun",
    "symbol_table": "set tokenizer_conf.symbol_table_path in the YAML",
    "bpe_model": "set tokenizer_conf.bpe_path in the YAML",
    "cmvn": "set cmvn_conf.cmvn_file in the YAML",
    "non_lang_syms": "set tokenizer_conf.non_lang_syms_path in the YAML",
    "ddp.rank": "torchrun sets RANK",
    "ddp.world_size": "torchrun sets WORLD_SIZE",
    "ddp.init_method": "torchrun's rendezvous replaces it",
    "lfmmi_dir": "removed with LF-MMI training",
}

# WeNet 2.0 kept the pre-2.0 pipeline beside the new one as bin/train_deprecated.py (its
# s0_deprecated and s1 recipes run it): a launch of either is WeNet's, read by the script it names.
TRAIN_SCRIPT = re.compile(r"(^|/)wenet/bin/(train|train_deprecated)\.py$")


def entry_of(recipe: Recipe) -> str:
    """The training script the recipe runs, relative to the wenet package: the launch's, else the
    one a lone config's folder starts (WenetPart.entry); `bin/train.py` when nothing says."""
    launch = recipe.launch
    value = launch.script.value if launch is not None else lone_entry(recipe)
    return package_entry(value if isinstance(value, str) else None)


def find_launch(script: ShellScript) -> tuple[Command, int] | None:
    """The first command that runs wenet/bin/train.py, and the index of that word."""
    for command in script.commands:
        index = _train_word(command)
        if index is not None:
            return command, index
    return None


def _train_word(command: Command) -> int | None:
    for index, word in enumerate(command.words):
        if TRAIN_SCRIPT.search(word.value or word.text):
            return index
    return None


# A fork's own trainer beside train.py (ronggong/wenet's wenet/bin/train_sed.py): WeNet's when
# the file imports WeNet's training code, which is what reads the YAML and the flags.
VARIANT = re.compile(r"(^|/)wenet/bin/train_\w+\.py$")
WENET_TRAINING = ("wenet.utils.train_utils", "wenet.utils.executor")


def launch_evidence(command: Command, offer: Offer) -> tuple[int, str] | None:
    """The index of the training script's word in a WeNet launch, and the evidence: the script is
    wenet/bin/train.py (or train_deprecated.py), or another wenet/bin/train_*.py that imports
    WeNet's training code (its trainer and executor)."""
    index = _train_word(command)
    if index is not None:
        word = command.words[index]
        return index, f"runs {word.value or word.text}"
    for index, word in enumerate(command.words):
        text = word.value or ""
        if VARIANT.search(text):
            imported = _wenet_imports(offer.script, command, text, offer.files)
            if imported:
                return index, f"runs {text}, which imports {', '.join(imported)} (WeNet's trainer)"
    return None


def _wenet_imports(script: ShellScript, command: Command, program: str, files: FileCache) -> list[str]:
    """The WeNet training modules the launched script imports, read with ast where the launch runs."""
    import ast

    from recipelint.toolkits.launchers import places_of, working_folder

    for folder in places_of(script, command, working_folder(script, command, program)):
        path = folder / program
        if not path.is_file():
            continue
        try:
            tree = ast.parse(files.read(path).text)
        except (SourceError, SyntaxError, ValueError, RecursionError):
            return []
        modules = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
        modules |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
        return [module for module in WENET_TRAINING if module in modules]
    return []


def names_config(command: Command, index: int) -> list[str]:
    values = []
    words = command.words[index + 1 :]
    for i, word in enumerate(words):
        if word.text in ("--config", "--deepspeed_config") and i + 1 < len(words):
            values.append(words[i + 1].value or "")
        elif word.option and word.option[0] in ("--config", "--deepspeed_config"):
            values.append(word.option[1].value or "")
    return [v for v in values if v]


# run.sh -> (the training script its launch names, the launch's line): a recipe folder's configs
# share one run script, read once a run.
_FOLDER_LAUNCH: Memo[Path, tuple[str, int] | None] = Memo(module=True)


def folder_entry(recipe: Recipe, config: Path, files: FileCache) -> None:
    """For a train config checked alone: the training script the run.sh of its recipe folder
    (beside it, or above its conf/) starts, which is the code that reads it when that run.sh's
    config variable names it (WeNet 2's s0_deprecated recipes run bin/train_deprecated.py)."""
    for folder in (config.parent, config.parent.parent):
        run = folder / "run.sh"
        if not run.is_file():
            continue
        found = _FOLDER_LAUNCH.get(run, functools.partial(_launch_of, run, files))
        if found is not None:
            recipe.own(WenetPart).entry = found[0]
            where = f"{shown(run).as_posix()}:{found[1]} starts it; this config is one the run script's --config may name"
            recipe.note("run", "read by", f"wenet/{entry_of(recipe)}", where)
        return


def _launch_of(run: Path, files: FileCache) -> tuple[str, int] | None:
    try:
        script = parse_shell(files.read(run), files.read)
    except SourceError:
        return None
    found = find_launch(script)
    if found is None:
        return None
    command, index = found
    word = command.words[index]
    return word.value or word.text, command.span.line


def train_flags(recipe: Recipe) -> tuple[dict[str, Flag] | None, str]:
    """The flags the recipe's training script accepts, and where that list comes from: the WeNet
    checkout the recipe runs when the script can be read there, else the baked-in table of
    train.py at HEAD; None for another script (train_deprecated.py) no checkout shows: not judged."""
    checkout = recipe.checkout
    entry = entry_of(recipe)
    if checkout is not None and checkout.toolkit == "wenet":
        flags = checkout_flags(checkout, entry)
        if flags is not None:
            return flags, flags_source(checkout, entry)
        if entry != TRAIN_ENTRY:
            return None, f"{checkout.label()} has no readable wenet/{entry}"
        return TRAIN_FLAGS, f"{BAKED_IN} ({checkout.label()} has no readable wenet/bin/train.py)"
    if entry != TRAIN_ENTRY:
        return None, f"no WeNet checkout found beside the recipe to read wenet/{entry} from"
    return TRAIN_FLAGS, f"{BAKED_IN} (no WeNet checkout found beside the recipe)"


def _match_flag(name: str, flags: dict[str, Flag]) -> str | None:
    """argparse's allow_abbrev: a unique prefix names the flag."""
    if name in flags:
        return name
    candidates = [flag for flag in flags if flag.startswith(name)]
    return candidates[0] if len(candidates) == 1 else None


def _option(word: Word) -> tuple[str, Word | None] | None:
    """A word that names a flag: the flag as written and its `=value` word, if any."""
    if word.conditional:
        return None  # ${checkpoint:+--checkpoint $checkpoint}: absent unless set at run time
    if word.option is not None:
        return word.option
    if (word.value or word.text).startswith("--"):
        return (word.value or word.text), None
    return None


CONDITIONAL = re.compile(r"\$\{(\w+):?\+(.*)\}", re.S)


def _conditional_flags(word: Word, command: Command, script: ShellScript) -> list[Word]:
    """The flags of `${x:+--flag v}`: in the command when x is set and not empty."""
    match = CONDITIONAL.fullmatch(word.text)
    if match is None:
        return []
    name, body = match.groups()
    binding = command.variable(name)
    if binding is not None and binding.value is not None:
        if binding.value == "":
            return []  # never passed as the script stands
        condition = None
    else:
        why = binding.reason if binding is not None and binding.reason else f"{name} is not set by the script"
        condition = f"{name} is set and not empty (line {word.span.line}); {why}"
    found = []
    prefix = word.text[: match.start(2)].encode()
    for token in re.finditer(r"--[\w.-]+(?:=\S*)?", body):
        start = word.span.start + len(prefix) + len(body[: token.start()].encode())
        span = script.source.span(start, start + len(token.group().encode()))
        found.append(Word(token.group(), span, token.group(), condition=condition))
    return found


def _branch_flags(word: Word) -> list[Word]:
    """The flags a `$var` carries on the branches that give it a value with flags
    (`cmvn_opts=` then `$cmvn && cmvn_opts="--cmvn ..."`): each with the branch it comes from."""
    binding = word.binding
    if word.ref is None or binding is None or binding.value is not None or binding.branches is None:
        return []
    found = []
    seen: list[str] = []
    for branch in (b for b in binding.branches if b is not None and b.value):
        if branch.value in seen:
            continue
        seen.append(branch.value or "")
        origin = branch.origin
        line = f"line {origin.span.line}" if origin is not None else "one branch"
        condition = f"{word.ref} is {branch.value!r} ({line}), one of the branches of {binding.where}"
        pieces = branch.fields or ([origin.value] if origin is not None else [])
        for piece in pieces:
            if (piece.value or "").startswith("--"):
                found.append(replace(piece, condition=condition, text=piece.value or piece.text))
    return found


def _carried_flags(recipe: Recipe, flags: dict[str, Flag], word: Word, command: Command, script: ShellScript) -> None:
    """Flags a variable or ${x:+...} carries into the command on some runs only: those train.py
    rejects are kept, with the condition, for RL601."""
    for carried in [*_conditional_flags(word, command, script), *_branch_flags(word)]:
        name = (carried.value or "").split("=", 1)[0].lstrip("-")
        if _match_flag(name, flags) is None:
            recipe.unknown_args.append((name, carried))


def _parse_train_args(recipe: Recipe, script: ShellScript, command: Command, index: int) -> None:
    flags, _ = train_flags(recipe)
    words = command.words[index + 1 :]
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        option = _option(word)
        if option is None:
            if flags is not None:
                _carried_flags(recipe, flags, word, command, script)
            continue
        raw_name, value_word = option
        name = raw_name.lstrip("-")
        flag_name = _match_flag(name, flags) if flags is not None else name
        if flag_name is None:
            recipe.unknown_args.append((name, word))
            if value_word is None and i < len(words) and not (words[i].value or words[i].text).startswith("--"):
                i += 1
            continue
        flag = flags.get(flag_name) if flags is not None else None
        if flag is not None and flag.kind == "store_true":
            recipe.args[flag_name] = Setting(flag_name, True, True, word.span, None, None, word)
            continue
        if value_word is None:
            if i >= len(words):
                recipe.args[flag_name] = Setting(flag_name, None, True, word.span)
                continue
            value_word = words[i]
            i += 1
        setting = setting_from_word(flag_name, value_word, script, command.span.start)
        if flag_name == "train_data" and flag_name in recipe.args:
            recipe.args.setdefault("train_data_more", setting)
        recipe.args[flag_name] = setting
    for name, flag in (flags or {}).items():
        if name not in recipe.args and flag.default is not None:
            recipe.args[name] = Setting(name, flag.default, False, command.span)


def _nodes_for_python(script: ShellScript, launch: Launch) -> None:
    if launch.launcher != "python":
        return
    binding = launch.command.variable("num_nodes")
    if binding is not None:
        origin = binding.origin
        span = origin.value.span if origin is not None else launch.command.words[0].span
        word = Word("$num_nodes", span, binding.value, "num_nodes", reason=binding.reason, binding=binding)
        launch.nnodes = Setting(
            "num_nodes", to_value(binding.value), True, span, origin.value.edit_span if origin else None, "num_nodes", word
        )


def load_recipe(script_path: Path, files: FileCache, script: ShellScript | None = None, found: tuple[Command, int] | None = None) -> Recipe:
    """Build a WeNet recipe from its run script (`found`: the launch and its training script's
    word; the script's first train.py launch when not given); missing configs are left as None."""
    root = script_path.parent
    script = script or parse_shell(files.read(script_path), files.read)
    recipe = Recipe(
        root=root, toolkit="wenet", script=script, ds_filler="none", consumer=WENET.json_consumer()
    )  # WeNet passes the JSON as is
    found = found or find_launch(script)
    if found is None:
        return recipe
    command, index = found
    recipe.checkout = find_checkout(WENET_CODE, root, script, files)
    recipe.launch = parse_torchrun(script, command, index)
    set_places(recipe, script, command)
    _nodes_for_python(script, recipe.launch)
    _parse_train_args(recipe, script, command, index)
    device = recipe.arg("device").value
    recipe.launch.device = device if isinstance(device, str) else None
    recipe.config = recipe.read_config(
        recipe.arg("config").value, parse_yaml, files, "train config", recipe.arg("config"), accept=named_train_config
    )
    if recipe.arg("train_engine").value == "deepspeed":  # WeNet opens the JSON only then; RL401 reports a missing one
        setting = recipe.arg("deepspeed_config")
        recipe.ds_config = recipe.read_config(
            setting.value, parse_json, files, "DeepSpeed config", setting, report_missing=False, accept=named_deepspeed
        )
    data = recipe.args.get("train_data")
    if data is not None and isinstance(data.value, str):
        path, tried = recipe.locate(data.value)
        # an earlier stage of the recipe writes the list: a missing one is not an error here
        recipe.links.append(Link("train data", data, path, tried, report_missing=False))
        recipe.own(WenetPart).train_data.append(
            read_data_list(path or root / data.value, data, path.parent if path else root, recipe.errors)
        )
    elif data is not None:
        recipe.links.append(Link("train data", data, None, [], report_missing=False))
    return recipe


def _kaldi_options(words: list[Word]) -> dict[str, Binding]:
    """`--name value` pairs as Kaldi's parse_options.sh reads them (`--data-list` sets data_list)."""
    options: dict[str, Binding] = {}
    index = 0
    while index + 1 < len(words):
        flag = words[index].value or ""
        if flag.startswith("--") and len(flag) > 2 and "=" not in flag:
            value = words[index + 1]
            options[flag[2:].replace("-", "_")] = Binding(value.value, None, value.reason)
            index += 2
        else:
            index += 1
    return options


def _called(command: Command, script: ShellScript) -> tuple[Path, int] | None:
    """The local script a command runs (`bash run_nst.sh ...`), and the index of its word."""
    at = 1 if command.name in ("bash", "sh") else 0
    target = command.words[at] if len(command.words) > at else None
    if target is None or not (target.value or "").endswith(".sh") or command.cwd is None:
        return None
    path = script.source.path.parent / command.cwd / (target.value or "")
    if not path.is_file() or path.resolve() == script.source.path.resolve():
        return None
    return path, at


def calls_a_launch(command: Command, script: ShellScript) -> str | None:
    """The evidence of a command that runs a local script whose text names wenet/bin/train.py
    (the load reads it with the caller's options, and finds out)."""
    called = _called(command, script)
    if called is None:
        return None
    from recipelint.parse.files import head

    start = head(called[0], 1 << 20)
    return f"runs {called[0].name}, which launches wenet/bin/train.py" if start is not None and b"wenet/bin/train" in start else None


def load_called(script: ShellScript, files: FileCache, commands: list[Command] | None = None) -> list[Recipe]:
    """Training launches in local scripts this one runs with options (`bash run_nst.sh
    --data_list x.list`), read with the values the caller passes to their parse_options.sh."""
    recipes = []
    for command in script.commands if commands is None else commands:
        called = _called(command, script)
        if called is None:
            continue
        path, at = called
        options = _kaldi_options(command.words[at + 1 :])
        try:
            callee = parse_shell(files.read(path), files.read, options=options)
        except SourceError:
            continue
        if find_launch(callee) is None:
            continue
        recipe = load_recipe(path, files, callee)
        passed = " ".join(f"--{name} {binding.value if binding.value is not None else '?'}" for name, binding in options.items())
        recipe.note("launch", "called from", f"{script.source.path.name}:{command.span.line}", passed)
        recipes.append(recipe)
    return recipes
