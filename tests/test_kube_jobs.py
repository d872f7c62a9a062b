"""Cluster jobs as their operators run them (recipelint.toolkits.kube.operators): multi-document
manifests read document by document, the training operator's elastic and non-elastic env,
MPIJob, Volcano, Trainer v2 and JobSet pods, and RL555 for a file with no workload."""

from __future__ import annotations

from pathlib import Path

from recipelint import engine
from recipelint.parse.files import FileCache
from recipelint.report import show
from recipelint.settings import Resolver
from tests.helpers import UPSTREAM, assert_snapshot, clone

AWSOME = "kube/awsome-distributed-training"


def _check(paths: list[Path]) -> tuple[list[show.Description], engine.Result]:
    found: list[show.Description] = []
    result = engine.check(
        paths,
        hardware=None,
        files=FileCache(),
        resolver=Resolver(isolated=True),
        observe=lambda ctx, kept: found.append(show.describe(ctx, kept)),
    )
    return found, result


def _rows(description: show.Description, title: str) -> dict[str, tuple[str, str]]:
    return {item.label: (str(item.value), item.source) for s in description.sections if s.title == title for item in s.items}


def _judged(result: engine.Result) -> list[str]:
    return [d.code for d in result.diagnostics if d.code != "RL004"]


def test_a_service_a_deployment_and_an_elastic_job_in_one_file(tmp_path: Path) -> None:
    """awsome-distributed-training's 1-imagenet-gpu-team-a.yaml: the etcd Service and Deployment
    are skipped, the PyTorchJob read; its etcd rendezvous is the operator's PET_RDZV_ENDPOINT,
    not torchrun's localhost default (RL501 was an error here), its nodes the Worker replicas."""
    path = clone(AWSOME, tmp_path) / "1.architectures/7.sagemaker-hyperpod-eks/task-governance/1-imagenet-gpu-team-a.yaml"
    [described], result = _check([path])
    assert not result.errors
    launch, run = _rows(described, "launch"), _rows(described, "run")
    assert launch["rendezvous"][0] == "etcd-gpu:2379"
    assert "rdzvHost etcd-gpu, rdzvPort 2379" in launch["rendezvous"][1] and "elastic.go" in launch["rendezvous"][1]
    assert run["job nodes"][0] == "3" and "minReplicas 1, maxReplicas 36" in run["job nodes"][1]
    assert run["job GPUs per node"][0] == "1"
    assert _judged(result) == []


def test_an_etcd_rendezvous_is_no_local_rendezvous(tmp_path: Path) -> None:
    """nsight/EKS/fsdp.yaml: `torchrun --nnodes 2` with no rendezvous flag in an elastic job with
    `rdzvHost: etcd`: the nodes meet at etcd:2379 (was RL501: '2 nodes but the rendezvous is
    127.0.0.1:29500')."""
    [described], result = _check([clone(AWSOME, tmp_path) / "4.validation_and_observability/5.nsight/EKS/fsdp.yaml"])
    assert _rows(described, "launch")["rendezvous"][0] == "etcd:2379"
    assert "RL501" not in _judged(result) and _judged(result) == []


def test_without_rdzvhost_the_endpoint_is_the_first_worker(tmp_path: Path) -> None:
    """llama3_1_8b-fsdp.yaml: `rdzvBackend: c10d`, no rdzvHost or rdzvPort: the operator sets
    PET_RDZV_ENDPOINT to `<job>-worker-0` and the default pytorchjob-port; its Worker replicas
    `$NUM_NODES` are a template's, said so, not counted as 1."""
    [described], result = _check([clone(AWSOME, tmp_path) / "3.test_cases/pytorch/FSDP/kubernetes/llama3_1_8b-fsdp.yaml"])
    launch, run = _rows(described, "launch"), _rows(described, "run")
    assert launch["rendezvous"][0] == "llama3-1-8b-fsdp-worker-0:23456"
    assert "no rdzvHost: the job's first worker llama3-1-8b-fsdp-worker-0" in launch["rendezvous"][1]
    assert run["job nodes"] == (
        "not stated",
        "spec.pytorchReplicaSpecs.Worker.replicas: $NUM_NODES: not a number (a template filled in before the job is applied)",
    )
    assert _judged(result) == []


