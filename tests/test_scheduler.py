"""Slurm batch scripts and Kubernetes manifests: the job's allocation read beside its launch
(recipelint.toolkits.slurm, recipelint.toolkits.kube), used as the node's facts when no profile is
given, shown with its sources, and the scheduler rules RL951-RL953, RL961-RL963."""

from __future__ import annotations

from pathlib import Path

import pytest

from recipelint import engine
from recipelint.checkoptions import CheckOptions
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.parse.files import FileCache
from recipelint.report import show
from recipelint.settings import Resolver
from tests.helpers import A100, UPSTREAM, assert_snapshot, clone, describe

SLURM = UPSTREAM / "slurm"
KUBE = UPSTREAM / "kube"


def _check(path: Path) -> tuple[list[show.Description], engine.Result]:
    """What `show` prints with no profile: the job's allocation stands in for the node."""
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


def _run_rows(description: show.Description) -> dict[str, tuple[str, str]]:
    section = next(s for s in description.sections if s.title == "run")
    return {item.label: (item.value, item.source) for item in section.items}


def _codes(result: engine.Result, prefix: str = "RL9") -> list[str]:
    return [d.code for d in result.diagnostics if d.code.startswith(prefix)]


def _judged(result: engine.Result) -> list[str]:
    """The findings, less RL004: whether this host is the node depends on the machine the tests run on."""
    return [d.code for d in result.diagnostics if d.code != "RL004"]


# Slurm


def test_torchtitan_batch_script_gives_its_allocation_and_is_quiet(tmp_path: Path) -> None:
    """torchtitan's multinode_trainer.slurm: 4 nodes x 1 task, 8 GPUs and 96 CPUs per task,
    `srun torchrun --nnodes 4 --nproc_per_node 8`: one torchrun per node, 8 ranks on 8 GPUs."""
    [described], result = _check(clone("slurm/torchtitan", tmp_path) / "multinode_trainer.slurm")
    rows = _run_rows(described)
    assert rows["job nodes"] == ("4", "#SBATCH --nodes=4 (multinode_trainer.slurm:17)")
    assert rows["job tasks per node"] == ("1", "#SBATCH --ntasks=4 over #SBATCH --nodes=4 (multinode_trainer.slurm:15)")
    assert rows["job GPUs per node"] == ("8", "#SBATCH --gpus-per-task=8 x 1 task(s) per node (multinode_trainer.slurm:19)")
    assert rows["job CPUs per node"] == ("96", "#SBATCH --cpus-per-task=96 x 1 task(s) per node (multinode_trainer.slurm:21)")
    assert rows["node facts from"][0] == "the job's Slurm allocation in multinode_trainer.slurm"
    assert [j.kind for j in result.judged] == ["allocation"]
    assert _codes(result) == []


def test_a_profile_wins_over_the_allocation(tmp_path: Path) -> None:
    [described], result = describe([clone("slurm/torchtitan", tmp_path) / "multinode_trainer.slurm"], A100)
    assert [j.kind for j in result.judged] == ["profile"]
    value, source = _run_rows(described)["node facts from"]
    assert value == "profile a100-8x-96cpu-ib.yaml" and source.endswith("wins over the job's Slurm allocation")


def test_srun_flags_without_sbatch_give_the_allocation(tmp_path: Path) -> None:
    """InternVL's slurm_train.sh: `srun --gres=gpu:8 --ntasks=8 --ntasks-per-node=8
    --cpus-per-task=5 python -u train.py`: 8 ranks on 8 GPUs, 40 CPUs on one node."""
    [described], result = _check(clone("slurm/InternVL", tmp_path) / "segmentation/slurm_train.sh")
    rows = _run_rows(described)
    assert rows["job nodes"][0] == "1" and rows["job CPUs per node"][0] == "40"
    assert rows["job GPUs per node"] == ("8", "srun --gres=gpu:${GPUS_PER_NODE} = gpu:8 (slurm_train.sh:17)")
    assert _codes(result) == []


def test_internvl_workers_fit_the_jobs_cpus(tmp_path: Path) -> None:
    """8 ranks x --dataloader_num_workers 4 = 32 <= 8 tasks x 10 CPUs: RL953 quiet."""
    path = clone("slurm/InternVL", tmp_path) / "internvl_chat/shell/internvl1.5/internlm2_1_8b"
    [described], result = _check(path / "internvl_chat_v1_5_internlm2_1_8b_dynamic_res_finetune.sh")
    assert _run_rows(described)["job CPUs per node"][0] == "80"
    assert _codes(result) == []


