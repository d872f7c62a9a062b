"""Hover on a value: what `recipelint show` says of it (its value and where it came from) and
what the tuner suggests for it (the findings on that setting, with their evidence)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from recipelint.server.workspace import Workspace, normal

if TYPE_CHECKING:
    from recipelint.context import Context
    from recipelint.diagnostics import Diagnostic
    from recipelint.model import Recipe, Setting
    from recipelint.parse.span import Span
    from recipelint.parse.tree import Node

# DeepSpeed's batch keys: train_batch_size = micro x accumulation x data-parallel ranks.
BATCH_KEYS = ("train_batch_size", "train_micro_batch_size_per_gpu", "gradient_accumulation_steps")
# The loader settings `recipelint tune` plans.
LOADER_SETTINGS = ("num_workers", "prefetch")


def _settings(recipe: Recipe) -> list[tuple[str, Setting]]:
    """The recipe's settings with a place in a file: the launch's and the training flags'."""
    found: list[tuple[str, Setting]] = []
    launch = recipe.launch
    if launch is not None:
        found.extend((("nodes", launch.nnodes), ("ranks per node", launch.nproc_per_node), ("rendezvous", launch.rendezvous)))
    found.extend(recipe.args.items())
    return found


def _covers(span: Span | None, path: Path, offset: int) -> bool:
    return span is not None and normal(span.path) == path and span.start <= offset <= span.end


def _spans_of(setting: Setting) -> list[Span | None]:
    """Where a hover finds a setting: its value, the value's assignment, and its name: the flag
    (`--num_workers`) and the assigned variable (`num_workers` of `num_workers=4`)."""
    spans = [setting.span, setting.edit_span, setting.flag]
    edit, via = setting.edit_span, setting.via
    if edit is not None and via and edit.start > len(via):
        # the assignment `via=value` the value came through: its name ends one byte before the value
        spans.append(edit._replace(start=edit.start - len(via) - 1, end=edit.start - 1, column=max(edit.column - len(via) - 1, 1)))
    return spans


def _flag_word(recipe: Recipe, setting: Setting) -> Span | None:
    """The flag a value is written after (`--num_workers` of `--num_workers ${num_workers}`), when
    the front end kept only the value's word."""
    if setting.flag is not None or setting.word is None or recipe.launch is None:
        return setting.flag
    words = recipe.launch.command.words
    for flag, value in zip(words, words[1:], strict=False):
        if value is setting.word:
            return flag.span
    return None


def _innermost(recipe: Recipe, path: Path, offset: int) -> tuple[str, Setting] | None:
    """The setting whose span at the offset is the narrowest: a flag not given points at its whole
    command, which covers every word of it."""
    best: tuple[int, tuple[str, Setting]] | None = None
    for name, setting in _settings(recipe):
        for span in [*_spans_of(setting), _flag_word(recipe, setting)]:
            if span is not None and _covers(span, path, offset) and (best is None or span.end - span.start < best[0]):
                best = (span.end - span.start, (name, setting))
    return best[1] if best is not None else None


def hover_text(workspace: Workspace, path: Path, offset: int) -> str | None:
    """Markdown for the value at a byte offset of `path`, or None when nothing is known there."""
    for checked in workspace.checked.values():
        if path not in checked.touched:
            continue
        for ctx, found in checked.contexts:
            hit = _innermost(ctx.recipe, path, offset)
            if hit is not None:
                name, setting = hit
                return _describe(ctx, name, setting, [d for d in found if d.setting in (name, setting.name)])
            node = _config_node(ctx.recipe, path, offset)
            if node is not None:
                return _describe_node(ctx, node, found)
    findings = [d for d, _ in workspace.findings(path)[0] if _covers(d.span, path, offset) and d.suggested is not None]
    return "\n\n".join(_suggestion(d) for d in findings) or None


def _describe(ctx: Context, name: str, setting: Setting, findings: list[Diagnostic]) -> str:
    from recipelint.model import setting_source

    value = "unknown" if setting.value is None else setting.value
    lines = [f"**{name}** = `{value}`", "", f"from: {setting_source(setting)}"]
    for found in findings:
        lines.extend(["", _suggestion(found)])
    if name in LOADER_SETTINGS:
        lines.extend(_loader_plan(ctx))
    return "\n".join(lines)


def _loader_plan(ctx: Context) -> list[str]:
    """`recipelint tune`'s plan for a launch with a train YAML: what the loader rules agree on."""
    recipe = ctx.recipe
    if recipe.launch is None or recipe.config is None:
        return []
    from recipelint import tune

    try:
        plan = tune.describe(ctx)
    except Exception:  # a plan this recipe cannot have (a fact missing): the hover goes without it
        return []
    return ["", "`recipelint tune`:", "```", *plan, "```"]


def _config_node(recipe: Recipe, path: Path, offset: int) -> Node | None:
    """The innermost value of the recipe's YAML or JSON at the offset (its key included)."""
    launch_config = recipe.launch.config if recipe.launch is not None else None
    best: Node | None = None
    for document in (recipe.config, recipe.ds_config, launch_config):
        if document is None or normal(document.path) != path:
            continue
        for node in document.root.walk():
            for _, key_span, child in node.items:
                if child.kind == "scalar" and (_covers(key_span, path, offset) or _covers(child.span, path, offset)):
                    if best is None or child.span.end - child.span.start < best.span.end - best.span.start:
                        best = child
    return best


def _describe_node(ctx: Context, node: Node, findings: list[Diagnostic]) -> str:
    lines = [f"**{node.path}** = `{node.value}`", "", f"from: {node.span.path.name}:{node.span.line}"]
    if node.path in BATCH_KEYS and ctx.world_size is not None:
        ranks = f"{ctx.world_size} rank{'s' if ctx.world_size != 1 else ''}"
        lines.extend(["", f"DeepSpeed: train_batch_size = micro batch x accumulation x data-parallel ranks; the launch starts {ranks}"])
    for found in findings:
        span = found.span
        if found.setting == node.path or (
            normal(span.path) == normal(node.span.path) and span.start <= node.span.end and node.span.start <= span.end
        ):
            lines.extend(["", _suggestion(found)])
    return "\n".join(lines)


def _suggestion(found: Diagnostic) -> str:
    head = f"{found.code}: {found.message}"
    if found.suggested is not None:
        head = f"recipelint suggests `{found.suggested}` (now `{found.current}`): {head}"
    because = "".join(f"\n- {item}" for item in found.evidence)
    return head + because