def test_an_mpijob_is_its_workers(tmp_path: Path) -> None:
    """nccl-tests-gb200.yaml: a ComputeDomain and an MPIJob; the job is 18 Workers of 4 slots
    (the hostfile mpi-operator writes) and 4 GPUs each, shown; its Launcher runs a benchmark
    binary, no training launch (RL555 when the file is named)."""
    [described], result = _check([clone(AWSOME, tmp_path) / "micro-benchmarks/nccl-tests/kubernetes/nccl-tests-gb200.yaml"])
    run = _rows(described, "run")
    assert run["job nodes"][0] == "18" and run["job tasks per node"][0] == "4"
    assert "slotsPerWorker: 4" in run["job tasks per node"][1] and run["job GPUs per node"][0] == "4"
    assert not result.errors and _judged(result) == ["RL555"]  # a benchmark binary, named alone: no training launch


def test_a_file_with_no_workload_is_said_when_named_alone(tmp_path: Path) -> None:
    root = clone(AWSOME, tmp_path)
    path = root / "3.test_cases/megatron/nemo1.0/EKS/fsx/fsx-pv.yaml"
    _, result = _check([path])
    assert [d.code for d in result.diagnostics] == ["RL555"] and not result.errors
    assert_snapshot("RL555", result.diagnostics, tmp_path)
    _, folder = _check([path.parent])  # found by a folder walk: no word
    assert [d.code for d in folder.diagnostics] == [] and not folder.errors


def test_a_helm_template_is_no_error(tmp_path: Path) -> None:
    path = tmp_path / "job.yaml"
    path.write_text("{{ $c := .Values.c }}\napiVersion: kubeflow.org/v2beta1\nkind: MPIJob\nspec:\n  slotsPerWorker: {{ $c.n }}\n")
    _, alone = _check([path])
    assert [d.code for d in alone.diagnostics] == ["RL555"] and not alone.errors
    _, folder = _check([tmp_path])
    assert not folder.errors and folder.diagnostics == []


def test_a_multi_document_yaml_of_no_kind_is_valid(tmp_path: Path) -> None:
    """A `---` stream recipelint reads nothing of is no bad input when named (was exit 2:
    'invalid YAML: but found another document'); a broken one still is."""
    path = tmp_path / "two.yaml"
    path.write_text("a: 1\n---\nb: 2\n")
    _, result = _check([path])
    assert not result.errors
    path.write_text("a: 1\n---\nb: [2\n")
    _, result = _check([path])
    assert len(result.errors) == 1 and "invalid YAML" in str(result.errors[0])


def test_a_volcano_pytorch_job(tmp_path: Path) -> None:
    """nebius/ml-cookbook's finetuning-job-4.yaml: master 1 + worker 3 tasks (one pod spec through
    a YAML anchor) are 4 nodes, as `torchrun --nnodes=4` says; its
    `--rdzv_endpoint=${MASTER_ADDR}:${MASTER_PORT}` is what the pytorch plugin sets."""
    root = clone("kube/ml-cookbook", tmp_path) / "volcano"
    [described], result = _check([root / "llama-cookbook-finetuning/finetuning-job-4.yaml"])
    launch, run = _rows(described, "launch"), _rows(described, "run")
    assert launch["rendezvous"][0] == "pytorch-job-master-0.pytorch-job:29500" and "pytorch.go" in launch["rendezvous"][1]
    assert run["job nodes"][0] == "4" and run["job nodes"][1].startswith("master replicas 1 + worker replicas 3")
    assert launch["nodes"][0] == "4" and run["job GPUs per node"][0] == "8" and run["job /dev/shm (GiB)"][0] == "1500"
    assert _judged(result) == [] and not result.errors
    _, queue = _check([root / "queue2.yaml"])
    assert [d.code for d in queue.diagnostics] == ["RL555"]


