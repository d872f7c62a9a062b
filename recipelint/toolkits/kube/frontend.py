"""A training manifest's launches: each container's `command` + `args` as a command line (a
`bash -c "..."` script read with the shell reader), handed to the toolkit that claims it, with
the pod's allocation and env. A plain `python train.py` in a PyTorchJob is one rank per pod (the
operator sets WORLD_SIZE, RANK and MASTER_ADDR for it: training-operator
pkg/controller.v1/pytorch/envvar.go)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from recipelint.model import Launch, Payload, Recipe, Setting
from recipelint.parse.files import FileCache, SourceError, head
from recipelint.parse.shell import Command, ShellScript, Word, parse_shell
from recipelint.parse.span import SourceText, Span
from recipelint.parse.tree import Document, Node
from recipelint.parse.where import SKIP_DIRS, repo_root
from recipelint.parse.yamlfile import parse_documents
from recipelint.records import dataclass, replace
from recipelint.toolkits import Target, script_recipes
from recipelint.toolkits.kube.manifest import PodGroup, allocation, is_manifest, names_workload, pod_groups, workload
from recipelint.toolkits.kube.operators import apply_operator

if TYPE_CHECKING:
    from recipelint.toolkits import Toolkit

SHELLS = ("bash", "sh", "/bin/bash", "/bin/sh", "/usr/bin/bash", "/usr/bin/env")
PROGRAMS = ("python", "python3", "torchrun", "deepspeed", "accelerate", "xtuner")
# The workloads whose operator sets MASTER_ADDR for a plain `python train.py` (operators.py).
OPERATORS = ("PyTorchJob", "VolcanoJob")


@dataclass
class Objects:
    """`Recipe.payload` of a manifest named alone that holds no workload recipelint reads: the
    kinds of its documents (RL555 says so)."""

    source: SourceText
    kinds: list[str]


def load_manifest(me: Toolkit, target: Target, files: FileCache) -> list[Recipe]:
    """Each document of the file read on its own: a workload's launches with its pods'
    allocation; a Service, a ConfigMap or a runtime beside it is skipped."""
    source = files.read(target.path)
    try:
        documents = parse_documents(source)
    except SourceError:
        # a Helm template (`{{ .Values.x }}`) is YAML only once rendered: not read, never an error
        template = b"{{" in source.data
        if not template and (target.explicit or names_workload(source.data)):
            raise
        return [_objects(target, source, ["a Helm template ({{ }}), YAML only once rendered"])] if target.explicit else []
    recipes: list[Recipe] = []
    for document in documents:
        if workload(document.root) is not None:
            recipes.extend(_workload_recipes(me, target, files, document, documents))
    if not recipes and target.explicit:
        kinds = [str(d.root.scalar("kind")) for d in documents if d.root.kind == "map" and d.root.scalar("kind")]
        recipes.append(_objects(target, source, kinds))
    return recipes


def _objects(target: Target, source: SourceText, kinds: list[str]) -> Recipe:
    recipe = Recipe(root=target.root, toolkit="kube", explicit=True, payload=Objects(source, kinds))
    recipe.note("launch", "manifest", ", ".join(kinds) or "no object", "no training workload recipelint reads (RL555)")
    return recipe


def _workload_recipes(me: Toolkit, target: Target, files: FileCache, document: Document, documents: list[Document]) -> list[Recipe]:
    root = document.root
    runtime = find_runtime(root, documents, target.path, files) if workload(root) == "TrainJob" else None
    groups = pod_groups(root, runtime)
    recipes: list[Recipe] = []
    for group in groups:
        for container in group.containers:
            found = _container_recipes(me, target, files, group, container, workload(root))
            for recipe in found:
                if recipe.launch is not None and recipe.launch.launcher == "mpirun" and group.ranks_in is None:
                    # mpirun in a Volcano Job's master task: its ranks run in the other tasks' pods
                    group.ranks_in = next((g for g in groups if g is not group and g.containers), None)
                recipe.allocation = allocation(root, groups, group, container)
                apply_operator(recipe, root, groups, runtime, shell=is_shell(container))
                _resolve(recipe)
            recipes.extend(found)
        if recipes:
            break  # the Master's launch stands for the Worker's (the same template, as a rule)
    if not recipes and groups:
        recipes.append(_unread(target, document, groups))
    return recipes


def _unread(target: Target, document: Document, groups: list[PodGroup]) -> Recipe:
    """A workload with no launch recipelint reads: its allocation still shows. The image's own
    entrypoint (no `command`) may be a trainer; a command that is no launch (a copy script, a
    benchmark binary) is no training document, said as such when the file is named (RL555)."""
    root, group = document.root, groups[0]
    command = next((c.get("command") for g in groups for c in g.containers if c.get("command") is not None), None)
    kind = str(root.scalar("kind"))
    payload: Payload = Objects(document.source, [kind]) if command is not None and target.explicit else document
    recipe = Recipe(root=target.root, toolkit="kube", explicit=target.explicit, payload=payload)
    if group.containers:
        recipe.allocation = allocation(root, groups, group, group.containers[0])
    if command is None:
        recipe.note("launch", "command", "the image's own entrypoint", "no command in the manifest: nothing to read")
    else:
        recipe.note("launch", "command", f"line {command.span.line}", "no training launch recipelint reads")
    return recipe


def find_runtime(job: Node, documents: list[Document], path: Path, files: FileCache) -> Node | None:
    """The ClusterTrainingRuntime or TrainingRuntime a TrainJob's runtimeRef names: in the same
    file, else in a YAML beside it, else anywhere in its repository (kubeflow/trainer keeps its
    examples in examples/yaml/ and the runtimes they name in manifests/base/runtimes/); a
    runtime installed on the cluster only is not found."""
    name = job.scalar("spec.runtimeRef.name")
    kind = job.scalar("spec.runtimeRef.kind") or "ClusterTrainingRuntime"  # trainjob_types.go's default
    if name is None:
        return None
    for document in documents:
        if document.root.scalar("kind") == kind and document.root.scalar("metadata.name") == name:
            return document.root
    top = repo_root(path.parent)
    places = sorted(path.parent.glob("*.y*ml")) + (runtime_files(top) if top is not None else [])
    for other in dict.fromkeys(places):
        if other == path or not is_manifest(other):
            continue
        try:
            others = parse_documents(files.read(other))
        except SourceError:
            continue
        for document in others:
            if document.root.scalar("kind") == kind and document.root.scalar("metadata.name") == name:
                return document.root
    return None


_RUNTIME = re.compile(rb"^kind:[ \t]*[\"']?(?:Cluster)?TrainingRuntime\b", re.MULTILINE)
_RUNTIMES: dict[Path, list[Path]] = {}
RUNTIME_SEARCH = 20_000  # entries walked at most: a larger tree's runtimes are looked for beside the job only


def runtime_files(top: Path) -> list[Path]:
    """The YAML files under `top` that hold a training runtime, once per run and tree."""
    if top not in _RUNTIMES:
        found: list[Path] = []
        seen = 0
        for folder, dirs, names in os.walk(top, followlinks=False):
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
            seen += len(dirs) + len(names)
            if seen > RUNTIME_SEARCH:
                break
            for name in sorted(n for n in names if n.endswith((".yaml", ".yml"))):
                data = head(Path(folder) / name, 65536)
                if data is not None and _RUNTIME.search(data):
                    found.append(Path(folder) / name)
        _RUNTIMES[top] = found
    return _RUNTIMES[top]


def _container_recipes(me: Toolkit, target: Target, files: FileCache, group: PodGroup, container: Node, kind: str | None) -> list[Recipe]:
    script = container_script(files, container)
    if script is None:
        return []
    recipes = script_recipes(replace(target, kind="script"), files, script, me) or _plain(target, script, kind)
    env = _env(files, container)
    for recipe in recipes:
        if recipe.launch is not None:
            recipe.launch.env = {**env, **recipe.launch.env}
    return recipes


def is_shell(container: Node) -> bool:
    """Whether the container runs `bash -c SCRIPT` (its `$VAR`s are the shell's)."""
    texts = [str(n.value) for key in ("command", "args") for n in _items(container.get(key))][:2]
    return len(texts) == 2 and texts[0] in SHELLS and _runs_string(texts[1])


def _runs_string(option: str) -> bool:
    """`-c`, alone or among bash's combined one-letter options (`-lc`, `-ec`, `-xc`: jobset's
    examples run `bash -xc`; `-ce`): the next word is the script."""
    return len(option) > 1 and option[0] == "-" and option[1:].isalpha() and "c" in option[1:]


def container_script(files: FileCache, container: Node) -> ShellScript | None:
    """The container's command line as shell: `bash -c "script"` parsed from its own text,
    an exec-form list taken word by word (each word from the file it is written in: a TrainJob's
    args may follow its runtime's command)."""
    items = [n for key in ("command", "args") for n in _items(container.get(key))]
    if not items:
        return None
    texts = [str(n.value) for n in items]
    if len(items) >= 3 and texts[0] in SHELLS and _runs_string(texts[1]):
        body = items[2]
        source = files.read(body.span.path)
        start, end = _body_range(source, body)
        return parse_shell(source, None, [(start, end)]) if start < end else None
    words = [_word(files.read(n.span.path), n) for n in items]
    last = [w for w in words if w.span.path == words[0].span.path][-1]
    command = Command(words, words[0].span.to(last.span))
    return ShellScript(files.read(words[0].span.path), [], [command], set())


def _items(node: Node | None) -> list[Node]:
    if node is None:
        return []
    if node.kind == "seq":
        return [child for child in node.children if child.kind == "scalar"]
    return [node] if node.kind == "scalar" else []


def _body_range(source: SourceText, node: Node) -> tuple[int, int]:
    """The bytes of a `-c` script: a block scalar's lines after its indicator, a plain scalar as
    written, a quoted one inside its quotes (one with escapes is not read: its text is not the
    file's)."""
    text = source.slice(node.span)
    start, end = node.span.start, node.span.end
    if text[:1] in ("|", ">"):
        newline = source.data.find(b"\n", start)
        return (newline + 1, end) if newline != -1 else (end, end)
    if text[:1] in ("'", '"'):
        inner = text[1:-1]
        return (start + 1, end - 1) if "\\" not in inner and "''" not in inner else (end, end)
    return start, end


def _word(source: SourceText, node: Node) -> Word:
    text = source.slice(node.span)
    value = str(node.value)
    word = Word(text, node.span, value)
    name, sep, rest = value.partition("=")
    if name.startswith("--") and sep:
        offset = node.span.start + (1 if node.quoted else 0) + len(name.encode()) + 1
        span = source.span(offset, offset + len(rest.encode()))
        word.option = (name, Word(rest, span, rest))
    return word


def _env(files: FileCache, container: Node) -> dict[str, Setting]:
    found: dict[str, Setting] = {}
    lists = [node for key, _, node in container.items if key == "env" and node.kind == "seq"]  # a TrainJob's and its runtime's
    for item in [item for env in lists for item in env.children]:
        name, value = item.get("name"), item.get("value")
        if name is not None and isinstance(name.value, str):
            span = (value or name).span
            source = files.read(span.path)
            word = Word(source.slice(span), span, str(value.value) if value is not None else None)
            found[name.value] = Setting(name.value, value.value if value is not None else None, True, span, None, None, word)
    return found


def _plain(target: Target, script: ShellScript, kind: str | None) -> list[Recipe]:
    """`python train.py` in a pod: one rank per pod, the operator's env gives the rest; in a
    Job, a Pod or a JobSet no operator sets MASTER_ADDR, said so."""
    command = script.commands[0] if script.commands else None
    if command is None:
        return []
    index = next((i for i, w in enumerate(command.words) if (w.value or w.text).endswith(".py")), None)
    first = (command.words[0].value or command.words[0].text).rsplit("/", 1)[-1]
    if index is None or not first.startswith("python"):
        return []
    at: Span = command.words[0].span
    launch = Launch(
        "python",
        command,
        command.words[index],
        Setting("nnodes", None, False, at, origin="the pods of the job"),
        Setting("nproc_per_node", 1, False, at, origin="one process per pod"),
        Setting("MASTER_ADDR", "(set by the operator)", False, at)
        if kind in OPERATORS
        else Setting(
            "MASTER_ADDR",
            None,
            False,
            at,
            origin=f"a {kind}: no operator sets MASTER_ADDR; a pod's process meets others only as its script says",
        ),
    )
    return [Recipe(root=target.root, toolkit="torch", script=script, launch=launch, explicit=target.explicit)]


def _resolve(recipe: Recipe) -> None:
    """A plain `python train.py` per pod leaves its node count to the job: one rank a pod. A
    torchrun without --nnodes takes it from the operator's PET_NNODES only (operators.py); where
    no operator sets one (a Volcano or batch Job, a JobSet) each pod's torchrun is one node."""
    launch, job = recipe.launch, recipe.allocation
    nodes = job.get("nodes") if job is not None else None
    if launch is None or nodes is None or launch.nnodes.given:
        return
    if launch.launcher == "python":
        launch.nnodes = replace(launch.nnodes, value=nodes.value, origin=f"the job's pods: {nodes.source()}")
