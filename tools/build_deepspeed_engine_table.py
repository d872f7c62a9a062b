"""Build schemas/deepspeed/engine.json: what DeepSpeed's engine builds from the JSON's optimizer and
scheduler blocks, release by release, read from source with `ast` (nothing is imported).

    python tools/build_deepspeed_engine_table.py --git /path/to/DeepSpeed.git \
        --sdist deepspeed-0.19.6.tar.gz --sdist deepspeed-0.19.7.tar.gz --sdist deepspeed-0.19.8.tar.gz \
        --torch-wheel torch-2.13.0+cpu-cp311-...whl --torch-wheel torch-2.14.1-cp311-...whl

To add the releases older than a table's oldest (a snapshot that stops at an older tag, e.g.
microsoft/DeepSpeed's), keeping the rest of the table:

    python tools/build_deepspeed_engine_table.py --git /path/to/DeepSpeed.git --older-than-table --first-tag 0.8.0

For each DeepSpeed release (the git tags from v0.8.0 on, then the sdists for the releases the git
snapshot has no tag of):
- `DEEPSPEED_OPTIMIZERS` of deepspeed/runtime/config.py: the names the engine lower-cases into
  its own optimizers (any other name must be a torch.optim class, case-sensitive);
- `ZERO_SUPPORTED_OPTIMIZERS` of deepspeed/runtime/zero/utils.py: the classes ZeRO runs without
  `zero_allow_untested_optimizer`;
- the `__init__` signatures of the classes `_configure_basic_optimizer` (deepspeed/runtime/engine.py)
  constructs with `**params`, and of the lr_schedules classes `_scheduler_from_config` does.
For each torch wheel, the public optimizers of torch/optim/__init__.py and the schedulers of
torch/optim/lr_scheduler.py, with their signatures. Only the releases where something changes are
kept, so a lookup takes the newest entry at or below the release asked for.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import subprocess
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent.parent / "schemas" / "deepspeed" / "engine.json"
FIRST_TAG = (0, 8, 0)
# The classes the engine builds, where they live, and how many leading arguments it passes by
# position (the parameters; OnebitAdam and its kin also take the engine itself).
DS_CLASSES: dict[str, tuple[str, int]] = {
    "FusedAdam": ("deepspeed/ops/adam/fused_adam.py", 1),
    "DeepSpeedCPUAdam": ("deepspeed/ops/adam/cpu_adam.py", 1),
    "DeepSpeedCPUAdagrad": ("deepspeed/ops/adagrad/cpu_adagrad.py", 1),
    "FusedLamb": ("deepspeed/ops/lamb/fused_lamb.py", 1),
    "FusedLion": ("deepspeed/ops/lion/fused_lion.py", 1),
    "DeepSpeedCPULion": ("deepspeed/ops/lion/cpu_lion.py", 1),
    "OnebitAdam": ("deepspeed/runtime/fp16/onebit/adam.py", 2),
    "ZeroOneAdam": ("deepspeed/runtime/fp16/onebit/zoadam.py", 2),
    "OnebitLamb": ("deepspeed/runtime/fp16/onebit/lamb.py", 2),
    "LRRangeTest": ("deepspeed/runtime/lr_schedules.py", 1),
    "OneCycle": ("deepspeed/runtime/lr_schedules.py", 1),
    "WarmupLR": ("deepspeed/runtime/lr_schedules.py", 1),
    "WarmupDecayLR": ("deepspeed/runtime/lr_schedules.py", 1),
    "WarmupCosineLR": ("deepspeed/runtime/lr_schedules.py", 1),
}
CONFIG = "deepspeed/runtime/config.py"
ZERO_UTILS = "deepspeed/runtime/zero/utils.py"
TORCH_OPTIM = "torch/optim/"
Reader = Callable[[str], str | None]


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.lstrip("v").split(".")[:3] if p.isdigit())


def _tree(read: Reader, path: str) -> ast.Module | None:
    text = read(path)
    return ast.parse(text) if text is not None else None


def _classes(tree: ast.Module) -> dict[str, ast.ClassDef]:
    return {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}


def signature(classes: dict[str, ast.ClassDef], name: str, skip: int) -> dict[str, Any] | None:
    """The keyword arguments `__init__` takes after the `skip` positional ones, which have no
    default, and whether it takes **kwargs. A class without its own `__init__` has its base's."""
    node = classes.get(name)
    while node is not None:
        init = next((f for f in node.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
        if init is not None:
            break
        bases = [b.id for b in node.bases if isinstance(b, ast.Name)]
        node = classes.get(bases[0]) if bases else None
    if node is None or init is None:
        return None
    args = init.args
    positional = [*args.posonlyargs, *args.args][1 + skip :]
    first_default = len(positional) - len(args.defaults)
    required = [a.arg for i, a in enumerate(positional) if i < first_default]
    required += [a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is None]
    found: dict[str, Any] = {
        "params": [a.arg for a in positional] + [a.arg for a in args.kwonlyargs],
        "required": required,
        "kwargs": args.kwarg is not None,
    }
    refuses = _refuses(init, set(found["params"])) | _group_refuses(node)
    if refuses:
        found["refuses"] = refuses
    return found


def _group_refuses(cls: ast.ClassDef) -> dict[str, str]:
    """`if param_group.get('amsgrad', ...): raise RuntimeError(...)` in `add_param_group`, which
    torch's Optimizer.__init__ calls for every group: refused at construction too (DeepSpeedCPUAdam)."""
    out = {}
    for method in cls.body:
        if not (isinstance(method, ast.FunctionDef) and method.name == "add_param_group"):
            continue
        for node in method.body:
            test = node.test if isinstance(node, ast.If) else None
            if isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute) and test.func.attr == "get" and test.args:
                key = test.args[0].value if isinstance(test.args[0], ast.Constant) else None
                message = _raised(node.body) if isinstance(node, ast.If) else None
                if isinstance(key, str) and message:
                    out[key] = message
    return out


def _raised(body: list[ast.stmt]) -> str | None:
    """'RuntimeError: message' when the block is one `raise Error('message')`."""
    raised = body[0] if len(body) == 1 and isinstance(body[0], ast.Raise) else None
    call = raised.exc if raised is not None else None
    said = call.args[0].value if isinstance(call, ast.Call) and call.args and isinstance(call.args[0], ast.Constant) else None
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and isinstance(said, str):
        return f"{call.func.id}: {said}"
    return None


def _refuses(init: ast.FunctionDef, params: set[str]) -> dict[str, str]:
    """`if amsgrad: raise RuntimeError('FusedAdam does not support the AMSGrad variant.')` at the
    top of `__init__`: a parameter the constructor takes only to refuse a true value."""
    out = {}
    for node in init.body:
        if not (isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id in params):
            continue
        message = _raised(node.body)
        if message:
            out[node.test.id] = message
    return out


def _constants(tree: ast.Module) -> dict[str, str]:
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            out.update({t.id: node.value.value for t in node.targets if isinstance(t, ast.Name)})
    return out


def _list_named(tree: ast.Module, name: str) -> list[ast.expr]:
    items: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            items += node.value.elts if isinstance(node.value, ast.List) else []
        call = node.value if isinstance(node, ast.Expr) else None
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "append":
            if isinstance(call.func.value, ast.Name) and call.func.value.id == name:
                items += call.args
    return items


def _last_name(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        dotted = ast.unparse(node)
        return "torch." + node.attr if dotted.startswith("torch.optim.") else dotted
    return ast.unparse(node)


def deepspeed_release(read: Reader) -> dict[str, Any]:
    config = _tree(read, CONFIG)
    assert config is not None, CONFIG
    constants = {**_constants(_tree(read, "deepspeed/runtime/constants.py") or ast.Module([], [])), **_constants(config)}
    names = [constants.get(ast.unparse(e), ast.unparse(e)) for e in _list_named(config, "DEEPSPEED_OPTIMIZERS")]
    zero = _tree(read, ZERO_UTILS)
    tested = sorted({_last_name(e) for e in _list_named(zero, "ZERO_SUPPORTED_OPTIMIZERS")}) if zero else []
    classes: dict[str, Any] = {}
    for name, (path, skip) in DS_CLASSES.items():
        tree = _tree(read, path)
        classes[name] = signature(_classes(tree), name, skip) if tree is not None else None
    return {"optimizers": names, "zero_tested": tested, "classes": classes}


def torch_release(read: Reader, listing: list[str]) -> dict[str, Any]:
    init = _tree(read, TORCH_OPTIM + "__init__.py")
    assert init is not None
    exported = [
        ast.literal_eval(n.value)
        for n in ast.walk(init)
        if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in n.targets)
    ]
    public = {str(x) for names in exported for x in names}
    classes: dict[str, ast.ClassDef] = {}
    for path in listing:
        if path.startswith(TORCH_OPTIM) and path.count("/") == 2 and path.endswith(".py"):
            tree = _tree(read, path)
            classes.update(_classes(tree) if tree is not None else {})
    sched_tree = _tree(read, TORCH_OPTIM + "lr_scheduler.py")
    schedulers = _classes(sched_tree) if sched_tree is not None else {}
    optim = {n: signature(classes, n, 1) for n in sorted(public) if n in classes and n[0].isupper() and n not in ("Optimizer",)}
    sched_all = (
        [
            ast.literal_eval(n.value)
            for n in ast.walk(sched_tree)
            if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in n.targets)
        ]
        if sched_tree
        else []
    )
    sched_names = {str(x) for names in sched_all for x in names} or set(schedulers)
    sched = {n: signature(schedulers, n, 1) for n in sorted(sched_names) if n in schedulers and n[0].isupper()}
    return {
        "optimizers": {k: v for k, v in optim.items() if v is not None},
        "schedulers": {k: v for k, v in sched.items() if v is not None},
    }


