"""What the scheduler toolkits' rules share (recipelint.toolkits.slurm, recipelint.toolkits.kube):
a launch's ranks per node against the GPUs its job asks for, and DataLoader workers against
the job's CPUs, for a training script whose own toolkit has no loader rule."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.model import Setting, setting_source
from recipelint.parse.tree import Document, Node
from recipelint.records import replace

# The training script's worker flags, by the argument parsers that name them: Hugging Face
# TrainingArguments (`--dataloader_num_workers`), Megatron (`--num-workers`), the common
# `--num_workers` and torchvision's reference scripts and ImageNet example (`--workers`, `-j`).
# Folders above the launched script searched for the modules it imports (the launch rules' depth).
WRAPPER_LEVELS = 6
WORKER_FLAGS = ("dataloader_num_workers", "num_workers", "num-workers", "workers")


def ranks_and_gpus(ctx: Context, code: str, ranks: Setting | None, how: str, idle: bool = True) -> Iterator[Diagnostic | None]:
    """The ranks a node runs (`ranks`, said as `how`) against the GPUs the job gives it; `idle`:
    whether fewer ranks than GPUs is a finding (not for a process that may drive several GPUs)."""
    allocation = ctx.recipe.allocation
    gpus = allocation.get("gpus") if allocation is not None else None
    count = ranks.as_int() if ranks is not None else None
    if gpus is None or ranks is None or count is None or count <= 0 or count == gpus.value:
        return
    if gpus.value == 0 and not idle:
        return  # a plain script on a step that asks for no GPU (`--gres=gpu:0`): CPU work by choice
    evidence = [f"ranks per node: {setting_source(ranks)}", f"GPUs per node: {gpus.source()}"]
    if count > gpus.value:
        message = (
            f"{how} starts {count} ranks per node but the job gives each node {gpus.value} GPU(s) ({gpus.said}): "
            f"ranks {gpus.value}..{count - 1} of each node have no GPU of their own; a script that picks cuda:LOCAL_RANK "
            "fails with 'invalid device ordinal', and NCCL rejects two ranks on one GPU"
        )
        yield ctx.diagnostic(
            code, Severity.ERROR, message, ranks.span, setting=ranks.name, current=count, suggested=gpus.value, evidence=evidence
        )
        return
    ranks_said = f"{count} rank{'s' if count != 1 else ''}"
    if not idle:
        return
    message = f"{how} starts {ranks_said} per node but the job gives each node {gpus.value} GPUs ({gpus.said}): {gpus.value - count} GPU(s) per node stay idle"
    yield ctx.diagnostic(
        code, Severity.WARNING, message, ranks.span, setting=ranks.name, current=count, suggested=gpus.value, evidence=evidence
    )


def worker_setting(ctx: Context) -> Setting | None:
    """The training script's DataLoader workers: the flag the launch passes, else the key of the
    launch's own config file that the script hands to its DataLoader (`config_loader`)."""
    flag = next((ctx.recipe.args[name] for name in WORKER_FLAGS if name in ctx.recipe.args), None)
    return flag if flag is not None else config_loader(ctx, "num_workers")


def config_loader(ctx: Context, keyword: str) -> Setting | None:
    """A DataLoader keyword (`num_workers`, `prefetch_factor`, `pin_memory`) that the launch's own
    YAML, JSON or TOML config (`--config x.yaml`) carries, found where the training script, read
    with ast, takes it from: `DataLoader(..., num_workers=cfg["data"]["num_workers"])` reads the
    key `data.num_workers`; or where a program run as a module is known to (KNOWN_LOADERS:
    torchtitan's `--job.config_file x.toml`). None when the script or config is not found, or
    the key is not in it."""
    cached: dict[str, Setting] | None = ctx.__dict__.get("_config_loader")
    if cached is None:
        cached = ctx.__dict__["_config_loader"] = _config_loader(ctx)
    return cached.get(keyword)


# Programs run as a module whose config file's keys reach a DataLoader, by module: torchtitan's
# JobConfig `[training.dataloader]`, "passed directly to StatefulDataLoader" (since v0.2.1:
# pytorch/torchtitan@73a0e697 (v0.2.2) torchtitan/config/job_config.py, class DataLoader).
_TORCHTITAN = (
    "torchtitan hands to its StatefulDataLoader's {keyword} ([training.dataloader]: torchtitan/config/job_config.py DataLoader, v0.2.1 on)"
)
KNOWN_LOADERS: dict[str, dict[str, tuple[list[str], str]]] = {
    "torchtitan.train": {k: (["training", "dataloader", k], _TORCHTITAN) for k in ("num_workers", "prefetch_factor", "pin_memory")},
}


