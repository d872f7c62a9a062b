"""`filter_conf.max_length` above `max_frames_in_batch` with dynamic batching.

## What it does
With `batch_type: dynamic`, compares the longest utterance the filter lets through with the
frame budget of one batch. A `max_length` above WeNet's own default filter, 10240 frames
(102.4 s; wenet-e2e/wenet@01546996:wenet/dataset/processor.py), is read as "no limit" and not compared: upstream writes 40960 in 42
of its 67 configs exactly so that the length filter drops nothing, and whether an utterance
that long exists is a fact of the corpus, which the config does not hold.

Silent when the recipe's WeNet checkout reads no `filter_conf` (a fork that comments the filter
out of its Dataset: IS2024_stream_decoder_only_asr).

## Why is this bad
A dynamic batch holds up to `max_frames_in_batch` padded frames, but one utterance longer
than that still forms a batch of one: the budget meant to bound GPU memory does not hold,
and the rare long utterance causes the out-of-memory crash hours into training. A filter
written between the two (say 20000 frames with a 12000-frame budget) lets exactly those
utterances through.

## Example
```yaml
filter_conf: {max_length: 10000}
batch_conf: {batch_type: dynamic, max_frames_in_batch: 4000}
```
(`max_length: 40960` with the same budget is upstream's "no limit" and is not flagged.)

## Fix
Lowers `max_length` to `max_frames_in_batch`.

## Fix safety
Unsafe: it drops the training utterances between the two lengths.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Applicability, Diagnostic, Edit, Fix, Severity
from recipelint.toolkits.wenet.rules.config._wenet import known_keys, wenet_config

CODE = "RL704"
NAME = "filter-above-batch-budget"
SEVERITY = Severity.WARNING
VISITS = ("wenet-config",)
FIXABLE = True
SOURCE = "wenet-e2e/wenet@01546996:wenet/dataset/processor.py (a single utterance over the budget still forms a batch; filter max_length default 10240); the configs under wenet-e2e/wenet@01546996:examples"
DEFAULT_MAX_FRAMES = 12000
# WeNet's filter default (wenet/dataset/processor.py, wenet.md 3.6): a value above it is "no limit".
DEFAULT_MAX_LENGTH = 10240


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    config = wenet_config(ctx)
    if config is None or config.root.scalar("dataset_conf.batch_conf.batch_type") != "dynamic":
        return
    length = config.root.get("dataset_conf.filter_conf.max_length")
    frames_node = config.root.get("dataset_conf.batch_conf.max_frames_in_batch")
    frames = frames_node.value if frames_node is not None else DEFAULT_MAX_FRAMES
    if length is None or not isinstance(length.value, (int, float)) or not isinstance(frames, (int, float)):
        return
    if length.value <= frames or length.value > DEFAULT_MAX_LENGTH:
        return  # within the budget, or a "no limit" value (upstream's 40960): the corpus decides
    known, _ = known_keys(ctx, ["dataset_conf"])
    if known is not None and not {"filter_conf", "batch_conf"} <= set(known):
        return  # the code this recipe runs does not filter (or batch) by these blocks: nothing to compare
    yield ctx.diagnostic(
        CODE,
        SEVERITY,
        f"filter max_length {length.value} frames exceeds max_frames_in_batch {frames}: one long utterance makes a batch over the budget",
        length.span,
        setting="dataset_conf.filter_conf.max_length",
        current=length.value,
        suggested=frames,
        evidence=[
            f"max_length {length.value} frames = {length.value / 100:g} s; max_frames_in_batch {frames} = {frames / 100:g} s of padded frames"
        ],
        fix=Fix((Edit(length.span, str(frames)),), Applicability.UNSAFE, f"set max_length {frames}"),
    )
