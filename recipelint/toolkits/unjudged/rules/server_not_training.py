"""An inference server's start: recognised, not judged as a training launch.

## What it does
Reports each start of an inference server or engine: SGLang (`python -m sglang.launch_server`,
`sglang serve`, its offline engine's `python -m sglang.bench_offline_throughput` and
`bench_one_batch`), vLLM (`vllm serve`, `python -m vllm.entrypoints.openai.api_server`),
Hugging Face TGI (`text-generation-launcher`), Triton (`tritonserver`) and TRL's vLLM server for
GRPO and online DPO (`trl vllm-serve`, huggingface/trl@865665e9:trl/scripts/vllm_serve.py), in a script, a Slurm batch script
(also under `srun`), a README's shell blocks or a pod's command. One info per start; no launch,
ranks or rendezvous are read from it.

## Why is this bad
It is not: the finding says what recipelint did not do. A server starts its own
tensor-parallel workers and its nodes meet at an address its own flags give (SGLang's
`--dist-init-addr`, `--nnodes`, `--node-rank`); read as a torch launch it would get a rendezvous
torch never uses (`(first host of SLURM_NODELIST):29500`) and be judged for a training script
that is not there. The job's allocation (`#SBATCH`, the pod's resources) still shows in `show`.

## Example
```sh
srun python -m sglang.launch_server --model-path /m --tp 16 --nnodes 2 --node-rank $SLURM_NODEID --dist-init-addr $HEAD:5000
```

## Fix
None: nothing is wrong. Select it away (`ignore = ["RL556"]`) where such servers are known.

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity

CODE = "RL556"
NAME = "server-not-training"
SEVERITY = Severity.INFO
VISITS = ("recipe",)
FIXABLE = False
SOURCE = (
    "the servers recipelint/toolkits/launchers.py lists; "
    "agents-x-project/PyVision-RL@62ca599d:verl_agents/slurm_scripts/sbatch_serve_llm.sh (vllm serve in a batch job)"
)


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    from recipelint.toolkits.unjudged.frontend import TrainerLaunch

    launch = ctx.recipe.payload
    if isinstance(launch, TrainerLaunch) and launch.server:
        message = f"start of {launch.trainer}: inference, not a training launch; not judged as one"
        yield ctx.diagnostic(CODE, SEVERITY, message, launch.command.span)
