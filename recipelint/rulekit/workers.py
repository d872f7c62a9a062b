"""One launch's DataLoader plan for the launches whose per-batch memory recipelint does not model
(a plain torch or DeepSpeed script, the Hugging Face Trainer, XTuner, and the same launched by a
Slurm or Kubernetes job): the worker count against the CPUs (tuner.CPU_FORMULA), computed once per
launch (`ctx.derived(WorkerPlan)`) and used by `tune`, by the worker rules' fix (RL506, RL807,
RL953, RL963) and by `show`. WeNet's own plan, which models memory too, is
recipelint.toolkits.wenet.loader."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cached_property

from recipelint import tuner
from recipelint.allocation import Grant
from recipelint.context import Context, Derived
from recipelint.diagnostics import Applicability, Diagnostic, Edit, Fix, Severity
from recipelint.model import Note, Setting, setting_source
from recipelint.rulekit import oversubscribed
from recipelint.rulekit.allocated import WRAPPER_LEVELS, config_loader, worker_setting

# What a plan assumes where the batch memory is not modelled: tokenised text and images are sized
# by the data, not by the recipe, so the plan keeps the recipe's prefetch and pin_memory and
# bounds only the workers by the CPUs.
UNMODELLED = (
    "per-batch memory not modelled (tokenised text or images: sized by the data, not the recipe): "
    "the plan assumes the recipe's own prefetch and pin_memory fit, and bounds only the workers by the CPUs; "
    "`recipelint tune --measure` measures only the pipelines whose memory is modelled"
)

# The prefetch and pin_memory the launch sets, by the flags of the argument parsers that name them
# (Hugging Face TrainingArguments' `--dataloader_prefetch_factor`, `--dataloader_pin_memory`).
PREFETCH_FLAGS = ("dataloader_prefetch_factor", "prefetch_factor")
PIN_FLAGS = ("dataloader_pin_memory", "pin_memory")


class WorkerPlan(Derived):
    """The plan of one launch: its workers setting, the CPUs a node gives it (the job's allocation
    where the job states them, else the judged node's), and the workers the CPU formula allows."""

    assign = " "  # how the fix's title sets a value: `set num_workers 4` (a flag), `set x = 4` (Python)

    @property
    def ctx(self) -> Context:
        return self.context

    @cached_property
    def setting(self) -> Setting | None:
        """The workers setting the launch's DataLoader gets (a toolkit's plan may read its own)."""
        return worker_setting(self.ctx)

    @cached_property
    def reaches(self) -> bool | None:
        """Whether the launched script hands the workers flag to a DataLoader (read with `ast`;
        a config key is found where the script hands it, so it does); None: not found to read."""
        setting = self.setting
        if setting is None or not any(s is setting for s in self.ctx.recipe.args.values()):
            return True
        return _reaches(self.ctx, setting.name)

    @property
    def workers(self) -> int | None:
        value = self.setting.as_int() if self.setting is not None else None
        return value if value is not None and value >= 0 else None

    @cached_property
    def cpus(self) -> tuple[int, str] | None:
        """A node's CPUs and where they are said: the job's grant first (what the job may use),
        else the judged node's usable CPUs."""
        allocation = self.ctx.recipe.allocation
        grant = allocation.get("cpus") if allocation is not None else None
        if grant is not None and isinstance(grant.value, int):
            return grant.value, f"CPUs per node: {grant.source()}"
        fact = self.ctx.fact("cpus")
        return (fact.value, fact.cite("cpus")) if fact.known and isinstance(fact.value, int) else None

    @cached_property
    def cap(self) -> int | None:
        """The most workers per rank the CPUs allow (tuner.loader_worker_cap)."""
        ranks = self.ctx.ranks_per_node
        return tuner.loader_worker_cap(self.cpus[0], ranks) if self.cpus is not None and ranks else None

    raises_zero = False  # whether the plan may raise 0 workers (XTuner's image datasets)

    @property
    def suggested(self) -> int | None:
        """The workers the plan sets: the recipe's own, lowered to the cap past it (kept where the
        script never hands the flag to a DataLoader: it changes nothing)."""
        workers, cap = self.workers, self.cap
        if workers is None or cap is None or self.reaches is False:
            return workers
        return min(workers, cap) if workers > 0 else workers

    def edit(self, value: int) -> Edit | None:
        """The edit setting the workers to `value` (None: the value is not a literal to rewrite)."""
        setting = self.setting
        return self.ctx.set_value(setting, str(value)) if setting is not None and setting.given else None

    def fix(self, value: int | None = None) -> Fix | None:
        """The plan's fix: the workers set to `value` (default: the plan's suggestion)."""
        new = self.suggested if value is None else value
        setting = self.setting
        if new is None or setting is None or new == self.workers:
            return None
        edit = self.edit(new)
        return Fix((edit,), Applicability.SAFE, f"set {setting.name}{self.assign}{new}") if edit is not None else None

    def notes(self) -> list[Note]:
        """`recipelint show`'s "plan" section: the workers the plan sets, and why."""
        setting = self.setting
        if setting is None or self.workers is None or (self.workers == 0 and not self.raises_zero):
            return []  # 0 workers is kept whatever the CPUs: nothing to plan, no node fact to ask
        if self.cap is None or self.cpus is None:
            return [
                Note("plan", "DataLoader workers", f"{self.workers} (not planned)", "the node's CPUs or the ranks per node are not known")
            ]
        source = f"cpu bound {self.cap}: {tuner.CPU_FORMULA} ({self.cpus[1]})"
        return [Note("plan", "DataLoader workers", f"{self.workers} -> {self.suggested}", source)]

    def keyword(self, flags: tuple[str, ...], keyword: str) -> Setting | None:
        """A DataLoader keyword the launch sets: its flag, else its launch config's key."""
        flag = next((self.ctx.recipe.args[name] for name in flags if name in self.ctx.recipe.args), None)
        return flag if flag is not None else config_loader(self.ctx, keyword)

    def lines(self) -> list[str]:
        """`recipelint tune`'s lines: each value with its formula and source."""
        recipe, setting = self.ctx.recipe, self.setting
        span = recipe.launch.command.span if recipe.launch is not None else None
        where = f"{span.path}:{span.line}" if span is not None else str(recipe.root)
        if setting is None or self.workers is None:
            return [
                f"{where}: workers not planned: no DataLoader workers setting found in the launch or its config",
                *self.launcher_lines(),
            ]
        lines = [f"{where}: {setting.name} {self.workers} -> {self.suggested}"]
        lines.append(f"  workers: {setting_source(setting)}")
        if self.reaches is False:
            lines.append(f"  kept: the training script parses --{setting.name} but hands it to no DataLoader (read with ast)")
        elif self.reaches is None:
            lines.append(f"  the training script was not found to read: planned as if it hands --{setting.name} to its DataLoader")
        ranks = self.ctx.ranks_per_node
        if self.cpus is not None and ranks and self.cap is not None:
            lines.append(f"  cpu bound {self.cap}: formula {tuner.CPU_FORMULA}: {self.cpus[0]} // {ranks} ranks per node")
            lines.append(f"    {self.cpus[1]}; {self.ctx.ranks_evidence}")
            if self.workers < self.cap:
                lines.append("  workers kept below the cpu bound: more workers need the memory of each, which is not modelled here")
        else:
            lines.append("  cpu bound unknown: the node's CPUs or the ranks per node are not known: workers kept")
        for flags, keyword in ((PREFETCH_FLAGS, "prefetch_factor"), (PIN_FLAGS, "pin_memory")):
            given = self.keyword(flags, keyword)
            if given is not None:
                lines.append(f"  {keyword} {given.value} kept: {setting_source(given)}")
        lines.append(f"  memory: {UNMODELLED}")
        return lines + self.launcher_lines()

    def launcher_lines(self) -> list[str]:
        """The launcher plan: one rank per GPU of the node (the formula RL951 and RL962 judge
        with), the GPUs being the job's where it states them, else the judged node's."""
        launch = self.ctx.recipe.launch
        if launch is None:
            return []
        allocation = self.ctx.recipe.allocation
        grant = allocation.get("gpus") if allocation is not None else None
        fact = self.ctx.fact("gpus") if grant is None else None
        if grant is not None and isinstance(grant.value, int):
            gpus, source = grant.value, f"GPUs per node: {grant.source()}"
        elif fact is not None and fact.known and isinstance(fact.value, int):
            gpus, source = fact.value, fact.cite("gpus")
        else:
            return ["  ranks per node: the node's GPUs are not known: not planned"]
        ranks = launch.nproc_per_node.as_int()
        if ranks is None or ranks <= 0:
            return [f"  ranks per node: {launch.launcher}'s default ({setting_source(launch.nproc_per_node)}); {gpus} GPUs ({source})"]
        if ranks > gpus:
            verdict = f"-> {gpus}: ranks past the GPUs have none of their own"
        elif ranks < gpus:
            verdict = f"kept: {gpus - ranks} GPU(s) idle unless each rank drives several"
        else:
            verdict = "kept: one rank per GPU"
        return [f"  ranks per node {ranks} {verdict}: formula ranks per node = GPUs per node ({source}; {launch.launcher})"]


def plan(ctx: Context) -> WorkerPlan:
    """The launch's plan, computed once per context."""
    return ctx.derived(WorkerPlan)


def _reaches(ctx: Context, flag: str) -> bool | None:
    """Whether the launched training script hands the flag's value to a DataLoader (read with
    ast); None when the script is not found."""
    from recipelint.parse import pycode

    path, top = ctx.recipe.launched_file()
    parsed = pycode.parse_python(path) if path is not None else None
    if parsed is None or path is None or top is None:
        return None
    # A wrapper (LLaVA's train_mem.py: `from llava.train.train import train; train()`) runs the
    # code of the module it imports: that module's parser and DataLoader decide. A `-m pkg.cli`
    # launch imports from the folder holding pkg.
    roots = list(dict.fromkeys([top.resolve(), *list(path.resolve().parents)[:WRAPPER_LEVELS]]))
    files = pycode.script_closure(parsed, roots)
    if any(pycode.workers_reach(file, flag.replace("-", "_")) for file in files):
        return True
    # No code read parses the command line: the parser is in a module not found here.
    return False if any(pycode.parses_arguments(file) for file in files) else None


def workers_and_cpus(ctx: Context, code: str, severity: Severity) -> Iterator[Diagnostic | None]:
    """ranks per node x workers against the CPUs the job gives a node (tuner.loader_worker_cap,
    RL102's formula): past them, workers and trainers share cores."""
    allocation, setting = ctx.recipe.allocation, worker_setting(ctx)
    cpus: Grant | None = allocation.get("cpus") if allocation is not None else None
    workers = setting.as_int() if setting is not None else None
    ranks = ctx.ranks_per_node
    if cpus is None or setting is None or workers is None or workers < 1 or ranks is None:
        return
    cap = plan(ctx).cap
    if cap is None or workers <= cap:
        return
    message = f"{oversubscribed(ranks, workers, cpus.value)} in this job ({cpus.said})"
    fix = plan(ctx).fix()
    evidence = [f"CPUs per node: {cpus.source()}", ctx.ranks_evidence, "formula: ranks_per_node x num_workers <= the job's CPUs per node"]
    if setting.origin is not None:  # a config key the script hands to its DataLoader: say which and why
        evidence.insert(0, f"workers: {setting_source(setting)}")
    yield ctx.diagnostic(
        code, severity, message, setting.span, setting=setting.name, current=workers, suggested=cap, evidence=evidence, fix=fix
    )