def _git_reader(git: str, tag: str) -> Reader:
    def read(path: str) -> str | None:
        done = subprocess.run(["git", "--git-dir", git, "show", f"{tag}:{path}"], capture_output=True, text=True, check=False)
        return done.stdout if done.returncode == 0 else None

    return read


def _archive_reader(path: Path) -> tuple[Reader, list[str]]:
    if path.suffix == ".whl":
        archive = zipfile.ZipFile(path)
        names = archive.namelist()
        return (lambda p: archive.read(p).decode() if p in names else None), names
    tar = tarfile.open(path)
    top = tar.getnames()[0].split("/")[0]
    members = {m.name[len(top) + 1 :]: m for m in tar.getmembers() if m.isfile()}

    def read(p: str) -> str | None:
        member = members.get(p)
        handle = tar.extractfile(member) if member is not None else None
        return handle.read().decode() if handle is not None else None

    return read, list(members)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def changes(by_release: list[tuple[str, Any]]) -> list[list[Any]]:
    """[[release, value], ...] keeping only the releases where the value changes."""
    out: list[list[Any]] = []
    for release, value in by_release:
        if not out or out[-1][1] != value:
            out.append([release, value])
    return out


def build(
    git: str | None, sdists: list[Path], wheels: list[Path], first: tuple[int, ...] = FIRST_TAG, before: tuple[int, ...] = (1_000,)
) -> dict[str, Any]:
    releases: list[tuple[str, dict[str, Any]]] = []
    sources: dict[str, str] = {}
    if git:
        tags = subprocess.run(["git", "--git-dir", git, "tag"], capture_output=True, text=True, check=True).stdout.split()
        for tag in sorted((t for t in tags if t.startswith("v") and t.count(".") == 2 and first <= _version(t) < before), key=_version):
            commit = subprocess.run(
                ["git", "--git-dir", git, "rev-list", "-n1", tag], capture_output=True, text=True, check=True
            ).stdout.strip()
            releases.append((tag.lstrip("v"), deepspeed_release(_git_reader(git, tag))))
            sources[tag.lstrip("v")] = f"deepspeedai/DeepSpeed@{commit} (tag {tag})"
    for sdist in sorted(sdists, key=lambda p: _version(p.name.split("-")[1].removesuffix(".tar.gz"))):
        version = sdist.name.split("-")[1].removesuffix(".tar.gz")
        releases.append((version, deepspeed_release(_archive_reader(sdist)[0])))
        sources[version] = f"PyPI sdist {sdist.name} sha256 {_sha256(sdist)}"
    deepspeed = {
        "optimizers": changes([(r, d["optimizers"]) for r, d in releases]),
        "zero_tested": changes([(r, d["zero_tested"]) for r, d in releases]),
        "classes": {
            name: {"file": DS_CLASSES[name][0], "by_release": changes([(r, d["classes"][name]) for r, d in releases])}
            for name in DS_CLASSES
        },
        "releases": [r for r, _ in releases],
        "sources": sources,
    }
    torch: dict[str, Any] = {"releases": [], "sources": {}, "optimizers": {}, "schedulers": {}}
    for wheel in wheels:
        version = wheel.name.split("-")[1].split("+")[0]
        read, listing = _archive_reader(wheel)
        found = torch_release(read, listing)
        torch["releases"].append(version)
        torch["sources"][version] = f"PyPI wheel {wheel.name} sha256 {_sha256(wheel)}"
        for kind in ("optimizers", "schedulers"):
            for name, sig in found[kind].items():
                torch[kind].setdefault(name, {})[version] = sig
    return {
        "$comment": "Generated by tools/build_deepspeed_engine_table.py from DeepSpeed and torch source read with ast; do not edit.",
        "deepspeed": deepspeed,
        "torch": torch,
    }


