"""How training processes start, whatever the toolkit: torchrun (and `python -m
torch.distributed.run/launch`), the `deepspeed` launcher, `srun` and `mpirun` (each task one
process), the environment a command runs with, and the folders its relative paths are looked
up in. The WeNet, XTuner and generic DeepSpeed front ends all build their Launch here.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from typing import Any

from recipelint.model import Launch, Recipe, Setting, Workdir
from recipelint.parse import KINDS
from recipelint.parse.shell import Command, ShellScript, Word
from recipelint.parse.where import ROOT_MARKERS, SKIP_DIRS, repo_root, shown, upward

# torchrun options that take no value (keys as scan_options normalises them)
_TORCHRUN_SWITCHES = frozenset({"standalone", "no_python", "module", "use_env"})
SRUN_SHORT = frozenset({"-N", "-n", "-p", "-J", "-c", "-w", "-t", "-A", "-q"})
MPIRUN_SHORT = frozenset({"-np", "-n", "-N", "-H", "-x", "-npernode"})
_ROOT_SEARCH = 12
SRUN_NODES = "unknown: srun without --nodes runs on the nodes of the allocation it is in (sbatch -N, salloc -N): the run time decides"
_ABOVE = "a folder above the script"
_NO_ROOT_LEVELS = 1  # folders above a script outside the current folder with no repository root, still searched
_MODULE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")


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


def hidden_options(words: list[Word], start: int, end: int) -> Word | None:
    """An unquoted `$ARGS` among a launcher's options whose value only the run time knows (an `if`
    sets it two ways, a loop, a command): it may hold any option, so one not written elsewhere is
    unknown, never the launcher's default."""
    for word in words[start:end]:
        if word.value is None and word.text.startswith("$") and word.option is None and word.binding is not None:
            return word
    return None


def unstated(name: str, option: str, default: Any, hidden: Word | None, command: Command) -> Setting:
    """An option the launch does not write: the launcher's default, or unknown when `$ARGS` may hold it."""
    if hidden is None:
        return Setting(name, default, False, command.words[0].span)
    agreed = _every_branch(hidden, option)
    if agreed is not None:
        return Setting(name, to_value(agreed[0]), True, hidden.span, origin=agreed[1])
    why = hidden.reason or "decided at run time"
    return Setting(name, None, False, hidden.span, origin=f"unknown: `{hidden.text}` may give --{option}: {why}")


def _every_branch(hidden: Word, option: str) -> tuple[str, str] | None:
    """The value every branch's `$ARGS` gives an option (`--nproc_per_node 8` on both sides of a
    multi-node `if`), with where it is said; None when a branch lacks it or they differ."""
    binding = hidden.binding
    if binding is None or binding.branches is None:
        return None
    found: set[str | None] = set()
    for branch in binding.branches:
        if branch is None or (branch.fields is None and branch.value is None):
            return None
        words = branch.fields if branch.fields is not None else [Word(piece, hidden.span, piece) for piece in (branch.value or "").split()]
        given = scan_options(words, 0, len(words), _TORCHRUN_SWITCHES).get(option)
        found.add(given.value if given is not None else None)
    value = found.pop() if len(found) == 1 else None
    return (value, f"every branch of {binding.where} gives --{option} {value} in `{hidden.text}`") if value is not None else None


def branch_values(word: Word) -> list[str] | None:
    """The values a `$var` word has on the branches that set it (`./train.py` or `../src/train.py`),
    when every branch gives one; None otherwise."""
    binding = word.binding
    if word.value is not None or binding is None or binding.branches is None:
        return None
    values = [branch.value if branch is not None else None for branch in binding.branches]
    return [v for v in values if v is not None] if None not in values else None


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


