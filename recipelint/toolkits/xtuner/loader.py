"""XTuner's DataLoader plan (recipelint.rulekit.workers.WorkerPlan): the workers its config's
`train_dataloader` gets (`dataloader_num_workers` or `train_dataloader.num_workers`), planned
against the CPUs of the launch's node; computed once per recipe and used by RL807's fix and by
`recipelint tune`."""

from __future__ import annotations

from functools import cached_property

from recipelint.model import Setting
from recipelint.rulekit.workers import WorkerPlan
from recipelint.toolkits.xtuner.part import mmengine_config
from recipelint.toolkits.xtuner.rules._x import xtuner_launch

# Datasets that decode images in `__getitem__`, that is in the DataLoader workers, and the workers
# XTuner's own configs give them (82 shipped LLaVA and InternVL configs under
# InternLM/xtuner@v0.2.0:xtuner/configs use 4).
IMAGE_DATASETS = {"LLaVADataset", "InternVL_V1_5_Dataset"}
SHIPPED_IMAGE_WORKERS = 4


class XTunerWorkers(WorkerPlan):
    assign = " = "

    @cached_property
    def setting(self) -> Setting | None:
        config = mmengine_config(self.ctx.recipe)
        value = (config.get("train_dataloader.num_workers") or config.get("dataloader_num_workers")) if config is not None else None
        if value is None or not isinstance(value.value, int) or isinstance(value.value, bool):
            return None
        name = value.name or "dataloader_num_workers"
        edit = value.span if value.literal else None
        return Setting(name, value.value, True, value.span, edit, origin=f"{name} = {value.value} in {value.span.path.name}")

    @cached_property
    def cap(self) -> int | None:
        # Without an XTuner launch the ranks of a node are not known: only the config is read.
        return super().cap if xtuner_launch(self.ctx) is not None else None

    @property
    def raises_zero(self) -> bool:  # type: ignore[override]
        return self.image_dataset is not None

    @property
    def image_dataset(self) -> str | None:
        config = mmengine_config(self.ctx.recipe)
        found = sorted(IMAGE_DATASETS & config.calls) if config is not None else []
        return found[0] if found else None

    @property
    def suggested(self) -> int | None:
        """Past the CPU cap, the cap; 0 workers with an image dataset: XTuner's shipped 4, capped."""
        if self.workers == 0 and self.image_dataset is not None:
            return max(1, min(SHIPPED_IMAGE_WORKERS, self.cap) if self.cap is not None else SHIPPED_IMAGE_WORKERS)
        return super().suggested

    def lines(self) -> list[str]:
        lines = super().lines()
        if self.workers == 0 and self.image_dataset is not None:
            lines.insert(
                1, f"  image dataset {self.image_dataset}: images decode in the workers; XTuner's configs use {SHIPPED_IMAGE_WORKERS}"
            )
        return lines
