"""`--timeout` at or above the process-group timeout.

## What it does
Compares WeNet's join timeout with the default process group's timeout: under DeepSpeed
`DEEPSPEED_TIMEOUT` minutes (read since 0.11.2), default 30 up to 0.19.5 and 10 from 0.19.6;
under torch_fsdp torch's NCCL default, 10 min from torch 2.2 and 30 before.

The releases are those the run imports (see docs/show.md, "run"): the environment the script
activates, the repository's pins (WeNet v3.0.1's requirements.txt pins `deepspeed<0.13.0`), the
WeNet checkout's requirements.txt, `target-versions` in the settings, else the newest known.
An error when the timeout is too long for every release in that range; a warning naming the
releases (`with deepspeed >= 0.19.6; requirements.txt:24 allows deepspeed>=0.14.0`) when only
for some; silent when for none. When the recipe's WeNet checkout is there and neither its
training script nor a package module it imports reads `timeout` (a fork that commented out the
join group and `wenet_join`), the flag has no effect: an info saying so.

## Why is this bad
The join is meant to notice a rank that ran out of data and end the epoch cleanly. If it
waits longer than the NCCL watchdog, the watchdog fires first ("Watchdog caught collective
operation timeout") and kills the job instead (wenet-e2e/wenet@01546996:wenet/utils/train_utils.py).

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
from recipelint.toolkits.wenet.code import flag_unread
from recipelint.toolkits.wenet.rules.timeout._common import JOIN_ENGINES

CODE = "RL303"
NAME = "join-timeout-above-pg-timeout"
SEVERITY = Severity.ERROR
VISITS = ("launch",)
FIXABLE = True
SOURCE = "PyTorch NCCL default 10 min (pytorch/pytorch#110947); deepspeedai/DeepSpeed@edaa7221:deepspeed/constants.py default_pg_timeout (30 min to 0.19.5, 10 from 0.19.6)"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    recipe = ctx.recipe
    engine = recipe.arg("train_engine").value
    setting = recipe.arg("timeout")
    timeout = setting.as_int()
    if recipe.launch is None or engine not in JOIN_ENGINES or not setting.given or timeout is None:
        return
    unread = flag_unread(ctx, "timeout")
    if unread is not None:  # a fork that dropped the join: the value reaches nothing
        yield ctx.diagnostic(
            CODE,
            Severity.INFO,
            f"--timeout {timeout} has no effect: the code this recipe runs never reads it",
            setting.span,
            setting="timeout",
            current=timeout,
            evidence=[unread],
        )
        return
    limits = ctx.process_group_timeouts(engine)
    hit = [limit for limit in limits if timeout >= limit.seconds]
    if not hit:
        return
    # Over part of the releases the run may import the join still ends the epoch: a warning that
    # names them, not the error that holds for every release.
    severity = SEVERITY if len(hit) == len(limits) else Severity.WARNING
    suggested = tuner.join_timeout(engine, min(limit.seconds for limit in limits))
    edit = ctx.set_value(setting, str(suggested))
    below = " or ".join(f"{limit.seconds}s ({limit.source()})" for limit in hit)
    yield ctx.diagnostic(
        CODE,
        severity,
        f"--timeout {timeout}s is not below the process-group timeout of {below}: the NCCL watchdog fires before WeNet's join can end the epoch",
        setting.span,
        setting="timeout",
        current=timeout,
        suggested=suggested,
        evidence=[f"{engine}: {limit.source()}" for limit in limits],
        fix=Fix((edit,), Applicability.SAFE, f"set --timeout {suggested}") if edit else None,
    )