def test_a_plain_script_on_a_step_without_gpus_is_no_rank_without_a_gpu(tmp_path: Path) -> None:
    """InternVL's correctness_build_data.sh: `srun --gres=gpu:0 python -u ...postprocess.py`, a
    CPU step by choice: RL952 quiet (it said 'ranks 0..0 of each node have no GPU'). A launcher
    that starts ranks on no GPU is still an error (test_rules' RL952 case)."""
    path = clone("slurm/InternVL", tmp_path) / "internvl_chat/shell/internvl3.0/mpo_data_construction/correctness_build_data.sh"
    [described], result = _check(path)
    assert _run_rows(described)["job GPUs per node"][0] == "0"
    assert "RL952" not in _codes(result)


def test_accelerate_launch_in_a_batch_script_is_quiet(tmp_path: Path) -> None:
    """accelerate's examples/slurm/submit_multigpu.sh: `accelerate launch --num_processes 4` with
    --gres=gpu:4 and one task: the launch is not run by srun, its 4 ranks match the 4 GPUs."""
    [described], result = _check(clone("slurm/accelerate", tmp_path) / "examples/slurm/submit_multigpu.sh")
    assert _run_rows(described)["job time limit"] == ("01:59:00", "#SBATCH --time=01:59:00 (submit_multigpu.sh:11)")
    assert _codes(result) == []


def test_torchrun_in_every_srun_task_multiplies_the_ranks(tmp_path: Path) -> None:
    """The batch script of TRI-ML/prismatic-vlms issue 39 ("Duplicate GPU detected"): 8 tasks per
    node, each running `torchrun --nproc_per_node=$SLURM_NTASKS_PER_NODE`."""
    path = clone("slurm/prismatic-vlms-issue-39", tmp_path) / "multinode.sbatch"
    [described], result = _check(path)
    [finding] = [d for d in result.diagnostics if d.code == "RL951"]
    assert finding.severity == Severity.ERROR and (finding.span.line, finding.span.column) == (4, 9)
    assert "64 processes per node for 8 GPUs" in finding.message
    assert_snapshot("RL951", [finding], tmp_path)
    # the world size comes from the allocation: --nnodes $SLURM_NNODES, --nproc_per_node $SLURM_NTASKS_PER_NODE
    launch = {item.label: item for s in described.sections if s.title == "launch" for item in s.items}
    assert launch["nodes"].value == "2" and launch["nodes"].source.startswith("SLURM_NNODES from #SBATCH --nodes=2 at line 3")


def _job(tmp_path: Path, directives: str, launch: str) -> Path:
    path = tmp_path / "job.sbatch"
    path.write_text(f"#!/bin/bash\n{directives}\n{launch}\n")
    return path


def test_srun_tasks_against_gpus(tmp_path: Path) -> None:
    fire = _job(tmp_path, "#SBATCH --nodes=2 --ntasks-per-node=1 --gres=gpu:8", "srun python train.py --deepspeed ds.json")
    [finding] = [d for d in _check(fire)[1].diagnostics if d.code == "RL952"]
    assert finding.severity == Severity.WARNING and "7 GPU(s) per node stay idle" in finding.message
    assert_snapshot("RL952", [finding], tmp_path)
    quiet = _job(tmp_path, "#SBATCH --nodes=2 --ntasks-per-node=8 --gres=gpu:8", "srun python train.py --deepspeed ds.json")
    assert _codes(_check(quiet)[1]) == []


def test_workers_against_the_jobs_cpus(tmp_path: Path) -> None:
    directives = "#SBATCH --nodes=1\n#SBATCH --ntasks-per-node=1\n#SBATCH --gres=gpu:8\n#SBATCH --cpus-per-task={}"
    launch = "srun torchrun --nproc_per_node 8 train.py --dataloader_num_workers 8"
    found = _check(_job(tmp_path, directives.format(32), launch))[1].diagnostics
    [finding] = [d for d in found if d.code == "RL953"]
    assert finding.message.startswith("8 ranks x 8 workers = 64 worker processes per node, but only 32 CPUs are usable")
    assert finding.fix is not None and finding.suggested == 4
    assert_snapshot("RL953", [finding], tmp_path)
    assert _codes(_check(_job(tmp_path, directives.format(64), launch))[1]) == []


