"""The Hugging Face Trainer's arguments as a launch gives them: the words after the training
script, the dataclasses the script's HfArgumentParser receives (recipelint.parse.hfparser), and
TrainingArguments of the transformers release the run installs (recipelint.trainingargs).

A value comes from, first to last: the launch's flag (argparse keeps the last), the default the
script's own dataclass declares (`@dataclass class TrainingArguments(transformers.TrainingArguments):
optim: str = "adamw_torch"`), a `TrainingArguments(...)` call's literal keyword when the script
parses no flags, the release's default. Rules and `show` read the same values."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from recipelint import trainingargs, versions
from recipelint.model import Recipe
from recipelint.parse.files import FileCache
from recipelint.parse.hfparser import Default, Option, Parser, Reading
from recipelint.parse.shell import Word
from recipelint.parse.span import Span
from recipelint.records import dataclass

_TRUE = {"yes", "true", "t", "y", "1"}  # hf_argparser.py string_to_bool
_FALSE = {"no", "false", "f", "n", "0"}


@dataclass
class Flag:
    """One option word after the training script, with its value word when it takes one."""

    option: str  # as written, before any `=`: "--per_device_train_batch_size"
    word: Word
    value: Word | None  # the next word or the part after `=`; None: a bare switch
    conditional: bool  # present only on some paths of the script (`${x:+--flag}`, one branch's value)


@dataclass
class Value:
    """A TrainingArguments value for one release, and where it comes from."""

    name: str
    value: Any  # None: only the run time knows
    source: str  # "flag --bf16 True (run.sh:12)", "script default (train.py:40)", "transformers 4.46 default"
    span: Span | None  # where it is written; None for a release default
    edit_span: Span | None = None
    given: bool = True


def script_path(recipe: Recipe) -> Path | None:
    launch = recipe.launch
    text = launch.script.value if launch is not None else None
    if isinstance(text, str) and recipe.workdir is not None and recipe.workdir.path is None and not Path(text).is_absolute():
        # the script is in none of the folders the launch may run from: a file of that name in
        # another folder (a README's second fence after the first's `cd pretrain`) is not its script
        return None
    return recipe.launched_file()[0]


def reading(recipe: Recipe, files: FileCache) -> Reading | None:
    from recipelint.parse import hfparser

    path = script_path(recipe)
    return hfparser.read(path, files, recipe.launched_file()[1]) if path is not None else None


def launch_flags(recipe: Recipe) -> list[Flag] | None:
    """The option words the launch passes the training script; None without a launch. A `$ARGS`
    the shell splits is read through its fields; a word the run time decides is skipped."""
    launch = recipe.launch
    if launch is None:
        return None
    words = launch.command.words
    start = next((i for i, w in enumerate(words) if w is launch.script), None)
    if start is None:
        return None
    expanded: list[tuple[Word, bool]] = []
    for word in words[start + 1 :]:
        fields = word.binding.fields if word.value is None and word.binding is not None else None
        if fields and not word.text.startswith('"'):
            expanded.extend((f, True if word.condition else False) for f in fields)
        else:
            expanded.append((word, word.condition is not None))
    return _flags(expanded)


def _flags(words: list[tuple[Word, bool]]) -> list[Flag]:
    flags: list[Flag] = []
    index = 0
    while index < len(words):
        word, conditional = words[index]
        text = word.value
        index += 1
        if text is None or not text.startswith("--") or text == "--":
            continue
        if word.option is not None:
            flags.append(Flag(word.option[0], word, word.option[1], conditional))
            continue
        value = words[index][0] if index < len(words) else None
        if value is not None and value.value is not None and value.value.startswith("-") and not _number(value.value):
            value = None
        if value is not None:
            index += 1
        flags.append(Flag(text, word, value, conditional))
    return flags


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def parser_fields(parser: Parser, version: versions.Version) -> tuple[dict[str, trainingargs.Field], bool]:
    """Every field the parser's dataclasses have in a release, and whether all of them are known
    (a trl config's own fields, a class not found, are not)."""
    known = True
    out: dict[str, trainingargs.Field] = {}
    for cls in parser.classes:
        if cls.extends_trainer:
            out.update(trainingargs.fields(version, seq2seq=cls.base == "transformers-seq2seq"))
        trl = trainingargs.trl_fields(cls.name) if cls.base in ("trl", "trl-other") else None
        for name, defaults in (trl or {}).items():
            base = out.get(name)
            # trl's own default wins over TrainingArguments'; one that moved between trl releases is not known
            value = defaults[0] if len(set(map(repr, defaults))) == 1 else None
            out[name] = trainingargs.Field(name, base.type if base else "", value, len(set(map(repr, defaults))) == 1, None, "")
        if cls.base == "unknown" or (cls.base in ("trl", "trl-other") and trl is None):
            known = False
        for name, default in cls.own.items():
            base = out.get(name)
            out[name] = trainingargs.Field(name, base.type if base else "", default.value, default.literal, None, "")
    return out, known


def convert(text: str, spec: trainingargs.Field | None) -> Any:
    """A flag's text as HfArgumentParser converts it for the field's type (int, float, bool);
    anything else stays text. An unconvertible value is kept as text (argparse would stop)."""
    kind = (spec.type if spec else "").replace("Optional[", "").replace(" | None", "").rstrip("]")
    try:
        if kind == "int":
            return int(text)
        if kind == "float":
            return float(text)
    except ValueError:
        return text
    if kind == "bool":
        lowered = text.lower()
        return True if lowered in _TRUE else False if lowered in _FALSE else text
    return text


def trainer_parser(read: Reading | None) -> Parser | None:
    """The script's HfArgumentParser when one of its dataclasses is TrainingArguments (or extends
    it); a parser of the script's own options only (BELLE's `HfArgumentParser(ScriptArguments)`,
    which then builds `TrainingArguments(...)` in code) is not."""
    parser = read.parser if read is not None else None
    return parser if parser is not None and any(c.extends_trainer for c in parser.classes) else None


def value_of(recipe: Recipe, read: Reading | None, name: str, version: versions.Version) -> Value | None:
    """The value TrainingArguments.`name` has in this run with this release; None when the
    release has no such field and nothing sets it, or the script builds no TrainingArguments
    recipelint could read."""
    release = trainingargs.fields(version, seq2seq=True)
    parser = trainer_parser(read)
    if parser is None:
        return _from_call(recipe, read, name, release.get(name), version)
    spec = {**release, **parser_fields(parser, version)[0]}.get(name)
    flagged = _from_flags(recipe, parser, name, spec, version)
    if flagged is not None:
        return flagged
    for cls in parser.classes:
        own = cls.own.get(name)
        if own is not None and cls.extends_trainer:
            shown = repr(own.value) if own.literal else "computed"
            return Value(name, own.value if own.literal else None, f"script default {shown} ({own.where})", own.span, own.span)
        trl = trainingargs.trl_fields(cls.name) if cls.base == "trl" else None
        if cls.base == "trl" and (trl is None or name in trl):
            return _trl_default(name, cls.name, spec, trl is not None)
    return _release_default(name, release.get(name), version)


def _release_default(name: str, spec: trainingargs.Field | None, version: versions.Version) -> Value | None:
    if spec is None:
        return None
    label = trainingargs.release_label(version)
    if not spec.has_default:
        return Value(name, None, f"transformers {label} default: computed", None, given=False)
    return Value(name, spec.default, f"transformers {label} default {spec.default!r}", None, given=False)


def _from_call(recipe: Recipe, read: Reading | None, name: str, spec: trainingargs.Field | None, version: versions.Version) -> Value | None:
    """A script that builds `TrainingArguments(...)` in code: the keyword's literal, or the option
    it reads (`x=args.y`), else the release's default; None when no such call was read."""
    if read is None or not read.calls:
        return None
    call = read.calls.get(name)
    if call is not None and call.ref is not None:
        return _from_argparse(recipe, read, call, spec)
    if call is not None and not call.literal:
        return Value(name, None, f"TrainingArguments({name}=...) computed in code ({call.where})", call.span)
    if call is not None:
        return Value(name, call.value, f"TrainingArguments({name}={call.value!r}) ({call.where})", call.span, call.span)
    return _release_default(name, spec, version)


def _trl_default(name: str, cls: str, spec: trainingargs.Field | None, known: bool) -> Value:
    """A trl config's default: the one every trl release read gives, else not known (the table
    does not have the class, or the default moved between releases)."""
    if known and spec is not None and spec.has_default:
        return Value(name, spec.default, f"trl {cls} default {spec.default!r} (every trl release read)", None, given=False)
    why = "its default moved between trl releases" if known else "trl's table does not have it"
    return Value(name, None, f"trl {cls} default: not known ({why})", None, given=False)


def _dataclass_option(read: Reading, dest: str) -> Option | None:
    """`TrainingArguments(x=script_args.y)` where `y` is a field of the script's own
    HfArgumentParser dataclass: its `--y` option and its default."""
    parser = read.parser
    for cls in parser.classes if parser is not None else []:
        own = cls.own.get(dest)
        if own is not None:
            kind = own.kind.replace("Optional[", "").rstrip("]")
            switch = False
            return Option(dest, (f"--{dest}",), own.value if own.literal else None, switch, kind)
    return None


def _from_argparse(recipe: Recipe, read: Reading, call: Default, spec: trainingargs.Field | None) -> Value | None:
    """`TrainingArguments(learning_rate=args.lr)`: the launch's `--lr`, else the script's argparse
    default; None when the script's argparse has no such destination."""
    option = read.argparse.get(call.ref or "") or _dataclass_option(read, call.ref or "")
    if option is None:
        return None
    said = f"TrainingArguments({call.name}=args.{call.ref}) ({call.where})"
    for flag in reversed(launch_flags(recipe) or []):
        if flag.option not in option.options and not any(o.startswith(flag.option) for o in option.options):
            continue
        where = f"{flag.word.span.path.name}:{flag.word.span.line}"
        if option.switch:
            return Value(call.name, option.const, f"flag {flag.option} ({where}) via {said}", flag.word.span)
        if flag.value is None or flag.value.value is None or flag.conditional:
            return Value(call.name, None, f"flag {flag.option}: decided at run time ({where})", flag.word.span)
        typed = trainingargs.Field(call.name, option.kind or (spec.type if spec else ""), None, False, None, "")
        value = convert(flag.value.value, typed)
        return Value(call.name, value, f"flag {flag.option} {flag.value.value} ({where}) via {said}", flag.value.span, flag.value.edit_span)
    return Value(call.name, option.default, f"argparse default {option.default!r} of {option.options[0]} via {said}", call.span)


def _from_flags(recipe: Recipe, parser: Parser, name: str, spec: trainingargs.Field | None, version: versions.Version) -> Value | None:
    flags = launch_flags(recipe) or []
    fields, _ = parser_fields(parser, version)
    options = trainingargs.options(fields, version)
    found: Value | None = None
    for flag in flags:
        if trainingargs.accepted(flag.option, options) != name:
            continue
        negated = flag.option.startswith(("--no_", "--no-")) and flag.option not in (f"--{name}", f"--{name.replace('_', '-')}")
        where = f"{flag.word.span.path.name}:{flag.word.span.line}"
        if flag.value is None:
            value: Any = not negated if spec is not None and "bool" in spec.type else None
            found = Value(name, value, f"flag {flag.option} ({where})", flag.word.span)
        elif flag.value.value is None:
            found = Value(name, None, f"flag {flag.option} {flag.value.text}: decided at run time ({where})", flag.value.span)
        else:
            converted = convert(flag.value.value, spec)
            found = Value(name, converted, f"flag {flag.option} {flag.value.value} ({where})", flag.value.span, flag.value.edit_span)
        if flag.conditional:
            found = Value(name, None, f"{found.source}, on only some paths of the script", found.span)
    return found


# What `recipelint show` prints of TrainingArguments: the values the batch, the precision, the
# schedule and the loader depend on.
SHOWN = (
    "per_device_train_batch_size",
    "gradient_accumulation_steps",
    "learning_rate",
    "lr_scheduler_type",
    "warmup_steps",
    "warmup_ratio",
    "max_grad_norm",
    "bf16",
    "fp16",
    "dataloader_num_workers",
)


def shown_rows(recipe: Recipe, rng: versions.Range) -> list[tuple[str, str, str]]:
    """(label, value, source) of each shown TrainingArguments value, for the newest release the
    run may install (whose defaults fill what nothing sets); none when the script builds no
    TrainingArguments recipelint could read."""
    read = recipe.hf_args
    parser = trainer_parser(read)
    if read is None or (parser is None and not read.calls):
        return []
    version = trainingargs.clamp(trainingargs.points(rng)[-1])
    if parser is not None:
        rows = [("parsed by", parser.where.split(": ", 1)[-1][:80], parser.where.split(": ", 1)[0])]
    else:
        rows = [("built by", "TrainingArguments(...)", "the script builds it in code: the keywords below")]
    for name in SHOWN:
        value = value_of(recipe, read, name, version)
        if value is not None:
            rows.append((name, "decided at run time" if value.value is None and value.given else repr(value.value), value.source))
    return rows
