"""The modules of a package, listed without `pkgutil` (whose directory walk imports `inspect`:
~10 ms of a check's start-up, for a listing `os.scandir` gives)."""

from __future__ import annotations

import os
from collections.abc import Iterable

_SUFFIX = ".py"


def submodules(paths: Iterable[str]) -> list[tuple[str, bool]]:
    """(name, is a package) of each module in a package's folders, sorted by name as
    `pkgutil.iter_modules` lists them: `name.py` files and folders with an `__init__.py`."""
    found: dict[str, bool] = {}
    for folder in paths:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            if entry.is_dir():
                if name.isidentifier() and os.path.exists(os.path.join(entry.path, "__init__.py")):
                    found.setdefault(name, True)
            elif name.endswith(_SUFFIX) and name[: -len(_SUFFIX)].isidentifier() and name != "__init__.py":
                found.setdefault(name[: -len(_SUFFIX)], False)
    return sorted(found.items())
