"""The shipped example reproduces the documented case, and `fix --write` settles it."""

from __future__ import annotations

import shutil
from pathlib import Path

from recipelint import engine, fix
from recipelint.hardware.profile import load_profile
from tests.helpers import REPO

EXAMPLE = REPO / "examples" / "wenet-4node-v100"


def check(root: Path):  # type: ignore[no-untyped-def]
    hardware = load_profile(root / "hardware-v100-node.yaml")
    return engine.check([root], hardware=lambda: hardware)


def test_example_findings() -> None:
    result = check(EXAMPLE)
    assert not result.errors
    found = {d.code: d for d in result.diagnostics}
    assert sorted(found) == ["RL105", "RL201", "RL205", "RL301", "RL504"]
    assert (found["RL205"].current, found["RL205"].suggested) == (34, 32)  # 34 shards on 16 ranks: 2 get 3, 14 get 2
    assert (found["RL201"].current, found["RL201"].suggested) == (4, 2)
    assert found["RL201"].fix is not None and found["RL201"].fix.title == "set num_workers 2, prefetch 125"
    assert "memory bound: 1113" in found["RL105"].evidence
    assert found["RL301"].suggested == 300  # half of DeepSpeed 0.19.8's 10 min process-group timeout


def test_example_memory_fits_with_pin_memory() -> None:
    # The recipe passes --pin_memory: the pin thread copies every queued batch out of /dev/shm into
    # pinned RAM (bench/fidelity), so RAM bounds the loaders, not /dev/shm. 4 ranks x (4 workers x
    # 1.29 GB + 1000 batches x 29.7 MB pinned and heap) = 139 GB < half of 512 GiB: RL103 stays quiet, and
    # the plan (2 workers, 125 prefetch) comes from the shards (RL201) and the per-worker scaling.
    from recipelint import tuner
    from recipelint.context import Context
    from recipelint.toolkits.wenet.loader import loader

    hardware = load_profile(EXAMPLE / "hardware-v100-node.yaml")
    recipe = next(r for r in engine.check([EXAMPLE], hardware=lambda: hardware).recipes if r.launch is not None)
    facts = loader(Context(recipe, lambda: hardware))
    assert facts.pin_memory and facts.memory_inputs is not None and facts.memory_inputs.shm is None
    usage = facts.memory_inputs.usage(4, 250)
    assert round(4 * usage.total / 1e9) == 139
    assert facts.memory_inputs.ram == (256 * 1024**3, "half of RAM 512 GiB")
    assert (facts.plan.num_workers, facts.plan.prefetch) == (2, 125)
    assert facts.plan.limits == {"cpu": tuner.loader_worker_cap(100, 4), "shards": 2, "memory": 1113}


def test_example_fix_changes_only_the_values(tmp_path: Path) -> None:
    root = tmp_path / "example"
    shutil.copytree(EXAMPLE, root)
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    hardware = load_profile(root / "hardware-v100-node.yaml")
    outcome = fix.fix_paths(lambda files: engine.check([root], hardware=lambda: hardware, files=files).diagnostics, unsafe=False)
    for path, data in outcome.changed.items():
        fix.write_atomic(path, data, outcome.original[path])
    assert sorted((d.code, d.fix) for d in check(root).diagnostics) == [("RL205", None), ("RL504", None)]  # no fixable finding left
    changed = {p.relative_to(root): (before[p], p.read_bytes()) for p in before if p.read_bytes() != before[p]}
    assert list(changed) == [Path("run.sh")]
    old, new = (text.decode().splitlines() for text in changed[Path("run.sh")])
    assert [(a, b) for a, b in zip(old, new, strict=True) if a != b] == [
        ("num_workers=4", "num_workers=2"),
        ("prefetch=250", "prefetch=125"),
        ("    wenet/bin/train.py \\", "    wenet/bin/train.py --timeout 300 \\"),
    ]
    second = fix.fix_paths(lambda files: engine.check([root], hardware=lambda: hardware, files=files).diagnostics, unsafe=False)
    assert second.changed == {}
