"""How training processes start, whatever the toolkit: torchrun (and `python -m
torch.distributed.run/launch`), the `deepspeed` launcher, `srun` and `mpirun` (each task one
process), the environment a command runs with, and the folders its relative paths are looked
up in. The WeNet, XTuner and generic DeepSpeed front ends all build their Launch here.
"""

from __future__ import annotations

import posixpath
from pathlib import Path
from typing import Any

from recipelint.model import Launch, Setting
from recipelint.parse.shell import Command, ShellScript, Word

# torchrun options that take no value (keys as scan_options normalises them)
_TORCHRUN_SWITCHES = frozenset({"standalone", "no_python", "module", "use_env"})
SRUN_SHORT = frozenset({"-N", "-n", "-p", "-J", "-c", "-w", "-t", "-A", "-q"})
MPIRUN_SHORT = frozenset({"-np", "-n", "-N", "-H", "-x", "-npernode"})
# Files that mark the top of a repository: relative paths in its scripts often start there.
ROOT_MARKERS = (".git", "pyproject.toml", "setup.py")
_ROOT_SEARCH = 12


def _option_key(text: str) -> str:
    return text.lstrip("-").replace("-", "_")


def scan_options(
    words: list[Word], start: int, end: int, switches: frozenset[str] = frozenset(), short: frozenset[str] = frozenset()
) -> dict[str, Word]:
    """A launcher's options in words[start:end]: `--name value`, `--name=value`, and the listed
    short options (`-N 2`). Keys drop the dashes and use `_` for `-`. A word that is itself a
    long option is never taken as a value, so a switch the table does not know stays harmless."""
    options: dict[str, Word] = {}
    j = start
    while j < end:
        word = words[j]
        text = word_text(word)
        if word.option is not None:
            options[_option_key(word.option[0])] = word.option[1]
        elif (
            (text.startswith("--") and _option_key(text) not in switches or text in short)
            and j + 1 < end
            and not word_text(words[j + 1]).startswith("--")
        ):
            options[_option_key(text)] = words[j + 1]
            j += 1
        j += 1
    return options


def word_text(word: Word) -> str:
    """A word's static value, or its source text when only the run time knows it."""
    return word.value if word.value is not None else word.text


def to_value(text: str | None) -> Any:
    if text is None:
        return None
    try:
        return int(text)
    except ValueError:
        return text


def setting_from_word(name: str, word: Word, script: ShellScript, at: int) -> Setting:
    """A setting read from a command-line word, following `$var` to the assignment that a fix edits.

    When the variable's value depends on which branch ran, no single assignment is it, so
    there is no edit span: a fix must not rewrite one branch."""
    edit_span = word.edit_span
    if word.ref is not None:
        origin = word.binding.origin if word.binding is not None else None
        edit_span = origin.value.edit_span if origin is not None else None
    return Setting(name, to_value(word.value), True, word.span, edit_span, word.ref, word)


def gpu_count(word: Word) -> int | None:
    """Processes per node from a word; None (left to the hardware) when the script does not fix it.

    `num_gpus=$(echo $CUDA_VISIBLE_DEVICES | awk -F "," '{print NF}')` is evaluated by the
    shell reader; `$(nvidia-smi -L | wc -l)` and a count that depends on a branch stay unknown."""
    return to_int(word.value) if word.value is not None else None


def to_int(value: Any) -> int | None:
    try:
        return int(str(value))
    except (TypeError, ValueError):
        return None


def launch_env(script: ShellScript, command: Command) -> dict[str, Setting]:
    """Prefix assignments and the variables exported where the command runs (the prefix wins, as in the shell)."""
    found: dict[str, Setting] = {}
    for name, binding in command.scope.items():
        if not binding.exported:
            continue
        origin = binding.origin
        if origin is not None:
            word = origin.value
            found[name] = Setting(name, binding.value, True, word.span, word.edit_span, None, word)
        else:  # different on the branches that lead here: known only if they agree, never rewritten
            found[name] = Setting(name, binding.value, True, command.words[0].span)
    for name, word in command.env.items():
        found[name] = Setting(name, word.value, True, word.span, word.edit_span, None, word)
    return found


