"""The typed recipe model every rule reads: values with the spans they were written at."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

from recipelint.parse.files import FileCache, SourceError
from recipelint.parse.shell import Command, ShellScript, Word
from recipelint.parse.shellvariants import described
from recipelint.parse.span import SourceText, Span
from recipelint.parse.tree import Document
from recipelint.parse.where import shown, shown_folder
from recipelint.records import dataclass, field

if TYPE_CHECKING:
    from recipelint.allocation import Allocation
    from recipelint.parse.checkout import Checkout
    from recipelint.parse.hfparser import Reading


class Payload(Protocol):
    """A toolkit's own reading of a file: anything that says which source it read."""

    @property
    def source(self) -> SourceText: ...


@runtime_checkable
class ReadPart(Protocol):
    """A toolkit part that is a file the toolkit read (its own config format): the recipe lists it
    among its files, and a recipe without a launch is judged by it."""

    @property
    def source(self) -> SourceText: ...

    @property
    def kind(self) -> str: ...  # what the file is, in words: "an XTuner config"


P = TypeVar("P")


@dataclass
class Setting:
    """One setting as the recipe leaves it: written somewhere, or left to the program's default."""

    name: str  # as the user writes it: `num_workers`, `timeout`, `NNODES`, `bf16.enabled`
    value: Any  # None when only the run time decides
    given: bool  # False: not written at all, so `value` is the program's default
    span: Span | None = None  # where a finding points: the value, else the flag or the command
    edit_span: Span | None = None  # where a new value is written; None: not rewritable in place
    via: str | None = None  # the shell variable the value came through, if any
    word: Word | None = None  # the shell word of the value, if it came from a command line
    flag: Span | None = None  # where the flag itself is written: `--launcher`, or all of `--launcher=slurm`
    # How a launcher arrives at the value when the recipe does not write it as such (`show` says
    # it): "accelerate default: one process per visible GPU (CUDA_VISIBLE_DEVICES=0,1,2,3)".
    origin: str | None = None

    @property
    def known(self) -> bool:
        return self.value is not None

    def as_int(self) -> int | None:
        try:
            return int(str(self.value), 0) if self.value is not None and not isinstance(self.value, bool) else None
        except ValueError:
            return None


def setting_source(setting: Setting) -> str:
    """Where a setting's value comes from, in words: the word and line it is written at, the
    assignment a `$var` came from, the default when it is not written, or why it is unknown."""
    where = f"{setting.span.path.name}:{setting.span.line}" if setting.span is not None else "the recipe"
    if setting.origin is not None:
        return f"{setting.origin} ({where})" if setting.given else setting.origin
    if not setting.given:
        return f"not given: default {setting.value}" if setting.value is not None else "not given"
    word = setting.word
    text = f"`{word.text}` at {where}" if word is not None else where
    if setting.value is None:
        reason = word.reason if word is not None else None
        return f"{text}: {reason}" if reason else f"{text}: decided at run time"
    origin = setting.edit_span if setting.via else None
    if origin is not None and origin.path != (setting.span.path if setting.span else None):
        return f"{text}, {setting.via} from {origin.path.name}:{origin.line}"
    if origin is not None and setting.span is not None and origin.line != setting.span.line:
        return f"{text}, {setting.via} at line {origin.line}"
    return text


@dataclass
class Note:
    """One thing recipelint understood about a recipe, with where it comes from, for `recipelint show`.

    Front ends and rules add notes as they read; `show` prints them by section, so a new kind of
    fact (a toolkit checkout, a version) is a new section name, not a new report."""

    section: str  # "launch", "configs", "data", "toolkit", "unknown", ...
    label: str
    value: str
    source: str = ""