def test_an_mpijob_launcher_runs_its_ranks_on_the_workers(tmp_path: Path) -> None:
    """kubeflow/mpi-operator's horovod tensorflow-mnist.yaml: `mpirun -np 2` over 2 Workers of
    1 slot is one rank a Worker (was 2 ranks per node on 2 nodes, a world of 4), judged
    against a Worker's pod (2 CPUs, 4Gi), not the Launcher's."""
    path = clone("kube/mpi-operator", tmp_path) / "examples/v2beta1/horovod/tensorflow-mnist.yaml"
    [described], result = _check([path])
    launch, run = _rows(described, "launch"), _rows(described, "run")
    assert (launch["nodes"][0], launch["ranks per node"][0], launch["world size"][0]) == ("2", "1", "2")
    assert "-np 2 over the hostfile's spec.slotsPerWorker: 1" in launch["ranks per node"][1]
    assert run["job CPUs per node"][0] == "2" and run["job memory per node (GiB)"][0] == "4"
    assert _judged(result) == [] and not result.errors


RUNTIME = """apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: torch-distributed
spec:
  mlPolicy:
    numNodes: 1
    torch:
      numProcPerNode: auto
  template:
    spec:
      replicatedJobs:
        - name: trainer-node
          template:
            spec:
              template:
                spec:
                  containers:
                    - name: trainer
                      image: pytorch/pytorch:2.5.0-cuda12.4-cudnn9-runtime
                      command: [/bin/bash, -c, "echo runtime"]
"""
TRAINJOB = """apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: ddp
spec:
  runtimeRef:
    name: torch-distributed
  trainer:
    numNodes: 3
    numProcPerNode: 4
    command: [torchrun, train.py]
    resourcesPerNode:
      limits:
        nvidia.com/gpu: 4
        cpu: 32
"""


def test_upstream_trainjobs_with_the_runtime_of_their_repository(tmp_path: Path) -> None:
    """kubeflow/trainer v2.3.0's examples/yaml TrainJobs name the ClusterTrainingRuntime
    `torch-distributed` of manifests/base/runtimes/ (found in the repository, not beside the
    job); its trainer Job is `node`, marked by the ancestor label. 01: `torchrun --no-python
    python3 -c CODE` (was RL555, 'no training launch') on 3 nodes, no resources: "auto" with no
    GPU or CPU is 1 rank a node; 02: requests.cpu "2", no GPU: "auto" is 2 ranks a node
    (torch.go getNumCPUPerNode)."""
    root = clone("kube/trainer", tmp_path)
    [one], result = _check([root / "examples/yaml/01-multi-node.yaml"])
    launch = _rows(one, "launch")
    assert (launch["nodes"][0], launch["ranks per node"][0]) == ("3", "1")
    assert "PET_NNODES=3: TrainJob trainer.numNodes 3" in launch["nodes"][1] and "torch_distributed.yaml" in launch["ranks per node"][1]
    assert launch["rendezvous"][0] == "multi-node-example-node-0-0.multi-node-example:29500"
    assert _judged(result) == [] and not result.errors
    [two], result = _check([root / "examples/yaml/02-runtime-patches.yaml"])
    launch, run = _rows(two, "launch"), _rows(two, "run")
    assert (launch["nodes"][0], launch["ranks per node"][0], run["job CPUs per node"][0]) == ("2", "2", "4")
    assert "no GPU: the CPUs, spec.trainer.resourcesPerNode.requests.cpu: 2" in launch["ranks per node"][1]
    assert _judged(result) == [] and not result.errors


def test_a_trainjob_whose_runtime_is_not_read_is_not_one_node(tmp_path: Path) -> None:
    """01-multi-node.yaml alone: the runtime is on the cluster only; its mlPolicy sets the PET_*
    torchrun takes, so the nodes, ranks and rendezvous are unknown, said so (was torchrun's
    one-node default and RL964 against the 3 pods)."""
    source = UPSTREAM / "kube/trainer/examples/yaml/01-multi-node.yaml"
    (tmp_path / ".git").mkdir()
    path = tmp_path / "job.yaml"
    path.write_bytes(source.read_bytes())
    [described], result = _check([path])
    launch = _rows(described, "launch")
    assert launch["nodes"][0] == "unknown" and "the runtime torch-distributed is not in the files read" in launch["nodes"][1]
    assert launch["rendezvous"][0] == "unknown" and _judged(result) == []


