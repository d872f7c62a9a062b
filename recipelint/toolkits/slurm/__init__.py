"""Slurm: a batch script's `#SBATCH` directives and `srun`/`salloc` resource flags give the
allocation of the launches inside it (docs/toolkits/slurm.md).

Slurm is no trainer: the script's launches are read by the toolkit that claims them (WeNet,
XTuner, DeepSpeed, a plain torchrun), and each recipe they give gets the job's allocation
(`Recipe.allocation`), its world size resolved from it (`--nnodes $SLURM_NNODES`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from recipelint.toolkits import Toolkit

if TYPE_CHECKING:
    from recipelint.context import Context
    from recipelint.model import Recipe
    from recipelint.parse.files import FileCache
    from recipelint.parse.shell import ShellScript
    from recipelint.toolkits import Target


class Slurm(Toolkit):
    name = "slurm"
    suffixes: tuple[str, ...] = (".slurm", ".sbatch")
    rules: tuple[str, ...] = ("recipelint.toolkits.slurm.rules",)
    # its jobs described; a diagnosis reads their launches and allocation; tune: its launches' DataLoader plan (recipelint.rulekit.workers)
    offers: tuple[str, ...] = ("show", "diagnose", "tune")
    preload: tuple[str, ...] = ("recipelint.toolkits.slurm.frontend", "recipelint.toolkits.slurm.directives")

    def plan(self, ctx: Context) -> list[str]:
        """The launch's DataLoader plan (recipelint.rulekit.workers)."""
        from recipelint.rulekit.workers import plan

        return plan(ctx).lines()

    def claims(self, target: Target, script: ShellScript | None) -> float:
        # Before any trainer's toolkit: it hands the launches to them and adds what Slurm gives.
        if target.kind not in ("script", "file", "command"):
            return 0.0
        from recipelint.toolkits.slurm.frontend import is_job

        return 1.0 if is_job(target, script) else 0.0

    def load(self, target: Target, files: FileCache, script: ShellScript | None) -> list[Recipe]:
        from recipelint.toolkits.slurm.frontend import load_job

        return load_job(self, target, files, script)


SLURM = Slurm()
