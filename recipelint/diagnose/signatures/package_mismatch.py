"""A package built or written for other releases of its dependencies than the ones installed.

## What it does
Matches the lines that say two installed packages do not fit each other: DeepSpeed's
`PyTorch version mismatch! DeepSpeed ops were compiled and installed with a different version
than what is being used at runtime`, an extension whose library misses one of torch's C++
symbols (`flash_attn_2_cuda....so: undefined symbol: _ZN3c10...`, `_ZN2at...`), an import of a
name a package no longer (or does not yet) have (`cannot import name 'X' from 'pkg'`), and a
version requirement that failed (`require_version("transformers>=4.36.2", ...)`, `... is
required for a normal functioning of this module, but found ...`, `requires accelerate>=...`).
Names the packages and versions the lines give.

## Why is this bad
The run stops at import or at the first use of the extension, before any recipe setting is
read: a wheel built for another torch (its C++ ABI or its release), a training script written
against another release of transformers or torch, DeepSpeed's ops built with the torch of
another environment. The recipe cannot fix it; the environment's packages can.

## Example
```
ImportError: /opt/lib/python3.12/site-packages/flash_attn_2_cuda.cpython-312-x86_64-linux-gnu.so: undefined symbol: _ZN3c104cuda9SetDeviceEi
```

## Fix
Not in the recipe: install the releases that fit each other (a flash-attn wheel built for the
installed torch, CUDA and C++ ABI, or build it from source; the transformers the project pins;
reinstall DeepSpeed with the torch that runs). `pip list` in the training environment says
what is installed.

## Fix safety
No fix is applied: the environment, not the recipe.
"""

from __future__ import annotations

from recipelint.diagnose.signatures import Cause, Explanation, Found
from recipelint.diagnose.signatures._common import not_recipe, when
from recipelint.diagnostics import Severity

CODE = "LOG028"
NAME = "package-mismatch"
SEVERITY = Severity.ERROR
SOURCE = (
    "deepspeed/git_version_info.py and op_builder/builder.py (the torch version check); torch's C++ symbols (c10, at); "
    "transformers/utils/versions.py (require_version); flash-attention#853, flash-attention#1832, transformers#2820, "
    "nlp-recipes#516, DRhard#11, ru-gpts#53, SimCSE#199"
)
PATTERNS = {
    "ops-torch": (
        "PyTorch version mismatch",
        r"PyTorch version mismatch! DeepSpeed ops were compiled and installed with a different version"
        r"(?:.*?Install torch version=(?P<built>[\w.+]+), Runtime torch version=(?P<runtime>[\w.+]+))?",
    ),
    # torch's own C++ namespaces in a mangled name: c10, at (ATen), torch.
    "torch-symbol": ("symbol: _ZN", r"(?:(?P<path>\S+?\.so):?\s*)?(?:undefined\s*)?symbol: (?P<symbol>_ZN\d+(?:c10|at|torch)\w*)"),
    "import-name": (
        "cannot import name",
        r"(?:^\s*|ImportError: )cannot import name '(?P<name>\w+)'(?: from '(?P<module>[\w.]+)')?",
    ),
    "require": ("require_version(", r"require_version\(\"(?P<req>[^\"]+)\""),
    "required-found": (
        "is required for a normal functioning of this module",
        r"(?P<req>[\w.-]+[<>=!~]=?[\w.]+) is required for a normal functioning of this module, but found (?P<found>[\w.-]+==[\w.+]+)",
    ),
    "requires": ("requires `", r"requires `(?P<req>[\w.-]+[<>=]=?[\w.]+)`"),
}
CAUSES = {
    "other-torch": Cause(
        "the package's compiled library was built for another torch (release, CUDA or C++ ABI) than the one installed: "
        "install the wheel built for this torch, or build it from source against it"
    ),
    "api": Cause("the code imports a name its installed dependency no longer (or does not yet) have: install the release the project pins"),
    "requirement": Cause("a package older (or newer) than the project requires: install the release the line names"),
}


def explain(found: Found) -> Explanation | None:
    symbols = [h for h in found.hits("torch-symbol") if "torch_extensions" not in h.line.text and "deepspeed" not in h.line.text]
    anchor = found.first("ops-torch", "required-found", "require", "requires") or (symbols[0] if symbols else None)
    anchor = anchor or found.first("import-name")
    if anchor is None:
        return None
    kind = anchor.key.rsplit(".", 1)[-1]
    evidence = when(found, anchor)
    groups = anchor.groups
    if kind == "ops-torch":
        versions = f" (built with torch {groups['built']}, run with {groups['runtime']})" if groups.get("built") else ""
        said = f"DeepSpeed's ops were built with another torch than the one that runs{versions}"
        causes = [("other-torch", "DeepSpeed says so"), ("requirement", "")]
    elif kind == "torch-symbol":
        library = (groups.get("path") or "").rsplit("/", 1)[-1] or "an extension's library"
        said = f"{library} misses torch's C++ symbol {groups['symbol']}: it was built for another torch"
        causes = [("other-torch", f"{groups['symbol']} is in torch's c10/ATen namespace"), ("requirement", "")]
    elif kind == "import-name":
        where = f" from {groups['module']}" if groups.get("module") else ""
        said = f"the code imports {groups['name']}{where}, which the installed release does not have"
        causes = [("api", ""), ("requirement", "")]
    else:
        found_text = f", found {groups['found']}" if groups.get("found") else ""
        said = f"the installed packages do not meet {groups['req']}{found_text}"
        causes = [("requirement", "the line names the requirement"), ("api", "")]
    evidence.append(not_recipe("the installed packages do not fit each other", "packages"))
    return Explanation(anchor, said, evidence, causes)
