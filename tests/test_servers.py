"""Inference servers started under Slurm (or anywhere a launch is read) are recognised and not
judged as training: RL556, no torch launch or rendezvous invented (toolkits/launchers.py
`server`, toolkits/unjudged)."""

from __future__ import annotations

from pathlib import Path

from recipelint import engine
from recipelint.parse.files import FileCache
from recipelint.report import show
from recipelint.settings import Resolver
from tests.helpers import assert_snapshot, clone


def _check(path: Path) -> tuple[list[show.Description], engine.Result]:
    found: list[show.Description] = []
    result = engine.check(
        [path],
        hardware=None,
        files=FileCache(),
        resolver=Resolver(isolated=True),
        observe=lambda ctx, kept: found.append(show.describe(ctx, kept)),
    )
    assert not result.errors
    return found, result


def test_vllm_serve_under_sbatch_and_srun(tmp_path: Path) -> None:
    """PyVision-RL's judge server: `vllm serve` in a batch script, and under `srun`: one RL556
    each; the batch script's allocation still shows, no launch section."""
    root = clone("slurm/PyVision-RL", tmp_path) / "verl_agents/slurm_scripts"
    [described], result = _check(root / "sbatch_serve_llm.sh")
    assert [d.code for d in result.diagnostics] == ["RL556"]
    rows = {item.label: item.value for s in described.sections for item in s.items}
    assert rows["server"] == "the vLLM server (`vllm serve`)" and rows["job GPUs per node"] == "4" and "rendezvous" not in rows
    _, folder = _check(root)
    assert_snapshot("RL556", folder.diagnostics, tmp_path)


def test_trl_vllm_serve_on_the_last_node_is_a_server() -> None:
    """huggingface/open-r1@1416fa0c:slurm/train.slurm starts `srun --nodes=1 --ntasks=1
    --nodelist=$VLLM_NODE trl vllm-serve ...` for GRPO's generation: one RL556 naming TRL's server
    (it was a command no toolkit knew), the training launch beside it still read."""
    path = Path(__file__).parent / "data/upstream/shell/open-r1/slurm/train.slurm"
    found, result = _check(path)
    (server,) = [d for d in result.diagnostics if d.code == "RL556"]
    assert server.span.line == 133 and "TRL's vLLM server (`trl vllm-serve`)" in server.message
    assert any(d.toolkit != "unjudged" and d.line == 174 for d in found)


def test_an_sglang_server_is_no_torch_launch(tmp_path: Path) -> None:
    """`srun python -m sglang.launch_server --nnodes 2 --dist-init-addr ...` was a torch recipe
    with the rendezvous `(first host of SLURM_NODELIST):29500`."""
    path = tmp_path / "serve.sh"
    path.write_text(
        "#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --gres=gpu:8\n"
        "srun python -m sglang.launch_server --model-path /m --tp 16 --nnodes 2 --node-rank $SLURM_NODEID --dist-init-addr $HEAD:5000\n"
    )
    [described], result = _check(path)
    assert described.toolkit == "unjudged" and [d.code for d in result.diagnostics] == ["RL556"]


def test_a_training_launch_under_slurm_is_no_server(tmp_path: Path) -> None:
    """torchtitan's multinode_trainer.slurm (srun torchrun ... train.py) stays a training launch."""
    [described], result = _check(clone("slurm/torchtitan", tmp_path) / "multinode_trainer.slurm")
    assert described.toolkit != "unjudged" and "RL556" not in [d.code for d in result.diagnostics]
