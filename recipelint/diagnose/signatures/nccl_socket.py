"""NCCL moved data over sockets (`NET/Socket`) where InfiniBand or RoCE was expected.

## What it does
Reads NCCL's `NCCL_DEBUG=INFO` transport lines: `NET/Socket : Using [0]eth0:10.0.0.1<0>`,
`Using network Socket`, `Using internal Network Socket`, `NET/IB : Using [0]mlx5_0:1/IB`,
`NET/IB : No device found`, `Failed to open libibverbs.so`. Fires when some ranks use sockets
and others InfiniBand, when sockets are used on nodes whose profile says InfiniBand or RoCE,
when NCCL could not load libibverbs, when its sockets include a virtual interface (`docker0`,
`virbr0`), or (as info) when nothing says which network the nodes have. On nodes the profile
says are Ethernet-only and real interfaces, sockets are expected and it stays quiet.

## Why is this bad
A silent fall-back to sockets makes every all-reduce several times slower (AReaL#639 measured
4-5x) and turns a data stall into NCCL watchdog timeouts. The usual causes: `NCCL_IB_DISABLE=1`
left in a script, a container without libibverbs, an interface NCCL picked by itself
(`docker0`, `virbr0`), nodes that differ (anchors.md C.7).

## Example
```
server1:117953:117953 [7] NCCL INFO NET/Socket : Using [0]enp41s0f1:<0>
server3:15221:15221 [5] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB enp41s0f1:<0>
```

## Fix
RL502 (`NCCL_IB_DISABLE=1` while InfiniBand is up: fixable), RL503/RL504 (the socket
interface). A missing libibverbs is fixed in the image.

## Fix safety
The fixes are the rules' own, with their safety; `diagnose --fix --write` applies the safe ones.
"""

from __future__ import annotations

import re

from recipelint.diagnose.signatures import Cause, Explanation, Found
from recipelint.diagnostics import Severity

CODE = "LOG006"
NAME = "nccl-socket-transport"
SEVERITY = Severity.WARNING
SOURCE = "anchors.md C.7 (NCCL_DEBUG=INFO NET lines); NVIDIA/nccl-tests#29, AReaL#639, horovod#969, NVIDIA/nccl#676"
_HOST = r"(?:(?P<host>[\w.-]+):\d+:\d+ \[\d+\] )?NCCL INFO "
PATTERNS = {
    "socket": ("NCCL INFO NET/Socket : Using", _HOST + r"NET/Socket : Using (?P<ifaces>.*)"),
    "network-socket": ("etwork Socket", _HOST + r"Using network Socket"),
    "internal-socket": ("etwork Socket", _HOST + r"Using internal Network Socket"),
    "ib": ("NCCL INFO NET/IB : Using", _HOST + r"NET/IB : Using (?P<devices>.*)"),
    "no-ib": ("NET/IB : No device found", r"NET/IB : No device found"),
    "no-verbs": ("libibverbs", r"Failed to open libibverbs"),
    "ib-disabled": ("NCCL_IB_DISABLE set by environment to 1", r"NCCL_IB_DISABLE set by environment to 1"),
}
CAUSES = {
    "ib-disabled": Cause("NCCL_IB_DISABLE=1 in the launch while the nodes' InfiniBand is up", ("RL502",)),
    "no-verbs": Cause("the image lacks libibverbs (rdma-core), so NCCL cannot open the InfiniBand devices: install it in the image"),
    "mixed": Cause("the nodes differ: some found an InfiniBand device, others did not (driver, device permissions, NCCL_IB_HCA)"),
    "interface": Cause("no socket interface pinned: NCCL chose one itself, possibly a virtual bridge", ("RL504", "RL503")),
}
_IFACE = re.compile(r"\[\d+\]([\w.-]+?):")
VIRTUAL = ("docker", "virbr", "veth", "br-", "lo", "tun", "flannel", "cni")


def explain(found: Found) -> Explanation | None:
    sockets = found.hits("socket") + found.hits("network-socket") + found.hits("internal-socket")
    if not sockets:
        return None
    ib = found.hits("ib")
    network = found.scene.network()
    expects_ib = network in ("infiniband", "roce")
    no_verbs = found.stats("no-verbs").count > 0
    interfaces = sorted({name for h in found.hits("socket") for name in _IFACE.findall(h.groups.get("ifaces", ""))})
    virtual = [name for name in interfaces if name.startswith(VIRTUAL)]
    if not ib and not expects_ib and not no_verbs and not virtual and network == "ethernet":
        return None  # Ethernet-only nodes on real interfaces: sockets are the only transport
    anchor = min(sockets, key=lambda h: (str(h.line.path), h.line.number))
    evidence, causes = [], []
    if ib:
        socket_hosts = sorted({h.groups["host"] for h in sockets if h.groups.get("host")})
        ib_hosts = sorted({h.groups["host"] for h in ib if h.groups.get("host")})
        evidence.append(
            f"mixed: {len(sockets)} socket line(s) ({', '.join(socket_hosts) or 'hosts not named'}) and {len(ib)} InfiniBand line(s) ({', '.join(ib_hosts) or 'hosts not named'})"
        )
        causes.append(("mixed", "some ranks use InfiniBand, others sockets"))
    if expects_ib:
        evidence.append(f"profile: the nodes' inter-node network is {network}")
    if no_verbs:
        causes.append(("no-verbs", "NCCL could not open libibverbs"))
    if found.stats("ib-disabled").count or found.scene.env("NCCL_IB_DISABLE") == "1":
        causes.append(("ib-disabled", "NCCL_IB_DISABLE=1 is set"))
    if interfaces:
        evidence.append(f"interfaces: NCCL's sockets use {', '.join(interfaces)}")
    if virtual:
        causes.append(("interface", f"{', '.join(virtual)} is a virtual interface"))
    causes += [("ib-disabled", ""), ("interface", ""), ("no-verbs", ""), ("mixed", "")]
    strong = bool(ib) or expects_ib or no_verbs or bool(virtual)
    said = "NCCL uses sockets" + (" on some ranks and InfiniBand on others" if ib else " for inter-node traffic")
    if virtual and not ib:
        said += f", including the virtual interface {', '.join(virtual)}"
    elif not strong:
        said += "; if the nodes have InfiniBand or RoCE, it is not used"
    return Explanation(anchor, said, evidence, causes, None if strong else Severity.INFO)
