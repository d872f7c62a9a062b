"""What a rule sees: the recipe, the hardware, and the facts derived from both (computed once)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from recipelint import tuner, versions
from recipelint.diagnostics import Applicability, Diagnostic, Edit, Fix, Severity
from recipelint.hardware.profile import Fact, Hardware
from recipelint.model import Recipe, Setting, setting_source
from recipelint.parse.span import Span
from recipelint.records import dataclass, field, replace

if TYPE_CHECKING:
    from recipelint.parse.checkout import Checkout


@dataclass(frozen=True)
class Options:
    """What the settings tell the rules beyond the recipe (recipelint.settings.Settings holds them
    with the rest; the runner passes these)."""

    deepspeed_version: str | None = None  # `deepspeed-version`: target-versions.deepspeed's synonym
    model_params: float | None = None  # the parameter count, for the offload host-memory rule
    mean_utterance_seconds: float | None = None  # the data's mean utterance, for the loader memory model
    target_versions: tuple[tuple[str, str], ...] = ()  # package -> specifier, when nothing beside the recipe says
    settings_file: str = ""  # where those were read, for the messages

    @classmethod
    def from_keys(cls, keys: Mapping[str, Any]) -> Options:
        """From the config file's own key names (`{"model-params": 7e9}`)."""
        targets = tuple(sorted((keys.get("target-versions") or {}).items()))
        return cls(keys.get("deepspeed-version"), keys.get("model-params"), keys.get("mean-utterance-seconds"), targets)

    @classmethod
    def of(cls, settings: Any) -> Options:
        """From recipelint.settings.Settings (named loosely: settings sits above this module)."""
        targets = tuple(sorted(settings.target_versions.items()))
        where = settings.source.name if settings.source is not None else ""
        return cls(settings.deepspeed_version, settings.model_params, settings.mean_utterance_seconds, targets, where)

    def target(self, package: str) -> tuple[str, str] | None:
        """(specifier, setting) for a package: `target-versions`, else `deepspeed-version`."""
        where = f" in {self.settings_file}" if self.settings_file else ""
        for name, specifier in self.target_versions:
            if name == package:
                return specifier, f"target-versions{where}"
        if package == "deepspeed" and self.deepspeed_version:
            version = self.deepspeed_version
            return (version if version[:1] in "<>=!~" else f"=={version}"), f"deepspeed-version{where}"
        return None


