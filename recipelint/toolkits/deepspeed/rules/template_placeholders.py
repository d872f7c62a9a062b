"""A DeepSpeed JSON template with placeholders, which a script fills at run time.

## What it does
Reports, as info, a JSON file checked alone whose values are bare placeholder words
(`"train_batch_size": CONFIG_BATCH_SIZE`), and which scripts of the repository fill it
(`sed "s/CONFIG_BATCH_SIZE/${GLOBAL_BATCH_SIZE}/" ds_config_gpt_TEMPLATE.json > ${config_json}`,
as in microsoft/Megatron-DeepSpeed@f4157bea:examples_deepspeed/rebase/ds_pretrain_gpt_125M.sh).
The file is not JSON until then, so it is not a file error: the launch that runs the filled
file is checked with the values the script puts in (docs/toolkits/deepspeed.md, "Configs
written by the script").

## Why is this bad
It is not: the template is harmless by design. The finding says where its values come from,
and that the template itself is not judged.

## Severity
Info: a template is harmless by design; the launch that runs the filled file is judged with
the script's values instead.

## Example
```json
{"train_batch_size": GBSIZE, "train_micro_batch_size_per_gpu": MBSIZE}
```

## Fix
None. Check the script that fills it (`recipelint check ds_pretrain_gpt_125M.sh`).

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.parse.where import shown

CODE = "RL439"
NAME = "deepspeed-template-placeholders"
SEVERITY = Severity.INFO
VISITS = ("recipe",)
FIXABLE = False
SOURCE = "the sed substitutions of the repository's scripts, read by recipelint/parse/shelltemplate.py (never run); e.g. microsoft/Megatron-DeepSpeed@f4157bea:examples_deepspeed/rebase/ds_config_gpt_TEMPLATE.json"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    from recipelint.parse.shelltemplate import Template

    template = ctx.recipe.payload
    if not isinstance(template, Template) or not template.placeholders:
        return
    words = list(dict.fromkeys(word for word, _ in template.placeholders))
    named = ", ".join(words[:6]) + (f" and {len(words) - 6} more" if len(words) > 6 else "")
    if template.filled_by:
        first = template.filled_by[0]
        more = f" (and {len(template.filled_by) - 1} more)" if len(template.filled_by) > 1 else ""
        message = f"a template with placeholders ({named}), filled at run time by {shown(first.path)}:{first.line}{more}: its launch is checked with the values it fills in"
    else:
        message = f"a template with placeholders ({named}), not JSON until a script fills them: not judged (no script in the repository fills it with sed)"
    evidence = [f"filled by {shown(span.path)}:{span.line}" for span in template.filled_by]
    if template.error is not None:
        evidence.append(f"as it is: {template.error.reason} at line {template.error.line}")
    yield ctx.diagnostic(CODE, SEVERITY, message, template.placeholders[0][1], setting=words[0], evidence=evidence)
