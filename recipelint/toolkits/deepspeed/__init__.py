"""DeepSpeed: its JSON config (alone or named by a launch) and plain `deepspeed`/torchrun launches."""

from __future__ import annotations

from typing import TYPE_CHECKING

from recipelint.toolkits import SHELL_KINDS

if TYPE_CHECKING:
    from recipelint.model import Recipe
    from recipelint.parse.files import FileCache
    from recipelint.parse.shell import ShellScript
    from recipelint.toolkits import Target


class DeepSpeed:
    name = "deepspeed"
    suffixes: tuple[str, ...] = ()
    rules: tuple[str, ...] = ("recipelint.toolkits.deepspeed.rules",)

    def claims(self, target: Target, script: ShellScript | None) -> float:
        if target.kind == "json":
            return 1.0
        # a YAML is WeNet's first; one WeNet declines as an Accelerate config comes here
        return 0.5 if target.kind in SHELL_KINDS or target.kind == "yaml" else 0.0

    def load(self, target: Target, files: FileCache, script: ShellScript | None) -> list[Recipe]:
        if target.kind == "json":
            from recipelint.model import Recipe
            from recipelint.parse.files import SourceError
            from recipelint.parse.jsonfile import parse_json
            from recipelint.toolkits.deepspeed.knowledge import WALKED_JSON_BYTES, looks_like_deepspeed, may_be_deepspeed

            if not target.explicit and not _small(target, WALKED_JSON_BYTES):
                return []
            source = files.read(target.path)
            if not target.explicit and not may_be_deepspeed(source.data[:65536]):
                return []  # a JSON found in a folder is claimed on DeepSpeed's evidence only
            try:
                document = parse_json(source)
            except SourceError as error:
                from recipelint.toolkits.deepspeed.frontend import load_template

                return load_template(target, files, source, error)
            if not target.explicit and not looks_like_deepspeed(document.root):
                return []
            return [Recipe(root=target.root, explicit=target.explicit, ds_config=document, toolkit=self.name)]
        if target.kind == "yaml":
            from recipelint.toolkits.deepspeed.frontend import load_accelerate_config

            return load_accelerate_config(target, files)
        assert script is not None
        from recipelint.toolkits.deepspeed.frontend import load_ds_launches

        return load_ds_launches(script, files, target.root)


def _small(target: Target, limit: int) -> bool:
    import os

    try:
        return os.stat(target.path).st_size <= limit
    except OSError:
        return True  # let the read say what is wrong


DEEPSPEED = DeepSpeed()
