"""WeNet's code as recipelint reads it from a checkout (never imported): what identifies it
(`WENET_CODE`, the `CodeKind` recipelint.parse.checkout finds it by), the training script a
launch runs (`package_entry`), and what that code does with a recipe: the flags train.py
accepts, the keys its data pipeline reads, the keys it requires, what its padded batch holds."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from recipelint.parse.checkout import Checkout, CodeKind
from recipelint.toolkits import upstream
from recipelint.toolkits.wenet.patterns import PATTERNS

if TYPE_CHECKING:
    from recipelint.parse.flags import Flag
    from recipelint.parse.pycode import KeyReads, PyFile
    from recipelint.parse.span import Span

# A package folder `wenet/` with bin/train.py is WeNet's even without __init__.py (v1, v2);
# editable installs report "0.0.0", so only a release tag's version ("v3.0.1") places the code.
WENET_CODE = CodeKind(
    package="wenet",
    label="WeNet",
    marker="bin/train.py",
    tags=upstream.WENET_TAGS,
    head=upstream.WENET_HEAD,
    fingerprints=upstream.WENET_FINGERPRINTS,
    requirements=("requirements.txt",),
    tag_versions=True,
    patterns=PATTERNS,
)
TRAIN_ENTRY = "bin/train.py"  # the training script a WeNet launch runs unless it names another (bin/train_deprecated.py)
_ENTRY = re.compile(r"(?:^|/)(bin/\w+\.py)$")
# The first code that takes the loaded YAML; a key it indexes on every path must be there.
REQUIRED_BY = (("utils/init_tokenizer.py", "init_tokenizer"),)


def package_entry(script: str | None) -> str:
    """The launched training script relative to the package (`wenet/bin/train_deprecated.py` ->
    `bin/train_deprecated.py`); `bin/train.py` when the launch names no such file."""
    match = _ENTRY.search(script) if script else None
    return match.group(1) if match else TRAIN_ENTRY


def train_flags(checkout: Checkout, entry: str = TRAIN_ENTRY) -> dict[str, Flag] | None:
    """The flags the training script `entry` (wenet/bin/train.py, train_deprecated.py)
    accepts here (with wenet/utils/train_utils.py from v3 on)."""
    from recipelint.parse import pycode

    def read() -> dict[str, Flag] | None:
        files = [pycode.parse_python(checkout.package / rel) for rel in (entry, "utils/train_utils.py")]
        if files[0] is None:
            return None
        flags = pycode.argparse_flags([f for f in files if f is not None])
        return flags if len(flags) >= 3 else None  # a train.py that builds its parser elsewhere: not ours to judge

    return checkout.cached(f"flags:{entry}", read)


def flags_source(checkout: Checkout, entry: str = TRAIN_ENTRY) -> str:
    files = [rel for rel in (entry, "utils/train_utils.py") if (checkout.package / rel).is_file()]
    return ", ".join(f"{checkout.toolkit}/{rel}" for rel in files) + f" of the {checkout.label()} (read with ast)"


def dataset_keys(checkout: Checkout, entry: str = TRAIN_ENTRY) -> dict[str, KeyReads] | None:
    """The keys `dataset_conf` and its blocks may hold for the training script `entry`
    (relative to the package): what it spreads `**dataset_conf` into (WeNet 1's train.py and
    WeNet 2's train_deprecated.py build `AudioDataset(path, **dataset_conf)`), else what
    `Dataset(..., conf)` in wenet/dataset/dataset.py reads."""
    from recipelint.parse import pycode

    def read() -> dict[str, KeyReads] | None:
        script = pycode.parse_python(checkout.package / entry)
        spread = pycode.spread_dataset_conf(script, checkout.module) if script is not None else None
        if spread is not None:
            return {"": spread}
        dataset = checkout.module(dataset_module(checkout, script)) or pycode.parse_python(checkout.package / "dataset" / "dataset.py")
        if dataset is None:
            return None
        helpers = [f for f in checkout.package_files("dataset/*.py") if f.source.path != dataset.source.path]
        # The processor module the dataset imports: a fork may move it (ASLP-lab/OSUM's
        # OSUM-EChat: `import wenet.dataset.process.processor as processor`).
        bound = pycode.bound_module(dataset, "processor")
        processor = (checkout.module(bound) if bound else None) or pycode.parse_python(checkout.package / "dataset" / "processor.py")
        return pycode.dataset_keys(dataset, processor, helpers)

    return checkout.cached(f"dataset_keys:{entry}", read)


def dataset_module(checkout: Checkout, script: PyFile | None) -> str:
    """The module the training script takes `Dataset` from: a fork's trainer variant may
    import its own (`from wenet.dataset.dataset_dys import Dataset`)."""
    from recipelint.parse import pycode

    found = pycode.imported_from(script, "Dataset") if script is not None else None
    return found if found and found.startswith(f"{checkout.toolkit}.") else f"{checkout.toolkit}.dataset.dataset"


def trainers(checkout: Checkout) -> list[str]:
    """The package's training scripts, relative to it: bin/train.py and its variants
    (bin/train_dys.py, bin/train_mlcslm_baseline.py in forks), train.py first."""
    names = sorted(p.name for p in (checkout.package / "bin").glob("train*.py"))
    return [f"bin/{n}" for n in sorted(names, key=lambda n: n != "train.py")]


def required_keys(checkout: Checkout) -> list[tuple[str, str, Span]]:
    """(key, function, where it is indexed) for each top-level YAML key the training code
    indexes on every path before it writes any (`configs['tokenizer_conf']` in WeNet 3's
    init_tokenizer): a config without it stops with KeyError at start-up."""
    from recipelint.parse import pycode

    def read() -> list[tuple[str, str, Span]]:
        found: list[tuple[str, str, Span]] = []
        for relative, function in REQUIRED_BY:
            file = pycode.parse_python(checkout.package / relative)
            keys = pycode.required_keys(file, function) if file is not None else None
            found.extend((key, function, span) for key, span in (keys or {}).items())
        return found

    return checkout.cached("required_keys", read)


def batch_carries_pcm(checkout: Checkout) -> tuple[bool | None, str]:
    """Whether WeNet's padded batch also holds the padded waveform ('pcm'), which doubles the
    bytes per frame, and how that was decided: processor.padding's keys, else the date of #2268
    (2024-01-02, v3.0.0)."""
    from recipelint.toolkits.wenet.patterns import padding_keys

    keys: set[str] | None = checkout.cached("padding_keys", lambda: padding_keys(checkout.package))
    if keys:
        return "pcm" in keys, "wenet/dataset/processor.py padding() (read with ast)"
    return checkout.at_least(date="2024-01-02"), "code date against #2268 (2024-01-02)"


def code_rows(checkout: Checkout, entry: str) -> list[tuple[str, str, str]]:
    """`show`'s rows of what the WeNet code does with the recipe: the flags the training script
    `entry` (relative to the package) accepts, what its batch holds, the keys it requires, the
    blocks it spreads."""
    flags = train_flags(checkout, entry)
    name = entry.rsplit("/", 1)[-1]
    fallback = "baked-in table (WeNet HEAD)" if entry == TRAIN_ENTRY else "not judged"
    rows = [
        (f"{name} flags", f"{len(flags)} flags" if flags else fallback, flags_source(checkout, entry) if flags else f"{name} not readable")
    ]
    pcm, how = batch_carries_pcm(checkout)
    rows.append(("batch carries pcm", "unknown" if pcm is None else "yes" if pcm else "no", how))
    required = required_keys(checkout)
    if required:
        keys = ", ".join(key for key, _, _ in required)
        rows.append(("YAML keys required", keys, f"{required[0][1]}() in wenet/utils/init_tokenizer.py indexes them (read with ast)"))
    reads = dataset_keys(checkout, entry) or {}
    spread = [f"{block or 'dataset_conf'} -> {r.function}()" for block, r in sorted(reads.items()) if r.function is not None and r.strict]
    if spread:
        top = reads.get("")
        where = f"wenet/{entry}" if top is not None and top.module else "wenet/dataset/dataset.py"
        rows.append(("blocks spread as **kwargs", ", ".join(spread), f"{where} (read with ast): other keys are a TypeError"))
    return rows