# The modules `python -m` runs as torchrun: an elastic agent that starts the ranks itself.
DISTRIBUTED_MODULES = ("torch.distributed.run", "torch.distributed.launch")
# Inference servers: they start their own tensor-parallel workers and meet at an address of their
# own flags (SGLang's --dist-init-addr, vLLM's Ray cluster), no torch.distributed launch of a
# training script. By `python -m MODULE` (sgl-project/sglang python/sglang/launch_server.py,
# vllm-project/vllm vllm/entrypoints/openai/api_server.py) and by console command
# (`vllm serve`, Hugging Face TGI's `text-generation-launcher`, Triton's `tritonserver`).
SERVER_MODULES = {
    "sglang.launch_server": "the SGLang server",
    "sglang_router.launch_server": "the SGLang router and servers",
    "sglang.bench_offline_throughput": "SGLang's offline engine (bench_offline_throughput)",
    "sglang.bench_one_batch": "SGLang's offline engine (bench_one_batch)",
    "vllm.entrypoints.openai.api_server": "the vLLM server",
    "vllm.entrypoints.api_server": "the vLLM server",
    "vllm.entrypoints.cli.main": "the vLLM command line",
}
SERVER_COMMANDS = {
    ("vllm", "serve"): "the vLLM server",
    ("sglang", "serve"): "the SGLang server",
    ("text-generation-launcher", ""): "the TGI server",
    ("tritonserver", ""): "the Triton server",
    # TRL's generation server for GRPO/online DPO (huggingface/trl@865665e9:trl/scripts/vllm_serve.py,
    # `trl vllm-serve` in trl/cli.py): vLLM workers the trainer's VLLMClient talks to, no training
    ("trl", "vllm-serve"): "TRL's vLLM server",
}


def server(words: list[Word]) -> str | None:
    """`the SGLang server (`python -m sglang.launch_server`)` when the command starts an
    inference server or engine (after any srun/mpirun/env prefix); else None."""
    texts = [posixpath.basename(word_text(w)) for w in words]
    for index, text in enumerate(texts):
        following = texts[index + 1] if index + 1 < len(texts) else ""
        for (program, sub), name in SERVER_COMMANDS.items():
            if text == program and (not sub or following == sub):
                return f"{name} (`{program}{' ' + sub if sub else ''}`)"
        if text in ("-m", "--module") and index > 0 and texts[index - 1].startswith("python"):
            module = word_text(words[index + 1]) if index + 1 < len(words) else ""
            if module in SERVER_MODULES:
                return f"{SERVER_MODULES[module]} (`python -m {module}`)"
    return None


def distributed_module(words: list[Word], start: int, stop: int) -> str | None:
    """`-m torch.distributed.run|launch` among words[start:stop]: the module, else None."""
    for j in range(start, min(stop, len(words)) - 1):
        if word_text(words[j]) == "-m" and word_text(words[j + 1]) in DISTRIBUTED_MODULES:
            return word_text(words[j + 1])
    return None


def parse_torchrun(script: ShellScript, command: Command, index: int) -> Launch:
    words = command.words
    first = words[0].value or words[0].text
    launcher = Path(first).name
    module = distributed_module(words, 1, index)  # python -m torch.distributed.run / .launch
    if module is not None:
        launcher = "torchrun" if module.endswith("run") else "torch.distributed.launch"
    options = scan_options(words, 1, index, _TORCHRUN_SWITCHES)
    if launcher.startswith("python"):
        launcher = "python" if launcher == Path(first).name else launcher
    at = command.span.start

    hidden = hidden_options(words, 1, index)

    def setting(name: str, option: str, default: Any) -> Setting:
        word = options.get(option)
        if word is None:
            return unstated(name, option, default, hidden, command)
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
        per_node = unstated("nproc_per_node", "nproc_per_node", 1, hidden, command)
    if hidden is not None and not {"rdzv_endpoint", "master_addr", "master_port"} & set(options):
        rendezvous = unstated("master_addr", "master_addr", None, hidden, command)
    elif "rdzv_endpoint" in options:
        rendezvous = setting("rdzv_endpoint", "rdzv_endpoint", None)
    else:
        address = options.get("master_addr")
        port = options.get("master_port")
        # a part only the run time knows is shown as written (`${MASTER_PORT}`), never as "None"
        value = f"{word_text(address) if address else '127.0.0.1'}:{word_text(port) if port else 29500}"
        # only the port given (FunASR's run.sh: --master_port ${master_port}): the source says so
        origin = (
            f"`{port.text}` at {port.span.path.name}:{port.span.line}; --master_addr not given: default 127.0.0.1"
            if port and not address
            else None
        )
        rendezvous = Setting("master_addr", value, address is not None, (address or command.words[0]).span, origin=origin)
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
    # srun without --nodes runs on the nodes of the allocation it is in (sbatch -N, salloc -N), not
    # on 1: the job file's #SBATCH lines say how many (slurm frontend), else the run time decides
    nodes = (
        _count("--nodes", nodes_word, script, at, command)
        if nodes_word is not None
        else Setting("--nodes", None, False, words[0].span, origin=SRUN_NODES)
    )
    per_node = _count("--ntasks-per-node", tasks_word, script, at, command)
    total = options.get("ntasks") or options.get("n")
    if tasks_word is None and total is not None:  # --ntasks over the nodes (told later when they come from #SBATCH)
        count, node_count = to_int(total.value), to_int(nodes.value)
        per_node = setting_from_word("--ntasks", total, script, at)
        per_node.value = count // node_count if count is not None and node_count else None
    env = launch_env(script, command)
    return Launch("srun", command, words[index], nodes, per_node, _srun_rendezvous(command, env), env)


