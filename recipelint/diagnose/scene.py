"""The recipe side of a diagnosis: what `check` finds in the recipe, and the facts the
signatures correlate with the log (engine, world size, timeouts, shards). Every fact is read
from the same Context the rules see; no rule logic is repeated here."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from recipelint.context import Context, Options
from recipelint.diagnostics import Diagnostic
from recipelint.hardware.profile import Hardware
from recipelint.parse.files import FileCache, SourceError
from recipelint.parse.shell import Word
from recipelint.parse.span import Span
from recipelint.records import dataclass, field
from recipelint.rules import all_rules
from recipelint.settings import Resolver
from recipelint.toolkits import RunFacts, kinds


@dataclass
class Scene:
    given: bool = False  # recipe paths were given
    diagnostics: list[Diagnostic] = field(default_factory=list)
    errors: list[SourceError] = field(default_factory=list)
    contexts: list[Context] = field(default_factory=list)
    hardware: Hardware | None = None

    @property
    def ctx(self) -> Context | None:
        """The recipe that launches training (the first one, when several do)."""
        return next((c for c in self.contexts if c.recipe.launch is not None), self.contexts[0] if self.contexts else None)

    def found(self, codes: Iterable[str]) -> list[Diagnostic]:
        wanted = set(codes)
        return [d for d in self.diagnostics if d.code in wanted]

    def checks(self, code: str) -> bool:
        """Whether the rule exists and ran on a recipe of its toolkit (so silence means absent)."""
        rule = all_rules().get(code)
        return rule is not None and any(rule.applies_to(c.recipe.toolkit) for c in self.contexts)

    @property
    def toolkit(self) -> str | None:
        ctx = self.ctx
        return ctx.recipe.toolkit if ctx is not None else None

    @property
    def engine(self) -> str | None:
        """The training engine the recipe's toolkit names (WeNet's --train_engine)."""
        return self.run_facts().engine

    @property
    def world_size(self) -> int | None:
        ctx = self.ctx
        return ctx.world_size if ctx is not None else None

    @property
    def nodes(self) -> int | None:
        ctx = self.ctx
        return ctx.nodes if ctx is not None else None

    def run_facts(self) -> RunFacts:
        """What the recipe's toolkit knows of its run (`Toolkit.run_facts`); nothing without a recipe."""
        ctx = self.ctx
        toolkit = kinds().get(ctx.recipe.toolkit) if ctx is not None else None
        return toolkit.run_facts(ctx) if toolkit is not None and ctx is not None else RunFacts()

    @property
    def join_timeout(self) -> int | None:
        """The seconds a rank waits for the others at an epoch's end (WeNet's --timeout)."""
        return self.run_facts().join_timeout

    def pg_timeout(self) -> tuple[int, str] | None:
        """The default process group's timeout in seconds for this recipe's engine, and why."""
        ctx = self.ctx
        if ctx is None or ctx.recipe.launch is None:
            return None
        engine = self.engine or ("deepspeed" if ctx.recipe.ds_config is not None else "torch_ddp")
        return ctx.process_group_timeout(engine)

    @property
    def shards(self) -> int | None:
        return self.run_facts().shards

    def shard_kinds(self) -> tuple[int, int]:
        """How many train data.list lines are remote (http, https, ftp) and how many compressed."""
        facts = self.run_facts()
        return facts.remote_shards, facts.compressed_shards

    def network(self) -> str | None:
        ctx = self.ctx
        if ctx is None:
            return None
        value = ctx.fact("inter_node_network").value
        return str(value) if value is not None else None

    def launch_flag(self, *names: str) -> Word | None:
        """The launch command's word for one of these flags (`--standalone`, `--master_port=29500`)."""
        ctx = self.ctx
        launch = ctx.recipe.launch if ctx is not None else None
        if launch is None:
            return None
        for word in launch.command.words:
            text = word.value or word.text
            if any(text == name or text.startswith(name + "=") for name in names):
                return word
        return None

    def launch_option(self, *names: str) -> str | None:
        """The value the launch gives one of these options (`--rdzv_backend c10d` or `=c10d`);
        "" for a flag without a value, None when not given or not known statically."""
        ctx = self.ctx
        launch = ctx.recipe.launch if ctx is not None else None
        if launch is None:
            return None
        words = launch.command.words
        for i, word in enumerate(words):
            text = word.value or word.text
            for name in names:
                if text.startswith(name + "="):
                    return text.split("=", 1)[1]
                if text == name:
                    following = words[i + 1] if i + 1 < len(words) else None
                    return (following.value or "") if following is not None else ""
        return None

    @property
    def launcher(self) -> str | None:
        ctx = self.ctx
        return ctx.recipe.launch.launcher if ctx is not None and ctx.recipe.launch is not None else None

    def script_options(self) -> list[tuple[str, Span]]:
        """The options the training script's argparse defines (`add_argument("--local_rank", ...)`),
        each with where it is written; read with ast, never run."""
        ctx = self.ctx
        launch = ctx.recipe.launch if ctx is not None else None
        if ctx is None or launch is None or not launch.script.value:
            return []
        path, _ = ctx.recipe.locate(launch.script.value)
        return _add_arguments(path) if path is not None and path.suffix == ".py" else []

    def settings_at(self, *names: str) -> list[str]:
        """Where the recipe sets these (`path:line:col: name = value`): the launch's flags, then the
        DeepSpeed JSON's and the toolkit config's dotted keys; each name once, where it is written."""
        ctx = self.ctx
        if ctx is None:
            return []
        out: list[str] = []
        for name in names:
            setting = ctx.recipe.args.get(name)
            if setting is not None and setting.given and setting.span is not None:
                out.append(f"{setting.span}: {name} {setting.value}")
                continue
            for document in (ctx.recipe.ds_config, ctx.recipe.config):
                node = document.root.get(name) if document is not None else None
                if node is not None and node.kind == "scalar":
                    out.append(f"{node.span}: {name} {node.value}")
                    break
        return out

    def env(self, name: str) -> str | None:
        ctx = self.ctx
        launch = ctx.recipe.launch if ctx is not None else None
        setting = launch.env.get(name) if launch is not None else None
        return None if setting is None or setting.value is None else str(setting.value)