def test_directive_forms(tmp_path: Path) -> None:
    """`--opt=v` and `--opt v`, the short forms, memory per CPU and GPU, sbatch's stop at the first command."""
    from recipelint.parse.span import SourceText
    from recipelint.toolkits.slurm.directives import allocation, sbatch_directives

    text = b"#!/bin/bash\n#SBATCH -N 2 -n 16 -c4 -G 16 -t 1:00:00\n#SBATCH --mem-per-cpu 2G\necho hi\n#SBATCH --nodes=9\n"
    source = SourceText(tmp_path / "a.sh", text)
    job = allocation(sbatch_directives(source), source.span(0, 0))
    values = {name: grant.value for name, grant in job.grants.items()}
    assert values == {"nodes": 2, "tasks_per_node": 8, "gpus": 8, "cpus_per_task": 4, "cpus": 32, "memory_gib": 64.0, "time": "1:00:00"}
    assert job.get("memory_gib") is not None and job.grants["memory_gib"].said == "#SBATCH --mem-per-cpu 2G x 32 cpus per node"


# Kubernetes


def test_training_operator_examples(tmp_path: Path) -> None:
    """kubeflow/training-operator v1.8.1 examples: a plain `python3 mnist.py` per pod (2 pods, one
    rank each), an image's own entrypoint, an elastic job; none is flagged."""
    root = clone("kube/training-operator", tmp_path) / "examples/pytorch"
    [simple], result = _check(root / "simple.yaml")
    assert simple.toolkit == "torch" and _run_rows(simple)["job nodes"][0] == "2"
    assert _run_rows(simple)["job /dev/shm (GiB)"] == (
        "0.0625",
        "no volume at /dev/shm: the container runtime's default 64 MiB (simple.yaml:14)",
    )
    assert _judged(result) == []
    [mnist], result = _check(root / "mnist/v1/pytorch_job_mnist_nccl.yaml")
    assert mnist.toolkit == "kube" and _run_rows(mnist)["job GPUs per node"][0] == "1"
    assert _judged(result) == []
    [elastic], result = _check(root / "elastic/imagenet/imagenet.yaml")
    assert _run_rows(elastic)["job nodes"] == (
        "2",
        "Worker replicas 2 (elastic, minReplicas 1, maxReplicas 3: the operator starts the Worker replicas) (one pod per node) (imagenet.yaml:20)",
    )
    launch = {item.label: item for s in elastic.sections if s.title == "launch" for item in s.items}
    # no rdzvHost: the operator points PET_RDZV_ENDPOINT at the job's first worker (elastic.go)
    assert launch["rendezvous"].value == "elastic-example-imagenet-worker-0:23456"
    assert "no rdzvHost: the job's first worker" in launch["rendezvous"].source
    assert launch["nodes"].value == "1 to 3 (elastic)" and "PET_NNODES=1:3" in launch["nodes"].source
    assert _judged(result) == []


def test_itwinai_cpu_job_reads_the_operators_env(tmp_path: Path) -> None:
    """interTwin-eu/itwinai's torch-kubeflow-1/cpu.yaml: `nprocPerNode: "2"` reaches torchrun as
    PET_NPROC_PER_NODE, the Master's address as PET_MASTER_ADDR (no local-rendezvous finding); a
    CPU job's two ranks need no NCCL shared memory."""
    [described], result = _check(clone("kube/itwinai", tmp_path) / "tutorials/distributed-ml/torch-kubeflow-1/cpu.yaml")
    launch = {item.label: item for s in described.sections if s.title == "launch" for item in s.items}
    assert launch["ranks per node"].value == "2" and "PET_NPROC_PER_NODE" in launch["ranks per node"].source
    assert launch["world size"].value == "4"
    assert _run_rows(described)["job CPUs per node"][0] == "1"
    assert _judged(result) == []


MANIFEST = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: train
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
            - name: pytorch
              image: train:latest
              command: ["bash", "-c", "torchrun --nproc_per_node {nproc} train.py --num_workers 8"]
              resources:
                limits:
                  nvidia.com/gpu: {gpus}
                  cpu: {cpus}
                  memory: 512Gi
{volumes}"""
SHM = """              volumeMounts:
                - name: dshm
                  mountPath: /dev/shm
          volumes:
            - name: dshm
              emptyDir:
                medium: Memory
                sizeLimit: 64Gi