def test_upstream_jobsets(tmp_path: Path) -> None:
    """kubernetes-sigs/jobset's pytorch examples: 4 pods (parallelism 4) running `bash -xc
    "torchrun ..."` (-xc was not read as a script: RL555), MASTER_ADDR/PORT from the container
    env. mnist.yaml's `--nnodes=4` is quiet; resnet.yaml's torchrun has no --nnodes: each pod a
    training of its own (RL964)."""
    root = clone("kube/jobset", tmp_path) / "site/static/examples/pytorch"
    [mnist], result = _check([root / "cnn-mnist/mnist.yaml"])
    launch = _rows(mnist, "launch")
    assert (launch["nodes"][0], launch["rendezvous"][0]) == ("4", "pytorch-workers-0-0.pytorch:3389")
    assert _judged(result) == [] and not result.errors
    _, result = _check([root / "resnet-cifar10/resnet.yaml"])
    [finding] = [d for d in result.diagnostics if d.code != "RL004"]
    assert finding.code == "RL964" and finding.message.endswith("each pod runs a training of its own")


def test_a_trainjob_merged_with_its_runtime(tmp_path: Path) -> None:
    """Trainer v2 (kubeflow/trainer builder.go, torch.go): the TrainJob's command and
    resourcesPerNode replace the runtime's trainer container's; numNodes and numProcPerNode
    reach torchrun as PET_NNODES and PET_NPROC_PER_NODE, the first trainer node as
    PET_MASTER_ADDR. The runtime is found in a file beside the job; written with the alpha's
    names (`trainer-node` Job, `trainer` container, before v2.0.0), still read."""
    (tmp_path / "runtime.yaml").write_text(RUNTIME)
    (tmp_path / "job.yaml").write_text(TRAINJOB)
    [described], result = _check([tmp_path / "job.yaml"])
    launch, run = _rows(described, "launch"), _rows(described, "run")
    assert (launch["nodes"][0], launch["ranks per node"][0]) == ("3", "4")
    assert "PET_NNODES=3" in launch["nodes"][1] and "torch.go" in launch["nodes"][1]
    assert launch["rendezvous"][0] == "ddp-trainer-node-0-0.ddp:29500"
    assert run["job nodes"][0] == "3" and run["job GPUs per node"][0] == "4" and run["job CPUs per node"][0] == "32"
    (tmp_path / "job.yaml").write_text(TRAINJOB.replace("    numProcPerNode: 4\n", "").replace("nvidia.com/gpu: 4", "nvidia.com/gpu: 2"))
    [described], _ = _check([tmp_path / "job.yaml"])
    assert _rows(described, "launch")["ranks per node"][0] == "2"  # "auto": one a GPU of the pod (torchrun's nproc_per_node auto)


def test_pods_that_each_run_a_training_of_their_own(tmp_path: Path) -> None:
    """aws-do-eks's volcano/vcjob.yaml: 2 pods, no pytorch plugin, a torchrun with no --nnodes
    in each: RL964 (warning), not RL501 (the launch is one node a pod, its localhost rendezvous
    is right for that). The elastic PyTorchJob beside it with the same launch is quiet."""
    root = clone("kube/aws-do-eks", tmp_path) / "Container-Root/eks/deployment/distributed-training/pytorch"
    _, result = _check([root / "volcano/vcjob.yaml"])
    assert _judged(result) == ["RL964"] and result.diagnostics[-1].severity.name == "WARNING"
    assert_snapshot("RL964", result.diagnostics, tmp_path)
    [described], elastic = _check([root / "pytorchjob/imagenet/imagenet-gpu.yaml"])
    assert _rows(described, "launch")["nodes"][0] == "2 to 36 (elastic)" and _judged(elastic) == []


def test_torchrun_waiting_for_more_nodes_than_pods(tmp_path: Path) -> None:
    path = tmp_path / "job.yaml"
    job = (clone("kube/ml-cookbook", tmp_path) / "volcano/llama-cookbook-finetuning/finetuning-job-2.yaml").read_text()
    path.write_text(job.replace("--nnodes=2", "--nnodes=3"))
    _, result = _check([path])
    [finding] = [d for d in result.diagnostics if d.code == "RL964"]
    assert finding.severity.name == "ERROR" and finding.message.startswith("torchrun waits for 3 nodes but the job starts 2 pod(s)")