def _srun_rendezvous(command: Command, env: dict[str, Setting]) -> Setting:
    """Where srun's tasks meet: the MASTER_ADDR and MASTER_PORT the script exports to them (each
    task's training code reads them), unknown when the run time decides either; the default
    (the first host, 29500) only when the script exports neither."""
    address, port = env.get("MASTER_ADDR"), env.get("MASTER_PORT")
    if address is None and port is None:
        return Setting("MASTER_ADDR", "(first host of SLURM_NODELIST):29500", False, command.words[0].span)
    unknown = [name for name, found in (("MASTER_ADDR", address), ("MASTER_PORT", port)) if found is not None and found.value is None]
    where = address or port
    assert where is not None
    if unknown:
        reasons = [(command.scope[name].reason if name in command.scope else None) or f"{name} is decided at run time" for name in unknown]
        return Setting("MASTER_ADDR", None, True, where.span, origin=f"exported by the script: {'; '.join(reasons)}")
    value = f"{address.value if address else '(first host of SLURM_NODELIST)'}:{port.value if port else 29500}"
    return Setting("MASTER_ADDR", value, True, where.span, origin="MASTER_ADDR/MASTER_PORT exported by the script")


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


def _program_paths(program: str | None) -> list[str]:
    """Where the training script is, relative to the working folder: `train.py`, or `pkg/mod.py`
    for `-m pkg.mod`. Empty when its path is absolute or decided at run time."""
    if not program or "$" in program or posixpath.isabs(program) or program.startswith("~"):
        return []
    if program.endswith(".py"):
        return [program]
    if _MODULE.fullmatch(program):
        base = program.replace(".", "/")
        return [f"{base}.py", f"{base}/__main__.py"]
    return []


def _sources_from_folder(script: ShellScript) -> str | None:
    """A file the script sources by a relative path from its own folder (`. ./path.sh`): then it runs there."""
    for sourced in script.sourced:
        if sourced.read and not posixpath.isabs(sourced.path) and posixpath.basename(sourced.path) not in ("", "."):
            return sourced.path
    return None


def _cd_candidate(script: ShellScript, cwd: str, base: Path, root: Path | None) -> tuple[Path, str]:
    """The folder a `cd` leads to; `git clone URL; cd NAME/sub` goes into the clone, which is this
    checkout: the script's folder when it is named NAME (or is the repository's top), else the
    repository root, whichever holds `sub`."""
    first, _, rest = cwd.partition("/")
    if first not in script.clones:
        return base / cwd, f"the folder the script cds into (`cd {cwd}`)"
    tops = [folder for folder in (base if base.absolute().name == first else None, root, base) if folder is not None]
    top = next((folder for folder in tops if (folder / rest).is_dir()), tops[0])
    return top / rest, f"`cd {cwd}` into the clone {first}, this checkout's top"


def _candidates(script: ShellScript, command: Command, base: Path, root: Path | None) -> list[tuple[Path, str]]:
    """The folders a launch may run from, in the order they are preferred (launchers.working_folder)."""
    found: list[tuple[Path, str]] = []
    if command.cwd:
        found.append(_cd_candidate(script, command.cwd, base, root))
    sourced = _sources_from_folder(script)
    if sourced is not None:
        found.append((base, f"the script's folder (it sources {sourced} from there)"))
    if root is not None:
        marker = next((m for m in ROOT_MARKERS if (root / m).exists()), ROOT_MARKERS[0])
        found.append((root, f"the repository root ({marker})"))
    here = Path.cwd()
    if base.absolute() == here or here in base.absolute().parents:
        found.append((here, "the folder recipelint runs in"))
    found.append((base, "the script's folder"))
    found.extend((folder, _ABOVE) for folder in _above(base, root))
    return found


def _above(base: Path, root: Path | None) -> list[Path]:
    """The folders above the script up to the repository root; with no root, a bounded few."""
    current = base.absolute()
    here = Path.cwd()
    # with no root, the folder recipelint runs in is the top when the script is under it
    top = root if root is not None else (here if here in current.parents else None)
    if current == top or current.parent == current:
        return []
    return upward(current.parent, lambda folder: folder == top, _ROOT_SEARCH if top is not None else _NO_ROOT_LEVELS)[0]


