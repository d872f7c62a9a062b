"""A CUDA error other than out of memory: an illegal memory access, a device-side assert, a failing GPU.

## What it does
Matches torch's `CUDA error: an illegal memory access was encountered` (and the other CUDA
runtime errors: `device-side assert triggered`, `misaligned address`, `unspecified launch
failure`, `an illegal instruction was encountered`, `uncorrectable ECC error encountered`),
NCCL's `Cuda failure 700 'an illegal memory access was encountered'` and `unhandled cuda
error`, and cuBLAS's `CUBLAS_STATUS_EXECUTION_FAILED`; says which error, where it surfaced
(a kernel, NCCL, the watchdog) and when.

## Why is this bad
The CUDA context of the process is lost: the rank dies and the others wait for it. No
setting of a training recipe makes a kernel read out of bounds: the fault is in the code (an
index out of range, a custom or JIT-built kernel), a library built for another GPU, the
driver, or the GPU itself. CUDA reports errors asynchronously, so the Python line in the
traceback is often not the kernel that failed.

## Example
```
enqueue.cc:1556 NCCL WARN Cuda failure 700 'an illegal memory access was encountered'
```

## Fix
None in the recipe. Run one rank with `CUDA_LAUNCH_BLOCKING=1` to see the failing kernel, and
`compute-sanitizer` on a small input; for a device-side assert, check labels and token ids
against the model's sizes; read the node's `dmesg` for Xid errors and `nvidia-smi -q` for ECC
counts; try the NCCL/torch build made for the GPU (a new GPU generation needs a recent NCCL).

## Fix safety
No fix is applied: this is not a recipe setting.
"""

from __future__ import annotations

from recipelint.diagnose.signatures import Cause, Explanation, Found
from recipelint.diagnose.signatures._common import not_recipe, when
from recipelint.diagnostics import Severity

CODE = "LOG023"
NAME = "cuda-error"
SEVERITY = Severity.ERROR
SOURCE = (
    "CUDA runtime error strings, NCCL's CUDACHECK (`Cuda failure`); vllm#19890, pytorch-lightning#20757, "
    "TensorRT-LLM#448, NVIDIA/nccl#629, axolotl#1473, gpt-fast#98, pytorch#131755"
)
PATTERNS = {
    "torch": ("CUDA error: ", r"CUDA error: (?P<what>(?!out of memory)[a-z][a-z -]*[a-z])"),
    "nccl": ("Cuda failure", r"Cuda failure (?:(?P<code>\d+) )?'(?P<what>[^']+)'"),
    "unhandled": ("unhandled cuda error", r"unhandled cuda error"),
    "cublas": ("CUDA error: ", r"CUDA error: CUBLAS_STATUS_(?P<what>EXECUTION_FAILED|INTERNAL_ERROR|ARCH_MISMATCH)"),
    # torch's warning at start-up when its build has no kernels for the GPU (torch/cuda/__init__.py _check_capability)
    "arch": (
        "is not compatible with the current PyTorch",
        r"with CUDA capability (?P<sm>sm_\d+) is not compatible with the current PyTorch",
    ),
}
CAUSES = {
    "index": Cause(
        "an index out of range on the GPU (labels >= the number of classes, token ids >= the vocabulary, a gather "
        "or embedding with a bad index): the code or the data, not a setting"
    ),
    "kernel": Cause("a kernel that reads or writes out of bounds: a custom, fused or JIT-built op, or a library bug"),
    "build": Cause(
        "NCCL, torch or an extension not built for this GPU or driver (a new GPU generation with an older NCCL; "
        "P2P between these GPUs: try NCCL_P2P_DISABLE=1 to tell)"
    ),
    "hardware": Cause("a failing GPU or link: the node's Xid errors (dmesg) and ECC counters say"),
}


def explain(found: Found) -> Explanation | None:
    anchor = found.first("torch", "nccl", "cublas", "unhandled")
    if anchor is None:
        return None
    what = anchor.groups.get("what", "").strip() or "unhandled cuda error"
    code = anchor.groups.get("code")
    origin = "NCCL" if anchor.key.endswith((".nccl", ".unhandled")) else "CUDA"
    said = f"{origin} reported a CUDA error: {what}" + (f" (error {code})" if code else "")
    evidence = when(found, anchor)
    text = anchor.line.text + " ".join(x.text for x in anchor.after)
    if "watchdog" in text.lower() or "ProcessGroupNCCL" in text:
        evidence.append("where: the NCCL watchdog found it, after the kernel that failed had returned (CUDA errors are asynchronous)")
    lowered = what.lower()
    if "assert" in lowered:
        order = ["index", "kernel", "build", "hardware"]
    elif "no kernel image" in lowered or "arch_mismatch" in lowered:
        # cudaErrorNoKernelImageForDevice: no binary for this GPU's compute capability in the build
        order = ["build", "hardware", "kernel", "index"]
        arch = found.hits("arch")
        evidence.append(
            f"build: torch says the GPU's {arch[0].groups['sm']} is not among its build's capabilities ({arch[0].line})"
            if arch
            else "build: no kernel for this GPU's compute capability in torch or an extension (`torch.cuda.get_arch_list()` against the GPU's)"
        )
    elif "ecc" in lowered or "uncorrectable" in lowered:
        order = ["hardware", "build", "kernel", "index"]
    elif origin == "NCCL":
        order = ["build", "hardware", "kernel", "index"]
    else:
        order = ["kernel", "index", "build", "hardware"]
    evidence.append(not_recipe("the code, a library, the driver or the hardware", "cuda"))
    return Explanation(anchor, said, evidence, [(key, "") for key in order])