def _config_loader(ctx: Context) -> dict[str, Setting]:
    recipe, launch = ctx.recipe, ctx.recipe.launch
    script = launch.script.value if launch is not None else None
    keys = KNOWN_LOADERS.get(script, {}) if isinstance(script, str) else {}
    if not keys:
        keys = _script_keys(ctx)
    found: dict[str, Setting] = {}
    for name, value in _config_files(ctx) if keys else []:
        config = _config(recipe.locate(value)[0])
        if config is None:
            continue
        for keyword, (key, reader) in keys.items():
            node = _key(config, key)
            if node is None or keyword in found:
                continue
            override = recipe.args.get(node.path)  # `--data.num_workers=8` after the config: OmegaConf's dotlist wins
            how = f"{config.path.name}: {node.path}: {node.value}, which {reader.format(keyword=keyword)}, {name}"
            if override is not None:
                found[keyword] = replace(override, origin=f"--{node.path} {override.value} over {how}")
                continue
            edit = node.span if not node.quoted and isinstance(node.value, int) else None
            found[keyword] = Setting(node.path, node.value, True, node.span, edit, origin=how)
    return found


def _config_files(ctx: Context) -> list[tuple[str, str]]:
    """The config files the launch gives its script, with how: a flag's value (`--config x.yaml`)
    or a word of its own after the script (`scripts/train.py configs/x.yaml`, OLMo's)."""
    recipe, launch = ctx.recipe, ctx.recipe.launch
    found = [(f"the file --{name} names", given.value) for name, given in recipe.args.items() if isinstance(given.value, str)]
    words = launch.command.words if launch is not None else []
    start = next((i for i, w in enumerate(words) if w is launch.script), len(words)) if launch is not None else 0
    flagged = {value for _, value in found}
    for word in words[start + 1 :]:
        if word.value is not None and not word.value.startswith("-") and word.value not in flagged:
            found.append(("the file the script is given", word.value))
    return [(how, value) for how, value in found if value.endswith(CONFIGS)]


def _script_keys(ctx: Context) -> dict[str, tuple[list[str], str]]:
    """The config keys the launch's own training script, read with ast, hands to a DataLoader, or
    a module of the repository it imports does (OLMo's scripts/train.py calls
    olmo/data/__init__.py's build_train_dataloader): the longest key path for each keyword."""
    from recipelint.parse import pycode

    recipe = ctx.recipe
    path = recipe.launched_file()[0]
    parsed = pycode.parse_python(path) if path is not None else None
    if parsed is None or path is None:
        return {}
    files = [parsed] if pycode.loader_keys(parsed) else pycode.script_closure(parsed, list(path.resolve().parents)[:WRAPPER_LEVELS])
    found: dict[str, tuple[list[str], str]] = {}
    for file in files:
        for keyword, (key, line) in pycode.loader_keys(file).items():
            # a flag read straight from argparse (`args.num_workers`) is the flag's, not a config key
            if len(key) == 1 and key[0].replace("_", "-") in recipe.args or len(key) <= len(found.get(keyword, ([], ""))[0]):
                continue
            found[keyword] = (key, f"{file.source.path.name} hands to its DataLoader's {{keyword}} (line {line})")
    return found


CONFIGS = (".yaml", ".yml", ".json", ".toml")
CONFIG_LIMIT = 4 * 2**20


def _config(path: Path | None) -> Document | None:
    from recipelint.parse.files import SourceError, read_capped
    from recipelint.parse.jsonfile import parse_json
    from recipelint.parse.span import SourceText
    from recipelint.parse.tomlfile import parse_toml
    from recipelint.parse.yamlfile import parse_documents

    if path is None:
        return None
    try:
        source = SourceText(path, read_capped(path, CONFIG_LIMIT))
        if path.suffix == ".toml":
            return parse_toml(source)
        documents = [parse_json(source)] if path.suffix == ".json" else parse_documents(source)
    except (SourceError, OSError, RecursionError):
        return None  # the config's own reader says what is wrong with it; here it is only looked into
    return documents[0] if documents else None


def _key(config: Document, key: list[str]) -> Node | None:
    """The scalar at the key path, or at the longest tail of it that names one node only
    (`self.num_workers` set from the config's `data.params.num_workers`)."""
    scalars = [node for node in config.root.walk() if node.kind == "scalar" and node.path]
    exact = [n for n in scalars if n.path == ".".join(key)]
    if len(exact) == 1:  # the path from the document's root (OLMo's train_config.data.num_workers, not an evaluator's)
        return exact[0]
    for size in range(len(key), 0, -1):
        tail = ".".join(key[-size:])
        matches = [n for n in scalars if n.path == tail or n.path.endswith("." + tail)]
        if len(matches) == 1:
            return matches[0]
        if matches:
            return None  # several keys of that name: which one the script reads is not known
    return None
