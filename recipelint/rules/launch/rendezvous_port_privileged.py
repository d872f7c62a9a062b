"""A rendezvous port below 1024, which only root may bind.

## What it does
Reads the port of the launch's rendezvous (as RL507 does: `--master_port`, `--rdzv_endpoint
HOST:PORT`, `--main_process_port`, an exported `MASTER_PORT` the launcher reads) and reports a
port from 1 to 1023.

## Why is this bad
Linux lets a process bind a port below `net.ipv4.ip_unprivileged_port_start` (1024 unless the
node lowers it) only as root or with CAP_NET_BIND_SERVICE. The rank that hosts the rendezvous
(torchrun's c10d store, or rank 0's TCPStore) binds that port: for a job run as a user, as Slurm
and most clusters run them, the bind fails with "Permission denied" and the launch stops at the
rendezvous. It is a warning: the node's setting and the user are the training machine's to say.

## Example
```sh
torchrun --nnodes 2 --nproc_per_node 8 --master_addr node0 --master_port 443 train.py
```

## Fix
None: pick a port from 1024 to 65535 that no other job on the node uses (29500 is torch's default).

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.rules.launch.rendezvous_port_range import port_word, rendezvous_port

CODE = "RL510"
NAME = "rendezvous-port-privileged"
SEVERITY = Severity.WARNING
VISITS = ("launch",)
FIXABLE = False
SOURCE = (
    "https://man7.org/linux/man-pages/man7/ip.7.html (ip_unprivileged_port_start: ports below it need CAP_NET_BIND_SERVICE); "
    "https://man7.org/linux/man-pages/man2/bind.2.html (EACCES)"
)
FIRST_UNPRIVILEGED = 1024


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    launch = ctx.recipe.launch
    port = rendezvous_port(ctx)
    if launch is None or port is None or not 0 < port < FIRST_UNPRIVILEGED:
        return
    endpoint = launch.rendezvous
    flag, span = port_word(ctx) or (endpoint.via or endpoint.name, endpoint.span)
    yield ctx.diagnostic(
        CODE,
        SEVERITY,
        f"rendezvous port {port} is below {FIRST_UNPRIVILEGED}: only root (or CAP_NET_BIND_SERVICE) may bind it, so a job run as "
        "a user stops at the rendezvous (bind: Permission denied) unless the node lowers net.ipv4.ip_unprivileged_port_start",
        span,
        setting=flag,
        current=port,
        evidence=[f"rendezvous {endpoint.value} ({launch.launcher})"],
    )
