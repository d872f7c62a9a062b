"""A train-YAML value of the wrong type or outside its allowed set.

## What it does
Validates the train YAML against `schemas/wenet/train.schema.json` (JSON Schema 2020-12)
for types, enums and minimums. Unknown keys are RL701's job.

With the recipe's WeNet checkout found (a fork's `wenet/`, see docs/checkout.md), a value
outside the schema's choices, or a `null` where the schema wants a string, is judged by that
code, read with `ast`: the constants it compares the key's value with (`assert feats_type in
['fbank', 'mfcc', 'raw']`, `if configs['scheduler'] == 'steadylr':`, `elif decoder_type is
None:`), the keys of a module-level dict it looks the value up in (`SCHEDULERS[configs
['scheduler']]`, `.get(name)`), and a `Literal[...]` annotation of a parameter or field of the
key's name. A value some branch handles is fine; a value the code rejects (the assert, an
if/elif chain whose else raises, a `TABLE[value]` lookup: a KeyError) is an error naming that
line; a value no branch handles and nothing rejects (a `.get()` lookup, a `Literal`, which
Python does not enforce) is a warning. When no code compares the key, the schema's verdict becomes an
info: the upstream schema does not bind a fork, and its code was not followed for that key.
Any other schema verdict (a type, a minimum) on a checkout no release matches is an info too:
wafer9/sincnet's `spec_aug_conf.max_t: 0.5` is seconds to its `spec_aug()`
(`random.randint(1, max_t * sample_rate)`), not upstream's frame count.

## Why is this bad
WeNet does not validate its config: `batch_size: "16"` reaches the batcher as a string,
`batch_type: dynamc` falls through to an error deep in the data pipeline, after the
workers have started.

## Example
```yaml
dataset_conf:
  batch_conf:
    batch_type: dynamc
```

## Fix
None: the intended value is not knowable.

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.parse.checkout import Checkout
from recipelint.parse.span import Span
from recipelint.schemas import load_schema, validate
from recipelint.toolkits.wenet.checkout import WENET_CODE
from recipelint.toolkits.wenet.rules.config._wenet import SCHEMA, wenet_config

CODE = "RL702"
NAME = "invalid-config-value"
SEVERITY = Severity.ERROR
VISITS = ("wenet-config",)
FIXABLE = False
SOURCE = "schemas/wenet/train.schema.json, from wenet-e2e/wenet@01546996:wenet/dataset/dataset.py and wenet-e2e/wenet@01546996:wenet/dataset/processor.py"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    config = wenet_config(ctx)
    if config is None:
        return
    checkout = ctx.recipe.checkout
    by_code = checkout is not None and checkout.kind is WENET_CODE
    for problem in validate(SCHEMA, config.root.plain()):
        if "Additional properties" in problem.message:
            continue
        node = config.root.get(problem.path) if problem.path else None
        if node is None or (by_code and _code_judges(problem.message, node.value)):
            continue
        if checkout is not None and by_code and checkout.version is None:
            # A checkout no release matches: upstream's schema does not bind its code, and this
            # value's use in it was not followed.
            why = f"the {checkout.label()} matches no release; how its code uses {problem.path} was not followed"
            message = f"{problem.path}: upstream WeNet's schema says {problem.message}, not judged: {why}"
            yield ctx.diagnostic(CODE, Severity.INFO, message, node.span, setting=problem.path, current=node.value, evidence=[why])
            continue
        yield ctx.diagnostic(CODE, SEVERITY, f"invalid value: {problem.message}", node.span, setting=problem.path, current=node.value)
    if checkout is not None and by_code:
        yield from _judged_by_code(ctx, checkout)


def _judged_by_code(ctx: Context, checkout: Checkout) -> Iterator[Diagnostic | None]:
    """The keys whose choices the schema lists, and the nulls it refuses, by the code the recipe runs."""
    config = ctx.recipe.config
    assert config is not None
    schema_problems = {p.path: p.message for p in validate(SCHEMA, config.root.plain()) if p.path}
    choices = _choice_paths()
    for path in sorted({*choices, *schema_problems}):
        node = config.root.get(path)
        if node is None or node.kind != "scalar" or not (path in choices or _code_judges(schema_problems[path], node.value)):
            continue
        verdict = _by_code(checkout, path.rsplit(".", 1)[-1], node.value, path in schema_problems)
        if verdict is not None:
            severity, words, evidence = verdict
            yield ctx.diagnostic(CODE, severity, f"{path}: {words}", node.span, setting=path, current=node.value, evidence=evidence)


def _choice_paths() -> list[str]:
    """Dotted paths of the schema's keys with a list of choices (feats_type, batch_type, optim, scheduler)."""

    def walk(node: dict[str, Any], path: list[str]) -> Iterator[str]:
        if "enum" in node and path:
            yield ".".join(path)
        for key, child in node.get("properties", {}).items():
            if isinstance(child, dict):
                yield from walk(child, [*path, key])

    return sorted(walk(load_schema(SCHEMA), []))


def _code_judges(message: str, value: object) -> bool:
    """The schema's choices and its `null` check are what a fork changes; its code decides them."""
    return "is not one of" in message or value is None


def _by_code(checkout: Checkout, key: str, value: object, outside: bool) -> tuple[Severity, str, list[str]] | None:
    """The verdict of the checkout's code on the value, None when it handles it; `outside`: the
    upstream schema refuses the value."""
    compared = checkout.compared_values(key)
    shown = "null" if value is None else repr(value)
    if compared is None:
        if not outside:
            return None
        why = f"no code of the {checkout.label()} compares {key} with a value (read with ast)"
        return Severity.INFO, f"{shown} is outside upstream WeNet's schema, not judged: {why}", [why]
    if value in compared.values:
        return None
    handled = ", ".join(sorted(repr(v) for v in compared.values))
    if compared.rejects is not None:
        return (
            Severity.ERROR,
            f"{shown} is rejected by the code this recipe runs ({_at(compared.rejects)}; it handles {handled})",
            [f"the check at {_at(compared.rejects)} (read with ast)"],
        )
    return (
        Severity.WARNING,
        f"{shown} is handled by no branch of the code this recipe runs (it handles {handled} at {_at(compared.where)})",
        [],
    )


def _at(span: Span | None) -> str:
    return f"{span.path}:{span.line}" if span is not None else "the checkout"