"""


def _manifest(tmp_path: Path, nproc: int = 8, gpus: int = 8, cpus: int = 96, shm: bool = False) -> list[Diagnostic]:
    path = tmp_path / "job.yaml"
    path.write_text(MANIFEST.format(nproc=nproc, gpus=gpus, cpus=cpus, volumes=SHM if shm else ""))
    return _check(path)[1].diagnostics


def test_a_pod_without_shm_running_8_ranks_x_8_workers(tmp_path: Path) -> None:
    [finding] = [d for d in _manifest(tmp_path) if d.code == "RL961"]
    assert finding.message.startswith("8 rank(s) x 8 DataLoader workers in a pod with no /dev/shm volume: 128 batches in flight")
    assert "default 64 MiB" in finding.message and finding.severity == Severity.ERROR
    assert_snapshot("RL961", [finding], tmp_path)
    assert [d.code for d in _manifest(tmp_path, shm=True) if d.code == "RL961"] == []


def test_pod_ranks_against_its_gpus(tmp_path: Path) -> None:
    [finding] = [d for d in _manifest(tmp_path, gpus=4, shm=True) if d.code == "RL962"]
    assert finding.severity == Severity.ERROR and "ranks 4..7 of each node have no GPU of their own" in finding.message
    assert_snapshot("RL962", [finding], tmp_path)
    assert [d.code for d in _manifest(tmp_path, shm=True) if d.code == "RL962"] == []


def test_pod_workers_against_its_cpu_limit(tmp_path: Path) -> None:
    [finding] = [d for d in _manifest(tmp_path, cpus=16, shm=True) if d.code == "RL963"]
    assert finding.message.startswith("8 ranks x 8 workers = 64 worker processes per node, but only 16 CPUs are usable")
    assert finding.suggested == 2 and finding.fix is not None
    assert_snapshot("RL963", [finding], tmp_path)
    assert [d.code for d in _manifest(tmp_path, shm=True) if d.code == "RL963"] == []


def test_directive_defaults_and_open_facts(tmp_path: Path) -> None:
    """What a job leaves to Slurm is said, not guessed: no --cpus-per-task, --mem=0, a node range."""
    from recipelint.parse.span import SourceText
    from recipelint.toolkits.slurm.directives import allocation, gpu_count, sbatch_directives

    text = b"#SBATCH --nodes=2-4 --gres=gpu:a100:8 --mem=0 --exclusive\nsrun python train.py\n"
    source = SourceText(tmp_path / "b.sh", text)
    job = allocation(sbatch_directives(source), source.span(0, 0))
    assert job.value("gpus") == 8 and job.value("nodes") is None
    assert job.unknown["nodes"].endswith("Slurm starts the job on any count in that range")
    assert job.unknown["memory_gib"] == "#SBATCH --mem=0: the whole node's memory, which the script does not state"
    assert job.unknown["cpus"].startswith("--exclusive: the whole node")
    assert [gpu_count(v) for v in ("gpu:8", "gpu:a100:4", "a100:2", "8", "gpu")] == [8, 4, 2, 8, 1]


def test_a_bash_c_block_in_a_manifest_is_read_as_shell(tmp_path: Path) -> None:
    """`command: [bash, -c]` with the script in `args` as a block scalar: its launch is read from
    the manifest's own lines, so a finding points there."""
    path = tmp_path / "pod.yaml"
    path.write_text(
        "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - name: train\n      command: [bash, -c]\n      args:\n"
        "        - |\n          cd /workspace\n          torchrun --nproc_per_node 8 train.py --dataloader_num_workers 4\n"
        "      resources:\n        limits: {nvidia.com/gpu: 8, cpu: 500m, memory: 64Gi}\n"
    )
    [described], result = _check(path)
    rows = _run_rows(described)
    assert rows["job GPUs per node"][0] == "8" and rows["job memory per node (GiB)"][0] == "64"
    assert rows["job CPUs per node"] == ("not stated", "spec.containers[0].resources.limits.cpu: 500m: not a count of whole cores")
    [finding] = [d for d in result.diagnostics if d.code == "RL961"]
    assert (finding.span.line, finding.message.split(":")[0]) == (10, "8 rank(s) x 4 DataLoader workers in a pod with no /dev/shm volume")


def test_an_srun_command_line_is_a_job() -> None:
    """`--command` with srun's resource flags: the allocation comes from them (XTuner's Slurm docs)."""
    line = "srun -p $PARTITION --nodes=2 --gres=gpu:8 --ntasks-per-node=4 xtuner train internlm2_chat_7b_qlora_oasst1_e3 --launcher slurm"
    result = engine.check([], CheckOptions(command=line), hardware=None, files=FileCache(), resolver=Resolver(isolated=True))
    [finding] = [d for d in result.diagnostics if d.code == "RL952"]
    assert finding.message.startswith("srun starts 4 ranks per node but the job gives each node 8 GPUs (srun --gres=gpu:8)")