@dataclass
class Link:
    """A file a launch names, and where recipelint looked for it."""

    role: str  # "train config", "DeepSpeed config", "train data", "mmengine config"
    setting: Setting
    path: Path | None = None  # where it was found; None: found nowhere (or its name is unknown)
    tried: list[Path] = field(default_factory=list)  # the folders searched, in order
    # False when a missing file is normal (a data list an earlier stage makes) or a toolkit's own
    # rule reports it (RL401, RL809); True: RL010 reports it.
    report_missing: bool = True
    written_at: Span | None = None  # the script writes the file itself (`cat <<EOF > $ds_config`)
    read_as: str = ""  # how a written file was read from the script's own text; "": not read
    missing: str = ""  # what the launcher does when the file is not there, for RL010's message
    outside: Path | None = None  # found outside the linted tree and its repository: not read (RL020)
    foreign: bool = False  # read, and not a config of this role (no key its reader knows): not kept (RL021)


def link_source(link: Link) -> tuple[str, str]:
    """A link's value as `show` prints it, and where it was found (or why not)."""
    setting = link.setting
    written = setting.word.text if setting.word is not None else str(setting.value)
    if link.path is not None:
        return str(setting.value), f"found at {shown(link.path)}"
    if link.written_at is not None:
        return str(setting.value), f"written by the script itself at line {link.written_at.line}; {link.read_as or 'not read'}"
    if setting.value is None:
        why = setting.word.reason if setting.word is not None and setting.word.reason else "decided at run time"
        return "unknown", f"`{written}`: {why}"
    tried = ", ".join(shown_folder(folder) for folder in link.tried)
    return str(setting.value), f"not found (tried {tried})"


@dataclass
class Workdir:
    """The folder a launch runs from, as recipelint decided it (launchers.working_folder), and why."""

    path: Path | None  # None: undecided (the training script is in none of the candidates)
    reason: str  # why this folder, or why none
    candidates: list[tuple[Path, str]] = field(default_factory=list)  # each folder considered, with what it is
    root: Path | None = None  # the repository root above the script (.git, pyproject.toml, setup.py); None: none
    searched_to: Path | None = None  # with no root: the highest folder the search went up to


@dataclass
class Launch:
    """How the training processes start: the same shape for every toolkit's front end."""

    launcher: str  # "torchrun", "torch.distributed.launch", "python", "deepspeed"
    command: Command
    script: Word  # the word naming the training script
    nnodes: Setting
    nproc_per_node: Setting
    rendezvous: Setting  # host:port the nodes meet at
    env: dict[str, Setting] = field(default_factory=dict)
    config: Document | None = None  # the launcher's own config file (`accelerate launch --config_file`)
    # The accelerator the training script is told to use, when its front end reads such a flag
    # (WeNet's --device cpu/npu/xpu); None: CUDA, or a script without one.
    device: str | None = None

    @property
    def module(self) -> bool:
        """The script word is a module (`torchrun -m pkg.cli`), not a file."""
        words = self.command.words
        index = next((i for i, w in enumerate(words) if w is self.script), 0)
        return index > 0 and words[index - 1].text in ("-m", "--module")

    def flag_point(self, after_script: bool = False) -> Span:
        """Where a flag added to the launch goes: just past the command's last word, or just past
        the training script (`train.py --new_flag 4 ...`: ahead of the line continuations a long
        WeNet launch is written with)."""
        return (self.script if after_script else self.command.words[-1]).span.after()


# The code that calls deepspeed.initialize with a recipe's JSON, as the rules and `show` name it.
CONSUMER_LABELS = {
    "deepspeed": "the training script's own deepspeed.initialize",
    "hf-trainer": "the Hugging Face Trainer",
    "accelerate": "Accelerate",
    "megatron": "Megatron-DeepSpeed",
    "unknown": "not decided",
}


