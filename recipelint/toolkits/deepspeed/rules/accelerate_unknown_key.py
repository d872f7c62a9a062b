"""A top-level key of an Accelerate config file that accelerate does not know.

## What it does
Checks the top-level keys of the Accelerate config an `accelerate launch --config_file` names (or
one checked alone) against the fields of accelerate's `ClusterConfig`
(huggingface/accelerate@16cb6eb8:src/accelerate/commands/config/config_args.py), with a "did you
mean" for a close one. A key an older release knew and the newer ones reject (`ipex_config`
through 1.12.0, `tp_config` through 1.6.0) is judged against the accelerate releases the run
imports (the repository's pins, `target-versions`): quiet when all of them still know it.

## Why is this bad
`load_config_from_file` builds the config with `ClusterConfig(**config_dict)`: an unknown key
stops `accelerate launch` before any process starts ("ValueError: The config file at X had
unknown keys ([...])" since 0.23.0, a TypeError before). accelerate's own
`tests/test_configs/invalid_keys.yaml` is such a file.

## Severity
Error where every accelerate release the run may import rejects the key
(`ClusterConfig(**config_dict)` in huggingface/accelerate@16cb6eb8:src/accelerate/commands/config/config_args.py
stops `accelerate launch` before any process starts), also for a retired key when the pins admit
only newer releases; a warning naming where the range was read when only some reject it (a
retired key and no pin); nothing when all of them know it.

## Example
```yaml
distributed_type: MULTI_GPU
num_processes: 8
main_training_port: 29500   # not a key: main_process_port
```

## Fix
None: delete the key, or spell it as accelerate does.

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.rulekit import closest
from recipelint.toolkits.accelerate import CONFIG_KEYS, RETIRED_KEYS, SAGEMAKER, config_of, retired

CODE = "RL425"
NAME = "accelerate-config-unknown-key"
SEVERITY = Severity.ERROR
VISITS = ("recipe",)
FIXABLE = False
SOURCE = "huggingface/accelerate@16cb6eb8:src/accelerate/commands/config/config_args.py (ClusterConfig, load_config_from_file)"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    config = config_of(ctx.recipe)
    if config is None or config.root.scalar("compute_environment") == SAGEMAKER:
        return
    unknown = sorted(key for key, _, _ in config.root.items if key not in CONFIG_KEYS and key not in RETIRED_KEYS)
    for key, span, _ in config.root.items:
        if key in CONFIG_KEYS:
            continue
        last = RETIRED_KEYS.get(key)
        if last is not None:
            what = f"{key} in {config.path.name} was an Accelerate config key"
            yield retired(ctx, CODE, what, last, f"ValueError: ... had unknown keys (['{key}'])", span, key)
            continue
        near = closest(key, sorted(CONFIG_KEYS))
        hint = f" (did you mean {near}?)" if near else ""
        yield ctx.diagnostic(
            CODE,
            SEVERITY,
            f"{key} in {config.path.name} is not an Accelerate config key{hint}: accelerate launch stops at start "
            f"(ValueError: The config file at {config.path.name} had unknown keys ({unknown}))",
            span,
            setting=key,
        )
