"""An `accelerate launch` whose processes per machine are not the GPUs it makes visible.

## What it does
Compares the processes per machine an `accelerate launch` starts (`--num_processes`, or
`num_processes` in its config file, divided by the machines) with the GPUs its processes see:
`gpu_ids` when it names GPUs (accelerate then sets CUDA_VISIBLE_DEVICES to it), else the
`CUDA_VISIBLE_DEVICES` the launch sets or exports. Without a written process count accelerate
starts one process per visible GPU, and nothing is compared.

## Why is this bad
More processes than visible GPUs: accelerate puts process i on GPU i modulo the visible count
(huggingface/accelerate@16cb6eb8:src/accelerate/state.py `set_device`; older releases asked
for a GPU that does not exist), so two processes share one GPU and NCCL stops at the first
collective ("Duplicate GPU detected : rank 0 and rank 4 both on CUDA device", NVIDIA/nccl
src/init.cc). Fewer: the GPUs beyond them stay idle, unless each process spreads its model over
several GPUs itself (`device_map`). LLaMA-Factory v0.6.3's `single_node.sh` made 8 GPUs visible
to a config of 4 processes; v0.7.0 made it `CUDA_VISIBLE_DEVICES=0,1,2,3`.

## Severity
Error when more processes than visible GPUs: two ranks share a GPU and NCCL stops at the first
collective ("Duplicate GPU detected", NVIDIA/nccl src/init.cc). A warning when fewer: the run
goes on with GPUs idle, unless each process spreads its model over several GPUs itself.

## Example
```sh
CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 accelerate launch --config_file single_config.yaml train.py  # num_processes: 4
```

## Fix
None: make the two agree (which one is meant is the author's call).

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.model import setting_source
from recipelint.toolkits.accelerate import uses_cpu, visible_devices

CODE = "RL426"
NAME = "accelerate-processes-not-visible-gpus"
SEVERITY = Severity.ERROR
VISITS = ("launch",)
FIXABLE = False
SOURCE = "huggingface/accelerate@16cb6eb8:src/accelerate/state.py (set_device), utils/launch.py (gpu_ids); NVIDIA/nccl src/init.cc"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    recipe = ctx.recipe
    launch = recipe.launch
    if launch is None or launch.launcher != "accelerate" or uses_cpu(recipe):
        return
    processes = launch.nproc_per_node
    count = processes.as_int()
    if not processes.given or count is None:
        return  # accelerate's default is one process per visible GPU: they agree by construction
    visible = visible_devices(recipe)
    if visible is None or not isinstance(visible.value, (str, int)) or not str(visible.value).strip():
        return
    gpus = [gpu for gpu in str(visible.value).split(",") if gpu.strip()]
    if len(gpus) == count:
        return
    shown = f"{visible.name}={visible.value}"
    evidence = [f"processes per machine: {setting_source(processes)}", f"visible GPUs: {setting_source(visible)}"]
    if count > len(gpus):
        message = (
            f"accelerate starts {count} processes per machine but {shown} shows {len(gpus)} GPU(s): it puts process i on GPU "
            f"i % {len(gpus)}, so processes share a GPU and NCCL stops at the first collective (Duplicate GPU detected)"
        )
        yield ctx.diagnostic(CODE, SEVERITY, message, visible.span, setting=visible.name, current=visible.value, evidence=evidence)
        return
    message = (
        f"accelerate starts {count} processes per machine on the {len(gpus)} GPUs {shown} makes visible: "
        f"{len(gpus) - count} stay idle, unless each process spreads its model over several GPUs itself (device_map)"
    )
    yield ctx.diagnostic(CODE, Severity.WARNING, message, visible.span, setting=visible.name, current=visible.value, evidence=evidence)
