"""The GPU model a pod's node selector or required node affinity names, read as the node's:
labels whose value names the GPU model (or the instance type that carries it), and the
compute capability that model has.

- `nvidia.com/gpu.product`: NVIDIA GPU Feature Discovery's label, the product name with spaces
  as dashes (`NVIDIA-A100-SXM4-80GB`, `Tesla-T4`; NVIDIA/k8s-device-plugin
  docs/gpu-feature-discovery/README.md, "Generated Labels").
- `cloud.google.com/gke-accelerator`: GKE's (`nvidia-tesla-t4`, `nvidia-a100-80gb`,
  `nvidia-h100-80gb`; cloud.google.com/kubernetes-engine/docs/how-to/gpus).
- `gpu.nvidia.com/class`: CoreWeave's (`A100_NVLINK_80GB`, `A40`; docs.coreweave.com, "Node
  Types"; coreweave/kubernetes-cloud's manifests select by it).
- `node.kubernetes.io/instance-type` (and the beta label): an AWS instance type whose family has
  one GPU model (`p4d.24xlarge` A100, `p5.48xlarge` H100, `g5.8xlarge` A10G; SageMaker
  HyperPod's `ml.` types alike; aws.amazon.com/ec2/instance-types/, "Accelerated Computing").

Compute capabilities: NVIDIA's CUDA GPUs table (developer.nvidia.com/cuda-gpus).
"""

from __future__ import annotations

import re

from recipelint.allocation import Allocation, Grant
from recipelint.parse.tree import Node

PRODUCT, GKE, COREWEAVE = "nvidia.com/gpu.product", "cloud.google.com/gke-accelerator", "gpu.nvidia.com/class"
INSTANCE = ("node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type")
# AWS instance families with one GPU model.
AWS_FAMILIES = {
    "p3": "V100",
    "p3dn": "V100",
    "g4dn": "T4",
    "g5": "A10G",
    "g6": "L4",
    "g6e": "L40S",
    "p4d": "A100",
    "p4de": "A100",
    "p5": "H100",
    "p5e": "H200",
    "p5en": "H200",
}
# Model names (as a word of the label's value) and their compute capability, the most specific first.
CAPABILITY = (
    ("GH200", "9.0"),
    ("H200", "9.0"),
    ("H100", "9.0"),
    ("B200", "10.0"),
    ("L40S", "8.9"),
    ("L40", "8.9"),
    ("L4", "8.9"),
    ("A100", "8.0"),
    ("A30", "8.0"),
    ("A10G", "8.6"),
    ("A10", "8.6"),
    ("A40", "8.6"),
    ("T4", "7.5"),
    ("V100", "7.0"),
    ("P100", "6.0"),
)
_WORDS = re.compile(r"[A-Za-z0-9]+")


def selected(spec: Node) -> list[tuple[str, list[str], str, Node]]:
    """(label, the values it allows, how the pod says it, where) for each label of a pod spec's nodeSelector, and each
    `In` expression of its required node affinity (a pod lands on a node matching one term)."""
    found: list[tuple[str, list[str], str, Node]] = []
    selector = spec.get("nodeSelector")
    for key, _, node in selector.items if selector is not None and selector.kind == "map" else []:
        if node.kind == "scalar" and node.value is not None:
            found.append((key, [str(node.value)], f"nodeSelector {key}: {node.value}", node))
    terms = spec.get("affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms")
    for term in terms.children if terms is not None and terms.kind == "seq" else []:
        expressions = term.get("matchExpressions")
        for expression in expressions.children if expressions is not None and expressions.kind == "seq" else []:
            values = expression.get("values")
            if expression.scalar("operator") == "In" and values is not None and values.kind == "seq":
                key, allowed = str(expression.scalar("key")), [str(v.value) for v in values.children if v.kind == "scalar"]
                found.append((key, allowed, f"required node affinity {key} In [{', '.join(allowed)}]", values))
    return found


def model_of(label: str, value: str) -> str | None:
    """The GPU model a label's value names, None for a label or value that names none."""
    if label in INSTANCE:
        family = value.removeprefix("ml.").split(".", 1)[0]
        return AWS_FAMILIES.get(family)
    if label not in (PRODUCT, GKE, COREWEAVE):
        return None
    words = {word.upper() for word in _WORDS.findall(value)}
    return next((name for name, _ in CAPABILITY if name in words), None)


def capability(model: str) -> str | None:
    return next((cc for name, cc in CAPABILITY if name == model), None)


def gpu_model(job: Allocation, spec: Node) -> None:
    """The GPU model and compute capability of the nodes the pod may land on, where its labels
    name one model (or models of one capability); said open where they name several."""
    for label, values, how, node in selected(spec):
        models = [model_of(label, value) for value in values]
        if not models or any(m is None for m in models):
            continue
        named = sorted({m for m in models if m is not None})
        said = f"{how}: {' or '.join(named)}"
        job.grants["gpu_model"] = Grant(" or ".join(named), said, node.span)
        levels = {capability(m) for m in named}
        if len(levels) == 1 and None not in levels:
            job.grants["gpu_compute_capability"] = Grant(levels.pop(), f"{said}: NVIDIA's compute capability table", node.span)
        else:
            job.unknown["gpu_compute_capability"] = f"{said}: models of different compute capabilities"
        return
