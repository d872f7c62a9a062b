"""A training manifest's launches: each container's `command` + `args` as a command line (a
`bash -c "..."` script read with the shell reader), handed to the toolkit that claims it, with
the pod's allocation and env. A plain `python train.py` in a PyTorchJob is one rank per pod (the
operator sets WORLD_SIZE, RANK and MASTER_ADDR for it: training-operator
pkg/controller.v1/pytorch/envvar.go)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from recipelint.model import Launch, Recipe, Setting
from recipelint.parse.files import FileCache
from recipelint.parse.shell import Command, ShellScript, Word, parse_shell
from recipelint.parse.span import SourceText, Span
from recipelint.parse.tree import Node
from recipelint.parse.yamlfile import parse_yaml
from recipelint.records import replace
from recipelint.toolkits import Target, script_recipes
from recipelint.toolkits.kube.manifest import PodGroup, allocation, pod_groups

if TYPE_CHECKING:
    from recipelint.toolkits import Toolkit

SHELLS = ("bash", "sh", "/bin/bash", "/bin/sh", "/usr/bin/bash", "/usr/bin/env")
PROGRAMS = ("python", "python3", "torchrun", "deepspeed", "accelerate", "xtuner")


def load_manifest(me: Toolkit, target: Target, files: FileCache) -> list[Recipe]:
    document = parse_yaml(files.read(target.path))
    root = document.root
    if root.kind != "map":
        return []
    groups = pod_groups(root)
    recipes: list[Recipe] = []
    for group in groups:
        for container in group.containers:
            found = _container_recipes(me, target, files, document.source, group, container)
            for recipe in found:
                recipe.allocation = allocation(root, groups, group, container)
                _resolve(recipe)
                if root.scalar("kind") == "PyTorchJob":
                    _operator_env(recipe, root)
            recipes.extend(found)
        if recipes:
            break  # the Master's launch stands for the Worker's (the same template, as a rule)
    if not recipes and groups:
        # a manifest whose image runs its own entrypoint: its allocation still shows, no trainer reads it
        recipe = Recipe(root=target.root, toolkit="kube", explicit=target.explicit, payload=document)
        group = groups[0]
        if group.containers:
            recipe.allocation = allocation(root, groups, group, group.containers[0])
        recipe.note("launch", "command", "the image's own entrypoint", "no command in the manifest: nothing to read")
        recipes.append(recipe)
    return recipes


def _container_recipes(me: Toolkit, target: Target, files: FileCache, source: SourceText, group: PodGroup, container: Node) -> list[Recipe]:
    script = container_script(source, container)
    if script is None:
        return []
    recipes = script_recipes(replace(target, kind="script"), files, script, me) or _plain(target, script)
    env = _env(source, container)
    for recipe in recipes:
        if recipe.launch is not None:
            recipe.launch.env = {**env, **recipe.launch.env}
    return recipes


def container_script(source: SourceText, container: Node) -> ShellScript | None:
    """The container's command line as shell: `bash -c "script"` parsed from its own text,
    an exec-form list taken word by word."""
    items = [n for key in ("command", "args") for n in _items(container.get(key))]
    if not items:
        return None
    texts = [str(n.value) for n in items]
    if len(items) >= 3 and texts[0] in SHELLS and texts[1] in ("-c", "-lc", "-ec"):
        body = items[2]
        start, end = _body_range(source, body)
        return parse_shell(source, None, [(start, end)]) if start < end else None
    words = [_word(source, n) for n in items]
    command = Command(words, words[0].span.to(words[-1].span))
    return ShellScript(source, [], [command], set())


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


def _env(source: SourceText, container: Node) -> dict[str, Setting]:
    found: dict[str, Setting] = {}
    env = container.get("env")
    for item in env.children if env is not None and env.kind == "seq" else []:
        name, value = item.get("name"), item.get("value")
        if name is not None and isinstance(name.value, str):
            span = (value or name).span
            word = Word(source.slice(span), span, str(value.value) if value is not None else None)
            found[name.value] = Setting(name.value, value.value if value is not None else None, True, span, None, None, word)
    return found


def _plain(target: Target, script: ShellScript) -> list[Recipe]:
    """`python train.py` in a pod: one rank per pod, the operator's env gives the rest."""
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
        Setting("MASTER_ADDR", "(set by the training operator)", False, at),
    )
    return [Recipe(root=target.root, toolkit="torch", script=script, launch=launch, explicit=target.explicit)]


def _resolve(recipe: Recipe) -> None:
    """A launch that leaves its node count to the job (the operator's PET_NNODES, a plain python
    per pod) takes the pods' count."""
    launch, job = recipe.launch, recipe.allocation
    nodes = job.get("nodes") if job is not None else None
    if launch is None or nodes is None or launch.nnodes.given:
        return
    if launch.launcher in ("python", "torchrun"):
        launch.nnodes = replace(launch.nnodes, value=nodes.value, origin=f"the job's pods: {nodes.source()}")


def _operator_env(recipe: Recipe, root: Node) -> None:
    """What the training operator tells torchrun through PET_* variables, the defaults of its
    flags (torch.distributed.run reads PET_<FLAG>): `nprocPerNode` as PET_NPROC_PER_NODE, the
    Master pod's address and port as PET_MASTER_ADDR/PET_MASTER_PORT (training-operator v1.8.1
    pkg/controller.v1/pytorch/envvar.go, master.go; default port 23456, pytorch_types.go)."""
    launch, node = recipe.launch, root.get("spec.nprocPerNode")
    if launch is None or launch.launcher != "torchrun":
        return
    if node is not None and not launch.nproc_per_node.given:
        value = str(node.value)
        how = f"{node.path}: {value} (the operator passes it to torchrun as PET_NPROC_PER_NODE)"
        count = int(value) if value.isdigit() else None
        launch.nproc_per_node = replace(launch.nproc_per_node, value=count, given=True, span=node.span, origin=how)
    if not launch.rendezvous.given and root.get("spec.pytorchReplicaSpecs.Master") is not None:
        how = "the training operator sets PET_MASTER_ADDR and PET_MASTER_PORT to the Master pod's service"
        launch.rendezvous = replace(launch.rendezvous, value="(the Master pod):23456", given=True, origin=how)
