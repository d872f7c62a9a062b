"""NCCL could not connect its bootstrap sockets between ranks: `socketStartConnect: Connect to ... failed`.

## What it does
Matches NCCL's `socketStartConnect: Connect to ADDR<PORT> failed : REASON` (NCCL >= 2.12),
the older `Net : Connect to ADDR<PORT> failed : REASON` and `Call to connect returned
Connection refused`, `Bootstrap : no socket interface found`, and the bootstrap's
`Connection closed by remote peer`; says which addresses and ports, and the interface NCCL
chose (`Bootstrap : Using eth0:10.0.0.1<0>`) when the log has it.

## Why is this bad
Before any collective, every rank opens TCP connections to the others on the interface NCCL
picked, at ports the kernel chooses. A refused or timed-out connection fails the
communicator's set-up: the job stops at its first collective (or hangs until a timeout).

## Example
```
node1:2048:2100 [0] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to 172.17.0.1<42471> failed : Software caused connection abort
```

## Fix
RL503/RL504 (NCCL_SOCKET_IFNAME: an interface every node can reach the others on, not
`docker0`, `virbr0` or a link-local address). Otherwise open TCP between the nodes for all
ports (NCCL's are ephemeral), or read the peer's log: it may have died first.

## Fix safety
The rules' fixes are theirs; the interface is the cluster's choice and has no automatic fix.
"""

from __future__ import annotations

import re

from recipelint.diagnose.signatures import Cause, Explanation, Found
from recipelint.diagnose.signatures._common import not_recipe, root_of, when
from recipelint.diagnostics import Severity

CODE = "LOG021"
NAME = "nccl-bootstrap-connect"
SEVERITY = Severity.ERROR
SOURCE = "NCCL misc/socket.cc and bootstrap.cc messages; NVIDIA/nccl#1515, NVIDIA/nccl#1612, NVIDIA/nccl#629, uccl#1034"
_ADDR = r"(?P<addr>[\w.:%\[\]-]+)<(?P<port>\d+)>"
PATTERNS = {
    # NCCL's warnings (`NCCL WARN`, a needle searched for anyway); NCCL 2.2's `WARN Call to connect` has its own.
    "connect": ("Connect to ", r"(?:socketStartConnect|Net) ?: Connect to " + _ADDR + r" failed ?: (?P<why>[^\n]*)"),
    "refused": ("Call to connect ", r"Call to connect (?:returned|failed ?:) ?(?P<why>Connection refused|Connection timed out|[\w ]+)"),
    "no-interface": ("no socket interface found", r"Bootstrap ?: no socket interface found"),
    "closed": ("Connection closed by remote peer", r"Connection closed by remote peer " + _ADDR),
    "using": ("Bootstrap", r"Bootstrap ?: Using "),
}
CAUSES = {
    "interface": Cause(
        "NCCL bootstraps over an interface the other ranks cannot reach (docker0, virbr0, a link-local or NAT address): "
        "set NCCL_SOCKET_IFNAME to the nodes' shared network",
        ("RL504", "RL503"),
    ),
    "firewall": Cause("a firewall or security group blocks TCP between the nodes: NCCL's ports are ephemeral, open them all"),
    "peer-died": Cause("the peer had already exited (an earlier error on its rank) or restarted; its log has the first error"),
    "scan": Cause(
        "something other than a rank connected to the bootstrap port and closed it (a port or security scan): NCCL before "
        "2.27.3 fails the bootstrap on it (NVIDIA/nccl#1612)"
    ),
}
# `Bootstrap : Using eth0:10.0.0.1<0>`; NCCL >= 2.7 numbers them: `Using [0]eno1:172.18.40.41<0> [1]veth25f2e72:fe80::...<0>`
_IFACE = re.compile(r"(?:\[\d+\]|Using )(?P<iface>[\w.-]+):(?P<ip>[\w.:%-]+)<")
_UNREACHABLE = ("172.17.", "192.168.122.", "169.254.", "127.", "fe80:", "docker", "virbr", "veth")


def explain(found: Found) -> Explanation | None:
    anchor = found.first("connect", "refused", "no-interface", "closed")
    if anchor is None:
        return None
    addresses = sorted({f"{h.groups['addr']}<{h.groups['port']}>" for h in found.hits("connect") + found.hits("closed")})
    why = anchor.groups.get("why", "").strip()
    if anchor.key.endswith(".no-interface"):
        said = "NCCL found no socket interface to bootstrap on (NCCL_SOCKET_IFNAME matches none, or the container has none)"
    else:
        said = "NCCL could not connect its bootstrap socket" + (f" to {', '.join(addresses[:4])}" if addresses else "")
        said += f": {why}" if why else ""
    evidence = when(found, anchor)
    interfaces = sorted({f"{m['iface']} ({m['ip']})" for h in found.hits("using") for m in _IFACE.finditer(h.line.text)})
    causes: list[tuple[str, str]] = []
    if interfaces:
        evidence.append(f"interface: NCCL bootstrapped over {', '.join(interfaces[:4])}")
    odd = [a for a in addresses + [part.strip("()") for i in interfaces for part in i.split()] if a.startswith(_UNREACHABLE)]
    if odd or anchor.key.endswith(".no-interface"):
        causes.append(("interface", f"{odd[0]} is a bridge, link-local or loopback address" if odd else "no interface matched"))
    peer = root_of(found, None)
    if peer and "Connection closed" not in why:
        evidence.append(f"first error in the logs: {peer}")
    if "closed" in anchor.key or "reset" in why.lower():
        causes.append(("peer-died", "the peer closed the connection"))
    causes += [("interface", ""), ("firewall", ""), ("peer-died", ""), ("scan", "")]
    if not odd and interfaces:
        evidence.append(not_recipe("the cluster's network (routes, firewall) or a peer that died", "nccl"))
    return Explanation(anchor, said, evidence, causes)
