"""The facts of the run that a recipe's verdicts depend on, as `recipelint show` prints them in
its `run` section: the releases the run will import (and where each range was read), the code
that reads each DeepSpeed JSON (and the evidence), the folder each launch runs from, and the
allocation of the job file around the launch.

Each fact is a row (label, value, source); the rules read the same facts from the Context or the
Recipe, so what `show` prints is what the verdicts used."""

from __future__ import annotations

from recipelint.context import Context
from recipelint.model import Recipe

Row = tuple[str, str, str]

# The packages of a recipe whose toolkit names none for its kind (Toolkit.packages).
DEFAULT_PACKAGES = ("deepspeed", "torch")


def version_rows(ctx: Context) -> list[Row]:
    """The releases of the toolkit and of deepspeed, torch, transformers and accelerate the run
    imports: one row per package the recipe's toolkit has verdicts about, with where it was read."""
    from recipelint.toolkits import kinds

    recipe = ctx.recipe
    toolkit = kinds().get(recipe.toolkit)
    packages = toolkit.packages.get(recipe.toolkit, DEFAULT_PACKAGES) if toolkit is not None else DEFAULT_PACKAGES
    if recipe.toolkit == "torch" and (recipe.ds_config is not None or "deepspeed" in ctx.packages or _accelerate_deepspeed(recipe)):
        packages = ("deepspeed", *packages)
    if recipe.launch is not None and recipe.launch.launcher == "accelerate" and "accelerate" not in packages:
        packages = (*packages, "accelerate")  # its options are judged per release (RL427)
    from recipelint.hftrainer import trainer_parser

    read = recipe.hf_args
    if read is not None and (trainer_parser(read) is not None or read.calls) and "transformers" not in packages:
        packages = (*packages, "transformers")  # the Trainer's arguments are judged per release (RL530)
    rows = []
    for package in packages:
        rng = ctx.version_range(package)
        rows.append((f"{package} version", rng.label(), rng.source))
    return rows


def _accelerate_deepspeed(recipe: Recipe) -> bool:
    from recipelint.toolkits.accelerate import launches_deepspeed

    return launches_deepspeed(recipe)


def consumer_rows(ctx: Context) -> list[Row]:
    """Which code reads the recipe's DeepSpeed JSON, and why recipelint thinks so; for each
    `optimizer` / `scheduler` block the JSON has, whether DeepSpeed builds it (RL421 follows)."""
    recipe = ctx.recipe
    if recipe.ds_config is None and not any(link.role == "DeepSpeed config" for link in recipe.links):
        return []
    consumer = recipe.reader
    if recipe.launch is None and recipe.consumer is None and not _deepspeed_json(recipe):
        return []  # a JSON linted alone that is not a DeepSpeed config: no DeepSpeed rule reads it
    if consumer.kind == "unknown":
        why = consumer.why() or ("no launch names this JSON" if recipe.launch is None else "the launch does not say")
        return [("DeepSpeed JSON read by", "not decided", why)]
    rows: list[Row] = [("DeepSpeed JSON read by", consumer.label, "; ".join(consumer.evidence[:2]) or consumer.inferred)]
    if consumer.inferred and consumer.evidence:
        rows[0] = (rows[0][0], rows[0][1], consumer.inferred)
    root = recipe.ds_config.root if recipe.ds_config is not None else None
    for block in ("optimizer", "scheduler"):
        if root is None or root.kind != "map" or root.get(block) is None:
            continue
        builds = consumer.builds(block)
        value = {True: "built by DeepSpeed", False: "ignored: the training code passes its own", None: "not decided"}[builds]
        rows.append((f"JSON {block} block", value, consumer.why()))
    return rows


def _deepspeed_json(recipe: Recipe) -> bool:
    from recipelint.toolkits.deepspeed.knowledge import looks_like_deepspeed

    return recipe.ds_config is not None and recipe.ds_config.root.kind == "map" and looks_like_deepspeed(recipe.ds_config.root)


def workdir_rows(ctx: Context) -> list[Row]:
    """The folder the launch runs from, and the folders its relative paths were looked up in."""
    from recipelint.parse.where import shown_folder

    recipe = ctx.recipe
    workdir = recipe.workdir
    if workdir is None:
        return []
    found: list[Row] = [("working folder", shown_folder(workdir.path) if workdir.path else "undecided", workdir.reason)]
    if workdir.root is not None:
        found.append(("repository root", shown_folder(workdir.root), "the nearest .git, pyproject.toml or setup.py above the script"))
    elif workdir.searched_to is not None:
        found.append(
            (
                "repository root",
                "none",
                f"no .git, pyproject.toml or setup.py above the script: searched up to {shown_folder(workdir.searched_to)}",
            )
        )
    places = ", ".join(shown_folder(folder) for folder in recipe.places)
    found.append(("folders tried", places, "in this order, for each relative path the launch names"))
    return found


def allocation_rows(ctx: Context) -> list[Row]:
    """What the job file around the launch allocates per node, each with its directive, and
    whether the rules judged against it or against a profile (a profile, when given, wins)."""
    allocation = ctx.recipe.allocation
    if allocation is None:
        return []
    hardware = ctx.hardware
    if hardware.origin == "allocation":
        used: Row = ("node facts from", f"{allocation.label} in {allocation.path.path.name}", hardware.chosen_by or "")
    else:
        label = hardware.label or ("this host" if hardware.origin == "probe" else hardware.origin)
        used = ("node facts from", label, f"{hardware.chosen_by or 'given'}: wins over {allocation.label}")
    return [*allocation.rows(), used]


def rows(ctx: Context) -> list[Row]:
    return [*version_rows(ctx), *consumer_rows(ctx), *workdir_rows(ctx), *allocation_rows(ctx)]
