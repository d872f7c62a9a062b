"""Helpers for the tests on unmodified upstream files (tests/data/upstream)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from recipelint import engine
from recipelint.hardware.profile import load_profile
from recipelint.parse.files import FileCache
from recipelint.report import show

DATA = Path(__file__).resolve().parent / "data"
UPSTREAM = DATA / "upstream"
A100 = DATA / "profiles" / "a100-8x-96cpu-ib.yaml"


def clone(name: str, target: Path) -> Path:
    """A copy of one upstream slice, with the `.git` folder a clone has at its root."""
    root = target / name
    shutil.copytree(UPSTREAM / name, root, symlinks=True)
    (root / ".git").mkdir()
    return root


def describe(paths: list[Path], profile: Path = A100) -> tuple[list[show.Description], engine.Result]:
    """What `recipelint show` prints for these paths, as data."""
    hardware = load_profile(profile)
    found: list[show.Description] = []
    result = engine.check(paths, lambda: hardware, FileCache(), observe=lambda ctx, kept: found.append(show.describe(ctx, kept)))
    return found, result


def items(description: show.Description, title: str) -> dict[str, list[show.Item]]:
    """The items of one section by label (a label may repeat: two train lists)."""
    out: dict[str, list[show.Item]] = {}
    for section in description.sections:
        if section.title == title:
            for item in section.items:
                out.setdefault(item.label, []).append(item)
    return out


def item(description: show.Description, title: str, label: str) -> show.Item:
    return items(description, title)[label][0]


def write_lines(path: Path, count: int, line: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{line(i)}\n" for i in range(count)))
