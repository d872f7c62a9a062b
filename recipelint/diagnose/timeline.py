"""What a log line says about when and where: its timestamp, its rank, training progress.

Formats seen in training logs: Python logging (`2024-07-21 00:11:29,529`), Kubernetes and
Slurm prefixes (`2022/03/21 15:13:18`), mmengine (`06/14 09:11:55`, no year), glog as torch
writes it (`[E321 02:07:08.408271257 ProcessGroupNCCL.cpp:607]`: month 03, day 21, no year),
torchelastic (`2025-05-21_15:43:03`). Progress: WeNet (`TRAIN | steps/sec 1.2| Batch 3/400
loss`, older `DEBUG TRAIN Batch 1/100 loss`), mmengine (`Epoch(train)  [1][ 10/500]`,
`Iter(train) [ 10/1000]`), tqdm bars (`29%| ... | 1034/3597 [51:02<2:06:30`), Hugging Face
(`{'loss': 3.55, ..., 'epoch': 0.01}`) and DeepSpeed (`step=100, skipped=0`).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from recipelint.records import dataclass

_FULL = re.compile(r"(?P<y>(?:19|20)\d\d)[-/](?P<mo>\d\d)[-/](?P<d>\d\d)[ T_](?P<h>\d\d):(?P<mi>\d\d):(?P<s>\d\d)(?:[.,](?P<f>\d{1,6}))?")
# torch pads the day but not the month: E321 is 03-21, E1206 is 12-06, E0213 (elastic) is 02-13.
_GLOG = re.compile(r"(?:^|[\[\s:])[EWIF](?P<mo>1[0-2]|0?[1-9])(?P<d>[0-3]\d) (?P<h>\d\d):(?P<mi>\d\d):(?P<s>\d\d)(?:\.(?P<f>\d{1,6}))?")
_SHORT = re.compile(r"(?:^|[\s\[])(?P<mo>[01]\d)/(?P<d>[0-3]\d) (?P<h>\d\d):(?P<mi>\d\d):(?P<s>\d\d)")

# Where a line says which rank wrote it; the first that matches wins.
_RANKS = (
    re.compile(r"^\s*\[rank(\d+)\]:"),  # torch >= 2.2 prefixes each rank's stderr
    re.compile(r"^\s*\[default(\d+)\]:"),  # torchrun --tee / --redirects
    re.compile(r"^\s*\[1,(\d+)\]<std(?:out|err)>:"),  # Open MPI --tag-output
    re.compile(r"^(\d{1,5}): "),  # srun --label (and pdsh-style `N: ` prefixes)
    re.compile(r"\[(?:PG [^\]]*?)?Rank (\d+)\]"),  # [Rank 3], [PG 1 Rank 3]
    re.compile(r"\bcurrent rank (\d+)\b"),  # WeNet's join message
    re.compile(r"\brank[ :=](\d+)\b"),  # WeNet's TRAIN lines end in "rank 5"
)
_FILE_RANK = re.compile(r"rank[_-]?(\d+)", re.IGNORECASE)


def timestamp(text: str, year: int = 1900) -> datetime | None:
    """The first timestamp in a line; `year` for formats without one."""
    match = _FULL.search(text)
    if match is None:
        match = _GLOG.search(text) or _SHORT.search(text)
        if match is None:
            return None
    parts = match.groupdict()
    try:
        return datetime(
            int(parts.get("y") or year),
            int(parts["mo"]),
            int(parts["d"]),
            int(parts["h"]),
            int(parts["mi"]),
            int(parts["s"]),
            int((parts.get("f") or "0").ljust(6, "0")[:6]),
        )
    except ValueError:
        return None


def rank_of(text: str) -> int | None:
    # Each form holds one of these (or starts with a digit): most lines hold none of them.
    if "ank" not in text and "default" not in text and "<std" not in text and not text[:1].isdigit():
        return None
    for pattern in _RANKS:
        match = pattern.search(text)
        if match is not None:
            return int(match.group(1))
    return None


def file_rank(name: str, folder: str = "") -> int | None:
    """The rank a file's name gives (rank3.log); for a torchelastic error file
    (`.../attempt_0/3/error.json`), the local rank its folder is named by."""
    match = _FILE_RANK.search(name)
    if match:
        return int(match.group(1))
    return int(folder) if name == "error.json" and folder.isdigit() else None


@dataclass(frozen=True)
class Progress:
    """One training-progress line: where in the run it was written."""

    line: int
    step: int | None  # None when the line gives only the epoch (Hugging Face's loss dicts)
    epoch: float | None = None
    total: int | None = None  # steps in the epoch (or the run), when the line says
    tag: str = "train"  # "train", "cv", or "prep" (a progress bar of data preparation or model loading)
    elapsed: timedelta | None = None  # a tqdm bar's elapsed time
    time: datetime | None = None

    def describe(self) -> str:
        where = f"step {self.step}" + (f" of {self.total}" if self.total else "") if self.step is not None else ""
        if self.epoch is not None:
            epoch = int(self.epoch) if float(self.epoch).is_integer() else self.epoch
            where = f"epoch {epoch}" + (f", {where}" if where else "")
        if self.tag == "prep":
            return f"data preparation {where.replace('step ', '')}"
        return where + (" (validation)" if self.tag == "cv" else "")


_WENET = re.compile(r"\b(?P<tag>TRAIN|CV) (?:\| (?:steps/sec [\d.]+\| ?)?)?Batch (?P<epoch>\d+)/(?P<step>\d+) loss")
_MM_EPOCH = re.compile(r"Epoch\((?P<tag>train|val)\)\s*\[(?P<epoch>\d+)\]\s*\[\s*(?P<step>\d+)/(?P<total>\d+)\]")
_MM_ITER = re.compile(r"Iter\((?P<tag>train|val)\)\s*\[\s*(?P<step>\d+)/(?P<total>\d+)\]")
_TQDM = re.compile(r"(?:Epoch (?P<epoch>\d+): *)?\d+%\|[^|\n]*\|\s*(?P<step>\d+)/(?P<total>\d+) \[(?P<elapsed>[\d:]+)<")
# A bar's label before it, or its rate after it, says data preparation: `datasets.map` ("Map",
# "Running tokenizer on dataset", "Grouping texts in chunks of 1024", "Converting format of
# dataset") counts `examples/s` (older versions `ba/s`); model loading counts checkpoint shards.
_PREP = re.compile(
    r"\b(?:map|filter|tokeniz\w*|loading|downloading|generating|resolving|fetching|extracting|preprocess\w*|grouping|converting"
    r"|packing|formatting|running tokenizer|encoding|saving the dataset)\b",
    re.IGNORECASE,
)
_PREP_RATE = re.compile(r"[^\]\r\n]{0,40}(?:examples/s|ba/s|shards/s)")
# A bar faster than this many items a second counts bytes or records (a download), not training steps.
_FAST = 10000.0
_RATE = re.compile(r"[^\]\r\n]{0,20}?(?P<rate>[\d.]+)it/s")
# datasets' bars without a total: `Generating train split: 2230000 examples [29:59, 1466.92 examples/s]`.
_EXAMPLES = re.compile(r"(?P<step>\d+) examples \[(?P<elapsed>[\d:]+),")
_HF = re.compile(r"\{'loss': [-\d.e]+.*?'epoch': (?P<epoch>[\d.]+)\}")
_DS = re.compile(r"\bstep=(?P<step>\d+), skipped=\d+")
# Bytes: what the reader searches for before decoding a line.
# A literal each of PROGRESS_BYTES' forms holds: the reader finds candidate lines by them.
PROGRESS_LITERALS = (b"Batch ", b" examples [", b"(train)", b"(val)", b"%|", b"{'loss': ", b", skipped=")
PROGRESS_BYTES = re.compile(
    rb"Batch \d+/\d+ loss|\d examples \[|\((?:train|val)\)\s*\[|\d%\|.*\| *\d+/\d+ \[|\{'loss': |\bstep=\d+, skipped="
)


def _elapsed(text: str) -> timedelta:
    seconds = 0
    for part in text.split(":"):
        seconds = seconds * 60 + int(part or 0)
    return timedelta(seconds=seconds)


def _fast(text: str, at: int) -> bool:
    rate = _RATE.match(text, at)
    try:
        return rate is not None and float(rate["rate"]) > _FAST
    except ValueError:
        return False


def progress(text: str, line: int, time: datetime | None = None) -> Progress | None:
    """The training progress a line reports, if it reports any (the last one on the line)."""
    found: list[Progress] = []
    for match in _WENET.finditer(text):
        tag = "cv" if match["tag"] == "CV" else "train"
        found.append(Progress(line, int(match["step"]), int(match["epoch"]), None, tag, None, time))
    for pattern in (_MM_EPOCH, _MM_ITER):
        for match in pattern.finditer(text):
            epoch = match.groupdict().get("epoch")
            tag = "cv" if match["tag"] == "val" else "train"
            found.append(Progress(line, int(match["step"]), float(epoch) if epoch else None, int(match["total"]), tag, None, time))
    for match in _TQDM.finditer(text):
        epoch = match["epoch"]
        # A bar for data preparation or model loading is not training progress.
        label = text[max(0, text.rfind("\r", 0, match.start()) + 1, match.start() - 80) : match.start()]
        tag = "prep" if _PREP.search(label) or _PREP_RATE.match(text, match.end()) or _fast(text, match.end()) else "train"
        step = Progress(
            line, int(match["step"]), float(epoch) if epoch else None, int(match["total"]), tag, _elapsed(match["elapsed"]), time
        )
        found.append(step)
    for match in _EXAMPLES.finditer(text):
        found.append(Progress(line, int(match["step"]), None, None, "prep", _elapsed(match["elapsed"]), time))
    for match in _HF.finditer(text):
        found.append(Progress(line, None, float(match["epoch"]), None, "train", None, time))
    for match in _DS.finditer(text):
        found.append(Progress(line, int(match["step"]), None, None, "train", None, time))
    return found[-1] if found else None


def duration(delta: timedelta) -> str:
    """`2 h 31 min`, `10 min`, `45 s`."""
    seconds = int(delta.total_seconds())
    if seconds < 0:
        return "0 s"
    if seconds < 120:
        return f"{seconds} s"
    minutes = seconds // 60
    if minutes < 120:
        return f"{minutes} min"
    return f"{minutes // 60} h {minutes % 60} min"


def millis(ms: int) -> str:
    """A timeout as logs give it (ms), in the unit people set it in."""
    if ms % 60000 == 0:
        minutes = ms // 60000
        return f"{ms} ms = {minutes} min" if minutes < 120 else f"{ms} ms = {minutes // 60} h"
    if ms % 1000 == 0:
        return f"{ms} ms = {ms // 1000} s"
    return f"{ms} ms"
