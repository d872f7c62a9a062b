"""`recipelint tune`: print the loader plan of each recipe whose toolkit offers one (what the loader rules agree on,
with the memory it predicts), and with --measure, measure the recipe's own pipeline first."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from pathlib import Path

from recipelint.context import Context
from recipelint.hardware.machines import Machines
from recipelint.hardware.profile import Hardware
from recipelint.hardware.report import Judged
from recipelint.model import Recipe
from recipelint.settings import Resolver


def recipes(paths: list[Path], hardware: Callable[[], Hardware] | None, resolver: Resolver) -> tuple[list[Recipe], list[str], list[str]]:
    """The recipes with a launch under the paths whose toolkit offers `tune`
    (read only: no rule runs), the read errors, and one line per toolkit whose recipes were found
    but offer no tune (instead of printing nothing for them)."""
    from recipelint import engine
    from recipelint.toolkits import not_offered, offering

    result = engine.check(paths, hardware=hardware, select=lambda rule: False, resolver=resolver)
    found = [r for r in result.recipes if offering("tune", r.toolkit) and r.launch is not None]
    return found, [str(e) for e in result.errors], not_offered("tune", result.recipes, "not planned")


def judged_machine(machines: Machines, recipe: Recipe, resolver: Resolver) -> tuple[Callable[[], Hardware], str | None]:
    """The machine `check` judges the recipe against (the --hardware profile, the settings'
    profile, else this host's probe), and why it is not the training node when this host is not:
    the plan is then not made, as `check` skips the hardware rules (RL004), instead of tuning the
    recipe for the machine recipelint happens to run on."""
    judged: list[Judged] = []
    load = machines.judging(machines.loader(resolver.for_path(recipe.root)), recipe, judged)
    load()
    refused = next((j for j in judged if j.kind == "none"), None)
    return load, (refused.why if refused is not None else None)


def context(recipe: Recipe, hardware: Callable[[], Hardware], resolver: Resolver) -> Context:
    """What `check` gives the loader rules for this recipe: the same settings, the same plan."""
    from recipelint import engine

    return engine.make_context(recipe, hardware, resolver.for_path(recipe.root))


def describe(ctx: Context) -> list[str]:
    """The plan as lines, from the recipe's toolkit (`Toolkit.plan`)."""
    from recipelint.toolkits import kinds

    toolkit = kinds().get(ctx.recipe.toolkit)
    return toolkit.plan(ctx) if toolkit is not None else []


def measure_recipe(
    ctx: Context, profile: Path, checkout: Path | None, batches: int, limit_s: float, progress: Callable[[int, int], None]
) -> str:
    """Measure one recipe and write its `measured:` entry into the profile; returns a summary line."""
    import os
    import sys

    from recipelint.hardware.profile import write_measured
    from recipelint.measure import MEASURED, MeasureError, entry, find_checkout, request_for, run_child

    recipe = ctx.recipe
    found = find_checkout(recipe, checkout)
    if found is None:
        raise MeasureError(f"{recipe.root}: no {MEASURED} checkout (pass --checkout DIR, or export PYTHONPATH in path.sh)")
    cpus, ranks = ctx.fact("cpus").value, ctx.ranks_per_node or 1
    here = len(os.sched_getaffinity(0))
    cores = min(here, max(1, cpus // ranks)) if isinstance(cpus, int) else here
    request = request_for(recipe, found, cores, batches)
    try:
        import torch

        version = f"torch {torch.__version__}"
    except ImportError:
        version = f"python {sys.version.split()[0]}"
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    config = recipe.config.path if recipe.config else recipe.root
    source = f"recipelint tune --measure {config} with {MEASURED} {found} ({version}), {when}"
    result = run_child(request, limit_s, progress)
    measured = entry(result, request, source)
    measured["config"] = str(config)
    write_measured(profile, measured)
    rates = ", ".join(f"{n} workers {r} batches/s" for n, r in measured["batches_per_s"].items())
    return f"{config}: {rates}; plateau {measured['workers_plateau']}; batch {measured['batch_bytes'] / 1e6:.1f} MB; worker {measured['worker_bytes'] / 1e9:.2f} GB"
