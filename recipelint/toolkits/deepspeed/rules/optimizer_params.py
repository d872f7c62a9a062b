"""Optimizer and scheduler settings DeepSpeed's engine rejects when it builds them.

## What it does
Follows the code that reads the JSON (docs/toolkits/deepspeed.md, "Which code reads the JSON").
When DeepSpeed builds the blocks (a script's `deepspeed.initialize` without an optimizer, the
Hugging Face Trainer and Accelerate, which hand a JSON optimizer to DeepSpeed, WeNet), each of
these fails in `deepspeed.initialize` (deepspeed/runtime/engine.py of deepspeedai/DeepSpeed,
the same from 0.8.0 to 0.19.8) and is an error:

- `optimizer.params.max_grad_norm`: "'max_grad_norm' is not supported as an optimizer
  parameter, please switch to using the deepspeed parameter 'gradient_clipping'". A `null` or a
  string there fails earlier, whoever builds the optimizer: `DeepSpeedConfig._do_warning_check`
  compares it with 0 (`TypeError: '>' not supported between instances of 'NoneType' and 'int'`,
  deepspeed/runtime/config.py, 0.7.0 to 0.19.8). Without an `optimizer.type` DeepSpeed reads no
  `optimizer.params` at all (`get_optimizer_params`), so nothing there is blamed.
- ZeRO stage 1 or 2 with no `optimizer.type` where the script's own `deepspeed.initialize` gets
  no optimizer: `_configure_zero_optimizer(optimizer=None)` wraps a DummyOptim and asserts 'zero
  stage N requires an optimizer' (deepspeed/runtime/engine.py, 0.8.0 to 0.19.8; stage 3 builds
  DeepSpeedZeRoOffload, which needs none). An error where the script is read and passes none;
  nothing where it was not read (most scripts pass their own optimizer when the JSON names none,
  so a condition on every such config would be noise), nor under the Trainer, Accelerate, WeNet,
  XTuner or Megatron-DeepSpeed, which pass an optimizer of their own when the JSON names none.
- LAMB or OneBitLamb with a fixed fp16 loss scale: "DeepSpeed {name} optimizer requires
  dynamic loss scaling".
- an `optimizer.type` that is neither one of DeepSpeed's names (`DEEPSPEED_OPTIMIZERS` of
  deepspeed/runtime/config.py, compared lower-cased: adam, adamw, lamb, lion, adagrad, muon,
  ...) nor a `torch.optim` class (`getattr(torch.optim, name)`, case-sensitive): `FusedAdam`,
  `adam_w`, `AdamW8bit`, `sgd` give "{name} is not a supported DeepSpeed Optimizer"
  (`_do_sanity_check`).
- under ZeRO (stage 1-3) without `zero_allow_untested_optimizer`, an optimizer whose class is not
  in `ZERO_SUPPORTED_OPTIMIZERS` (deepspeed/runtime/zero/utils.py: torch's Adam, AdamW, Adagrad
  and DeepSpeed's own Adam, Adagrad and Lion classes; not SGD, RMSprop, nor FusedLamb): "You are
  using an untested ZeRO Optimizer. Please add <"zero_allow_untested_optimizer": true> in the
  configuration file to use it." (`_do_optimizer_sanity_check`).
- an optimizer or scheduler parameter the class's constructor does not take, one the engine
  passes itself (`adamw_mode` to DeepSpeedCPUAdam), or a required one missing
  (`total_num_steps` of WarmupDecayLR and WarmupCosineLR): TypeError; `amsgrad: true` where
  the constructor refuses it (FusedAdam, FusedLamb: "does not support the AMSGrad variant"). The class is the one
  `_configure_basic_optimizer` picks (`Adam` is FusedAdam, DeepSpeedCPUAdam with optimizer
  offload, torch's AdamW with `torch_adam`; `Lion` is FusedLion; `Lamb` FusedLamb; any other
  name the torch.optim class) and `_scheduler_from_config` (deepspeed/runtime/lr_schedules.py,
  else torch.optim.lr_scheduler). The signatures are read per release from DeepSpeed's source
  (0.8.0 to 0.19.8) and torch's (2.13.0, 2.14.1) by tools/build_deepspeed_engine_table.py into
  schemas/deepspeed/engine.json. mup's MuAdam/MuAdamW/MuSGD and Muon are not judged (Muon keeps
  only the keys it knows).
- a `scheduler.type` that is not one of DeepSpeed's (LRRangeTest, OneCycle, WarmupLR,
  WarmupDecayLR, WarmupCosineLR; case-sensitive) nor a torch scheduler: "DeepSpeed does not
  recognize LR scheduler"; a scheduler without `params` (`**None`: TypeError).

The DeepSpeed releases judged are those the run imports (the environment, the repository's pins,
`target-versions`, else 0.19.8): a finding that holds for only some of them is a warning naming
them; releases before 0.8.0 are not judged (RL429 says so). Before 0.9.2 `Adagrad` takes the
Adam branch (FusedAdam without offload).

When the training code passes its own optimizer or scheduler to `deepspeed.initialize`
(Megatron-DeepSpeed's `megatron/training.py`, mmengine's DeepSpeedStrategy for XTuner),
DeepSpeed never builds that block ("This overrides any optimizer definition in the DeepSpeed
json config", `deepspeed/__init__.py`; `_configure_optimizer` / `_configure_lr_scheduler` in
`deepspeed/runtime/engine.py`, DeepSpeed 0.19.8): nothing above fails, and the block itself is
reported once as a warning, since the run does not do what it says. When no launch or no
readable training code tells which, the finding is a warning that names the condition.

## Why is this bad
All of these fail inside `deepspeed.initialize`, after the job has its GPUs and has loaded the
model. An ignored block is settings (learning rate, betas, warmup) the run never uses.

## Severity
Error where DeepSpeed builds the optimizer or scheduler (deepspeed.initialize raises
before the first step, deepspeedai/DeepSpeed@edaa7221:deepspeed/runtime/engine.py; the
constructors of schemas/deepspeed/engine.json, per release); a warning naming the releases when
only some of the run's releases fail; a warning with the condition when the code that reads
the JSON is not known; where the training code passes its own optimizer or scheduler, one
warning that the block is ignored (it runs, not as written).

## Example
```json
"optimizer": {"type": "RMSprop", "params": {"lr": 1e-3, "betas": [0.9, 0.999]}},
"scheduler": {"type": "WarmupCosineLR", "params": {"warmup_max_lr": 1e-4, "total_num_steps": 1000}}
```

## Fix
Moves nothing by itself: use the parameters the class takes (`alpha` and `momentum` for
RMSprop; `warmup_min_ratio`, `cos_min_ratio` for WarmupCosineLR), the DeepSpeed or torch name
of the optimizer, or set `zero_allow_untested_optimizer: true`; for max_grad_norm set
`gradient_clipping` at the top level and delete the parameter.

## Fix safety
No fix.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from recipelint import versions
from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.parse.span import Span
from recipelint.parse.tree import Node
from recipelint.toolkits.deepspeed.rules import _engine
from recipelint.toolkits.deepspeed.rules._ds import builds_block, ds_document, zero_stage

CODE = "RL421"
NAME = "deepspeed-optimizer-params"
SEVERITY = Severity.ERROR
VISITS = ("deepspeed-config",)
FIXABLE = False
SOURCE = (
    "deepspeedai/DeepSpeed@edaa7221:deepspeed/runtime/engine.py (_do_sanity_check, _configure_basic_optimizer, "
    "_do_optimizer_sanity_check, _scheduler_from_config; 0.8.0 to 0.19.8); constructor signatures in "
    "schemas/deepspeed/engine.json (tools/build_deepspeed_engine_table.py)"
)
UNTESTED = (
    'You are using an untested ZeRO Optimizer. Please add <"zero_allow_untested_optimizer": true> in the configuration file to use it.'
)
SCHEDULERS = {"LRRangeTest", "OneCycle", "WarmupLR", "WarmupDecayLR", "WarmupCosineLR"}
TORCH_SCHEDULERS = {
    "LambdaLR",
    "MultiplicativeLR",
    "StepLR",
    "MultiStepLR",
    "ConstantLR",
    "LinearLR",
    "ExponentialLR",
    "SequentialLR",
    "CosineAnnealingLR",
    "ChainedScheduler",
    "ReduceLROnPlateau",
    "CyclicLR",
    "CosineAnnealingWarmRestarts",
    "OneCycleLR",
    "PolynomialLR",
    "LRScheduler",
}


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    doc = ds_document(ctx)
    if doc is None:
        return
    yield from _optimizer(ctx, doc.root)
    yield from _scheduler(ctx, doc.root)
    for block, judge in (("optimizer", _optimizer_at), ("scheduler", _scheduler_at)):
        if builds_block(ctx, block)[0] is not False:
            yield from _engine_checks(ctx, doc.root, block, judge)


def _ignored(ctx: Context, root: Node, block: str, why: str) -> Diagnostic | None:
    """The block is there, but the training code passes its own: DeepSpeed never reads it."""
    node = root.get(block)
    if node is None:
        return None
    own = "optimizer" if block == "optimizer" else "scheduler"
    return ctx.diagnostic(
        CODE,
        Severity.WARNING,
        f"the {block} block is ignored: the training code passes its own {own} to deepspeed.initialize, which overrides the JSON's",
        root.key_span(block) or node.span,
        setting=block,
        evidence=[why],
    )


def _optimizer(ctx: Context, root: Node) -> Iterator[Diagnostic | None]:
    builds, why = builds_block(ctx, "optimizer")
    named = root.get("optimizer.type") is not None and root.scalar("optimizer.type") is not None
    max_norm = root.get("optimizer.params.max_grad_norm") if named else None  # get_optimizer_params: None without a type
    yield _unordered_max_norm(ctx, max_norm)
    if not named:
        yield _no_optimizer(ctx, root)
    if builds is False:
        yield _ignored(ctx, root, "optimizer", why)
        return  # DeepSpeed names the client optimizer by its class: no JSON check runs
    severity, condition = (SEVERITY, "") if builds else (Severity.WARNING, f" {why}")
    evidence = [f"consumer: {why}"] if builds else []
    if max_norm is not None and not _unordered(max_norm.value):
        yield ctx.diagnostic(
            CODE,
            severity,
            f"optimizer.params.max_grad_norm: DeepSpeed raises 'max_grad_norm' is not supported as an optimizer parameter, please switch to using the deepspeed parameter 'gradient_clipping'{condition}",
            max_norm.span,
            setting="optimizer.params.max_grad_norm",
            current=max_norm.value,
            evidence=evidence,
        )
    kind = root.scalar("optimizer.type")
    if isinstance(kind, str) and kind.lower() in ("lamb", "onebitlamb"):
        scale = root.get("fp16.loss_scale")
        if root.scalar("fp16.enabled") is True and scale is not None and scale.value not in (0, 0.0):
            yield ctx.diagnostic(
                CODE,
                severity,
                f"{kind} with a fixed fp16 loss_scale {scale.value}: DeepSpeed raises 'DeepSpeed {kind} optimizer requires dynamic loss scaling' (set loss_scale 0){condition}",
                scale.span,
                setting="fp16.loss_scale",
                current=scale.value,
                suggested=0,
                evidence=evidence,
            )


def _unordered(value: Any) -> str:
    """The TypeError of `value > 0`, as `DeepSpeedConfig._do_warning_check` asks of max_grad_norm; "" when it works."""
    try:
        _ = value > 0
    except TypeError as exc:
        return str(exc)
    return ""


def _unordered_max_norm(ctx: Context, node: Node | None) -> Diagnostic | None:
    """`optimizer.params.max_grad_norm` null or a string: `DeepSpeedConfig._do_warning_check`
    (deepspeed/runtime/config.py, every release from 0.7.0 to 0.19.8) compares it with 0 while it
    reads the config, whoever builds the optimizer: TypeError at start-up."""
    error = _unordered(node.value) if node is not None and node.value != "auto" else ""  # "auto": RL416
    if node is None or not error:
        return None
    return ctx.diagnostic(
        CODE,
        SEVERITY,
        f"optimizer.params.max_grad_norm {json.dumps(node.value)}: DeepSpeedConfig._do_warning_check compares it with 0 while it reads the config, whoever builds the optimizer, and raises TypeError: {error} (deepspeed/runtime/config.py, every release from 0.7.0 to 0.19.8); set gradient_clipping at the top level instead",
        node.span,
        setting="optimizer.params.max_grad_norm",
        current=node.value,
    )


def _no_optimizer(ctx: Context, root: Node) -> Diagnostic | None:
    """ZeRO stage 1 or 2 with no optimizer: the JSON names none (no `optimizer.type`) and the
    script passes none to deepspeed.initialize. `DeepSpeedEngine.__init__` then calls
    `_configure_zero_optimizer(optimizer=None)`, which wraps a DummyOptim and asserts 'zero stage
    N requires an optimizer' (deepspeed/runtime/engine.py, 0.8.0 to 0.19.8; 0.7.x says 'zero
    stage 2' for both). Stage 3 builds DeepSpeedZeRoOffload instead (no optimizer needed). Judged
    only where the script's own deepspeed.initialize reads the JSON: the Trainer, Accelerate,
    WeNet, XTuner and Megatron-DeepSpeed pass an optimizer of their own when the JSON has none."""
    consumer = ctx.recipe.reader
    stage = zero_stage(root)
    if stage not in (1, 2) or consumer.kind != "deepspeed" or consumer.client_optimizer is not False:
        return None  # the script passes one, or was not read: most scripts pass their own when the JSON names none
    node = root.get("zero_optimization.stage") or root.get("zero_optimization")
    if node is None:
        return None
    said = f"the JSON names no optimizer (no optimizer.type) under ZeRO stage {stage}: DeepSpeed asserts 'zero stage {stage} requires an optimizer' at deepspeed.initialize (deepspeed/runtime/engine.py _configure_zero_optimizer, 0.8.0 to 0.19.8)"
    return ctx.diagnostic(
        CODE,
        SEVERITY,
        f"{said}; the training script passes none",
        node.span,
        setting="optimizer.type",
        evidence=[f"consumer: {consumer.why()}"],
    )


def _scheduler(ctx: Context, root: Node) -> Iterator[Diagnostic | None]:
    builds, why = builds_block(ctx, "scheduler")
    if builds is False:
        yield _ignored(ctx, root, "scheduler", why)
        return
    scheduler = root.get("scheduler.type")
    if scheduler is None or not isinstance(scheduler.value, str) or scheduler.value in SCHEDULERS | TORCH_SCHEDULERS:
        return
    near = next((s for s in SCHEDULERS if s.lower() == scheduler.value.lower()), None)
    hint = f"; the name is case-sensitive: '{near}'" if near else ""
    yield ctx.diagnostic(
        CODE,
        SEVERITY if builds else Severity.WARNING,
        f"scheduler type '{scheduler.value}': DeepSpeed raises 'DeepSpeed does not recognize LR scheduler {scheduler.value}'{hint}{'' if builds else ' ' + why}",
        scheduler.span,
        setting="scheduler.type",
        current=scheduler.value,
        suggested=near,
        evidence=[f"consumer: {why}"] if builds else [],
    )


# One thing the engine refuses at start-up: the setting it is about, the message, a suggestion.
Finding = tuple[str, str, str]


def _engine_checks(
    ctx: Context, root: Node, block: str, judge: Callable[[Node, versions.Version], frozenset[Finding] | None]
) -> Iterator[Diagnostic | None]:
    """What `judge` finds at each DeepSpeed release the run may import: an error where it holds
    for all of them and DeepSpeed builds the block, else a warning that says when it holds."""
    builds, why = builds_block(ctx, block)
    rng = ctx.version_range("deepspeed")
    parts = versions.split(rng, lambda release: judge(root, release), _engine.change_points())
    judged = [part for part in parts if part.value is not None]
    for finding in sorted({f for part in judged for f in part.value or ()}):
        held = [part for part in judged if finding in (part.value or ())]
        everywhere = len(held) == len(parts)
        when = "" if everywhere else f" with {' or '.join(part.condition for part in held)};"
        setting, message, suggested = finding
        yield ctx.diagnostic(
            CODE,
            SEVERITY if builds and everywhere else Severity.WARNING,
            f"{message} ({when} {rng.allows()}){'' if builds else ' ' + why}".replace("( ", "("),
            _span(root, setting),
            setting=setting,
            current=root.scalar(setting),
            suggested=suggested or None,
            evidence=[f"target: {rng.allows()}"] + ([f"consumer: {why}"] if builds else []),
        )


def _span(root: Node, setting: str) -> Span | None:
    """The key of the setting, else of the nearest block above it that is there."""
    parent, _, key = setting.rpartition(".")
    node = root.get(parent) if parent else root
    while node is None and "." in parent:
        parent, _, key = parent.rpartition(".")
        node = root.get(parent)
    return (node.key_span(key) if node is not None else None) or (node.span if node is not None else None)


def _optimizer_at(root: Node, release: versions.Version) -> frozenset[Finding] | None:
    """`_do_sanity_check`, `_configure_basic_optimizer` and `_do_optimizer_sanity_check` at one release."""
    name = root.scalar("optimizer.type")
    if not _engine.judged(release):
        return None
    if not isinstance(name, str) or name in _engine.TORCH_NOT_OPTIMIZERS:
        return frozenset()
    ours = name.lower() in _engine.deepspeed_names(release)
    if (not ours and _engine.removed_in(name.lower())) or (ours and name.lower() in _engine.NOT_JUDGED):
        return frozenset()  # RL423 reports a removed name; mup and Muon are not judged
    built = _engine.resolve(name, root, release)
    if built is None:
        return frozenset() if ours else frozenset({_unsupported(name)})
    found = {
        (f"optimizer.params.{key}", f"optimizer {name}: DeepSpeed builds {_label(built)} with **optimizer.params, which raises {error}", "")
        for key, error in _engine.wrong_params(built, root.get("optimizer.params"), release, ("max_grad_norm",))
    }
    stage = zero_stage(root)
    allowed = root.get("zero_allow_untested_optimizer")
    if stage and not (allowed is not None and allowed.plain()) and not _engine.zero_tested(release, built):
        found.add(
            (
                "optimizer.type",
                f"optimizer {name} under ZeRO stage {stage}: DeepSpeed builds {_label(built)}, which is not in ZeRO's tested optimizers (deepspeed/runtime/zero/utils.py), and asserts '{UNTESTED}'",
                "",
            )
        )
    return frozenset(found)


def _label(built: _engine.Built) -> str:
    return f"{built.label} (torch {_engine.torch_releases()})" if built.kind != "deepspeed" else built.label


def _unsupported(name: str) -> Finding:
    near = next((t for t in sorted(_engine.torch_optimizers()) if t.lower() == name.lower().replace("_", "")), "")
    hint = f"; torch.optim spells it '{near}'" if near else ""
    message = f"optimizer type '{name}' is neither one of DeepSpeed's optimizer names (any case) nor a torch.optim class (case-sensitive): the engine asserts '{name} is not a supported DeepSpeed Optimizer'{hint}"
    return ("optimizer.type", message, near)


def _scheduler_at(root: Node, release: versions.Version) -> frozenset[Finding] | None:
    """`_scheduler_from_config` at one release: the class called with `(optimizer, **params)`."""
    name = root.scalar("scheduler.type")
    if not _engine.judged(release):
        return None
    built = _engine.scheduler_class(name, release) if isinstance(name, str) else None
    if built is None:
        return frozenset()  # an unknown name: _scheduler above
    params = root.get("scheduler.params")
    if params is None:
        return frozenset(
            {
                (
                    "scheduler.type",
                    f"scheduler {name} has no params: DeepSpeed calls {_label(built)} with **None, which raises TypeError: argument after ** must be a mapping, not NoneType",
                    "",
                )
            }
        )
    return frozenset(
        (f"scheduler.params.{key}", f"scheduler {name}: DeepSpeed builds {_label(built)} with **scheduler.params, which raises {error}", "")
        for key, error in _engine.wrong_params(built, params, release)
    )
