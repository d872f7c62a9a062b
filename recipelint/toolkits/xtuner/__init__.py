"""XTuner: `xtuner train` / `NPROC_PER_NODE=... xtuner train` launches and mmengine Python configs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from recipelint.toolkits import SHELL_KINDS

if TYPE_CHECKING:
    from recipelint.model import Recipe
    from recipelint.parse.files import FileCache
    from recipelint.parse.shell import ShellScript
    from recipelint.toolkits import Target


class XTuner:
    name = "xtuner"
    suffixes: tuple[str, ...] = ()
    rules: tuple[str, ...] = ("recipelint.toolkits.xtuner.rules", "recipelint.toolkits.xtuner.v1_launch")
    preload: tuple[str, ...] = ("recipelint.toolkits.xtuner.frontend",)

    def claims(self, target: Target, script: ShellScript | None) -> float:
        if target.kind == "python":
            return 1.0
        return 0.5 if target.kind in SHELL_KINDS else 0.0

    def load(self, target: Target, files: FileCache, script: ShellScript | None) -> list[Recipe]:
        if target.kind == "python":
            from recipelint.model import Recipe
            from recipelint.parse.pyconfig import parse_pyconfig

            recipe = Recipe(root=target.root, explicit=target.explicit, toolkit=self.name)
            recipe.pyconfig = parse_pyconfig(files.read(target.path))
            return [recipe]
        assert script is not None
        from recipelint.toolkits.xtuner.frontend import load_xtuner

        return load_xtuner(script, files, target.root)

    def configs_named(self, script: ShellScript) -> list[str]:
        return []  # a Python config a launch names is still read alone (an mmengine config on its own keys)


XTUNER = XTuner()
