"""torchrun's rendezvous address: a port another job holds, or `--master_addr` ignored under a dynamic rendezvous.

## What it does
Matches c10d's `The server socket has failed to bind to HOST:PORT (errno: 98 - Address already
in use)`, `port: PORT, useIpv6: ..., code: -98, name: EADDRINUSE` and `RuntimeError: Address
already in use`: the port the job's rendezvous or store listens on is taken. Matches torchrun's
warning `master_addr is only used for static rdzv_backend and when rdzv_endpoint is not
specified`: `--master_addr`/`--master_port` were not used. With the recipe, points at the
launch's `--standalone`, `--master_port` or `--rdzv_endpoint`.

## Why is this bad
Two jobs on one node that listen on one port: the second fails at start-up. Not always
another job: under torchrun (and torch.distributed.launch since torch 1.9) the launcher itself
runs the store on `MASTER_PORT`, and a script that calls `init_process_group` with
`init_method='tcp://ADDR:PORT'` opens a second one on that port; the log shows both (the
launcher's lines and `_tcp_rendezvous_handler` in the traceback), and that cause comes first. torchrun's
default `--master_port` is 29500, and `--standalone` in the torch releases whose `run.py` sets
`rdzv_endpoint = "localhost:29400"` listens on 29400 in every job (later releases ask the
kernel for a free port, `localhost:0`). Under `--rdzv_backend c10d` (or with
`--rdzv_endpoint`), torchrun assigns `MASTER_ADDR` itself: the `--master_addr` the recipe
passes never reaches the workers (torch releases before pytorch#114335 print the warning even
when none was passed).

## Example
```
[W socket.cpp:436] [c10d] The server socket has failed to bind to 0.0.0.0:29400 (errno: 98 - Address already in use).
[E socket.cpp:472] [c10d] The server socket has failed to listen on any local network address.
```

## Fix
A port of its own per job on a shared node (`--master_port`, or `--rdzv_endpoint
localhost:0`); for the warning, either `--rdzv_backend static` with `--master_addr`, or drop
`--master_addr` and give `--rdzv_endpoint`.

## Fix safety
No fix is applied: which port a job may use is the node's arrangement.
"""

from __future__ import annotations

from recipelint.diagnose.signatures import Cause, Explanation, Found
from recipelint.diagnose.signatures._common import when
from recipelint.diagnostics import Severity

CODE = "LOG025"
NAME = "launcher-endpoint"
SEVERITY = Severity.ERROR
SOURCE = (
    "torch/distributed/run.py (--standalone endpoint; master_addr warning, pytorch#111085, #114335); c10d socket.cpp; "
    "pytorch#126510, pytorch#65463, pytorch#73320, llama-cookbook#186, TorchDR#249, torchtune#2015"
)
PATTERNS = {
    "bind": (
        "Address already in use",
        r"failed to bind to (?P<host>\[?[\w.:]*?\]?):(?P<port>\d+) \(errno: 98 - Address already in use\)",
    ),
    "eaddrinuse": ("EADDRINUSE", r"port: (?P<port>\d+), useIpv6: \w+, code: -98, name: EADDRINUSE"),
    "in-use": ("Address already in use", r"(?:RuntimeError|DistNetworkError|OSError)[^\n]*: (?:\[Errno 98\] )?Address already in use"),
    "static-only": ("master_addr is only used for static rdzv_backend", r"master_addr is only used for static rdzv_backend"),
    # The script's own tcp:// store under a launcher that already runs one on MASTER_PORT.
    "tcp-init": ("_tcp_rendezvous_handler", r"in _tcp_rendezvous_handler"),
    "elastic": (
        "OMP_NUM_THREADS environment variable for each process",
        r"Setting OMP_NUM_THREADS environment variable for each process",
    ),
    "launch-deprecated": ("torch.distributed.launch is deprecated", r"torch\.distributed\.launch is deprecated"),
}
CAUSES = {
    "standalone": Cause(
        "several --standalone jobs on one node: torch releases that fix --standalone's endpoint at localhost:29400 "
        "give every job the same port (--rdzv_endpoint localhost:0 picks a free one)"
    ),
    "shared-port": Cause(
        "another job (or a stale process of an earlier one) on this node holds the port: give each job its own --master_port"
    ),
    "launcher-store": Cause(
        "the launcher (torchrun, or torch.distributed.launch since torch 1.9) already runs the store on MASTER_PORT, and the "
        "script's init_process_group(init_method='tcp://...') binds the same port again: use init_method='env://' (or none)"
    ),
    "ignored-addr": Cause(
        "--master_addr/--master_port are ignored under a dynamic rendezvous (c10d, etcd, or --rdzv_endpoint given): "
        "torchrun assigns MASTER_ADDR; use --rdzv_backend static to keep them, or drop them"
    ),
}


