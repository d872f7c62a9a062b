"""A file named on the command line that recipelint cannot place.

## What it does
Reports, as info, a JSON file given by name that is none of what recipelint reads: not a
DeepSpeed config by its keys (at least two DeepSpeed signature keys such as
`zero_optimization`, `train_micro_batch_size_per_gpu`, an `fp16`/`bf16` block or an `optimizer`
with a `type`, and no majority of keys DeepSpeed does not know), and named by no run script
found above it. A YAML is read only by a toolkit whose keys it has (WeNet: `dataset_conf`, or
`encoder` with `tokenizer` or `cmvn`, at the top; Accelerate: `distributed_type`), so another YAML given by name is not
read at all, and `check` says when it found no recipe.

## Why is this bad
It is not wrong, but "No problems found" would claim a check that never ran. A trainer-arguments
JSON (ms-swift's `examples/yaml/deepspeed/sft.json`, `gradient_accumulation_steps` among 30
trainer keys) is not a DeepSpeed config, and its keys are not "ignored by DeepSpeed".

## Example
```sh
recipelint check examples/yaml/deepspeed/sft.json
```

## Fix
None. Lint the launch that uses the file, or the DeepSpeed config it points to.

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.toolkits.deepspeed.knowledge import deepspeed_evidence, looks_like_deepspeed

CODE = "RL011"
NAME = "file-not-placed"
SEVERITY = Severity.INFO
VISITS = ("recipe",)
FIXABLE = False
SOURCE = "recipelint's own placement: DeepSpeed signature keys, WeNet top-level keys, run scripts that name the file (recipelint/discovery.py, docs/usage.md)"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    recipe = ctx.recipe
    if not recipe.explicit or recipe.launch is not None or recipe.script is not None:
        return
    doc = recipe.ds_config
    if doc is not None and doc.root.kind == "map" and not looks_like_deepspeed(doc.root):
        signature, foreign = deepspeed_evidence(doc.root)
        keys = len(doc.root.entries)
        yield ctx.diagnostic(
            CODE,
            SEVERITY,
            f"{doc.path.name} is not a DeepSpeed config ({len(signature)} DeepSpeed signature key(s) of {keys}; "
            f"{len(foreign)} keys DeepSpeed does not know), and no launch found names it: nothing in it is checked",
            doc.root.span,
        )