@dataclass
class Context:
    recipe: Recipe
    hardware_loader: Callable[[], Hardware]
    options: Options = field(default_factory=Options)
    facts_used: list[str] = field(default_factory=list)  # hardware facts the rules asked for, for `show`
    # Unknown facts RL001 already named: shared by the recipes of one target (the run keeps one per fact).
    said: set[str] = field(default_factory=set)

    @cached_property
    def hardware(self) -> Hardware:
        return self.hardware_loader()

    def fact(self, name: str) -> Fact:
        if name not in self.facts_used:
            self.facts_used.append(name)
        return self.hardware.fact(name)

    # Facts about the launch, with the hardware filling what the script leaves to the run time.
    @cached_property
    def ranks_per_node(self) -> int | None:
        launch = self.recipe.launch
        if launch is None:
            return None
        value = launch.nproc_per_node.as_int()
        if value is not None and value > 0:
            return value
        gpus = self.fact("gpus").value
        return gpus if isinstance(gpus, int) and gpus > 0 else None

    @cached_property
    def nodes(self) -> int | None:
        launch = self.recipe.launch
        if launch is not None and launch.nnodes.given:
            return launch.nnodes.as_int()
        profile_nodes = self.fact("nodes").value
        if isinstance(profile_nodes, int):
            return profile_nodes
        return launch.nnodes.as_int() if launch is not None else None

    @cached_property
    def world_size(self) -> int | None:
        if self.ranks_per_node is None or self.nodes is None:
            return None
        return self.ranks_per_node * self.nodes

    @cached_property
    def ranks_evidence(self) -> str:
        launch = self.recipe.launch
        per_node = f"{self.ranks_per_node} ranks per node"
        if launch is not None and self.ranks_from_hardware:
            per_node += f" ({self.ranks_source(short=True)})"
        return f"{self.nodes} node(s) x {per_node}"

    @property
    def ranks_from_hardware(self) -> bool:
        """True when the script leaves the processes per node to the run time and the GPU count fills it."""
        launch = self.recipe.launch
        written = launch.nproc_per_node.as_int() if launch is not None else None
        return self.ranks_per_node is not None and (written is None or written <= 0)

    def ranks_source(self, short: bool = False) -> str:
        """Where the ranks per node come from: the launch's own word, or the hardware and why."""
        launch = self.recipe.launch
        if launch is None:
            return "no launch"
        setting = launch.nproc_per_node
        if not self.ranks_from_hardware:
            return setting_source(setting)
        why = setting.word.reason if setting.word is not None and setting.word.reason else None
        if why is None and setting.value is not None:
            why = f"{setting.name} {setting.value} counts no GPU"
        why = why or setting.origin or f"{setting.name} is not given"
        if short:
            why = why.rsplit("; ", 1)[-1]
        return f"{self.fact('gpus').cite('gpus')}: the script leaves the GPU count to the run time ({why})"

    @cached_property
    def shards(self) -> int | None:
        lists = [item for item in self.recipe.train_data if item.exists]
        return sum(item.lines for item in lists) if lists else None

    @cached_property
    def packages(self) -> dict[str, versions.Range]:
        """The releases declared beside the recipe: the environment its script activates, a virtual
        environment or pin file in its repository, its toolkit checkout's requirements."""
        from recipelint.parse.checkout import ranges_beside

        return ranges_beside(self.recipe.root, self.recipe.script, self.recipe.checkout, self._launch_folders())

    def _launch_folders(self) -> tuple[Path, ...]:
        """The launched training script's folder, whose pins apply before those beside the launch
        and above it (the script looked up as the launch looks it up)."""
        launch = self.recipe.launch
        script = launch.script.value if launch is not None else None
        found = self.recipe.locate(script)[0] if isinstance(script, str) and script.endswith(".py") else None
        return (found.parent,) if found is not None else ()

    def version_range(self, package: str) -> versions.Range:
        """The releases of a package the run imports: the toolkit checkout's own version, else what
        is declared beside the recipe, else the settings' `target-versions`, else the newest known."""
        checkout = self.recipe.checkout
        if checkout is not None and checkout.toolkit == package and not checkout.in_own_environment:
            if checkout.version:
                return versions.Range(package, f"=={checkout.version}", f"{checkout.name} checkout {checkout.version_source}", "installed")
            # A fork or snapshot no release tag names: its own code decides, never the newest release.
            return versions.Range(package, "", f"{checkout.label()}: no release matches it; its code is read", "checkout")
        if package in self.packages:
            return self.packages[package]
        configured = self.options.target(package)
        if configured is not None:
            return versions.Range(package, configured[0], configured[1], "setting")
        return versions.newest(package)

    @cached_property
    def wenet_data(self) -> tuner.WenetData:
        """What the recipe's WeNet keeps per sample and batch: its checkout's code when found,
        else upstream HEAD's pipeline."""
        checkout = self.recipe.checkout
        if checkout is None or not checkout.wenet:
            return tuner.WenetData()
        data = tuner.wenet_data_of(checkout.batch_carries_pcm, checkout.version_at_least("2024-01-31"), checkout.root)
        return replace(data, unmodelled=self._unmodelled_batcher(checkout))

    def _unmodelled_batcher(self, checkout: Checkout) -> str:
        """Why the checkout's batcher is not upstream's: a batch_conf key of the YAML its batch()
        reads beyond those modelled (a fork's extra cap), or a batch_type upstream's has not."""
        from recipelint.parse.checkout import package_entry

        conf = self.recipe.config.root.get("dataset_conf.batch_conf") if self.recipe.config else None
        launch = self.recipe.launch
        reads = checkout.dataset_keys(
            package_entry(launch.script.value if launch is not None and isinstance(launch.script.value, str) else None)
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
        setting = self.options.mean_utterance_seconds
        timed = [item for item in self.recipe.train_data if item.timed]
        listed = None
        if timed:
            count = sum(item.timed for item in timed)
            listed = (sum(item.seconds for item in timed) / count, f"{count} durations in {timed[0].path.name}")
        return tuner.utterance_estimate(conf, setting if isinstance(setting, (int, float)) else None, listed)

    @cached_property
    def loader_model(self) -> tuner.LoaderModel | None:
        root = self.recipe.config.root if self.recipe.config else None
        model = tuner.loader_model(root, self.utterance, self.wenet_data)
        if model is None:
            return None
        lists = [item for item in self.recipe.train_data if item.exists and item.lines]
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
        entries = self.hardware.measured
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
        ram = tuner.memory_budget(self.fact("memory_gib").value)
        shm = tuner.queue_budget(self.fact("shm_gib").value, self.pin_memory)
        return tuner.MemoryInputs(model, self.pin_memory, ram, shm, batch, worker)

    @cached_property
    def budget(self) -> tuple[float, str] | None:
        """The loaders' share of the node's RAM (None when RAM or dataset_conf is unknown)."""
        return self.memory_inputs.ram if self.memory_inputs is not None else None

    @cached_property
    def cpu_cap(self) -> tuple[int, str] | None:
        """The CPU bound on num_workers: a measured throughput plateau, else cpus // ranks."""
        measured, ranks, cpus = self.measured, self.ranks_per_node, self.fact("cpus").value
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
    def loader_plan(self) -> tuner.LoaderPlan:
        workers = self.recipe.arg("num_workers").as_int()
        prefetch = self.recipe.arg("prefetch").as_int()
        cap = self.cpu_cap[0] if self.cpu_cap is not None else None
        return tuner.plan_loader(workers, prefetch, self.ranks_per_node, self.world_size, cap, self.shards, self.memory_inputs)

    def process_group_timeouts(self, engine: str) -> list[PgLimit]:
        """The default process group's timeout over the releases the run may import, one entry per
        sub-range where it differs: DEEPSPEED_TIMEOUT minutes (read since 0.11.2) or DeepSpeed's
        default for its release under DeepSpeed, else torch's NCCL default for its release."""
        launch = self.recipe.launch
        if engine == "deepspeed":
            env = launch.env.get("DEEPSPEED_TIMEOUT") if launch is not None else None
            minutes = env.as_int() if env is not None else None

            def deepspeed(version: versions.Version) -> tuple[int, str]:
                if minutes and version >= tuner.DEEPSPEED_TIMEOUT_SINCE:
                    return minutes * 60, f"DEEPSPEED_TIMEOUT={minutes} minutes"
                seconds = tuner.deepspeed_pg_timeout(version)
                ignored = "; DEEPSPEED_TIMEOUT is read only since 0.11.2" if minutes else "; DEEPSPEED_TIMEOUT raises it"
                return seconds, f"deepspeed.init_distributed default {seconds // 60} min{ignored}"

            rng, fn = self.version_range("deepspeed"), deepspeed
        else:

            def torch(version: versions.Version) -> tuple[int, str]:
                seconds = tuner.torch_pg_timeout(version)
                return seconds, f"torch NCCL default {seconds // 60} min"

            rng, fn = self.version_range("torch"), torch
        return [PgLimit(part.value[0], part.value[1], part.condition, rng) for part in versions.split(rng, fn)]

    def process_group_timeout(self, engine: str) -> tuple[int, str]:
        """The shortest process-group timeout over the releases the run may import (what a
        suggested wait must stay below), and where it comes from."""
        shortest = min(self.process_group_timeouts(engine), key=lambda limit: limit.seconds)
        return shortest.seconds, shortest.source()

    def loader_fix(self) -> Fix | None:
        """The plan's edits to num_workers and prefetch (one fix, shared by the loader rules)."""
        plan = self.loader_plan
        edits = []
        for name, new in (("num_workers", plan.num_workers), ("prefetch", plan.prefetch)):
            setting = self.recipe.arg(name)
            if new is None or setting.as_int() == new:
                continue
            edit = self.set_value(setting, str(new))
            if edit is None:
                return None
            edits.append(edit)
        if not edits:
            return None
        title = ", ".join(f"{n} {v}" for n, v in (("num_workers", plan.num_workers), ("prefetch", plan.prefetch)) if v is not None)
        return Fix(tuple(edits), Applicability.SAFE, f"set {title}")

    def set_value(self, setting: Setting, text: str) -> Edit | None:
        """An edit that gives a setting a new value: in place, or as a new flag on the launch."""
        if setting.edit_span is not None:
            return Edit(setting.edit_span, text)
        launch = self.recipe.launch
        if not setting.given and launch is not None and self.recipe.script is not None:
            return Edit(launch.flag_point(after_script=True), f" --{setting.name} {text}")
        return None

    def diagnostic(
        self,
        code: str,
        severity: Severity,
        message: str,
        span: Span | None,
        *,
        setting: str | None = None,
        current: Any = None,
        suggested: Any = None,
        evidence: list[str] | None = None,
        fix: Fix | None = None,
        once: str | None = None,
    ) -> Diagnostic | None:
        if span is None:
            return None
        return Diagnostic(code, severity, message, span, setting, current, suggested, list(evidence or []), fix, once)


@dataclass(frozen=True)
class PgLimit:
    """The process-group timeout over one sub-range of the releases the run may import."""

    seconds: int
    how: str  # "deepspeed.init_distributed default 10 min; DEEPSPEED_TIMEOUT raises it"
    condition: str  # "deepspeed >= 0.19.6", or "" when it holds over the whole range
    range: versions.Range

    def source(self) -> str:
        """'deepspeed.init_distributed default 10 min with deepspeed >= 0.19.6 (requirements.txt:24
        allows deepspeed>=0.14.0); DEEPSPEED_TIMEOUT raises it'."""
        how, _, hint = self.how.partition("; ")
        where = f" with {self.condition} ({self.range.allows()})" if self.condition else f" ({self.range.allows()})"
        return f"{how}{where}" + (f"; {hint}" if hint else "")


def _measured_source(measured: dict[str, Any]) -> str:
    return str(measured.get("source") or "recipelint tune --measure")