@dataclass
class Consumer:
    """The code that reads a recipe's DeepSpeed JSON: who calls `deepspeed.initialize` with it,
    and whether it hands DeepSpeed its own optimizer and scheduler (then DeepSpeed never builds
    the JSON's `optimizer`/`scheduler` blocks)."""

    kind: str  # a key of CONSUMER_LABELS, or a toolkit's name (its own code calls deepspeed.initialize)
    client_optimizer: bool | None = None  # None: not known
    client_scheduler: bool | None = None
    evidence: list[str] = field(default_factory=list)  # "path:line: what was seen"
    # Not read from the training code: why, and what the kind was taken from instead (the launch
    # flag). The rules state it as the condition of their verdict.
    inferred: str = ""
    # Where the training code also hands the JSON to transformers' HfDeepSpeedConfig (its own
    # zero.Init decision, `is_zero3()`): DeepSpeed-Chat's scripts, XTuner's DeepSpeedStrategy.
    hf_config: str = ""
    code_sets: tuple[str, ...] = ()  # top-level keys the code writes into the config before initialize
    named: str = ""  # how the rules name it, when its kind is a toolkit's ("WeNet"): CONSUMER_LABELS otherwise
    filler: str = ""  # a toolkit's code: who replaces "auto" before DeepSpeed reads the JSON (Recipe.ds_filler)

    @property
    def label(self) -> str:
        return self.named or CONSUMER_LABELS.get(self.kind, self.kind)

    @property
    def hf_reads(self) -> bool | None:
        """Whether Hugging Face code (transformers' HfDeepSpeedConfig, Accelerate) reads the JSON."""
        if self.hf_config or self.kind in ("hf-trainer", "accelerate"):
            return True
        return None if self.kind == "unknown" else False

    def builds(self, block: str) -> bool | None:
        """Whether DeepSpeed builds the JSON's `optimizer` or `scheduler` block; None: not known.

        The Trainer and Accelerate hand a JSON optimizer to DeepSpeed (DummyOptim); a client
        optimizer passed to `deepspeed.initialize` overrides the block (a toolkit whose code drops
        its own optimizer when the JSON has one says so as client_optimizer=False)."""
        if self.kind in ("hf-trainer", "accelerate"):
            return True
        client = self.client_optimizer if block == "optimizer" else self.client_scheduler
        return None if client is None or self.kind == "unknown" else not client

    def why(self) -> str:
        """The evidence in one clause: the first place seen, or why the kind is only inferred."""
        return self.inferred or (self.evidence[0] if self.evidence else "")


def consumer_from_filler(filler: str) -> Consumer:
    """The consumer a recipe built without one stands for (a JSON linted alone, a test's recipe)."""
    kind = {"hf": "hf-trainer", "accelerate": "accelerate", "none": "deepspeed"}.get(filler, "unknown")
    said = {
        "hf": "the launch's --deepspeed flag (Hugging Face TrainingArguments)",
        "accelerate": "an accelerate launch",
        "none": "a launch that passes the JSON to DeepSpeed as is",
    }
    return Consumer(kind, inferred=f"inferred from {said[filler]}" if filler in said else "")


@dataclass
class Alternative:
    """Which way of running a launch a recipe is: its conditions, and its place among the others.
    The findings of a launch's alternatives are judged together (engine: a verdict that holds on
    every one keeps its severity, on some is a warning naming them, on none is not said)."""

    ways: tuple[tuple[str, ...], ...]  # the combinations of branches that run it, each its conditions
    every: tuple[tuple[str, ...], ...]  # every combination the launch has
    index: int
    count: int
    group: str  # the launch the alternatives are of: its path, offset, and place among its recipes
    own: Path | None = None  # the config this way alone reads (one of the files an argument chooses)
    chosen: str = ""  # said with each finding in that config: which launch it was judged with

    @property
    def label(self) -> str:
        return described(list(self.ways), list(self.every))


