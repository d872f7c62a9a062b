"""Several nodes told to meet at localhost, or at port 0.

## What it does
Flags a launch with more than one node whose rendezvous endpoint is `localhost`, a loopback
or wildcard address (`0.0.0.0`), or port 0, for every launcher recipelint reads: torchrun and
`python -m torch.distributed.run/launch` (`--rdzv_endpoint`, or `--master_addr`/`--master_port`,
default 127.0.0.1; torchrun does not read an exported `MASTER_ADDR`), the `deepspeed` launcher
(`--master_addr`; without it, the hostfile's first host), `accelerate launch`
(`--main_process_ip`; without it, Accelerate's config file), XTuner's `ADDR`, and
`srun ... xtuner train --launcher slurm`, where mmengine takes an exported `MASTER_ADDR` as
it is. WeNet, XTuner and any training script (a Hugging Face `--deepspeed` launch, or none).

## Why is this bad
Each node then looks for the others on itself: every node waits for peers that never come
until the rendezvous times out ("The client socket has timed out after 1800s"), or starts
its own job as node 0. WeNet's `HOST_NODE_ADDR="localhost:0"` is only valid for one node;
the script's comment says to change it for multi-node (wenet-e2e/wenet@01546996:examples/aishell/s0/run.sh).

## Example
```sh
num_nodes=2
HOST_NODE_ADDR="localhost:0"
torchrun --nnodes=$num_nodes --rdzv_endpoint=$HOST_NODE_ADDR ...
```

## Fix
None: the head node's address cannot be known here. Set it to `head-node:29400`.

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity

CODE = "RL501"
NAME = "multinode-local-rendezvous"
SEVERITY = Severity.ERROR
VISITS = ("launch",)
FIXABLE = False
SOURCE = "wenet-e2e/wenet@01546996:examples/aishell/s0/run.sh: HOST_NODE_ADDR=localhost:0 is only valid for a single node"
LOCAL_HOSTS = ("localhost", "127.", "::1", "0.0.0.0")


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    launch = ctx.recipe.launch
    nodes = launch.nnodes.as_int() if launch is not None else None
    if launch is None or nodes is None or nodes < 2:
        return
    endpoint = launch.rendezvous
    exported = launch.env.get("MASTER_ADDR")
    if launch.launcher == "srun" and exported is not None and isinstance(exported.value, str):
        endpoint = exported  # mmengine's slurm launcher keeps an exported MASTER_ADDR (xtuner.md 1)
    elif not isinstance(endpoint.value, str) or (launch.launcher in ("xtuner", "srun", "deepspeed", "accelerate") and not endpoint.given):
        return  # an unset ADDR is RL804's finding; srun and deepspeed take the first host, accelerate its config file
    host, _, port = endpoint.value.rpartition(":") if ":" in endpoint.value else (endpoint.value, "", "")
    problems = []
    if host.startswith(LOCAL_HOSTS) or host in ("", "[::1]"):
        problems.append(f"host {host or 'missing'} is this machine")
    if port == "0":
        problems.append("port 0 picks a random port on each node")
    if not problems:
        return
    via = f" (via ${endpoint.via})" if endpoint.via else ""
    evidence = [f"{launch.launcher}: {nodes} nodes ({launch.nnodes.name} {launch.nnodes.value})"]
    if exported is not None and not endpoint.given and launch.launcher in ("torchrun", "torch.distributed.launch"):
        evidence.append(
            f"MASTER_ADDR={exported.value} is exported but torchrun reads --master_addr (default 127.0.0.1), not the environment"
        )
    yield ctx.diagnostic(
        CODE,
        SEVERITY,
        f"{nodes} nodes but the rendezvous is {endpoint.value}{via}: {' and '.join(problems)}; use the head node's address and a fixed port",
        endpoint.span,
        setting=endpoint.via or endpoint.name,
        current=endpoint.value,
        evidence=evidence,
    )