def _unique(candidates: list[tuple[Path, str]]) -> list[tuple[Path, str]]:
    seen: set[Path] = set()
    unique = []
    for folder, label in candidates:
        key = shown(folder)
        if key not in seen:
            seen.add(key)
            unique.append((key, label))
    return unique


def working_folder(script: ShellScript, command: Command, program: str | None = None) -> Workdir:
    """The folder a launch runs from: the first candidate (the folder after the script's `cd`s,
    the repository root, the folder recipelint runs in, the script's folder, those above it)
    holding the launched training script. Undecided when none holds it: its relative paths are
    then looked up in each (places_of), never in one picked silently."""
    command_line = script.source.path.name == "<command>"
    base = script.source.path.parent
    root = repo_root(base.absolute()) if not command_line else None
    candidates = _unique(_candidates(script, command, base, root) if not command_line else [(Path.cwd(), "the folder recipelint runs in")])
    searched = None if root is not None or command_line else shown(_above(base, None)[-1] if _above(base, None) else base)
    paths = _program_paths(program)
    for folder, label in candidates:
        if any((folder / path).is_file() for path in paths):
            return Workdir(folder, f"{label}; {program} is there", candidates, shown(root) if root else None, searched)
    below = _below_guide(base, paths) if KINDS.get(script.source.path.suffix) == "markdown" else None
    if below is not None:
        label = f"the one folder below the guide that holds {program} (a guide's commands run where the script they start is)"
        candidates = [(below, label), *candidates]
        return Workdir(below, label, candidates, shown(root) if root else None, searched)
    why = (
        f"{program} is in none of the folders tried"
        if paths
        else "no training script file to look for (an installed command, or a path only the run time knows)"
    )
    return Workdir(None, f"{why}; relative paths are looked up in each", candidates, shown(root) if root else None, searched)


_BELOW_LEVELS = 3  # how deep below a guide its training script is looked for
_BELOW_FOLDERS = 200  # and in how many folders at most


def _below_guide(base: Path, paths: list[str]) -> Path | None:
    """The one folder a few levels below a guide's own folder that holds the training script it
    starts (OpenBMB/MiniCPM's minicpm_sala/finetune/README.md runs `finetune.py`, which sits in
    finetune/trainer/ beside the configs the command names); None when none or several do."""
    if not paths:
        return None
    found: list[Path] = []
    queue = [(base, 0)]
    for _ in range(_BELOW_FOLDERS):
        if not queue or len(found) > 1:
            break
        folder, depth = queue.pop(0)
        if folder != base and any((folder / path).is_file() for path in paths):
            found.append(folder)
        if depth < _BELOW_LEVELS:
            queue.extend((child, depth + 1) for child in _subfolders(folder))
    return found[0] if len(found) == 1 else None


def _subfolders(folder: Path) -> list[Path]:
    try:
        return sorted(
            c for c in folder.iterdir() if c.name not in SKIP_DIRS and not c.name.startswith(".") and c.is_dir() and not c.is_symlink()
        )
    except OSError:
        return []


def places_of(script: ShellScript, command: Command, workdir: Workdir) -> list[Path]:
    """Folders a relative path in a launch may be relative to, most likely first: the working
    folder (when the training script decides it), the folder the command runs in (after the
    script's `cd`s), the script's folder, the other folders it cds into, each folder above it up
    to the repository root (scripts kept in `scripts/` are usually run from the top of their
    repository), the folder recipelint runs in; with no root, a bounded few folders above."""
    base = script.source.path.parent
    places: list[tuple[Path, str]] = [(workdir.path, "")] if workdir.path is not None else []
    if command.cwd:
        places.append(_cd_candidate(script, command.cwd, base, workdir.root))
    places.append((base, ""))
    places.extend(_cd_candidate(script, folder, base, workdir.root) for folder in script.cd_dirs)
    above = [item for item in workdir.candidates if item[1] == _ABOVE]
    places.extend([*above, *workdir.candidates])
    return [folder for folder, _ in _unique(places)]


def set_places(recipe: Recipe, script: ShellScript, command: Command, program: str | None = None) -> None:
    """Decide the launch's working folder (recorded on the recipe, for show and RL010) and the
    folders its relative paths are looked up in. `program`: the training script's word, for a
    front end that needs the folders before it builds the launch (the launch's, otherwise)."""
    if program is None and recipe.launch is not None:
        program = word_text(recipe.launch.script)
    recipe.workdir = working_folder(script, command, program)
    recipe.places = places_of(script, command, recipe.workdir)


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
