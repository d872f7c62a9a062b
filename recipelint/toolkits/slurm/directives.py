"""What a Slurm job asks for: `#SBATCH` directives and the resource flags of `srun`/`salloc`,
read as words (never run), and the allocation per node they give (recipelint.allocation).

sbatch reads `#SBATCH` lines only up to the first command of the script (sbatch(1): "The batch
script may contain options preceded with "#SBATCH" before any executable commands"); `srun`
flags override them for the step they start. Slurm's own defaults where the job is silent:
one task per node (sbatch(1) `--ntasks`: "The default is one task per node"); `--mem` in
megabytes without a unit, `--mem=0` is the whole node's memory (sbatch(1) `--mem`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from recipelint.allocation import Allocation, Grant
from recipelint.parse.files import BOM
from recipelint.parse.shell import Word
from recipelint.parse.span import SourceText, Span
from recipelint.records import dataclass

# The short forms the rules read (sbatch(1), srun(1)): -N nodes, -n tasks, -c cpus per task,
# -G GPUs, -t time.
SHORT = {"-N": "nodes", "-n": "ntasks", "-c": "cpus_per_task", "-G": "gpus", "-t": "time"}
# The long options read, as scan keys (dashes dropped, `-` as `_`); the others (partition, job
# name, output...) say nothing of the allocation per node.
READ = frozenset(
    {
        "nodes",
        "ntasks",
        "ntasks_per_node",
        "cpus_per_task",
        "gres",
        "gpus",
        "gpus_per_node",
        "gpus_per_task",
        "mem",
        "mem_per_cpu",
        "mem_per_gpu",
        "time",
        "exclusive",
    }
)
SWITCHES = frozenset({"exclusive"})
_SBATCH = re.compile(rb"^[ \t]*#SBATCH[ \t]+([^\n]*)", re.MULTILINE)
_TOKEN = re.compile(rb"\S+")
_UNITS = {"K": 1 / 1024**2, "M": 1 / 1024, "G": 1.0, "T": 1024.0}
SLURM_VARS = {
    "SLURM_NNODES": "nodes",
    "SLURM_JOB_NUM_NODES": "nodes",
    "SLURM_GPUS_ON_NODE": "gpus",
    "SLURM_GPUS_PER_NODE": "gpus",
    "SLURM_NTASKS_PER_NODE": "tasks_per_node",
    "SLURM_CPUS_PER_TASK": "cpus_per_task",
}


@dataclass(frozen=True)
class Directive:
    """One option the job gives Slurm: its key, its value (None: only the run time knows), and
    where it is written."""

    key: str
    value: str | None
    said: str  # "#SBATCH --nodes=4", "srun --ntasks-per-node=${GPUS_PER_NODE}"
    span: Span
    reason: str | None = None  # why the value is unknown


def _key(option: str) -> str | None:
    if option in SHORT:
        return SHORT[option]
    if option.startswith("--"):
        key = option[2:].replace("-", "_")
        return key if key in READ else None
    return None


def sbatch_directives(source: SourceText) -> list[Directive]:
    """The `#SBATCH` options of a batch script, up to its first command."""
    found: list[Directive] = []
    end = _first_command(source.data)
    for match in _SBATCH.finditer(source.data, 0, end):
        tokens = [(m.start(), m.group().decode("utf-8", "replace")) for m in _TOKEN.finditer(match.group(1))]
        base = match.start(1)
        found.extend(_from_tokens(source, [(base + at, text) for at, text in tokens if not text.startswith("#")], "#SBATCH"))
    return found


def sbatch_lines(data: bytes) -> bool:
    """Whether the script has `#SBATCH` lines where sbatch reads them (before its first command:
    one written into a heredoc further down is another script's). A byte order mark is no command."""
    data = data.removeprefix(BOM)
    return _SBATCH.search(data, 0, _first_command(data)) is not None


def _first_command(data: bytes) -> int:
    """The offset of the script's first line that is neither blank nor a comment."""
    offset = 0
    for line in data.splitlines(keepends=True):
        stripped = line.strip()
        if stripped and not stripped.startswith(b"#"):
            return offset
        offset += len(line)
    return offset


def _from_tokens(source: SourceText, tokens: list[tuple[int, str]], prefix: str) -> Iterator[Directive]:
    index = 0
    while index < len(tokens):
        at, text = tokens[index]
        option, sep, value = text.partition("=")
        short = next((s for s in SHORT if text.startswith(s) and len(text) > len(s) and not text.startswith("--")), None)
        key = _key(option) if short is None else SHORT[short]
        end = at + len(text.encode())
        if short is not None:
            value, sep = text[len(short) :], "="
        elif key is not None and not sep and key not in SWITCHES and index + 1 < len(tokens):
            index += 1
            value = tokens[index][1]
            end = tokens[index][0] + len(value.encode())
        if key is not None:
            span = source.span(at, end)
            yield Directive(key, value if key not in SWITCHES else "yes", f"{prefix} {source.slice(span)}", span)
        index += 1


def srun_directives(words: list[Word], end: int) -> list[Directive]:
    """The resource flags of `srun`/`salloc` in words[1:end] (its options stop at its program)."""
    found: list[Directive] = []
    index = 1
    while index < end:
        word = words[index]
        text = word.value if word.value is not None else word.text
        option, sep, _ = text.partition("=")
        key = _key(option)
        value_word: Word | None = None
        if word.option is not None:
            key, value_word = _key(word.option[0]), word.option[1]
        elif key is not None and not sep and key not in SWITCHES and index + 1 < end:
            index += 1
            value_word = words[index]
        if key is not None:
            value = "yes" if key in SWITCHES else (value_word.value if value_word is not None else None)
            last = value_word or word
            span = word.span.to(last.span)
            reason = value_word.reason if value_word is not None else None
            written = f"{_name(words[0])} {word.text}{'' if word.option or value_word is None else ' ' + value_word.text}"
            found.append(Directive(key, value, f"{written} = {value}" if "$" in written and value else written, span, reason))
        index += 1
    return found


def _name(word: Word) -> str:
    text = word.value if word.value is not None else word.text
    return text.rsplit("/", 1)[-1]


def _int(text: str | None) -> int | None:
    return int(text) if text is not None and text.isdigit() else None


def gib_of(text: str | None) -> float | None:
    """A Slurm size in GiB: `80G`, `500MB`, `4096` (megabytes without a unit)."""
    match = re.fullmatch(r"(\d+(?:\.\d+)?)([KMGT]?)B?", (text or "").strip().upper())
    if match is None:
        return None
    return float(match.group(1)) * _UNITS[match.group(2) or "M"]


def gpu_count(text: str | None) -> int | None:
    """GPUs in a `--gres` or `--gpus*` value: `gpu:8`, `gpu:a100:8`, `a100:1`, `8`."""
    for item in (text or "").split(","):
        parts = item.split(":")
        if item.startswith("gpu") or len(parts) <= 2:
            count = _int(parts[-1]) if len(parts) > 1 or parts[0].isdigit() else (1 if parts[0] == "gpu" else None)
            if count is not None:
                return count
    return None


def allocation(directives: list[Directive], where: Span) -> Allocation:
    """The allocation per node the directives give (a later one wins: srun's over #SBATCH)."""
    given: dict[str, Directive] = {}
    for directive in directives:
        given[directive.key] = directive
    job = Allocation("Slurm", "its #SBATCH directives and srun flags", given[next(iter(given))].span if given else where)
    _nodes(job, given)
    _tasks(job, given, where)
    _gpus(job, given)
    _cpus(job, given)
    _memory(job, given)
    time = given.get("time")
    if time is not None and time.value:
        job.grants["time"] = Grant(time.value, time.said, time.span)
    return job


def _open(job: Allocation, name: str, directive: Directive) -> None:
    job.unknown[name] = f"{directive.said}: {directive.reason or 'decided at run time'}"


def _nodes(job: Allocation, given: dict[str, Directive]) -> None:
    nodes = given.get("nodes")
    if nodes is None:
        _nodes_from_tasks(job, given)
        return
    count = _int(nodes.value)
    if count is not None and count > 0:
        job.grants["nodes"] = Grant(count, nodes.said, nodes.span)
    elif nodes.value is not None and "-" in nodes.value:
        job.unknown["nodes"] = f"{nodes.said}: Slurm starts the job on any count in that range"
    else:
        _open(job, "nodes", nodes)


def _nodes_from_tasks(job: Allocation, given: dict[str, Directive]) -> None:
    """No --nodes: --ntasks over --ntasks-per-node is the node count Slurm allocates."""
    total, per_node = given.get("ntasks"), given.get("ntasks_per_node")
    count, each = _int(total.value if total else None), _int(per_node.value if per_node else None)
    if total is not None and per_node is not None and count and each and count % each == 0:
        job.grants["nodes"] = Grant(count // each, f"{total.said} / {per_node.said}", total.span)


def _tasks(job: Allocation, given: dict[str, Directive], where: Span) -> None:
    per_node, total, nodes = given.get("ntasks_per_node"), given.get("ntasks"), job.get("nodes")
    if per_node is not None:
        count = _int(per_node.value)
        if count is not None and count > 0:
            job.grants["tasks_per_node"] = Grant(count, per_node.said, per_node.span)
        else:
            _open(job, "tasks_per_node", per_node)
    elif total is not None:
        count = _int(total.value)
        if count is not None and nodes is not None and count % nodes.value == 0:
            job.grants["tasks_per_node"] = Grant(count // nodes.value, f"{total.said} over {nodes.said}", total.span)
        else:
            job.unknown["tasks_per_node"] = f"{total.said}: how Slurm spreads them over the nodes is not stated"
    elif "nodes" in job.grants or given:
        span = given[next(iter(given))].span if given else where
        job.grants["tasks_per_node"] = Grant(1, "no --ntasks or --ntasks-per-node: Slurm's default, one task per node", span)


def _gpus(job: Allocation, given: dict[str, Directive]) -> None:
    tasks, nodes = job.get("tasks_per_node"), job.get("nodes")
    for key in ("gpus_per_node", "gres", "gpus_per_task", "gpus"):
        directive = given.get(key)
        if directive is None:
            continue
        count = gpu_count(directive.value)
        if count is None:
            _open(job, "gpus", directive)
        elif key == "gpus_per_task" and tasks is not None:
            job.grants["gpus"] = Grant(count * tasks.value, f"{directive.said} x {tasks.value} task(s) per node", directive.span)
        elif key == "gpus" and nodes is not None and count % nodes.value == 0:
            job.grants["gpus"] = Grant(count // nodes.value, f"{directive.said} over {nodes.value} node(s)", directive.span)
        elif key in ("gpus_per_node", "gres"):
            job.grants["gpus"] = Grant(count, directive.said, directive.span)
        else:
            job.unknown["gpus"] = f"{directive.said}: the GPUs per node depend on how Slurm spreads the tasks"
        return


def _cpus(job: Allocation, given: dict[str, Directive]) -> None:
    directive, tasks = given.get("cpus_per_task"), job.get("tasks_per_node")
    if directive is None:
        why = "--exclusive: the whole node, whose CPU count the script does not state" if "exclusive" in given else None
        job.unknown["cpus"] = why or "no --cpus-per-task: Slurm gives each task one CPU unless the cluster's defaults give more"
        return
    count = _int(directive.value)
    if count is None or count <= 0:
        _open(job, "cpus", directive)
        return
    job.grants["cpus_per_task"] = Grant(count, directive.said, directive.span)
    if tasks is not None:
        job.grants["cpus"] = Grant(count * tasks.value, f"{directive.said} x {tasks.value} task(s) per node", directive.span)


def _memory(job: Allocation, given: dict[str, Directive]) -> None:
    for key, per in (("mem", None), ("mem_per_cpu", "cpus"), ("mem_per_gpu", "gpus")):
        directive = given.get(key)
        if directive is None:
            continue
        size = gib_of(directive.value)
        if size is None or size == 0:
            why = "the whole node's memory, which the script does not state" if size == 0 else None
            job.unknown["memory_gib"] = f"{directive.said}: {why}" if why else f"{directive.said}: {directive.reason or 'not a size'}"
            return
        if per is None:
            job.grants["memory_gib"] = Grant(size, directive.said, directive.span)
            return
        count = job.get(per)
        if count is None:
            job.unknown["memory_gib"] = f"{directive.said}: the {per} per node are not stated"
            return
        job.grants["memory_gib"] = Grant(size * count.value, f"{directive.said} x {count.value} {per} per node", directive.span)
        return