def parse_torchrun(script: ShellScript, command: Command, index: int) -> Launch:
    words = command.words
    first = words[0].value or words[0].text
    launcher = Path(first).name
    for j in range(1, index - 1):  # python -m torch.distributed.run / .launch
        if word_text(words[j]) == "-m" and word_text(words[j + 1]) in ("torch.distributed.run", "torch.distributed.launch"):
            launcher = "torchrun" if word_text(words[j + 1]).endswith("run") else "torch.distributed.launch"
    options = scan_options(words, 1, index, _TORCHRUN_SWITCHES)
    if launcher.startswith("python"):
        launcher = "python" if launcher == Path(first).name else launcher
    at = command.span.start

    def setting(name: str, option: str, default: Any) -> Setting:
        word = options.get(option)
        if word is None:
            return Setting(name, default, False, command.words[0].span)
        return setting_from_word(name, word, script, at)

    nnodes = setting("nnodes", "nnodes", 1)
    if nnodes.value is not None and ":" in str(nnodes.value):  # elastic "1:4": the upper bound counts
        nnodes.value = to_int(str(nnodes.value).split(":")[-1])
    per_node_word = options.get("nproc_per_node")
    if per_node_word is not None:
        per_node = setting_from_word("nproc_per_node", per_node_word, script, at)
        per_node.value = gpu_count(per_node_word)
    elif launcher == "python":
        per_node = python_loop_ranks(script, command)
    else:
        per_node = Setting("nproc_per_node", 1, False, command.words[0].span)
    if "rdzv_endpoint" in options:
        rendezvous = setting("rdzv_endpoint", "rdzv_endpoint", None)
    else:
        address = options.get("master_addr")
        port = options.get("master_port")
        value = f"{address.value if address else '127.0.0.1'}:{port.value if port else 29500}"
        rendezvous = Setting("master_addr", value, address is not None, (address or command.words[0]).span)
    return Launch(launcher, command, words[index], nnodes, per_node, rendezvous, launch_env(script, command))


def parse_deepspeed_launcher(script: ShellScript, command: Command, index: int) -> Launch:
    """`deepspeed [--num_nodes N] [--num_gpus G] [--hostfile F] [--include ...] [--master_addr A] [--master_port P] train.py`."""
    words = command.words
    options = scan_options(words, 1, index)
    at = command.span.start

    def get(name: str, default: Any) -> Setting:
        word = options.get(name)
        return setting_from_word(name, word, script, at) if word is not None else Setting(name, default, False, words[0].span)

    nodes = get("num_nodes", None)
    include = options.get("include")
    if nodes.value is None and include is not None and include.value:
        nodes = Setting("include", len(include.value.split("@")), True, include.span)
    elif nodes.value is None and "hostfile" not in options:
        nodes = Setting("num_nodes", 1, False, words[0].span)
    per_node = get("num_gpus", None)
    if per_node.value is None and include is not None and include.value:
        per_node = Setting("include", len(include.value.split("@")[0].split(":")[-1].split(",")), True, include.span)
    address = options.get("master_addr")
    port = options.get("master_port")
    rendezvous = Setting(
        "master_addr",
        f"{word_text(address) if address else '(hostfile first host)'}:{word_text(port) if port else 29500}",
        address is not None,
        (address or words[0]).span,
    )
    return Launch("deepspeed", command, words[index], nodes, per_node, rendezvous, launch_env(script, command))