def merge_older(older: dict[str, Any], table: dict[str, Any]) -> dict[str, Any]:
    """`table` with the DeepSpeed releases of `older` (built from older tags only) before its own:
    each change list is the two joined, unchanged runs collapsed again; torch is `table`'s."""
    ds, old = table["deepspeed"], older["deepspeed"]
    joined = {
        "optimizers": changes([*map(tuple, old["optimizers"]), *map(tuple, ds["optimizers"])]),
        "zero_tested": changes([*map(tuple, old["zero_tested"]), *map(tuple, ds["zero_tested"])]),
        "classes": {
            name: {
                "file": entry["file"],
                "by_release": changes([*map(tuple, old["classes"][name]["by_release"]), *map(tuple, entry["by_release"])]),
            }
            for name, entry in ds["classes"].items()
        },
        "releases": [*old["releases"], *ds["releases"]],
        "sources": {**old["sources"], **ds["sources"]},
    }
    return {**table, "deepspeed": joined}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--git", help="a bare clone of deepspeedai/DeepSpeed")
    parser.add_argument("--sdist", action="append", type=Path, default=[])
    parser.add_argument("--torch-wheel", action="append", type=Path, default=[])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument(
        "--older-than-table",
        action="store_true",
        help="add the git tags from --first-tag up to the oldest release of the table at --out to it (torch and the newer releases kept)",
    )
    parser.add_argument("--first-tag", default=".".join(map(str, FIRST_TAG)), help="the oldest tag read from --git (default %(default)s)")
    args = parser.parse_args()
    if args.older_than_table:
        current = json.loads(args.out.read_text())
        oldest = _version(current["deepspeed"]["releases"][0])
        older = build(args.git, [], [], _version(args.first_tag), oldest)
        table = merge_older(older, current)
    else:
        table = build(args.git, args.sdist, args.torch_wheel, _version(args.first_tag))
    args.out.write_text(json.dumps(table, indent=1, sort_keys=False) + "\n")
    print(
        f"wrote {args.out}: deepspeed {table['deepspeed']['releases'][0]}..{table['deepspeed']['releases'][-1]}, torch {', '.join(table['torch']['releases'])}"
    )


if __name__ == "__main__":
    main()
