"""WeNet's own part of a recipe (`Recipe.part(WenetPart)`): what only a WeNet launch has."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from recipelint.model import Link, Note, Recipe, Setting, link_source
from recipelint.records import dataclass, field

if TYPE_CHECKING:
    from recipelint.context import Context


@dataclass
class DataList:
    """A `data.list` named by `--train_data`: one shard (tar) or one utterance per line."""

    path: Path
    setting: Setting
    exists: bool
    lines: int = 0
    schemes: Counter[str] = field(default_factory=Counter)  # "file", "http", "https", "s3", ...
    compression: Counter[str] = field(default_factory=Counter)  # "gzip", "bz2", "xz", "zstd"
    example: dict[str, str] = field(default_factory=dict)  # one sample line per scheme / compression
    seconds: float = 0.0  # raw lists: total duration of the lines that state one ("duration", or "end" - "start")
    timed: int = 0  # raw lists: how many lines state a duration
    size: int = 0  # bytes read: with `lines`, the mean line the loader keeps per line


@dataclass
class WenetPart:
    """The facts a WeNet front end reads beyond every launch's: the train data lists, and for a
    config checked alone the training script its recipe folder's run script starts."""

    train_data: list[DataList] = field(default_factory=list)
    # The code that would read a config checked alone, as the run script beside it writes it
    # (`bin/train_deprecated.py`); None when no run script beside it says.
    entry: str | None = None


def lone_entry(recipe: Recipe) -> str | None:
    """The training script the run script beside a config checked alone starts (WenetPart.entry)."""
    part = recipe.part(WenetPart)
    return part.entry if part is not None else None


def train_data(recipe: Recipe) -> list[DataList]:
    """The recipe's WeNet train data lists (none for another toolkit's recipe)."""
    part = recipe.part(WenetPart)
    return part.train_data if part is not None else []


def lines_in_all(recipe: Recipe) -> int | None:
    """The lines of the train data lists found (a shard or an utterance each); None: none found."""
    lists = [item for item in train_data(recipe) if item.exists]
    return sum(item.lines for item in lists) if lists else None


# The schemes of a data.list line read over the network, a wget pipe that cannot seek (RL203).
REMOTE = ("http", "https", "ftp")


def shard_kinds(recipe: Recipe) -> tuple[int, int]:
    """How many train data.list lines are remote (http, https, ftp) and how many compressed."""
    lists = train_data(recipe)
    remote = sum(n for data in lists for scheme, n in data.schemes.items() if scheme in REMOTE)
    return remote, sum(sum(data.compression.values()) for data in lists)


def _data_source(item: DataList, link: Link | None) -> str:
    if not item.exists:
        return link_source(link)[1] if link is not None else f"not found: {item.path}"
    schemes = ", ".join(f"{scheme} {count}" for scheme, count in item.schemes.most_common())
    compression = ", ".join(f"{kind} {count}" for kind, count in item.compression.most_common())
    return f"{item.path}: {item.lines} lines ({schemes or 'empty'}{'; ' + compression if compression else ''})"


def data_notes(ctx: Context) -> list[Note]:
    """`show`'s data section: each train list with its lines, and the lines in all."""
    recipe = ctx.recipe
    data_links = [link for link in recipe.links if link.role == "train data"]
    lists = train_data(recipe)
    notes: list[Note] = []
    for item in lists:
        link = next((link for link in data_links if link.setting is item.setting), None)
        notes.append(Note("data", "train data", _shown(item.setting.value), _data_source(item, link)))
    for link in data_links:
        if not any(item.setting is link.setting for item in lists):
            value, source = link_source(link)
            notes.append(Note("data", "train data", value, source))
    shards = lines_in_all(recipe)
    if shards is not None:
        notes.append(Note("data", "lines in all", str(shards), "sum of the train lists found"))
    return notes


def _shown(value: object) -> str:
    return "unknown" if value is None else str(value)
