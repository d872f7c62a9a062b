"""`--timeout` at or above the process-group timeout.

## What it does
Compares WeNet's join timeout with the default process group's timeout: under DeepSpeed
`DEEPSPEED_TIMEOUT` minutes, default 30 up to 0.19.5 and 10 from 0.19.6; 10 min for NCCL
under torch_fsdp (torch >= 2.2).

## Why is this bad
The join is meant to notice a rank that ran out of data and end the epoch cleanly. If it
waits longer than the NCCL watchdog, the watchdog fires first ("Watchdog caught collective
operation timeout") and kills the job instead (wenet.md 2, 9).

## Example
`--train_engine torch_fsdp --timeout 1200`: 1200 s > 600 s. Upstream's WenetSpeech whisper
recipe (deepspeed, `--timeout 1200`) hits this with DeepSpeed >= 0.19.6.

## Fix
Sets `--timeout` to half the process-group timeout, or 1200 s when that fits.

## Fix safety
Safe: only the join timeout changes.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint import tuner
from recipelint.context import Context
from recipelint.diagnostics import Applicability, Diagnostic, Fix, Severity
from recipelint.toolkits.wenet.rules.timeout._common import JOIN_ENGINES

CODE = "RL303"
NAME = "join-timeout-above-pg-timeout"
SEVERITY = Severity.ERROR
FIXABLE = True
SOURCE = "PyTorch NCCL default 10 min (pytorch#110947); deepspeed/constants.py default_pg_timeout (30 min to 0.19.5, 10 from 0.19.6)"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    recipe = ctx.recipe
    engine = recipe.arg("train_engine").value
    setting = recipe.arg("timeout")
    timeout = setting.as_int()
    if recipe.launch is None or engine not in JOIN_ENGINES or not setting.given or timeout is None:
        return
    limit, limit_source = ctx.process_group_timeout(engine)
    if timeout < limit:
        return
    suggested = tuner.join_timeout(engine, limit)
    edit = ctx.set_value(setting, str(suggested))
    yield ctx.diagnostic(
        CODE,
        SEVERITY,
        f"--timeout {timeout}s is not below the process-group timeout of {limit}s ({limit_source}): the NCCL watchdog fires before WeNet's join can end the epoch",
        setting.span,
        setting="timeout",
        current=timeout,
        suggested=suggested,
        evidence=[f"{engine}: {limit_source}"],
        fix=Fix((edit,), Applicability.SAFE, f"set --timeout {suggested}") if edit else None,
    )
