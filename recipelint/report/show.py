"""`recipelint show`: the model as recipelint understood it, with where each value came from.

A recipe is described in sections of (label, value, source) items. Each section comes from one
builder in SECTIONS; notes the front ends recorded on the recipe (`Recipe.note`) join the
section they name, and a section name nothing builds becomes a section of its own. Adding a
kind of fact to `show` is a builder or a note, not a new report.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic
from recipelint.model import Recipe, Setting, link_source, setting_source
from recipelint.parse.files import SourceError, printable
from recipelint.parse.shell import OPTION_PARSERS
from recipelint.parse.where import shown
from recipelint.records import dataclass, field
from recipelint.toolkits import kinds


@dataclass
class Item:
    label: str
    value: str
    source: str = ""


@dataclass
class Section:
    title: str
    items: list[Item] = field(default_factory=list)

    def add(self, label: str, value: object, source: str = "") -> None:
        self.items.append(Item(label, "unknown" if value is None else str(value), source))


@dataclass
class Description:
    """One recipe as `show` prints it."""

    path: Path
    line: int
    end_line: int  # the launch command's last line (a command continued with backslashes)
    toolkit: str
    sections: list[Section]
    findings: list[Diagnostic]


def _where(recipe: Recipe) -> tuple[Path, int, int]:
    if recipe.launch is not None:
        span = recipe.launch.command.span
        return span.path, span.line, span.end_line
    link = next((link for link in recipe.links if link.setting.span is not None), None)
    if link is not None and link.setting.span is not None:  # a launch only the run time can read (`eval $cmd`)
        return link.setting.span.path, link.setting.span.line, link.setting.span.end_line
    for path in recipe.files:
        return path, 1, 1
    return recipe.root, 0, 0


def launch_section(ctx: Context) -> Section | None:
    launch = ctx.recipe.launch
    if launch is None:
        return None
    section = Section("launch")
    span = launch.command.span
    section.add("command", f"{span.path.name}:{span.line}", launch.command.words[0].text + " ... " + launch.script.text)
    section.add("launcher", launch.launcher)
    nodes = ctx.nodes
    nodes_source = (
        setting_source(launch.nnodes)
        if launch.nnodes.given
        else ctx.fact("nodes").cite("nodes")
        if ctx.fact("nodes").known
        else setting_source(launch.nnodes)
    )
    elastic = launch.nnodes.value if launch.nnodes.given and isinstance(launch.nnodes.value, str) else ""
    low, colon, high = elastic.partition(":")
    # torchrun's elastic --nnodes MIN:MAX: the count changes while it runs, the range is what it is told
    section.add(
        "nodes", f"{low} to {high} (elastic)" if nodes is None and colon and low.isdigit() and high.isdigit() else nodes, nodes_source
    )
    section.add("ranks per node", ctx.ranks_per_node, ctx.ranks_source())
    world = ctx.world_size
    section.add(
        "world size",
        world,
        f"{nodes} node(s) x {ctx.ranks_per_node} ranks per node" if world is not None else "needs nodes and ranks per node",
    )
    section.add("rendezvous", launch.rendezvous.value, setting_source(launch.rendezvous))
    return section


def configs_section(ctx: Context) -> Section | None:
    links = [link for link in ctx.recipe.links if link.role != "train data"]
    if not links:
        return None
    section = Section("configs")
    for link in links:
        value, source = link_source(link)
        section.add(link.role, value, source)
    return section


def toolkit_section(title: str) -> Callable[[Context], Section | None]:
    """A section of what the recipe's toolkit says of its own part (`Toolkit.describe`)."""

    def build(ctx: Context) -> Section | None:
        toolkit = kinds().get(ctx.recipe.toolkit)
        notes = [note for note in (toolkit.describe(ctx) if toolkit is not None else []) if note.section == title]
        if not notes:
            return None
        return Section(title, [Item(note.label, note.value, note.source) for note in notes])

    return build


_SETTINGS = ("train_engine", "num_workers", "prefetch", "timeout", "deepspeed_config", "config", "deepspeed", "launcher")
_DEFAULTS_SHOWN = ("num_workers", "prefetch", "timeout")  # the loader and timeout rules read them even when not passed


def settings_section(ctx: Context) -> Section | None:
    recipe = ctx.recipe
    shown = [
        (name, recipe.args[name]) for name in _SETTINGS if name in recipe.args and (recipe.args[name].given or name in _DEFAULTS_SHOWN)
    ]
    if not shown:
        return None
    section = Section("settings")
    for name, setting in shown:
        section.add(name, setting.value, setting_source(setting))
    return section


def script_section(ctx: Context) -> Section | None:
    script = ctx.recipe.script
    if script is None or (not script.sourced and not script.overrides):
        return None
    section = Section("script")
    for sourced in script.sourced:
        section.add("sources", sourced.path, f"line {sourced.span.line}: {sourced.note}")
    for override in script.overrides:
        section.add("argument", override.name, override.note)
    return section


