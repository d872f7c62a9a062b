"""Code actions: each finding's fix (safe ones preferred quick fixes, unsafe ones titled so), a
suppression comment with a reason to fill in (recipelint.addignore's insertion), and
`recipelint.fixAll`: every safe fix of a document, applied as `recipelint fix` applies them."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from recipelint.diagnostics import Applicability, Diagnostic
from recipelint.server import convert
from recipelint.server.positions import changed_range, position
from recipelint.server.workspace import Checked, Overlay, Workspace, normal

FIX_ALL = "recipelint.fixAll"


def code_actions(workspace: Workspace, path: Path, selected: types.Range) -> list[types.CodeAction]:
    """The actions for the findings on `path` whose range meets the selection."""
    actions: list[types.CodeAction] = []
    for found, checked in workspace.findings(path)[0]:
        lsp = convert.diagnostic(workspace, found, checked)
        if not _meets(lsp.range, selected):
            continue
        fix = fix_action(workspace, found, checked, lsp)
        if fix is not None:
            actions.append(fix)
        suppress = suppress_action(workspace, found, checked, lsp)
        if suppress is not None:
            actions.append(suppress)
    if any(found.fix is not None and found.fix.applicability is Applicability.SAFE for found, _ in workspace.findings(path)[0]):
        actions.append(
            types.CodeAction(
                title="recipelint: fix all safe fixes",
                kind=types.CodeActionKind.SourceFixAll,
                command=types.Command(title="Fix all", command=FIX_ALL, arguments=[convert.uri(path)]),
            )
        )
    return actions


def _meets(a: types.Range, b: types.Range) -> bool:
    def key(p: types.Position) -> tuple[int, int]:
        return (p.line, p.character)

    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)


def fix_action(workspace: Workspace, found: Diagnostic, checked: Checked, lsp: types.Diagnostic) -> types.CodeAction | None:
    fix = found.fix
    if fix is None:
        return None
    if any(refused(workspace, edit.span.path, found.span.path) for edit in fix.edits):
        return None  # an edit `recipelint fix --write` would not make: none offered
    safe = fix.applicability is Applicability.SAFE
    title = f"{found.code}: {fix.title or 'apply the fix'}" + ("" if safe else " (unsafe)")
    edit = types.WorkspaceEdit(changes=convert.text_edits(workspace, list(fix.edits), checked))
    return types.CodeAction(title=title, kind=types.CodeActionKind.QuickFix, diagnostics=[lsp], is_preferred=safe, edit=edit)


def suppress_action(workspace: Workspace, found: Diagnostic, checked: Checked, lsp: types.Diagnostic) -> types.CodeAction | None:
    """`# recipelint: ignore[CODE] TODO: ...` on the finding's line, as `check --add-ignore` writes
    it (the end of a command continued with `\\`; the codes joined to a suppression already there)."""
    from recipelint.addignore import META, plan
    from recipelint.parse.files import FileCache

    if found.code in META:
        return None
    path = normal(found.span.path)
    files = FileCache(overlay=workspace.overlay())
    planned = plan([found], files)[0]
    before_after = next((item for where, item in planned.items() if normal(where) == path), None)
    if before_after is None:  # JSON and Markdown take no comment; a line that cannot end with one
        return None
    before, after, _ = before_after
    start, end, content = changed_range(before, after)
    where = _range(before, start, end, workspace.encoding)
    edit = types.WorkspaceEdit(changes={convert.uri(path): [types.TextEdit(range=where, new_text=content.decode("utf-8"))]})
    return types.CodeAction(title=f"Suppress {found.code} on this line", kind=types.CodeActionKind.QuickFix, diagnostics=[lsp], edit=edit)


def fix_all(workspace: Workspace, path: Path) -> tuple[types.WorkspaceEdit, int]:
    """Every safe fix `recipelint fix PATH` would apply over the open documents' texts (passes
    repeated until none applies), as one edit per changed file; and how many findings it fixes."""
    from recipelint import engine
    from recipelint.fix import fix_paths

    resolver = workspace.config.resolver()

    def run_check(files: object) -> list[Diagnostic]:
        from recipelint.parse.files import FileCache

        assert isinstance(files, FileCache)
        return engine.check(
            [path], workspace.config.options(), hardware=workspace.config.loader(), files=files, resolver=resolver
        ).diagnostics

    outcome = fix_paths(run_check, unsafe=False, start=workspace.overlay())
    changes: dict[str, list[types.TextEdit]] = {}
    original = Overlay(outcome.original)  # an edit may name a document by another spelling
    for changed, after in outcome.changed.items():
        before = original.get(changed)
        if before is None or refused(workspace, changed, path):
            continue
        start, end, content = changed_range(before, after)
        where = _range(before, start, end, workspace.encoding)
        changes[convert.uri(changed)] = [types.TextEdit(range=where, new_text=content.decode("utf-8"))]
    return types.WorkspaceEdit(changes=changes), len(outcome.applied)


def refused(workspace: Workspace, target: Path, checked: Path) -> bool:
    """Whether `recipelint fix --write` on `checked` would refuse to write `target` (recipelint.fix's
    own rules: outside the checked file's folder and its repository, reached through a link out of
    them, hard-linked, read-only). An open document not yet on disk is judged by where it is."""
    from recipelint.fix import refusal, write_roots

    roots = write_roots([normal(checked)])
    if normal(target) in workspace.documents and not normal(target).exists():
        real = normal(target)
        return not any(real == root or root in real.parents for root in roots)
    return refusal(normal(target), roots)[1] is not None


def _range(data: bytes, start: int, end: int, encoding: str) -> types.Range:
    return types.Range(types.Position(*position(data, start, encoding)), types.Position(*position(data, end, encoding)))
