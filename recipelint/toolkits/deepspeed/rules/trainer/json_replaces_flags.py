"""A DeepSpeed `scheduler` or `optimizer` block replaces the Trainer's `--lr_scheduler_type` or `--optim`.

## What it does
Under the Hugging Face Trainer (seen in the training code), `deepspeed_optim_sched`
(huggingface/transformers@v4.46.3:src/transformers/integrations/deepspeed.py; `deepspeed.py` before
4.33) builds `DummyScheduler(optimizer)` when the JSON has a `scheduler` block and
`DummyOptim(params)` when it has an `optimizer` block: DeepSpeed then builds both from the JSON, and
the Trainer's `create_scheduler` / `create_optimizer` never run. Reports each flag the launch sets
that only those two read (a default of the script's own dataclass is left alone: it is there for
the runs without DeepSpeed): `--lr_scheduler_type`,
`--lr_scheduler_kwargs` (scheduler); `--optim`, `--optim_args` (optimizer). The values
`fill_match` copies into `"auto"` (learning rate, betas, warmup steps) still apply and are not
reported; a mismatch among them is RL460.

## Why is this bad
The run trains with another schedule or optimizer than the launch says: a `WarmupLR` block holds
the learning rate at `warmup_max_lr` for the whole run where `--lr_scheduler_type cosine` was meant
to decay it, and nothing in the log says the flag was ignored.

## Severity
Warning: the run starts, but not as written.

## Example
`--lr_scheduler_type cosine --deepspeed ds_z2.json` with `"scheduler": {"type": "WarmupLR", ...}`.

## Fix
None offered: either remove the JSON block (the Trainer's flags then decide) or the flag (the
JSON decides); which one was meant is the author's choice.

## Fix safety
No fix: either edit changes the schedule or the optimizer the run trains with.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint import trainingargs, versions
from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.toolkits.deepspeed.rules._ds import ds_document
from recipelint.toolkits.deepspeed.rules.trainer._values import arg, trainer_reads

CODE = "RL470"
NAME = "trainer-flags-replaced-by-json"
SEVERITY = Severity.WARNING
VISITS = ("deepspeed-config",)
FIXABLE = False
SOURCE = "huggingface/transformers@v4.46.3:src/transformers/integrations/deepspeed.py (deepspeed_optim_sched: DummyOptim, DummyScheduler)"
TOOLKITS = ("deepspeed",)
DUMMY = {"scheduler": "DummyScheduler", "optimizer": "DummyOptim"}
FLAGS = {"scheduler": ("lr_scheduler_type", "lr_scheduler_kwargs"), "optimizer": ("optim", "optim_args")}


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    doc = ds_document(ctx)
    if doc is None or not trainer_reads(ctx):
        return
    newest = trainingargs.clamp(_newest(ctx))
    for block, names in FLAGS.items():
        node = doc.root.get(block)
        if node is None or node.kind != "map":
            continue
        kind = node.scalar("type")
        for name in names:
            value = arg(ctx, name, newest)
            if value is None or not value.source.startswith("flag ") or value.span is None or value.value in (None, "", {}):
                continue  # a default of the script's own dataclass is there for the runs without DeepSpeed
            what = f"the JSON's {block} block" + (f" ({kind})" if isinstance(kind, str) else "")
            effect = _effect(block, kind, value.value)
            yield ctx.diagnostic(
                CODE,
                SEVERITY,
                f"--{name} {value.value} has no effect: the Trainer hands {what} to DeepSpeed ({DUMMY[block]}) "
                f"and never builds its own {block}{effect}",
                value.span,
                setting=name,
                current=value.value,
                evidence=[f"{name}: {value.source}", f"{block}: {doc.path.name}:{node.span.line}", f"consumer: {ctx.recipe.reader.why()}"],
            )


def _effect(block: str, kind: object, value: object) -> str:
    if block == "scheduler" and kind == "WarmupLR":
        return f"; WarmupLR holds the learning rate at warmup_max_lr after the warmup, where {value} was asked for"
    return ""


def _newest(ctx: Context) -> versions.Version:
    """The flags read here have the same meaning in every release of the table: the newest the range admits."""
    return trainingargs.points(ctx.version_range("transformers"))[-1]
