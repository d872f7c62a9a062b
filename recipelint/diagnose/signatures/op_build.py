"""A compiled op DeepSpeed (or another extension) needs is not built, or was built for another torch.

## What it does
Matches the lines of an extension that could not be loaded: the JIT-built op's library missing
(`cpu_adam.so: cannot open shared object file`), the follow-on `'DeepSpeedCPUAdam' object has
no attribute 'ds_opt_adam'`, a build that stopped (`Error building extension 'fused_adam'`,
`#error You need C++14 to compile PyTorch`, `CUDA_HOME does not exist, unable to compile CUDA
op(s)`), and a library built against another torch (`cpu_adam_op....so: undefined symbol: ...`),
and names the op.

## Why is this bad
DeepSpeed builds its C++/CUDA ops (CPU Adam for optimizer offload, fused Adam, ...) on first use
with the compiler and CUDA toolkit of the environment, unless they were built at install
(`DS_BUILD_CPU_ADAM=1 pip install deepspeed`). When that build fails the optimizer is never
made and the run stops at `deepspeed.initialize`; what the log shows first is often the
follow-on AttributeError of the half-made object, which reads like a bug in the recipe.

## Example
```
ImportError: /home/u/.cache/torch_extensions/py310_cu121/cpu_adam/cpu_adam.so: cannot open shared object file: No such file or directory
Exception ignored in: <function DeepSpeedCPUAdam.__del__ at 0x77ba6e033640>
AttributeError: 'DeepSpeedCPUAdam' object has no attribute 'ds_opt_adam'
```

## Fix
Not in the recipe: build the op in the training environment (`DS_BUILD_CPU_ADAM=1 pip install
deepspeed --no-cache-dir`, with the CUDA toolkit that matches torch's and a compiler it
supports; `ds_report` says which ops are built), or clear a stale build
(`~/.cache/torch_extensions`). Dropping CPU offload from the DeepSpeed JSON avoids CPU Adam at
the cost of GPU memory.

## Fix safety
No fix is applied: the environment, not the recipe.
"""

from __future__ import annotations

from recipelint.diagnose.signatures import Cause, Explanation, Found
from recipelint.diagnose.signatures._common import not_recipe, when
from recipelint.diagnostics import Severity

CODE = "LOG026"
NAME = "op-not-built"
SEVERITY = Severity.ERROR
SOURCE = (
    "deepspeed/ops/op_builder/builder.py (jit_load), deepspeed/ops/adam/cpu_adam.py; torch.utils.cpp_extension; "
    "DeepSpeed#5723, DeepSpeed#4532, DeepSpeed#1846, DeepSpeed#4576, LMFlow#470, LlamaFactory#2650, Llama-Chinese#351"
)
PATTERNS = {
    "missing-so": (
        "cannot open shared object file",
        r"(?P<path>\S*(?:torch_extensions|deepspeed)\S*/(?P<op>\w+?)(?:_op\S*)?\.so): cannot open shared object file",
    ),
    "half-made": ("ds_opt_adam", r"'(?P<cls>DeepSpeed\w+)' object has no attribute 'ds_opt_adam'"),
    "build-failed": ("Error building extension", r"Error building extension '(?P<op>\w+)'"),
    "cxx14": ("You need C++14", r"You need C\+\+14 to compile PyTorch"),
    "cuda-home": ("CUDA_HOME does not exist", r"CUDA_HOME does not exist, unable to compile CUDA op"),
    "undefined-symbol": (
        "undefined symbol",
        r"(?P<path>\S*(?:torch_extensions|deepspeed)\S*/(?P<op>\w+?)(?:_op\S*)?\.so): undefined symbol: (?P<symbol>\S+)",
    ),
}
CAUSES = {
    "jit-build": Cause(
        "DeepSpeed's just-in-time build of the op failed in this environment (compiler, CUDA toolkit or ninja): "
        "build it at install, DS_BUILD_CPU_ADAM=1 (or DS_BUILD_FUSED_ADAM=1, DS_BUILD_OPS=1) pip install deepspeed --no-cache-dir"
    ),
    "abi": Cause("the op was built against another torch or CUDA than the one installed: rebuild it (clear ~/.cache/torch_extensions)"),
    "toolchain": Cause("the compiler or CUDA toolkit is missing or too old for this torch (CUDA_HOME, gcc with C++14/17)"),
    "offload": Cause(
        "only CPU offload needs CPU Adam: without offload_optimizer in the DeepSpeed JSON the op is not built (more GPU memory)"
    ),
}


def explain(found: Found) -> Explanation | None:
    anchor = found.first("missing-so", "build-failed", "undefined-symbol", "cxx14", "cuda-home", "half-made")
    if anchor is None:
        return None
    op = anchor.groups.get("op") or ("cpu_adam" if anchor.key.endswith(".half-made") else "")
    said = f"the compiled op {op} could not be loaded" if op else "a compiled op could not be built or loaded"
    said += ": the run stops before training, at the optimizer's construction"
    evidence = when(found, anchor)
    if found.stats("half-made").count and not anchor.key.endswith(".half-made"):
        evidence.append("then: the half-made optimizer's AttributeError ('ds_opt_adam') follows the load failure; it is not the cause")
    causes: list[tuple[str, str]]
    if found.stats("undefined-symbol").count:
        symbol = found.hits("undefined-symbol")[0].groups.get("symbol", "")
        causes = [("abi", f"undefined symbol {symbol}: built against other libraries"), ("jit-build", ""), ("toolchain", "")]
    elif found.stats("cxx14").count or found.stats("cuda-home").count:
        causes = [("toolchain", "the build says what the environment lacks"), ("jit-build", ""), ("abi", "")]
    else:
        causes = [("jit-build", ""), ("abi", ""), ("toolchain", "")]
    if op.startswith("cpu_adam") or anchor.key.endswith(".half-made"):
        causes.append(("offload", "CPU Adam is DeepSpeed's optimizer for offload_optimizer to the CPU"))
    evidence.append(not_recipe("the training environment's build of the op", "build"))
    offload = [line for line in found.scene.settings_at("zero_optimization.offload_optimizer.device") if line.endswith(" cpu")]
    return Explanation(anchor, said, evidence, causes, recipe_lines={"offload": offload} if offload else {})
