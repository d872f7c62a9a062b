"""A rendezvous port past 65535.

## What it does
Reads the port of the launch's rendezvous (`--master_port`, `--rdzv_endpoint HOST:PORT`,
`--main_process_port`, an exported `MASTER_PORT` the launcher reads) and reports one that is no
TCP port: 65536 or more.

## Why is this bad
A TCP port is 16 bits. torchrun and `python -m torch.distributed.launch` (and `accelerate
launch`, which runs them) parse the endpoint first and stop before any process starts:
"ValueError: The port number of the rendezvous endpoint '127.0.0.1:66665' must be an integer
between 0 and 65536" (torch/distributed/elastic/rendezvous/utils.py
`parse_rendezvous_endpoint`, torch 2.13.0). A launcher that hands the port to the ranks
(`deepspeed` sets `MASTER_PORT`) fails in each rank's `init_process_group`: `TCPStore` takes a
16-bit port, and the call is refused with "TypeError: __init__(): incompatible constructor
arguments". deepspeedai/DeepSpeedExamples' compression/cifar/run_compress.sh passes
`--master_port 66665` to its second step.

## Example
```sh
python -m torch.distributed.launch --nproc_per_node=1 --master_port 66665 train.py
```

## Fix
None: pick a port below 65536 that no other job on the node uses (29500 is torch's default).

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.parse.span import Span

CODE = "RL507"
NAME = "rendezvous-port-out-of-range"
SEVERITY = Severity.ERROR
VISITS = ("launch",)
FIXABLE = False
SOURCE = (
    "pytorch/pytorch@v2.13.0:torch/distributed/elastic/rendezvous/utils.py (parse_rendezvous_endpoint: port < 2**16); "
    "TCPStore's 16-bit port (torch/csrc/distributed/c10d/TCPStore.hpp)"
)
MAX_PORT = 65535
# Launchers that parse the endpoint themselves, before any process starts.
PARSED_FIRST = ("torchrun", "torch.distributed.launch", "accelerate")


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    launch = ctx.recipe.launch
    port = rendezvous_port(ctx)
    if launch is None or port is None or port <= MAX_PORT:
        return
    endpoint = launch.rendezvous
    if launch.launcher in PARSED_FIRST:
        failure = (
            f"{launch.launcher} stops before any process starts (ValueError: The port number of the rendezvous endpoint "
            f"'{endpoint.value}' must be an integer between 0 and 65536)"
        )
    else:
        failure = "each rank's init_process_group fails: TCPStore takes a 16-bit port (TypeError: incompatible constructor arguments)"
    flag, span = port_word(ctx) or (endpoint.via or endpoint.name, endpoint.span)
    yield ctx.diagnostic(
        CODE,
        SEVERITY,
        f"rendezvous port {port} is past {MAX_PORT}, the last TCP port: {failure}",
        span,
        setting=flag,
        current=port,
        evidence=[f"rendezvous {endpoint.value} ({launch.launcher})"],
    )


PORT_FLAGS = ("--master_port", "--master-port", "--main_process_port", "--main-process-port", "--rdzv_endpoint", "--rdzv-endpoint")


def rendezvous_port(ctx: Context) -> int | None:
    """The port of the launch's rendezvous as written (`host:port`), when the recipe says it."""
    launch = ctx.recipe.launch
    value = launch.rendezvous.value if launch is not None else None
    if not isinstance(value, str) or ":" not in value:
        return None
    text = value.rpartition(":")[2]
    return int(text) if text.isdigit() else None


def port_word(ctx: Context) -> tuple[str, Span] | None:
    """The word of the launch that writes the port, to point at it."""
    launch = ctx.recipe.launch
    words = launch.command.words if launch is not None else []
    for index, word in enumerate(words):
        if word.option is not None and word.option[0] in PORT_FLAGS:
            return word.option[0].lstrip("-"), word.option[1].span
        if word.text in PORT_FLAGS and index + 1 < len(words):
            return word.text.lstrip("-"), words[index + 1].span
    return None