def test_an_elastic_job_whose_autoscaler_may_fill_the_rendezvous(tmp_path: Path) -> None:
    """task-governance/1-imagenet-gpu-team-a.yaml with 2 Worker replicas for its `torchrun
    --nnodes 3` (as its sibling team-b file has): within minReplicas 1..maxReplicas 36 the
    autoscaler may add the third pod, so a warning, not an error."""
    source = clone(AWSOME, tmp_path) / "1.architectures/7.sagemaker-hyperpod-eks/task-governance/1-imagenet-gpu-team-a.yaml"
    path = tmp_path / "two.yaml"
    path.write_text(source.read_text().replace("      replicas: 3\n", "      replicas: 2\n"))
    _, result = _check([path])
    [finding] = [d for d in result.diagnostics if d.code == "RL964"]
    assert finding.severity.name == "WARNING" and finding.message.endswith(
        "the rendezvous fills only if the autoscaler adds pods (elastic 1:36)"
    )


def test_mpiexec_in_a_volcano_master_task_runs_in_the_worker_pods(tmp_path: Path) -> None:
    """volcano's MindSpore mindspore-gpu.yaml: `mpiexec -np 2` in the mpimaster task; the job is
    the 2 mpiworker pods (1 GPU each), not 3 pods with the master's no GPU, and the ranks are not
    2 a node (was a world of 2 x 2 on 3 nodes' reading)."""
    path = clone("kube/volcano", tmp_path) / "example/MindSpore-example/mindspore_gpu/mindspore-gpu.yaml"
    [described], result = _check([path])
    launch, run = _rows(described, "launch"), _rows(described, "run")
    assert run["job nodes"][0] == "2" and run["job nodes"][1].startswith("mpiworker replicas 2") and run["job GPUs per node"][0] == "1"
    assert launch["nodes"][0] == "2" and launch["world size"][0] == "2"
    assert _judged(result) == [] and not result.errors


PYTORCHJOB = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: ddp
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
            - name: pytorch
              image: x
              command: ["torchrun", "--nnodes=$(WORLD_SIZE)", "--node_rank=$(RANK)", "--nproc_per_node=8", "train.py"]
              resources:
                limits:
                  nvidia.com/gpu: 8
    Worker:
      replicas: 3
      template:
        spec:
          containers:
            - name: pytorch
              image: x
              resources:
                limits:
                  nvidia.com/gpu: 8
"""


def test_world_size_the_operator_sets_is_known(tmp_path: Path) -> None:
    """`--nnodes=$(WORLD_SIZE)`: Kubernetes expands it from the env the training operator adds,
    WORLD_SIZE = all replicas x nprocPerNode (1 when unset; envvar.go): 4 nodes, the pods' count."""
    path = tmp_path / "job.yaml"
    path.write_text(PYTORCHJOB)
    [described], result = _check([path])
    launch = _rows(described, "launch")
    assert launch["nodes"][0] == "4" and "$(WORLD_SIZE)" not in launch["nodes"][0] and "WORLD_SIZE = 4" in launch["nodes"][1]
    assert launch["rendezvous"][0] == "ddp-master-0:23456"
    assert _judged(result) == ["RL961"]  # 8 ranks sharing the default 64 MiB /dev/shm: the manifest has no volume there
    path.write_text(PYTORCHJOB.replace("spec:\n  pytorchReplicaSpecs", 'spec:\n  nprocPerNode: "8"\n  pytorchReplicaSpecs'))
    _, result = _check([path])
    assert [d.code for d in result.diagnostics if d.code == "RL964"] == ["RL964"]  # WORLD_SIZE is 32 ranks, not 4 nodes


DS_JOB = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: ds
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 1
      template:
        spec:
          {selector}
          containers:
            - name: pytorch
              image: x
              command: ["deepspeed", "--num_gpus", "4", "train.py", "--deepspeed", "ds.json"]
              resources:
                limits:
                  nvidia.com/gpu: 4
