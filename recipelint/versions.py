"""Which release of a toolkit the recipe will run with: the one beside the recipe (a virtual
environment in its repository, or an exact requirements*.txt pin), else the installed one, else
the configured one, else the newest recipelint knows. Read from package metadata, never imported."""

from __future__ import annotations

from recipelint.deps import Memo

NEWEST = {"deepspeed": "0.19.8", "xtuner": "0.2.0"}  # xtuner: the last 0.x release (xtuner.md)


def parse(version: str) -> tuple[int, ...]:
    parts = []
    for piece in version.split("+")[0].split("."):
        digits = "".join(ch for ch in piece if ch.isdigit())
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts)


_INSTALLED: Memo[str, str | None] = Memo(module=True)


def installed(package: str) -> str | None:
    """The installed version, from the `NAME-VERSION.dist-info` folder on sys.path (once per run).

    importlib.metadata would do the same in 20-25 ms of imports; this is a directory listing."""
    return _INSTALLED.get(package, lambda: _installed(package))


def _installed(package: str) -> str | None:
    import re
    import sys

    from recipelint.deps import listing

    def normal(name: str) -> str:  # PEP 503: case and runs of - _ . do not matter
        return re.sub(r"[-_.]+", "_", name).lower()

    wanted = normal(package)
    for entry in sys.path:
        for name in listing(entry or ".", ("*.dist-info",)):
            if name.endswith(".dist-info"):
                dist, _, version = name[: -len(".dist-info")].rpartition("-")
                if normal(dist) == wanted:
                    return version
    return None


def target(package: str, configured: str | None = None, beside: dict[str, tuple[str, str]] | None = None) -> tuple[str, str]:
    """(version, where it came from). `beside`: name -> (version, where), from
    recipelint.parse.checkout.packages_beside(recipe root)."""
    if beside and package in beside:
        version, where = beside[package]
        return version, f"{package} {version} beside the recipe ({where})"
    found = installed(package)
    if found:
        return found, f"installed {package} {found}"
    if configured:
        return configured, f"{package}-version {configured} in the config"
    return NEWEST[package], f"newest {package} release known ({NEWEST[package]})"