def explain(found: Found) -> Explanation | None:
    anchor = found.first("bind", "eaddrinuse", "in-use")
    if anchor is None:
        return _ignored(found)
    port = next((h.groups["port"] for h in found.hits("bind") + found.hits("eaddrinuse") if "port" in h.groups), None)
    said = f"the rendezvous could not listen on port {port}: another process holds it" if port else "the job's port is in use"
    evidence = when(found, anchor)
    scene = found.scene
    standalone, master_port = scene.launch_flag("--standalone"), scene.launch_flag("--master_port", "--master-port")
    lines: dict[str, list[str]] = {}
    causes: list[tuple[str, str]] = []
    if port == "29400" or standalone is not None:
        why = "port 29400 is the fixed endpoint of --standalone in those releases" if port == "29400" else "the launch passes --standalone"
        causes.append(("standalone", why))
        if standalone is not None:
            lines["standalone"] = [f"{standalone.span}: the launch passes --standalone"]
    if master_port is not None:
        lines["shared-port"] = [f"{master_port.span}: the launch sets {master_port.value or master_port.text}"]
    elif port == "29500":
        causes.append(("shared-port", "29500 is torchrun's default --master_port, the same for every job that does not set one"))
    launched = found.first("elastic", "launch-deprecated")
    if found.stats("tcp-init").count and launched is not None:
        causes.insert(
            0, ("launcher-store", f"the script opens a tcp:// store ({found.first('tcp-init')}) under torch's launcher ({launched})")
        )
    causes += [("shared-port", ""), ("standalone", ""), ("launcher-store", "")]
    return Explanation(anchor, said, evidence, causes, recipe_lines=lines)


def _ignored(found: Found) -> Explanation | None:
    anchor = found.first("static-only")
    if anchor is None:
        return None
    scene = found.scene
    given = scene.launch_flag("--master_addr", "--master-addr", "--master_port", "--master-port")
    evidence = when(found, anchor)
    lines: dict[str, list[str]] = {}
    backend = scene.launch_option("--rdzv_backend", "--rdzv-backend")
    dynamic = (backend not in (None, "", "static")) or scene.launch_option("--rdzv_endpoint", "--rdzv-endpoint", "--standalone") is not None
    if given is not None and not dynamic:
        said = "torchrun warns that --master_addr is unused, but this launch's rendezvous is static and uses it: the log comes from another launch"
        return Explanation(anchor, said, evidence, [("ignored-addr", "")], severity=Severity.INFO)
    if given is not None:
        said = f"torchrun ignored {given.value or given.text}: a dynamic rendezvous assigns MASTER_ADDR itself"
        lines["ignored-addr"] = [f"{given.span}: {given.value or given.text} has no effect under this rendezvous"]
    elif scene.given and scene.launcher is not None:
        said = "torchrun warns that --master_addr is unused; this launch passes none (older torch prints the warning regardless)"
        return Explanation(anchor, said, evidence, [("ignored-addr", "")], severity=Severity.INFO)
    else:
        said = "torchrun did not use --master_addr/--master_port (if the launch passes them, the rendezvous endpoint decides instead)"
    return Explanation(anchor, said, evidence, [("ignored-addr", "")], severity=Severity.WARNING, recipe_lines=lines)
