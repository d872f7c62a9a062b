"""Hover on a value: what `recipelint show` says of it (its value and where it came from) and
what the tuner suggests for it (the findings on that setting, with their evidence)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from recipelint.server.workspace import Workspace, normal

if TYPE_CHECKING:
    from recipelint.diagnostics import Diagnostic
    from recipelint.model import Recipe, Setting
    from recipelint.parse.span import Span


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


def hover_text(workspace: Workspace, path: Path, offset: int) -> str | None:
    """Markdown for the value at a byte offset of `path`, or None when nothing is known there."""
    for checked in workspace.checked.values():
        if path not in checked.touched:
            continue
        for ctx, found in checked.contexts:
            for name, setting in _settings(ctx.recipe):
                if _covers(setting.span, path, offset) or _covers(setting.edit_span, path, offset):
                    return _describe(name, setting, [d for d in found if d.setting in (name, setting.name)])
    findings = [d for d, _ in workspace.findings(path)[0] if _covers(d.span, path, offset) and d.suggested is not None]
    return "\n\n".join(_suggestion(d) for d in findings) or None


def _describe(name: str, setting: Setting, findings: list[Diagnostic]) -> str:
    from recipelint.model import setting_source

    value = "unknown" if setting.value is None else setting.value
    lines = [f"**{name}** = `{value}`", "", f"from: {setting_source(setting)}"]
    for found in findings:
        lines.extend(["", _suggestion(found)])
    return "\n".join(lines)


def _suggestion(found: Diagnostic) -> str:
    head = f"{found.code}: {found.message}"
    if found.suggested is not None:
        head = f"recipelint suggests `{found.suggested}` (now `{found.current}`): {head}"
    because = "".join(f"\n- {item}" for item in found.evidence)
    return head + because
