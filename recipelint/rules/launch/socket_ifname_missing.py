"""`NCCL_SOCKET_IFNAME` or `GLOO_SOCKET_IFNAME` naming an interface the node lacks.

## What it does
Matches the variable's value against the node's interfaces (from the probe or profile),
with NCCL's syntax: prefixes, `=` for exact names, `^` to exclude.

## Why is this bad
With no matching interface NCCL fails at init ("NCCL error ... internal error", "Bootstrap :
no socket interface found"), and gloo (used by WeNet's join group) with "The server socket
has failed to listen on any local network address" (wenet-e2e/wenet@01546996:examples/aishell/s0/run.sh).

## Example
```sh
export NCCL_SOCKET_IFNAME=ens4f1   # the node has eth0 and ib0
```

## Fix
None: which interface carries the inter-node traffic is the cluster's choice.

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.rules.launch._nccl import matches

CODE = "RL503"
NAME = "socket-ifname-missing"
SEVERITY = Severity.ERROR
VISITS = ("recipe",)
FIXABLE = False
SOURCE = "NCCL_SOCKET_IFNAME syntax (NVIDIA/nccl@76145438:src/misc/socket.cc); /sys/class/net of the node"
FACTS = ("interfaces",)


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    for name in ("NCCL_SOCKET_IFNAME", "GLOO_SOCKET_IFNAME"):
        setting = ctx.recipe.env(name)
        if setting is None or not isinstance(setting.value, str) or not setting.value:
            continue
        interfaces = ctx.fact("interfaces")
        if not isinstance(interfaces.value, dict):
            continue
        names = sorted(interfaces.value)
        if matches(setting.value, names):
            continue
        yield ctx.diagnostic(
            CODE,
            SEVERITY,
            f"{name}={setting.value} matches none of the node's interfaces ({', '.join(names)}): NCCL/gloo cannot open a socket",
            setting.span,
            setting=name,
            current=setting.value,
            evidence=[interfaces.cite("interfaces")],
        )
