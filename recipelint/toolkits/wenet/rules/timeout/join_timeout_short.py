"""`--timeout` too short for the data's worst per-batch stall.

## What it does
Under `--train_engine deepspeed` or `torch_fsdp`, WeNet runs a gloo `monitored_barrier`
before every batch (from the second on) with `--timeout` seconds (default 30). This rule
fires when the data can stall longer than that: remote (HTTP) or compressed shards, or
several nodes over Ethernet, and the timeout is below the suggestion.

Silent when the recipe's WeNet checkout reads `timeout` nowhere (no join to cut short).

## Why is this bad
When one rank's batch takes longer than the timeout, the others log "Rank 1 failed to pass
monitoredBarrier in 30000 ms", take it for the end of the data, and break out of the epoch:
the epoch is silently cut short, every epoch (wenet-e2e/wenet@01546996:wenet/utils/train_utils.py). Upstream raises it to 1200 s for
WenetSpeech (`examples/wenetspeech/*/run.sh`).

## Example
```sh
torchrun --nnodes=4 ... wenet/bin/train.py --train_engine deepspeed   # --timeout 30 by default
```

## Fix
Sets `--timeout` to upstream's 1200 s when that is below the process-group timeout, else to
half of it: 300 s under FSDP's 10 min NCCL default and under DeepSpeed >= 0.19.6 (whose
`init_distributed` default dropped from 30 to 10 min; 1200 s up to 0.19.5, or with
`DEEPSPEED_TIMEOUT` raised). Adds the flag when it is missing. The suggestion stays below the
shortest process-group timeout over the releases the run imports (the environment the script
activates, the repository's pins, `target-versions` in the settings, else the newest known).

## Fix safety
Safe: it only lengthens how long ranks wait for each other at a batch boundary.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Applicability, Diagnostic, Fix, Severity
from recipelint.toolkits.wenet.rules.timeout._common import join_plan

CODE = "RL301"
NAME = "join-timeout-short"
SEVERITY = Severity.WARNING
VISITS = ("launch",)
FIXABLE = True
SOURCE = "wenet-e2e/wenet@01546996:wenet/utils/train_utils.py: wenet_join monitored_barrier; upstream --timeout 1200 for WenetSpeech (wenet-e2e/wenet@01546996:examples/wenetspeech/s0/run.sh)"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    recipe = ctx.recipe
    plan = join_plan(ctx)
    if plan is None or plan.raise_to is None or recipe.launch is None:
        return
    setting, timeout, suggested, reasons = plan.setting, plan.current, plan.raise_to, plan.reasons
    limit, limit_source = plan.limit, plan.limit_source
    edit = ctx.set_value(setting, str(suggested))
    where = "" if setting.given else " (train.py's default)"
    yield ctx.diagnostic(
        CODE,
        SEVERITY,
        f"--timeout {timeout}s{where} is too short for {'; '.join(reasons)}: a slow batch makes the others fail monitoredBarrier and cut the epoch short",
        setting.span if setting.given else recipe.launch.script.span,
        setting="timeout",
        current=timeout,
        suggested=suggested,
        evidence=reasons + [f"process-group timeout {limit}s ({limit_source})", "upstream: --timeout 1200 for WenetSpeech"],
        fix=Fix((edit,), Applicability.SAFE, f"set --timeout {suggested}") if edit else None,
    )