def build_scene(
    paths: list[Path],
    hardware: Callable[[], Hardware] | None,
    resolver: Resolver | None = None,
    files: FileCache | None = None,
) -> Scene:
    """Check the recipe the way `check` does, keeping what the signatures correlate with."""
    if not paths:
        return Scene()
    from recipelint import engine

    resolver = resolver or Resolver()
    result = engine.check(paths, hardware=hardware, files=files or FileCache(), resolver=resolver, keep_recipes=True)
    scene = Scene(True, result.diagnostics, result.errors, hardware=result.hardware)
    loader = hardware or (lambda: _used(scene))
    said: set[str] = set()  # RL001 once per fact for the whole scene
    for recipe in result.recipes:
        where = recipe.script.source.path if recipe.script is not None else recipe.root
        options = _options(resolver, where)
        scene.contexts.append(Context(recipe, loader, options, said=said))
    return scene


def _add_arguments(path: Path) -> list[tuple[str, Span]]:
    import ast

    try:
        text = path.read_text(encoding="utf-8", errors="replace")
        tree = ast.parse(text)
    except (OSError, SyntaxError, ValueError, RecursionError):
        return []
    found: list[tuple[str, Span]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument":
            for arg in node.args:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and arg.value.startswith("-"):
                    line, column = arg.lineno, arg.col_offset + 1
                    found.append((arg.value, Span(path, 0, 0, line, column, line, column + len(arg.value) + 2)))
    return sorted(found, key=lambda item: item[1].line)


def _options(resolver: Resolver, path: Path) -> Options:
    try:
        return Options.of(resolver.for_path(path))
    except SourceError:
        return Options()


def _used(scene: Scene) -> Hardware:
    if scene.hardware is None:
        from recipelint.hardware.probe import probe

        scene.hardware = probe()
    return scene.hardware
