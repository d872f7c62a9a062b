"""XTuner: `xtuner train` / `NPROC_PER_NODE=... xtuner train` launches and mmengine Python configs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from recipelint.subjects import Subject
from recipelint.toolkits import Claim, Offer, Toolkit

if TYPE_CHECKING:
    from recipelint.context import Context
    from recipelint.model import Consumer, Note, Recipe
    from recipelint.parse.files import FileCache
    from recipelint.parse.shell import Command, ShellScript
    from recipelint.toolkits import Target


def _has_launch(ctx: Context) -> bool:
    from recipelint.toolkits.xtuner.rules._x import xtuner_launch

    return xtuner_launch(ctx) is not None


def _has_config(ctx: Context) -> bool:
    from recipelint.toolkits.xtuner.part import mmengine_config

    return mmengine_config(ctx.recipe) is not None


class XTuner(Toolkit):
    name = "xtuner"
    suffixes: tuple[str, ...] = ()
    rules: tuple[str, ...] = ("recipelint.toolkits.xtuner.rules", "recipelint.toolkits.xtuner.v1_launch")
    # its launches and configs described; a diagnosis reads their launch; tune: its launches' DataLoader plan (recipelint.rulekit.workers)
    offers: tuple[str, ...] = ("show", "diagnose", "tune")
    preload: tuple[str, ...] = ("recipelint.toolkits.xtuner.frontend",)
    kinds: tuple[str, ...] = ("xtuner-v1",)  # XTuner v1's launches: no mmengine config, the 0.x rules do not apply
    subjects: tuple[Subject, ...] = (
        Subject("xtuner-launch", "an XTuner 0.x launch (`xtuner train`, or its train.py under a launcher)", _has_launch),
        Subject("xtuner-config", "an XTuner/mmengine Python config", _has_config),
    )
    packages: Mapping[str, tuple[str, ...]] = {"xtuner": ("xtuner", "deepspeed", "torch", "transformers")}
    # XTuner's releases where behaviour recipelint judges changes (xtuner.md 1-2 and 6).
    releases: Mapping[str, tuple[tuple[str, str], ...]] = {
        "xtuner": (
            ("0.1.10", "rank 0 preprocesses, the others wait in broadcast_object_list"),
            ("0.1.14", "monitored_barrier under XTUNER_DATASET_TIMEOUT (30 min)"),
            ("0.1.19", "XTUNER_DATASET_TIMEOUT default 60 min"),
            ("0.1.20", "entry_point ignores NPROC_PER_NODE/NNODES under --launcher slurm (#728)"),
            ("0.2.0", "the last 0.x release"),
        ),
    }

    def plan(self, ctx: Context) -> list[str]:
        """The launch's DataLoader plan (recipelint.rulekit.workers)."""
        from recipelint.toolkits.xtuner.loader import XTunerWorkers

        return ctx.derived(XTunerWorkers).lines()

    def claims(self, target: Target, script: ShellScript | None) -> float:
        return 1.0 if target.kind == "python" else 0.0

    def load(self, target: Target, files: FileCache, script: ShellScript | None) -> list[Recipe]:
        from recipelint.model import Recipe
        from recipelint.parse.pyconfig import parse_pyconfig
        from recipelint.toolkits.xtuner.part import keep_config

        recipe = Recipe(root=target.root, explicit=target.explicit, toolkit=self.name)
        keep_config(recipe, parse_pyconfig(files.read(target.path)))
        return [recipe]

    def claim(self, command: Command, offer: Offer) -> Claim | None:
        from recipelint.toolkits.xtuner.frontend import launch_of

        found = launch_of(command)
        # 0.5: above a plain DeepSpeed launch (XTuner's train.py with --deepspeed is XTuner's)
        return Claim(0.5, f"runs {found[2]}") if found is not None else None

    def build(self, command: Command, offer: Offer) -> list[Recipe]:
        from recipelint.toolkits.xtuner.frontend import load_xtuner

        return load_xtuner(offer.script, offer.files, offer.target.root, [command])

    def describe(self, ctx: Context) -> list[Note]:
        """The XTuner code a 0.x launch runs (a v1 launch's code is not read) and its DataLoader plan."""
        from recipelint.toolkits.checkouts import code_notes
        from recipelint.toolkits.xtuner.loader import XTunerWorkers

        own = code_notes(ctx.recipe, "XTuner") if ctx.recipe.toolkit == self.name else []
        return own + ctx.derived(XTunerWorkers).notes()

    def json_consumer(self, seen: str = "") -> Consumer | None:
        """mmengine's DeepSpeedStrategy._wrap_model (mmengine/_strategy/deepspeed.py) always passes
        `optimizer=self.optim_wrapper.optimizer` and no scheduler (its param_scheduler runs beside);
        XTuner's DeepSpeedStrategy.__init__ (xtuner/engine/_strategy/deepspeed.py) builds
        transformers' HfDeepSpeedConfig from the JSON, so Hugging Face's reading of it decides
        zero.Init; XTuner fills "auto" itself."""
        from recipelint.model import Consumer

        where = (
            "mmengine/_strategy/deepspeed.py: deepspeed.initialize(model=model, optimizer=self.optim_wrapper.optimizer, config=self.config)"
        )
        hf_config = "xtuner/engine/_strategy/deepspeed.py: HfDeepSpeedConfig(self.config)"
        evidence = [seen, where] if seen else [where]
        return Consumer(
            self.name, True, False, evidence, hf_config=hf_config, named="XTuner (mmengine's DeepSpeedStrategy)", filler="xtuner"
        )


XTUNER = XTuner()
