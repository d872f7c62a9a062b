"""NCCL stopped on a failed system call ("unhandled system error"): the container or the host, read from NCCL's own lines.

## What it does
Matches `NCCL error ...: unhandled system error` (torch's ProcessGroupNCCL), `ncclSystemError`,
NCCL test's `NCCL failure ... 'unhandled system error'`, and NCCL's warnings that say which
call failed: `Socket creation failed : Address family not supported by protocol` (no usable IP
interface), `Call to bind failed : Address already in use`, and the interface NCCL chose
(`NET/Socket : Using [0]docker0:...`, `Bootstrap : Using eth0:172.17.0.3`). The verdict comes
from those lines: an interface problem where NCCL's lines show one, else the container's shared
memory and IPC namespace, the cause most of these threads settled.

## Why is this bad
`unhandled system error` is NCCL's name for any failed system call: a socket, a bind, an
`mmap` of shared memory. The message alone does not say which; the lines NCCL prints with
`NCCL_DEBUG=INFO`/`WARN` do. In a Docker container the usual one is shared memory and IPC
(`--ipc=host`, `--shm-size`); across containers, a network namespace without the interface
NCCL was told to use, or a virtual bridge it picked itself.

## Example
```
e66aa18dc444:3171:3171 [0] include/socket.h:311 WARN Socket creation failed : Address family not supported by protocol
NCCL failure common.cu:874 'unhandled system error'
```

## Fix
Run the container with `--ipc=host` (or `--shm-size`) and, across containers, `--network=host`;
set `NCCL_SOCKET_IFNAME` to the interface that carries traffic between the nodes (RL503/RL504
check it against the node's profile).

## Fix safety
No fix is applied: the container's namespaces are not part of the recipe.
"""

from __future__ import annotations

import re

from recipelint.diagnose.signatures import Cause, Explanation, Found
from recipelint.diagnose.signatures._common import COLLECT, not_recipe, when
from recipelint.diagnostics import Severity

CODE = "LOG027"
NAME = "nccl-system-error"
SEVERITY = Severity.ERROR
SOURCE = (
    "NCCL's ncclSystemError (src/include/socket.h, misc/socket.cc WARN lines); NVIDIA/nccl-tests#14, NVIDIA/nccl#473, "
    "NVIDIA/nccl#293, HRNet/DEKR#18, ROCm/rccl#328, vllm#10626, pytorch#23363"
)
PATTERNS = {
    "unhandled": ("unhandled system error", r"unhandled system error"),
    "typo": ("unhanled system error", r"unhanled system error"),  # torch 1.1's ProcessGroupNCCL spelt it so
    "system-call": ("ncclSystemError", r"ncclSystemError"),
    "socket": ("Socket creation failed", r"Socket creation failed ?: (?P<why>[^\n]*)"),
    "bind": ("Call to bind failed", r"Call to bind failed ?: (?P<why>[^\n]*)"),
    # the interface NCCL chose, as each NCCL release words it
    "iface-socket": ("NET/Socket", r"NET/Socket ?: Using \[\d+\](?P<iface>[\w.-]+):(?P<addr>[\d.]+)"),
    "iface-boot": ("Bootstrap", r"Bootstrap ?: Using (?:\[\d+\])?(?P<iface>[\w.-]+):(?P<addr>[\d.]+)"),
    "iface-net": ("Using interface", r"NET ?: Using interface (?P<iface>[\w.-]+):(?P<addr>[\d.]+)"),
}
CAUSES = {
    "ipc": Cause(
        "the container's IPC namespace and /dev/shm: NCCL's shared-memory transport cannot map its segments; "
        "run the container with --ipc=host (or a larger --shm-size)"
    ),
    "no-interface": Cause(
        "no usable IP interface in the container's network namespace (or NCCL_SOCKET_IFNAME names one it lacks): "
        "--network=host, or NCCL_SOCKET_IFNAME set to an interface the container has",
        ("RL503",),
    ),
    "virtual": Cause(
        "NCCL talks over a virtual bridge (docker0, a veth, a 172.17.x.x container address) that other nodes cannot reach: "
        "--network=host and NCCL_SOCKET_IFNAME set to the node's own interface",
        ("RL504", "RL503"),
    ),
    "port": Cause("a port NCCL binds is taken (another job, or a process of an earlier run still alive)"),
}
_VIRTUAL = re.compile(r"^(?:docker\d*|veth\w*|virbr\d*|br-\w+|cni\d*|flannel\S*|lo)$")


def explain(found: Found) -> Explanation | None:
    anchor = found.first("unhandled", "typo", "system-call", "bind")
    if anchor is None:
        return None
    said = "NCCL stopped on a failed system call (unhandled system error)"
    evidence = when(found, anchor)
    socket, bind = found.hits("socket"), found.hits("bind")
    chosen = {h.groups["iface"]: h.groups["addr"] for name in ("iface-socket", "iface-boot", "iface-net") for h in found.hits(name)}
    virtual = {name: addr for name, addr in chosen.items() if _VIRTUAL.match(name) or addr.startswith("172.17.")}
    causes: list[tuple[str, str]] = []
    if socket:
        evidence.append(f"NCCL: {socket[0].line}: socket creation failed ({socket[0].groups['why'].strip()})")
        causes.append(("no-interface", "NCCL could not create a socket: no interface it may use"))
    if bind:
        evidence.append(f"NCCL: {bind[0].line}: bind failed ({bind[0].groups['why'].strip()})")
        causes.append(("port", "NCCL could not bind its port"))
    if virtual:
        shown = ", ".join(f"{name} ({addr})" for name, addr in virtual.items())
        evidence.append(f"NCCL: chose {shown}, a container's or virtual interface")
        causes.append(("virtual", "the interface NCCL chose is a bridge or container address"))
    if not causes:
        evidence.append("NCCL: no WARN line says which call failed (NCCL_DEBUG=WARN prints it)")
    causes += [("ipc", ""), ("no-interface", ""), ("virtual", ""), ("port", "")]
    if CAUSES[causes[0][0]].codes:
        evidence.append(
            "verdict: the container's network, or the interface the launch names (NCCL_SOCKET_IFNAME); collect next: " + COLLECT["nccl"]
        )
    else:
        evidence.append(not_recipe("the container's or host's namespaces and interfaces", "nccl"))
    return Explanation(anchor, said, evidence, causes)