def parse_srun(script: ShellScript, command: Command, index: int, program: int | None = None) -> Launch:
    """`srun [options] PROGRAM`: every task is one process; nodes from --nodes/-N, processes per
    node from --ntasks-per-node, else --ntasks divided by the nodes. `index` is the training
    script's word, `program` the word srun runs (its options end there)."""
    words = command.words
    options = scan_options(words, 1, index if program is None else program, short=SRUN_SHORT)
    at = command.span.start
    nodes_word = options.get("nodes") or options.get("N")
    tasks_word = options.get("ntasks_per_node")
    nodes = _count("--nodes", nodes_word, script, at, command)
    per_node = _count("--ntasks-per-node", tasks_word, script, at, command)
    total = options.get("ntasks") or options.get("n")
    if tasks_word is None and total is not None:
        count, node_count = to_int(total.value), to_int(nodes.value) or 1
        per_node = setting_from_word("--ntasks", total, script, at)
        per_node.value = count // node_count if count is not None and nodes.value is not None else None
    rendezvous = Setting("MASTER_ADDR", "(first host of SLURM_NODELIST):29500", False, words[0].span)
    return Launch("srun", command, words[index], nodes, per_node, rendezvous, launch_env(script, command))


def parse_mpirun(script: ShellScript, command: Command, index: int) -> Launch:
    """`mpirun -np N [-npernode M] PROGRAM`: every rank is one process."""
    words = command.words
    options = scan_options(words, 1, index, short=MPIRUN_SHORT)
    at = command.span.start
    per_word = options.get("npernode") or options.get("N")
    total = options.get("np") or options.get("n")
    per_node = _count("-npernode", per_word, script, at, command)
    nodes = Setting("nodes", None, False, words[0].span)
    if per_word is not None and total is not None:
        count, each = to_int(total.value), to_int(per_word.value)
        nodes = setting_from_word("-np", total, script, at)
        nodes.value = count // each if count is not None and each else None
    elif total is not None:
        per_node = setting_from_word("-np", total, script, at)
        per_node.value = to_int(total.value)
        nodes = Setting("nodes", 1, False, words[0].span)
    rendezvous = Setting("MASTER_ADDR", "(set by the MPI launcher)", False, words[0].span)
    return Launch("mpirun", command, words[index], nodes, per_node, rendezvous, launch_env(script, command))


def _count(name: str, word: Word | None, script: ShellScript, at: int, command: Command) -> Setting:
    if word is None:
        return Setting(name, 1, False, command.words[0].span)
    setting = setting_from_word(name, word, script, at)
    setting.value = to_int(word.value)
    return setting


def repo_root(folder: Path) -> Path | None:
    """The nearest folder at or above `folder` with .git, pyproject.toml or setup.py."""
    current = folder
    for _ in range(_ROOT_SEARCH):
        if any((current / marker).exists() for marker in ROOT_MARKERS):
            return current
        if current.parent == current:
            return None
        current = current.parent
    return None


def search_places(script: ShellScript, command: Command) -> list[Path]:
    """Folders a relative path in a launch may be relative to, most likely first: the folder the
    command runs in (after the script's `cd`s), the script's folder, the other folders it cds
    into, then each folder above it up to the repository root (scripts kept in `scripts/` are
    usually run from the top of their repository)."""
    base = script.source.path.parent
    places: list[Path] = []
    if command.cwd:
        places.append(base / command.cwd)
    places.append(base)
    places.extend(base / folder for folder in script.cd_dirs)
    root = repo_root(base.absolute()) if script.source.path.name != "<command>" else None
    if root is not None:
        current = base
        for _ in range(_ROOT_SEARCH):
            if current.absolute() == root or current.parent == current:
                break
            current = current.parent
            places.append(current)
        if current.absolute() != root:
            places.append(root)
    seen: set[Path] = set()
    unique = []
    for place in places:
        key = Path(posixpath.normpath(place))
        if key not in seen:
            seen.add(key)
            unique.append(key)
    return unique


def python_loop_ranks(script: ShellScript, command: Command) -> Setting:
    """v2 recipes start one `python wenet/bin/train.py --gpu $gpu_id` per GPU in a for loop."""
    binding = command.variable("num_gpus")
    if binding is None:
        return Setting("num_gpus", 1, False, command.words[0].span)
    origin = binding.origin
    span = origin.value.span if origin is not None else command.words[0].span
    word = Word("$num_gpus", span, binding.value, "num_gpus", reason=binding.reason, binding=binding)
    edit_span = origin.value.edit_span if origin is not None else None
    return Setting("num_gpus", to_int(binding.value), True, span, edit_span, "num_gpus", word)
