"""WeNet's loader facts: what a WeNet recipe's data loader keeps in memory and the plan of
num_workers and prefetch the loader rules and `recipelint tune` agree on. Derived once per
context (`loader(ctx)`, `Context.derived`), from the recipe, its WeNet part and the hardware."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any

from recipelint import tuner
from recipelint.context import Context, Derived
from recipelint.diagnostics import Applicability, Fix
from recipelint.records import replace
from recipelint.toolkits.wenet.checkout import WENET_CODE, batch_carries_pcm, dataset_keys, package_entry
from recipelint.toolkits.wenet.part import lines_in_all, train_data

if TYPE_CHECKING:
    from recipelint.parse.checkout import Checkout


# Upstream HEAD's pipeline, assumed when the recipe's WeNet code is not found.
HEAD = tuner.Pipeline(evidence="WeNet HEAD's pipeline assumed (waveform kept in every batch since #2268, source prefetch 500)")


def pipeline_of(pcm: bool | None, new_io: bool | None, where: Any) -> tuner.Pipeline:
    """The pipeline of a WeNet checkout: `pcm` from its padding() (or its date against #2268), the
    source prefetch from its date against the new IO (#2316, 2024-01-31); unknown answers keep
    HEAD's behaviour, the larger estimate."""
    keeps_pcm = pcm is not False
    prefetch = 0 if new_io is False else tuner.SOURCE_PREFETCH
    guess = " (HEAD assumed: the code does not tell)"
    said = [
        ("batches keep the waveform" if keeps_pcm else "batches hold features only (before #2268)") + (guess if pcm is None else ""),
        f"source prefetch {prefetch}" + (" (before #2316)" if new_io is False else guess if new_io is None else ""),
    ]
    evidence = f"WeNet checkout {where}: " + ", ".join(said)
    return tuner.Pipeline(keeps_pcm, prefetch, evidence)


class Loader(Derived):
    """The loader model and plan of one WeNet recipe on one machine."""

    def __init__(self, context: Context) -> None:
        super().__init__(context)
        self.recipe = context.recipe

    @cached_property
    def shards(self) -> int | None:
        return lines_in_all(self.recipe)

    @cached_property
    def pipeline(self) -> tuner.Pipeline:
        """What the recipe's WeNet keeps per sample and batch: its checkout's code when found,
        else upstream HEAD's pipeline."""
        checkout = self.recipe.checkout
        if checkout is None or checkout.kind is not WENET_CODE:
            return HEAD
        data = pipeline_of(batch_carries_pcm(checkout)[0], checkout.version_at_least("2024-01-31"), checkout.root)
        return replace(data, unmodelled=self._unmodelled_batcher(checkout))

    def _unmodelled_batcher(self, checkout: Checkout) -> str:
        """Why the checkout's batcher is not upstream's: a batch_conf key of the YAML its batch()
        reads beyond those modelled (a fork's extra cap), or a batch_type upstream's has not."""
        conf = self.recipe.config.root.get("dataset_conf.batch_conf") if self.recipe.config else None
        launch = self.recipe.launch
        reads = dataset_keys(
            checkout, package_entry(launch.script.value if launch is not None and isinstance(launch.script.value, str) else None)
        )
        block = reads.get("batch_conf") if reads else None
        if conf is None or conf.kind != "map" or block is None:
            return ""
        extra = sorted(k for k in conf.entries if k in block.keys and k not in tuner.MODELLED_BATCH_KEYS)
        kind = conf.scalar("batch_type")
        if extra:
            return f"batch_conf.{extra[0]}, which {block.function or 'the batch code'}() of the {checkout.label()} reads, is a cap the memory model does not know"
        if isinstance(kind, str) and kind not in tuner.MODELLED_BATCH_TYPES:
            return f"batch_type {kind} is not one of the batchers the memory model knows (static, dynamic, bucket)"
        return ""

    @cached_property
    def utterance(self) -> tuner.Utterance:
        """The mean utterance length the memory model uses, and where it comes from."""
        conf = self.recipe.config.root.get("dataset_conf") if self.recipe.config else None
        setting = self.context.options.mean_utterance_seconds
        timed = [item for item in train_data(self.recipe) if item.timed]
        listed = None
        if timed:
            count = sum(item.timed for item in timed)
            listed = (sum(item.seconds for item in timed) / count, f"{count} durations in {timed[0].path.name}")
        return tuner.utterance_estimate(conf, setting if isinstance(setting, (int, float)) else None, listed)

    @cached_property
    def loader_model(self) -> tuner.LoaderModel | None:
        root = self.recipe.config.root if self.recipe.config else None
        model = tuner.loader_model(root, self.utterance, self.pipeline)
        if model is None:
            return None
        lists = [item for item in train_data(self.recipe) if item.exists and item.lines]
        lines = sum(item.lines for item in lists)
        return replace(
            model,
            raw=self.recipe.arg("data_type").value == "raw",
            list_lines=lines,
            list_line_bytes=sum(item.size for item in lists) / lines if lines else 0.0,
        )

    @cached_property
    def batch(self) -> tuner.BatchEstimate | None:
        measured = self.measured
        if measured is not None and measured.get("batch_bytes"):
            pinned = int(measured.get("pinned_batch_bytes") or 0)
            return tuner.BatchEstimate(int(measured["batch_bytes"]), f"measured, {_measured_source(measured)}", pinned)
        return self.loader_model.batch() if self.loader_model is not None else None

    @cached_property
    def pin_memory(self) -> bool:
        return self.recipe.arg("pin_memory").value is True

    @cached_property
    def measured(self) -> dict[str, Any] | None:
        """The profile's `measured:` entry for this recipe's dataset_conf (recipelint tune --measure)."""
        entries = self.context.hardware.measured
        if not entries or self.recipe.config is None:
            return None
        conf = self.recipe.config.root.get("dataset_conf")
        if conf is None:
            return None
        from recipelint.hardware.profile import fingerprint

        key = fingerprint(conf.plain())
        return next((entry for entry in entries if entry.get("dataset_conf") == key), None)

    @cached_property
    def memory_inputs(self) -> tuner.MemoryInputs | None:
        model, batch = self.loader_model, self.batch
        if model is None or batch is None:
            return None
        worker = model.worker()
        measured = self.measured
        if measured is not None and measured.get("worker_bytes"):
            worker = (
                int(measured["worker_bytes"]),
                f"one worker {measured['worker_bytes'] / 1e9:.2f} GB measured, {_measured_source(measured)}",
            )
        ram = tuner.memory_budget(self.context.fact("memory_gib").value)
        shm = tuner.queue_budget(self.context.fact("shm_gib").value, self.pin_memory)
        return tuner.MemoryInputs(model, self.pin_memory, ram, shm, batch, worker)

    @cached_property
    def budget(self) -> tuple[float, str] | None:
        """The loaders' share of the node's RAM (None when RAM or dataset_conf is unknown)."""
        return self.memory_inputs.ram if self.memory_inputs is not None else None

    @cached_property
    def cpu_cap(self) -> tuple[int, str] | None:
        """The CPU bound on num_workers: a measured throughput plateau, else cpus // ranks."""
        measured, ranks, cpus = self.measured, self.context.ranks_per_node, self.context.fact("cpus").value
        if ranks is None:
            return None
        if measured is not None and measured.get("workers_plateau") and isinstance(cpus, int) and measured.get("cores", 0) >= cpus // ranks:
            rates = ", ".join(f"{n}: {r:.1f}" for n, r in sorted((int(k), v) for k, v in measured.get("batches_per_s", {}).items()))
            return int(
                measured["workers_plateau"]
            ), f"measured batches/s by num_workers on {measured['cores']} cores ({rates}), {_measured_source(measured)}"
        if not isinstance(cpus, int):
            return None
        return tuner.loader_worker_cap(cpus, ranks), f"formula: {tuner.CPU_FORMULA}"

    @cached_property
    def plan(self) -> tuner.LoaderPlan:
        workers = self.recipe.arg("num_workers").as_int()
        prefetch = self.recipe.arg("prefetch").as_int()
        cap = self.cpu_cap[0] if self.cpu_cap is not None else None
        return tuner.plan_loader(
            workers, prefetch, self.context.ranks_per_node, self.context.world_size, cap, self.shards, self.memory_inputs
        )

    def fix(self) -> Fix | None:
        """The plan's edits to num_workers and prefetch (one fix, shared by the loader rules)."""
        plan = self.plan
        edits = []
        for name, new in (("num_workers", plan.num_workers), ("prefetch", plan.prefetch)):
            setting = self.recipe.arg(name)
            if new is None or setting.as_int() == new:
                continue
            edit = self.context.set_value(setting, str(new))
            if edit is None:
                return None
            edits.append(edit)
        if not edits:
            return None
        title = ", ".join(f"{n} {v}" for n, v in (("num_workers", plan.num_workers), ("prefetch", plan.prefetch)) if v is not None)
        return Fix(tuple(edits), Applicability.SAFE, f"set {title}")


def loader(ctx: Context) -> Loader:
    """The recipe's loader facts, computed once per context."""
    return ctx.derived(Loader)


def plan_lines(ctx: Context) -> list[str]:
    """The plan as lines: current and suggested values, the bounds, the memory it predicts."""
    facts = loader(ctx)
    recipe, plan = ctx.recipe, facts.plan
    workers, prefetch = recipe.arg("num_workers").as_int(), recipe.arg("prefetch").as_int()
    where = recipe.script.source.path if recipe.script else recipe.root
    advised_workers, advised_prefetch = plan.advised(workers)
    lines = [f"{where}: num_workers {workers} -> {advised_workers}, prefetch {prefetch} -> {advised_prefetch}"]
    if advised_workers != plan.num_workers:
        lines.append(f"  headroom {advised_workers}: one worker per rank leaves CPUs idle; the caps allow {advised_workers} (RL106)")
    if facts.cpu_cap is not None:
        lines.append(f"  cpu bound {facts.cpu_cap[0]}: {facts.cpu_cap[1]}")
    for name, value in plan.limits.items():
        if name != "cpu":
            lines.append(f"  {name} bound: {value}")
    if plan.prefetch_floor is not None:
        lines.append(f"  prefetch floor {plan.prefetch_floor}: a worker's sort burst (sort_size / utterances per batch)")
    memory, ranks = facts.memory_inputs, ctx.ranks_per_node
    if memory is not None and ranks and advised_workers and advised_prefetch:
        usage = memory.usage(advised_workers, advised_prefetch)
        budget = f" of {memory.ram[0] / 1024**3:.1f} GiB ({memory.ram[1]})" if memory.ram else ""
        lines.append(f"  loader memory per node with the plan: {ranks * usage.total / 1024**3:.1f} GiB{budget}")
        lines.extend(f"    {line}" for line in usage.how)
    return lines + timeout_lines(ctx)


def timeout_lines(ctx: Context) -> list[str]:
    """The join timeout plan (RL301's: `join_plan`), where the launch's engine runs the join."""
    from recipelint.toolkits.wenet.rules.timeout._common import join_plan

    plan = join_plan(ctx)
    if plan is None:
        return []
    new = plan.raise_to or plan.current
    why = "; ".join(plan.reasons) if plan.reasons else "no slow data source found (remote or compressed shards, nodes over Ethernet): kept"
    return [
        f"  timeout {plan.current} -> {new}: {why}",
        f"    formula: upstream's 1200 s (WenetSpeech) below the process-group timeout, else half of it: "
        f"{plan.suggested} s under {plan.limit} s ({plan.limit_source})",
    ]


def _measured_source(measured: dict[str, Any]) -> str:
    return str(measured.get("source") or "recipelint tune --measure")
