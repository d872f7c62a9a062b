"""A multi-node `xtuner train` without `NODE_RANK`, `ADDR` or `PORT`, or with `MASTER_ADDR`/`MASTER_PORT` instead.

## What it does
With `NNODES` above 1 (or set from a variable), checks that `NODE_RANK`, `ADDR` and `PORT`
are set for the `xtuner train` CLI, and flags `MASTER_ADDR`/`MASTER_PORT`, which it does not read.

## Why is this bad
The CLI fills the gaps without a word (InternLM/xtuner@v0.2.0:xtuner/entry_point.py): no `NODE_RANK` makes every node node 0;
no `ADDR` makes every node meet at its own 127.0.0.1; no `PORT` makes each node draw its own
random port. Each node then waits for peers that never arrive, until the rendezvous or the
store times out ("The client socket has timed out after 1800s ... while trying to connect").

## Example
```sh
NPROC_PER_NODE=8 NNODES=2 MASTER_ADDR=$HEAD xtuner train cfg.py --deepspeed deepspeed_zero3
```

## Fix
Renames `MASTER_ADDR`/`MASTER_PORT` to `ADDR`/`PORT` when the XTuner names are absent.

## Fix safety
Safe: the value goes where the CLI reads it.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Applicability, Diagnostic, Edit, Fix, Severity
from recipelint.toolkits.xtuner.rules._x import xtuner_launch

CODE = "RL804"
NAME = "xtuner-multinode-env"
SEVERITY = Severity.ERROR
VISITS = ("xtuner-launch",)
FIXABLE = True
SOURCE = "InternLM/xtuner@v0.2.0:xtuner/entry_point.py reads NODE_RANK (default 0), ADDR (127.0.0.1), PORT (random 20000-29999)"
EFFECT = {
    "NODE_RANK": "every node becomes node 0",
    "ADDR": "every node meets at its own 127.0.0.1",
    "PORT": "each node draws its own random port",
}


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    launch = xtuner_launch(ctx)
    if launch is None or launch.launcher != "xtuner":
        return
    count = launch.nnodes.as_int()  # the front end reads NNODES (1 when unset)
    if count is not None and count < 2:
        return
    missing = [name for name in ("NODE_RANK", "ADDR", "PORT") if launch.env.get(name) is None]
    renamed = []
    for old, new in (("MASTER_ADDR", "ADDR"), ("MASTER_PORT", "PORT")):
        setting = launch.env.get(old)
        if setting is not None and new in missing:
            word = setting.word
            source = ctx.recipe.script.source if ctx.recipe.script else None
            name_span = source.assignment_name(word.span, old) if word is not None and source is not None else None
            fix = Fix((Edit(name_span, new),), Applicability.SAFE, f"rename {old} to {new}") if name_span else None
            renamed.append(new)
            yield ctx.diagnostic(
                CODE,
                SEVERITY,
                f"{old} is set but the xtuner CLI reads {new}: {EFFECT[new]}",
                setting.span,
                setting=old,
                suggested=new,
                fix=fix,
            )
    missing = [name for name in missing if name not in renamed]
    if missing:
        nnodes = launch.env.get("NNODES")
        yield ctx.diagnostic(
            CODE,
            SEVERITY,
            f"NNODES={nnodes.value if nnodes and nnodes.value is not None else (nnodes.word.text if nnodes and nnodes.word else '?')} without {', '.join(missing)}: {'; '.join(EFFECT[m] for m in missing)}, and the nodes never meet",
            launch.script.span,
            setting=missing[0],
            evidence=["xtuner/entry_point.py fills NODE_RANK=0, ADDR=127.0.0.1 and a random PORT without a warning for the first two"],
        )