def run_section(ctx: Context) -> Section | None:
    """The facts of the run the verdicts depend on: versions, the config's consumer, the working folder."""
    from recipelint.runcontext import rows

    found = rows(ctx)
    if not found:
        return None
    section = Section("run")
    for label, value, source in found:
        section.add(label, value, source)
    return section


def trainer_section(ctx: Context) -> Section | None:
    """The Hugging Face TrainingArguments values that matter (batch, accumulation, precision,
    schedule, workers), each with where it comes from: a flag, the script's default, the release's."""
    from recipelint.hftrainer import shown_rows

    if ctx.recipe.hf_args is None:
        return None
    rows = shown_rows(ctx.recipe, ctx.version_range("transformers"))
    if not rows:
        return None
    section = Section("trainer")
    for label, value, source in rows:
        section.add(label, value, source)
    return section


def hardware_section(ctx: Context) -> Section | None:
    if not ctx.facts_used:
        return None
    section = Section("hardware")
    for name in ctx.facts_used:
        fact = ctx.fact(name)
        section.add(name, fact.value, fact.source if fact.known else f"unknown: {fact.reason or 'not in the profile'}")
    return section


def _unknown_settings(recipe: Recipe) -> list[tuple[str, Setting]]:
    found: list[tuple[str, Setting]] = []
    launch = recipe.launch
    if launch is not None:
        found.extend(
            (name, s) for name, s in (("nodes", launch.nnodes), ("ranks per node", launch.nproc_per_node)) if s.given and s.value is None
        )
    found.extend((name, s) for name, s in recipe.args.items() if s.given and s.value is None)
    return found


def unknown_section(ctx: Context) -> Section | None:
    """What the script leaves to the run time, and why: the reason a silent check was skipped."""
    recipe = ctx.recipe
    section = Section("unknown")
    for name, setting in _unknown_settings(recipe):
        filled = " (the hardware's GPU count is used)" if name == "ranks per node" and ctx.ranks_from_hardware else ""
        section.add(name, setting.word.text if setting.word is not None else None, setting_source(setting) + filled)
    if recipe.script is not None:
        for sourced in recipe.script.sourced:
            if not sourced.read and Path(sourced.path).name not in OPTION_PARSERS:
                section.add("not read", sourced.path, sourced.note)
    return section if section.items else None


def findings_section(ctx: Context, findings: list[Diagnostic]) -> Section:
    section = Section("findings")
    codes = sorted({d.code for d in findings})
    section.add("count", len(findings), ", ".join(codes) if codes else "no problems found")
    return section


SECTIONS: list[Callable[[Context], Section | None]] = [
    launch_section,
    settings_section,
    configs_section,
    toolkit_section("data"),
    script_section,
    toolkit_section("code"),
    run_section,
    trainer_section,
    toolkit_section("plan"),
    hardware_section,
    unknown_section,
]


def describe(ctx: Context, findings: list[Diagnostic]) -> Description:
    recipe = ctx.recipe
    sections = [section for build in SECTIONS if (section := build(ctx)) is not None]
    by_title = {section.title: section for section in sections}
    for note in recipe.notes:
        target = by_title.get(note.section)
        if target is None:
            target = by_title[note.section] = Section(note.section)
            sections.append(target)
        target.items.append(Item(note.label, note.value, note.source))
    sections.append(findings_section(ctx, findings))
    path, line, end_line = _where(recipe)
    return Description(path, line, end_line, recipe.toolkit, sections, findings)


def render_text(descriptions: list[Description]) -> str:
    lines: list[str] = []
    for description in descriptions:
        where = f"{shown(description.path)}:{description.line}" if description.line else f"{shown(description.path)}"
        lines.append(printable(f"{where} ({description.toolkit})"))
        for section in description.sections:
            lines.append(f"  {section.title}")
            for item in section.items:
                lines.append(printable(f"    {item.label:<18} {item.value}"))
                if item.source:
                    lines.append(printable(f"    {'':<18}   <- {item.source}"))
        lines.append("")
    if not descriptions:
        lines.append("No recipes found.")
    return "\n".join(lines).rstrip("\n")


def render_json(descriptions: list[Description], errors: list[SourceError], hardware: dict[str, Any] | None) -> str:
    data = {
        "recipes": [
            {
                "path": str(shown(d.path)),
                "line": d.line,
                "end_line": d.end_line,
                "toolkit": d.toolkit,
                "sections": [
                    {"title": s.title, "items": [{"label": i.label, "value": i.value, "source": i.source} for i in s.items]}
                    for s in d.sections
                ],
                "findings": [{"code": f.code, "line": f.span.line, "message": f.message} for f in d.findings],
            }
            for d in descriptions
        ],
        "errors": [str(error) for error in errors],
        "hardware": hardware,
    }
    return json.dumps(data, indent=2)