@dataclass
class Recipe:
    """A training recipe: its launch script, the configs it names, and the data it reads.

    Any part can be missing: a YAML or a DeepSpeed JSON linted alone is a recipe without a script.
    """

    root: Path
    # The toolkit that read it (`Toolkit.name`): which rules apply. No default: a recipe a front
    # end forgot to name would be judged by another toolkit's rules, or by none.
    toolkit: str
    script: ShellScript | None = None
    launch: Launch | None = None
    args: dict[str, Setting] = field(default_factory=dict)  # training-script flags by name
    unknown_args: list[tuple[str, Word]] = field(default_factory=list)
    config: Document | None = None
    ds_config: Document | None = None
    errors: list[SourceError] = field(default_factory=list)  # files of the recipe that could not be read
    # Who replaces "auto" in the DeepSpeed JSON before DeepSpeed reads it: "none" (WeNet, a plain
    # deepspeed launch), "hf", "accelerate", "xtuner", or "unknown" for a JSON linted alone.
    ds_filler: str = "unknown"
    # Which code reads the DeepSpeed JSON (set by the front ends; `reader` derives one otherwise).
    consumer: Consumer | None = None
    payload: Payload | None = None  # what a toolkit without a field here read (its rules know its type)
    # The WeNet/XTuner code the launch runs, with how it was found and its version (checkout.facts()).
    checkout: Checkout | None = None
    notes: list[Note] = field(default_factory=list)  # provenance and unknowns, for `recipelint show`
    # Folders a relative path in the launch is looked up in, in order (empty: `root` alone): the
    # folder the command cds into, the script's, those above it up to the repository root.
    places: list[Path] = field(default_factory=list)
    workdir: Workdir | None = None  # the folder the launch runs from, with its reason (None: no launch)
    # Ranks per model replica when the training code hands DeepSpeed a model-parallel unit (Megatron's
    # mpu: TP x PP x SP), so the data-parallel size is the world size divided by it; None: no such
    # unit; a Setting whose value is None: decided at run time.
    model_parallel: Setting | None = None
    links: list[Link] = field(default_factory=list)
    explicit: bool = False  # the user named this file itself (not found by walking a folder)
    # What the job's scheduler gives each node (a Slurm batch script, a Kubernetes manifest around
    # the launch); None: the recipe is not inside a job file recipelint read.
    allocation: Allocation | None = None
    # What the training script's Hugging Face HfArgumentParser receives and the TrainingArguments
    # it builds in code (recipelint.parse.hfparser); None: no script read, or none found.
    hf_args: Reading | None = None
    # One of the ways a launch runs when its variables differ between branches (the command read
    # once per combination); None: the launch runs one way, as far as the script tells.
    alternative: Alternative | None = None
    # Each toolkit's own typed facts, by their class (WeNet's data lists: toolkits/wenet/part.py).
    # The core names none: a toolkit's front end keeps its part here, and its rules read it back
    # as that class (`part`, `own`); another toolkit's recipe has none.
    parts: dict[type[object], object] = field(default_factory=dict)

    def part(self, kind: type[P]) -> P | None:
        """The toolkit part of this class, or None when the recipe has none."""
        found = self.parts.get(kind)
        return found if isinstance(found, kind) else None

    def own(self, kind: type[P]) -> P:
        """The toolkit part of this class, made empty the first time its front end asks for it."""
        found = self.part(kind)
        if found is None:
            found = kind()
            self.parts[kind] = found
        return found

    def read_parts(self) -> list[ReadPart]:
        """The toolkit parts that are files the toolkit read, in the order they were kept."""
        return [part for part in self.parts.values() if isinstance(part, ReadPart)]

    @property
    def reader(self) -> Consumer:
        """The consumer of the DeepSpeed JSON: the front end's, or the one `ds_filler` stands for."""
        return self.consumer if self.consumer is not None else consumer_from_filler(self.ds_filler)

    def note(self, section: str, label: str, value: object, source: str = "") -> None:
        self.notes.append(Note(section, label, str(value), source))

    def locate(self, value: str) -> tuple[Path | None, list[Path]]:
        """Where a relative path of the launch is: the first of the recipe's folders holding it,
        and the folders tried."""
        candidate = Path(value)
        if candidate.is_absolute():
            return (candidate if _a_file(candidate) else None), [candidate.parent]
        tried: list[Path] = []
        for folder in self.places or [self.root]:
            if folder in tried:
                continue
            tried.append(folder)
            if _a_file(folder / candidate):
                return shown(folder / candidate), tried
        return None, tried

    def locate_script(self, text: str, module: bool) -> tuple[Path | None, Path | None]:
        """The file a launch runs and the folder its absolute imports start from (Python's
        `sys.path[0]`): for `train.py`, its folder; for `-m pkg.cli`, the module's file in one of
        the recipe's folders (`pkg/cli.py`, or `pkg/cli/__main__.py`) and the folder that holds
        `pkg` (the working directory `-m` puts first on the path)."""
        if not module:
            path = self.locate(text)[0]
            return path, path.parent if path is not None else None
        parts = text.split(".")
        relative = "/".join(parts)
        for candidate, depth in ((f"{relative}.py", len(parts)), (f"{relative}/__main__.py", len(parts) + 1)):
            path = self.locate(candidate)[0]
            if path is not None:
                return path, path.parents[depth - 1]
        return None, None

    def launched_file(self) -> tuple[Path | None, Path | None]:
        """The training script the launch runs, a `.py` or a `-m` module found in the recipe's
        folders, and the folder its absolute imports start from (locate_script); (None, None)
        when there is no launch or the script is not found here."""
        launch = self.launch
        text = launch.script.value if launch is not None else None
        if launch is None or not isinstance(text, str) or not (launch.module or text.endswith(".py")):
            return None, None
        return self.locate_script(text, launch.module)

    def read_config(
        self,
        value: object,
        parse: Callable[[SourceText], P],
        files: FileCache,
        role: str | None = None,
        setting: Setting | None = None,
        report_missing: bool = True,
        accept: Callable[[P], bool] | None = None,
    ) -> P | None:
        """Parse a file the launch names, looked up in the recipe's folders; None when it is not there.

        With a role, the lookup is kept as a link (for `show` and RL010). A file that is there but
        unreadable is kept as an error of the recipe (the other files are still checked). A file
        outside the linted tree is not read (`Link.outside`), and one that `accept` says is not a
        config of this role (a Docker config.json passed as the DeepSpeed config) is not kept
        (`Link.foreign`): no rule sees, and no report quotes, a value of either."""
        if not isinstance(value, str) or not value:
            return None
        path, tried = self.locate(value)
        outside = files.outside(path) if path is not None else None
        if outside is not None and not Path(value).is_absolute() and any(p.resolve() in outside.parents for p in self.places):
            outside = None  # under a folder the launch may run from, as its words say (no `..` out of it)
        if outside is not None:
            path, report_missing = None, False
        link = None
        if role is not None and setting is not None:
            # an absolute path names the training machine's disk: missing here says nothing
            report = report_missing and not (path is None and Path(value).is_absolute())
            link = Link(role, setting, path, tried, report, outside=outside)
            self.links.append(link)
        if path is None:
            return None
        try:
            document = parse(files.read(path))
        except SourceError as error:
            self.errors.append(error)
            return None
        if accept is not None and not accept(document):
            if link is not None:
                link.foreign = True
            return None
        return document

    def arg(self, name: str) -> Setting:
        return self.args.get(name) or Setting(name, None, False)

    def env(self, name: str) -> Setting | None:
        """An environment variable the launch sets (in the script or on its command line)."""
        return self.launch.env.get(name) if self.launch is not None else None

    @property
    def files(self) -> list[Path]:
        paths: list[Path] = []
        if self.script is not None:
            paths.append(self.script.source.path)
        launcher_config = self.launch.config if self.launch is not None else None
        for doc in (self.config, self.ds_config, launcher_config):
            if doc is not None:
                paths.append(doc.path)
        paths.extend(part.source.path for part in self.read_parts())
        if self.payload is not None:
            paths.append(self.payload.source.path)
        return paths


def _a_file(path: Path) -> bool:
    """There, and not a folder: a FIFO or a device counts as found, so reading it reports what it
    is (recipelint.parse.files.open_regular) instead of calling the file missing. A path below a
    folder that cannot be searched counts as found too: reading it says "permission denied",
    with its path, and the recipe's other findings stay."""
    try:
        return path.is_file() or (path.exists() and not path.is_dir())
    except PermissionError:
        return True
