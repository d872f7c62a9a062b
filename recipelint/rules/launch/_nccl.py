"""NCCL's interface selection (NCCL_SOCKET_IFNAME syntax) and the launch environment."""

from __future__ import annotations


def matches(spec: str, interfaces: list[str]) -> list[str]:
    """Interfaces NCCL would pick for a NCCL_SOCKET_IFNAME value.

    NCCL's syntax: comma-separated prefixes; `=` before the list means exact names; `^`
    means exclude the listed ones (NCCL user guide, Environment Variables)."""
    exact = spec.startswith("=") or spec.startswith("^=")
    exclude = spec.startswith("^")
    names = [n for n in spec.lstrip("^").lstrip("=").split(",") if n]

    def hit(interface: str) -> bool:
        return any(interface == n if exact else interface.startswith(n) for n in names)

    return [i for i in interfaces if hit(i) != exclude]
