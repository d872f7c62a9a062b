"""Findings, errors and edits as LSP objects: severity mapped, the rule code linked to its page,
the other files a finding concerns as related information, byte ranges as UTF-16 positions."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from recipelint.diagnostics import Severity
from recipelint.rules import rule_url
from recipelint.server.positions import position
from recipelint.server.workspace import Checked, Workspace, normal

if TYPE_CHECKING:
    from recipelint.diagnostics import Diagnostic, Edit
    from recipelint.model import Recipe
    from recipelint.parse.files import SourceError
    from recipelint.parse.span import Span

SOURCE = "recipelint"
SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
}
_MENTION = re.compile(r"([\w.+-]+\.(?:sh|ya?ml|json|md|py|list)):(\d+)")
# `key value`, `key=value`, `key: value` in a message or evidence (overlapping: a value may be
# the next pair's key)
_PAIR = re.compile(r"(?=\b([A-Za-z_]\w*)(?: |=|: )([^\s,;()]+))")


def uri(path: Path) -> str:
    return normal(path).as_uri()


def lsp_range(data: bytes | None, span: Span, encoding: str = "utf-16") -> types.Range:
    """The span's byte range in `data`; the span's own lines and columns when the bytes are gone."""
    if data is None or span.end > len(data):
        return types.Range(
            types.Position(max(span.line - 1, 0), max(span.column - 1, 0)),
            types.Position(max(span.end_line - 1, 0), max(span.end_column - 1, 0)),
        )
    start, end = position(data, span.start, encoding), position(data, span.end, encoding)
    return types.Range(types.Position(*start), types.Position(*end))


def diagnostic(workspace: Workspace, found: Diagnostic, checked: Checked) -> types.Diagnostic:
    path = normal(found.span.path)
    return types.Diagnostic(
        range=lsp_range(workspace.data(path, checked), found.span, workspace.encoding),
        message=found.message,
        severity=SEVERITY[found.severity],
        code=found.code,
        code_description=types.CodeDescription(href=rule_url(found.code)),
        source=SOURCE,
        related_information=related(workspace, found, checked) or None,
        data={"code": found.code, "start": found.span.start, "end": found.span.end},
    )


def error(error: SourceError) -> types.Diagnostic:
    """A file that cannot be read (a YAML half typed): its one line, at its line and column."""
    line, column = max(error.line - 1, 0), max(error.column - 1, 0)
    return types.Diagnostic(
        range=types.Range(types.Position(line, column), types.Position(line, column + 1 if error.line else 0)),
        message=str(error),
        severity=types.DiagnosticSeverity.Error,
        source=SOURCE,
    )


def related(workspace: Workspace, found: Diagnostic, checked: Checked) -> list[types.DiagnosticRelatedInformation]:
    """The other files a finding concerns: where its fix writes, the files its message and
    evidence cite (`path.sh:8`), and, for a finding in a config, the launch that reads it."""
    here = normal(found.span.path)
    recipe = checked.recipe_of.get(id(found))
    places: dict[tuple[Path, int], tuple[types.Location, str]] = {}
    for edit in found.fix.edits if found.fix is not None else ():
        path = normal(edit.span.path)
        if path != here:
            places.setdefault((path, edit.span.line), (location(workspace, edit.span, checked), "the fix edits this file"))
    if recipe is not None:
        _cited(workspace, found, recipe, here, checked, places)
        _config_values(workspace, found, recipe, here, checked, places)
        launch = recipe.launch
        if launch is not None and normal(launch.command.span.path) != here:
            span = launch.command.span
            places.setdefault((normal(span.path), span.line), (location(workspace, span, checked), "the launch that reads this file"))
    return [types.DiagnosticRelatedInformation(location=where, message=why) for where, why in places.values()]


def _cited(
    workspace: Workspace,
    found: Diagnostic,
    recipe: Recipe,
    here: Path,
    checked: Checked,
    places: dict[tuple[Path, int], tuple[types.Location, str]],
) -> None:
    """`name:line` in the message or the evidence, where `name` is one of the recipe's files."""
    by_name = {normal(path).name: normal(path) for path in recipe.files}
    if recipe.script is not None:
        by_name.update((path.name, normal(path)) for path in _sourced(recipe))
    for text in [found.message, *found.evidence]:
        for name, line in _MENTION.findall(text):
            path = by_name.get(name)
            if path is not None and path != here:
                start = types.Position(int(line) - 1, 0)
                where = types.Location(uri=uri(path), range=types.Range(start, start))
                places.setdefault((path, int(line)), (where, text if len(text) <= 200 else text[:197] + "..."))


def _config_values(
    workspace: Workspace,
    found: Diagnostic,
    recipe: Recipe,
    here: Path,
    checked: Checked,
    places: dict[tuple[Path, int], tuple[types.Location, str]],
) -> None:
    """The values of the recipe's train YAML and DeepSpeed JSON a finding elsewhere names with
    their key (`batch_size 16` in RL103's evidence: batch_conf.batch_size), else the config
    itself when the finding speaks of it ("no save_interval in the train YAML")."""
    text = " ".join([found.message, *found.evidence])
    said = {(key, value.rstrip(".,;:")) for key, value in _PAIR.findall(text)}
    for document, called in ((recipe.config, "YAML"), (recipe.ds_config, "DeepSpeed")):
        if document is None or normal(document.path) == here:
            continue
        named = [
            node
            for node in document.root.walk()
            if node.kind == "scalar" and node.value is not None and (node.path.rsplit(".", 1)[-1], str(node.value)) in said
        ]
        for node in named[:5]:
            path = normal(node.span.path)
            places.setdefault((path, node.span.line), (location(workspace, node.span, checked), f"{node.path}: {node.value}"))
        if not named and called in text:
            path = normal(document.path)
            start = types.Position(0, 0)
            places.setdefault((path, 1), (types.Location(uri=uri(path), range=types.Range(start, start)), f"the config: {path.name}"))


def _sourced(recipe: Recipe) -> list[Path]:
    script = recipe.script
    if script is None:
        return []
    folder = script.source.path.parent
    return [folder / s.path for s in script.sourced if s.read]


def location(workspace: Workspace, span: Span, checked: Checked | None = None) -> types.Location:
    path = normal(span.path)
    return types.Location(uri=uri(path), range=lsp_range(workspace.data(path, checked), span, workspace.encoding))


def text_edits(workspace: Workspace, edits: list[Edit], checked: Checked | None = None) -> dict[str, list[types.TextEdit]]:
    """A fix's byte-range edits as TextEdits, per document."""
    changes: dict[str, list[types.TextEdit]] = {}
    for edit in edits:
        where = location(workspace, edit.span, checked)
        changes.setdefault(where.uri, []).append(types.TextEdit(range=where.range, new_text=edit.content))
    return changes
