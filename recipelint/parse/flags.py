"""A command-line flag a training script accepts, as its argparse declares it: apart from the
Python reader (recipelint.parse.pycode) so that a recipe's check imports no `ast` until it reads
Python."""

from __future__ import annotations

from typing import Any

from recipelint.records import dataclass


@dataclass(frozen=True)
class Flag:
    kind: str  # "value", "store_true" or "bool" (argparse type=bool: any non-empty string is True)
    default: Any = None


# What `deepspeed.add_config_arguments(parser)` adds (deepspeed/__init__.py _add_core_arguments).
DEEPSPEED_FLAGS = {
    "deepspeed": Flag("store_true", False),
    "deepspeed_config": Flag("value"),
    "deepscale": Flag("store_true", False),
    "deepscale_config": Flag("value"),
    "deepspeed_mpi": Flag("store_true", False),
}