def test_on_a_laptop_the_allocation_judges_what_it_states(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """This host is not the node (2 CPUs, no GPU): the job's CPUs judge the workers (RL953 fires
    on the allocation's 32 CPUs, not the laptop's 2), and RL004 names only the rules whose facts
    the job file leaves open (no RL102, RL807, RL953: CPUs are stated)."""
    from recipelint.hardware import probe as probe_module
    from tests.helpers import host

    monkeypatch.setattr(probe_module, "probe", host(tmp_path / "laptop", None, "0-1"))
    for name in ("SLURM_JOB_NUM_NODES", "SLURM_NNODES", "CUDA_VISIBLE_DEVICES"):
        monkeypatch.delenv(name, raising=False)
    directives = "#SBATCH --nodes=1 --ntasks-per-node=1 --gres=gpu:8 --cpus-per-task=32"
    path = _job(tmp_path, directives, "srun torchrun --nproc_per_node 8 train.py --dataloader_num_workers 8")
    _, result = _check(path)
    [judged] = result.judged
    assert judged.kind == "allocation" and judged.stated == ("nodes", "gpus", "cpus")
    [rl004] = [d for d in result.diagnostics if d.code == "RL004"]
    assert "the job's Slurm allocation states nodes, gpus, cpus only" in rl004.message
    skipped = rl004.message.rsplit("(", 1)[-1]
    assert "RL420" in skipped and "RL953" not in skipped and "RL102" not in skipped
    assert _codes(result) == ["RL953"]


# `srun ... bash -c "$LAUNCHER $CMD"`: the launch is a string the script assembles in variables


def test_bigscience_launch_in_bash_c_is_read_with_its_written_config(tmp_path: Path) -> None:
    """bigscience's tr11b-1B3-ml.slurm runs `srun bash -c "$LAUNCHER --node_rank \\$SLURM_PROCID $CMD"`,
    LAUNCHER being `python -u -m torch.distributed.run --nproc_per_node $GPUS_PER_NODE --nnodes
    $NNODES ...`: one elastic agent per node (16 x 4 GPUs), the DeepSpeed JSON the heredoc writes.
    Before, the string was not read: "no recipes found"."""
    [described], result = _check(clone("slurm/bigscience", tmp_path) / "tr11b-1B3-ml.slurm")
    launch = {item.label: item.value for section in described.sections if section.title == "launch" for item in section.items}
    assert (launch["launcher"], launch["nodes"], launch["ranks per node"], launch["world size"]) == ("torchrun", "16", "4", "64")
    [recipe] = [
        r
        for r in engine.check(
            [tmp_path / "slurm" / "bigscience" / "tr11b-1B3-ml.slurm"],
            hardware=None,
            files=FileCache(),
            resolver=Resolver(isolated=True),
            keep_recipes=True,
        ).recipes
        if r.launch is not None
    ]
    assert recipe.ds_config is not None and recipe.ds_config.root.get("train_micro_batch_size_per_gpu") is not None
    # the words read from the string stand at its place and carry nowhere to write: no fix edits them
    assert recipe.launch is not None and recipe.launch.nproc_per_node.edit_span is None
    assert _judged(result) == []


def test_bigscience_176b_batch_holds_for_the_data_parallel_size(tmp_path: Path) -> None:
    """BLOOM's tr11-176B-ml.slurm: 24 nodes x 8 GPUs, TP 4 x PP 12 in `$CMD`, train_batch_size 2048
    and micro batch 2 in the heredoc: 2048 = 2 x 256 x (192 / 48) holds; counted over the 192 GPUs
    it would not (2048 / (2 x 192) is no integer), so Megatron's flags in the string are read as
    Megatron's even though `\\`pwd\\`/pretrain_gpt.py` cannot be read."""
    _, result = _check(clone("slurm/bigscience", tmp_path) / "tr11-176B-ml.slurm")
    assert _judged(result) == []


def test_bash_c_launch_ranks_against_the_jobs_gpus(tmp_path: Path) -> None:
    """The same upstream script with one change, 8 processes per node on its 4 GPUs: RL952 fires
    on the srun line, where the string is."""
    root = clone("slurm/bigscience", tmp_path)
    script = root / "tr11b-1B3-ml.slurm"
    script.write_text(script.read_text().replace("GPUS_PER_NODE=4", "GPUS_PER_NODE=8"))
    _, result = _check(script)
    [rl952] = [d for d in result.diagnostics if d.code == "RL952"]
    assert rl952.severity is Severity.ERROR and rl952.span.line == 203


def test_alignment_handbook_launch_slurm_is_read(tmp_path: Path) -> None:
    """alignment-handbook's recipes/launch.slurm: `srun $SRUN_ARGS bash -c "$LAUNCHER $CMD"` with an
    `accelerate launch --config_file recipes/accelerate_configs/$ACCELERATOR.yaml` whose name the
    command line decides (its option loop's "$2"): the launch is read once per file that name may
    be (#39: it was one launch with the config unknown), and nothing is judged wrong."""
    script = clone("slurm/alignment-handbook", tmp_path) / "recipes" / "launch.slurm"
    # its `srun ... trl vllm-serve` on the last node (line 128) is TRL's generation server: RL556
    [server, *described], result = _check(script)
    assert server.toolkit == "unjudged"
    assert [d.code for d in result.diagnostics if d.code == "RL556"] == ["RL556"]
    configs = [item for d in described for section in d.sections if section.title == "configs" for item in section.items]
    assert [c.value for c in configs if c.label == "Accelerate config"] == [
        f"recipes/accelerate_configs/{name}.yaml" for name in ("ddp", "fsdp", "zero3")
    ]
    launch = {item.label: item.value for section in described[2].sections if section.title == "launch" for item in section.items}
    assert launch["launcher"] == "accelerate" and launch["distributed type"] == "DEEPSPEED"
    assert launch["alternative"] == (
        "3 of 3: when the config is recipes/accelerate_configs/zero3.yaml (one of the 3 files recipes/accelerate_configs/*.yaml matches)"
    )
    assert _judged(result) == ["RL556"]
    from recipelint.hardware.profile import load_profile

    node = load_profile(A100)
    judged = engine.check([script], hardware=lambda: node, files=FileCache(), resolver=Resolver(isolated=True))
    assert [d.code for d in judged.diagnostics] == ["RL556"]


def test_megatron_175b_srun_sh_c_starts_every_rank(tmp_path: Path) -> None:
    """Megatron-DeepSpeed's examples/pretrain_gpt3_175B.sh: `srun ... sh -c "${run_cmd}"`, where
    run_cmd is `python -u ${DIR}/pretrain_gpt.py ...`: srun starts each rank, 128 nodes x 8 tasks."""
    [described], result = _check(clone("slurm/megatron-deepspeed", tmp_path) / "examples" / "pretrain_gpt3_175B.sh")
    launch = {item.label: item.value for section in described.sections if section.title == "launch" for item in section.items}
    assert (launch["launcher"], launch["nodes"], launch["ranks per node"], launch["world size"]) == ("srun", "128", "8", "1024")
    assert _judged(result) == []


def test_srun_without_nodes_runs_on_the_allocation_s_nodes(tmp_path: Path) -> None:
    """`srun --ntasks=32 python train.py` in a 4-node batch job: 8 tasks a node over the job's 4
    nodes (was 32 a node on 1 node: 128 ranks); outside a job file srun's nodes are the run time's
    (its allocation), never 1."""
    from tests.helpers import item

    (tmp_path / ".git").mkdir()
    (tmp_path / "train.py").write_text("import torch\n")
    job = tmp_path / "job.sh"
    job.write_text("#!/bin/bash\n#SBATCH --nodes=4\n#SBATCH --gres=gpu:8\nsrun --ntasks=32 python train.py --lr 1\n")
    (recipe,), _ = _check(job)  # no profile: the job's allocation is the node (a profile's node count wins over it)
    assert (item(recipe, "launch", "nodes").value, item(recipe, "launch", "ranks per node").value) == ("4", "8")
    assert item(recipe, "launch", "ranks per node").source.startswith("--ntasks 32 over the 4 nodes of the allocation")
    plain = tmp_path / "plain.sh"
    plain.write_text("srun --ntasks-per-node=8 python train.py --lr 1\n")
    (recipe,), _ = _check(plain)
    nodes = item(recipe, "launch", "nodes")
    assert nodes.value == "unknown" and "srun without --nodes runs on the nodes of the allocation" in nodes.source
