"""Which release of a toolkit the recipe will run with: the installed one, else the
configured one, else the newest recipelint knows. Read from package metadata, never imported."""

from __future__ import annotations

from functools import cache

NEWEST = {"deepspeed": "0.19.8"}


def parse(version: str) -> tuple[int, ...]:
    parts = []
    for piece in version.split("+")[0].split("."):
        digits = "".join(ch for ch in piece if ch.isdigit())
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts)


@cache
def installed(package: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return None


def target(package: str, configured: str | None = None) -> tuple[str, str]:
    """(version, where it came from)."""
    found = installed(package)
    if found:
        return found, f"installed {package} {found}"
    if configured:
        return configured, f"{package}-version {configured} in the config"
    return NEWEST[package], f"newest {package} release known ({NEWEST[package]})"