"""
DS_TRAIN = 'import argparse\nimport deepspeed\np = argparse.ArgumentParser()\np.add_argument("--deepspeed")\nargs = p.parse_args()\ndeepspeed.initialize(model=None, config=args.deepspeed)\n'


def test_the_gpu_model_a_node_selector_names(tmp_path: Path) -> None:
    """gpulabels.py: a nodeSelector or required node affinity naming the GPU model (GKE's
    accelerator label, GPU Feature Discovery's product, an AWS instance type) is the node's GPU:
    bf16 on GKE's nvidia-tesla-t4 nodes (7.5) is RL417; on nvidia-l4 (8.9) quiet; an affinity
    allowing a T4 or an A100 leaves the capability open (said, RL417 not judged)."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "ds.json").write_text('{"train_micro_batch_size_per_gpu": 1, "bf16": {"enabled": true}}\n')
    (tmp_path / "train.py").write_text(DS_TRAIN)
    path = tmp_path / "job.yaml"
    path.write_text(DS_JOB.format(selector="nodeSelector:\n            cloud.google.com/gke-accelerator: nvidia-tesla-t4"))
    [described], result = _check([path])
    [finding] = [d for d in result.diagnostics if d.code == "RL417"]
    assert (
        "bf16 on T4 (compute capability 7.5)" in finding.message and "nodeSelector cloud.google.com/gke-accelerator" in finding.evidence[0]
    )
    assert _rows(described, "run")["job GPU model"][0] == "T4"
    path.write_text(DS_JOB.format(selector="nodeSelector:\n            cloud.google.com/gke-accelerator: nvidia-l4"))
    _, result = _check([path])
    assert "RL417" not in _judged(result)
    affinity = (
        "affinity:\n            nodeAffinity:\n              requiredDuringSchedulingIgnoredDuringExecution:\n"
        "                nodeSelectorTerms:\n                  - matchExpressions:\n"
        "                      - {key: nvidia.com/gpu.product, operator: In, values: [Tesla-T4, NVIDIA-A100-SXM4-80GB]}"
    )
    path.write_text(DS_JOB.format(selector=affinity))
    [described], result = _check([path])
    run = _rows(described, "run")
    assert run["job GPU model"][0] == "A100 or T4" and "RL417" not in _judged(result)
    assert run["job GPU compute capability"] == (
        "not stated",
        "required node affinity nvidia.com/gpu.product In [Tesla-T4, NVIDIA-A100-SXM4-80GB]: A100 or T4: models of different compute capabilities",
    )


def test_an_instance_type_names_the_gpu(tmp_path: Path) -> None:
    """awsome-distributed-training's team-a job selects `node.kubernetes.io/instance-type:
    ml.g5.8xlarge` (SageMaker HyperPod's g5: an A10G, 8.6)."""
    path = clone(AWSOME, tmp_path) / "1.architectures/7.sagemaker-hyperpod-eks/task-governance/1-imagenet-gpu-team-a.yaml"
    [described], _ = _check([path])
    run = _rows(described, "run")
    assert run["job GPU model"][0] == "A10G" and run["job GPU compute capability"][0] == "8.6"
    assert "nodeSelector node.kubernetes.io/instance-type: ml.g5.8xlarge" in run["job GPU model"][1]


def test_gpu_label_values() -> None:
    from recipelint.toolkits.kube.gpulabels import model_of

    assert model_of("gpu.nvidia.com/class", "A100_NVLINK_80GB") == "A100"  # CoreWeave
    assert model_of("gpu.nvidia.com/class", "{{workflow.parameters.trainer_gpu}}") is None  # an Argo template's
    assert model_of("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3") == "H100"
    assert model_of("node.kubernetes.io/instance-type", "p4d.24xlarge") == "A100"
    assert model_of("node.kubernetes.io/instance-type", "m5.large") is None and model_of("node-type", "a100") is None


def test_a_plain_python_in_a_batch_job_has_no_operator(tmp_path: Path) -> None:
    """`python train.py` in a batch/v1 Job (coreweave/kubernetes-cloud's download Jobs): no
    operator sets MASTER_ADDR there, said so (was "(set by the training operator)"); in a
    PyTorchJob the operator does."""
    path = tmp_path / "job.yaml"
    job = "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\nspec:\n  template:\n    spec:\n      containers:\n        - name: c\n          image: x\n          command: [python3, train.py]\n"
    path.write_text(job)
    [described], result = _check([path])
    assert _rows(described, "launch")["rendezvous"] == (
        "unknown",
        "a Job: no operator sets MASTER_ADDR; a pod's process meets others only as its script says",
    )
    assert _judged(result) == []
    path.write_text(
        PYTORCHJOB.replace('"torchrun", "--nnodes=$(WORLD_SIZE)", "--node_rank=$(RANK)", "--nproc_per_node=8", ', '"python3", ')
    )
    [described], _ = _check([path])
    assert _rows(described, "launch")["rendezvous"][0] == "(set by the operator)"
