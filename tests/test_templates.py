"""Files a script writes from its own text (issue 27): Megatron-DeepSpeed's heredoc and sed-filled
DeepSpeed JSONs judged with the script's values, a template checked alone, and XTuner config names
and v1 launches, each on unmodified upstream files (tests/data/upstream/*/SOURCE.md)."""

from __future__ import annotations

from pathlib import Path

from recipelint import engine, fix
from recipelint.diagnostics import Diagnostic
from recipelint.hardware.profile import from_mapping
from recipelint.model import Recipe
from recipelint.parse.files import FileCache
from recipelint.parse.shell import parse_shell
from recipelint.parse.span import SourceText, Span
from recipelint.parse.tree import Node
from recipelint.toolkits.xtuner.part import mmengine_config
from tests.helpers import NODE, UPSTREAM, assert_snapshot, clone, describe, item

MEGATRON = "deepspeed/Megatron-DeepSpeed"
EXAMPLES = UPSTREAM / MEGATRON / "examples_deepspeed"


def run(path: Path, gpus: int = 8) -> engine.Result:
    profile = from_mapping({**NODE, "gpus": gpus}, "profile test.yaml")
    return engine.check([path], hardware=lambda: profile, files=FileCache(), keep_recipes=True)


def found(result: engine.Result, code: str) -> list[Diagnostic]:
    return [d for d in result.diagnostics if d.code == code]


def ds_root(recipe: Recipe) -> Node:
    assert recipe.ds_config is not None
    return recipe.ds_config.root


def at(root: Node, key: str) -> Span:
    node = root.get(key)
    assert node is not None, key
    return node.span


def key_line(root: Node, key: str) -> int:
    span = root.key_span(key)
    assert span is not None, key
    return span.line


# -- heredoc: cat <<EOT > $DS_CONFIG ----------------------------------------------------------------


def test_heredoc_json_is_the_launch_config_with_the_script_values() -> None:
    script = EXAMPLES / "run_deepspeed_example.sh"
    result = run(script)
    assert result.errors == [] and found(result, "RL012") == []
    (recipe,) = [r for r in result.recipes if r.ds_config is not None]
    root = ds_root(recipe)
    assert (root.scalar("train_batch_size"), root.scalar("train_micro_batch_size_per_gpu"), root.scalar("zero_optimization.stage")) == (
        64,
        4,
        2,
    )
    # a value from $GLOBAL_BATCH points at GLOBAL_BATCH=64; a literal key at the heredoc's own line
    assert at(root, "train_batch_size").line == 13 and key_line(root, "train_batch_size") == 24
    assert at(root, "fp16.enabled").line == 33 and at(root, "fp16.enabled").path == script


def test_heredoc_batch_triple_points_at_the_assignment_and_the_fix_edits_it(tmp_path: Path) -> None:
    root = clone(MEGATRON, tmp_path)
    script = root / "examples_deepspeed/run_deepspeed_example.sh"
    assert found(run(script, gpus=8), "RL415") == []  # 64 = 4 x 2 x 8
    result = run(script, gpus=6)  # 64 is no multiple of 4 x 6
    (batch,) = found(result, "RL415")
    assert (batch.span.path, batch.span.line, batch.current) == (script, 13, 64)
    assert batch.fix is not None and [e.span.line for e in batch.fix.edits] == [13]
    edits, _ = fix.choose_edits(result.diagnostics, unsafe=True)
    after = fix.apply_edits(script.read_bytes(), edits[script]).decode()
    assert "GLOBAL_BATCH=72\n" in after and '"train_batch_size" : $GLOBAL_BATCH,' in after


def test_flag_carried_on_every_branch_and_megatron_parallel_sizes() -> None:
    script = EXAMPLES / "pretrain_llama2_distributed.sh"
    (described,), result = describe([script])
    assert found(result, "RL012") == []
    config = item(described, "configs", "DeepSpeed config")
    assert config.source == "written by the script itself at line 67; read from cat <<EOT at line 67 with the script's values"
    (recipe,) = [r for r in run(script).recipes if r.ds_config is not None]
    assert recipe.model_parallel is not None and recipe.model_parallel.value == 4
    # 32 = 4 x 4 x (8 GPUs // TP 2 x PP 2): quiet; counted on all 8 GPUs it would not divide on 6
    assert found(run(script, gpus=6), "RL415") == []


# -- sed "s/GBSIZE/${global_batch_size}/" template.json | sed ... > ${config_json} -------------------


def test_sed_filled_template_is_read_with_the_values_and_runtime_keys_said() -> None:
    script = EXAMPLES / "rebase/ds_pretrain_gpt_125M.sh"
    (described,), result = describe([script])
    assert found(result, "RL012") == [] and result.errors == []
    source = item(described, "configs", "DeepSpeed config").source
    assert source.startswith("written by the script itself at line 294; read from sed at line 294, filling ds_config_gpt_TEMPLATE.json")
    # prescale_grad="false" where `[[ $zero_stage -gt 0 ]]` (line 206), an if that only assigns: the
    # script's zero_stage=1 decides it (#39; it was "decided at run time")
    assert "decided at run time" not in source
    (recipe,) = [r for r in run(script).recipes if r.ds_config is not None]
    root = ds_root(recipe)
    assert (root.scalar("train_batch_size"), root.scalar("train_micro_batch_size_per_gpu"), root.scalar("zero_optimization.stage")) == (
        256,
        2,
        1,
    )
    assert root.scalar("prescale_gradients") is False and at(root, "prescale_gradients").line == 208
    assert (at(root, "train_batch_size").path.name, at(root, "train_batch_size").line) == ("ds_pretrain_gpt_125M.sh", 24)
    assert (at(root, "fp16.loss_scale").path.name, at(root, "fp16.loss_scale").line) == ("ds_config_gpt_TEMPLATE.json", 15)
    # tensor parallelism hides in ${megatron_options}, which differs between branches: no data-parallel size
    assert recipe.model_parallel is not None and recipe.model_parallel.value is None


def test_template_written_on_both_branches_keeps_what_they_agree_on() -> None:
    script = EXAMPLES / "bert_with_pile/ds_finetune_bert_mnli.sh"
    (described,), result = describe([script])
    assert result.errors == [] and found(result, "RL012") == []
    source = item(described, "configs", "DeepSpeed config").source
    assert "decided at run time, not judged: prescale_gradients (the script writes 'false' and 'true' here at lines 92 and 101" in source
    (recipe,) = [r for r in run(script).recipes if r.ds_config is not None]
    root = ds_root(recipe)
    assert (root.scalar("train_batch_size"), root.scalar("train_micro_batch_size_per_gpu"), root.scalar("fp16.enabled")) == (128, 16, True)
    assert root.get("prescale_gradients") is None


def test_sed_substitutions_modelled_and_declined() -> None:
    text = b'G=8\nsed -e "s/GB/$G/" -e \'s/MB/2/g; s/Z/1/\' t.json > a.json\nsed "s/A.*/x/" t.json > b.json\n'
    script = parse_shell(SourceText(Path("x.sh"), text))
    a = script.templates["a.json"]
    assert a.template == "t.json" and [(s.pattern, s.replacement.text, s.every) for s in a.edits] == [
        ("GB", "8", False),
        ("MB", "2", True),
        ("Z", "1", False),
    ]
    assert a.edits[0].replacement.origin is not None and a.edits[0].replacement.origin.name == "G"
    assert script.templates["b.json"].unknown == "the sed command `s/A.*/x/` is not a plain s/WORD/VALUE/"
    replacements = [s.replacement for s in a.edits]
    assert [text[r.span.start : r.span.end] for r in replacements] == [b"$G", b"2", b"1"]  # each at its place, `; s/Z/` too


# -- a template checked alone ---------------------------------------------------------------------------


def test_template_alone_is_an_info_naming_the_script_that_fills_it(tmp_path: Path) -> None:
    root = clone(MEGATRON, tmp_path)
    template = root / "examples_deepspeed/rebase/ds_config_gpt_TEMPLATE.json"
    result = run(template)
    assert result.errors == []  # was: invalid JSON, exit 2
    assert_snapshot("RL439", result.diagnostics, tmp_path)
    (info,) = found(result, "RL439")
    assert "filled at run time by" in info.message and "ds_pretrain_gpt_125M.sh:289" in info.message
    lone = run(root / "examples_deepspeed/curriculum_learning/ds_config_gpt_slw_TEMPLATE.json")
    assert lone.errors == [] and ["not JSON until a script fills them" in d.message for d in found(lone, "RL439")] == [True]


def test_broken_json_without_placeholders_stays_a_file_error(tmp_path: Path) -> None:
    broken = tmp_path / "ds_config.json"
    broken.write_text('{"train_batch_size": 8,, "fp16": {}}\n')
    result = run(broken)
    assert [e.reason for e in result.errors] == ["invalid JSON: expected a quoted key or '}'"] and found(result, "RL439") == []


# -- XTuner: config names, v1 launches ------------------------------------------------------------------


def test_xtuner_config_name_is_read_from_the_checkout() -> None:
    readme = UPSTREAM / "xtuner-checkout-v0.2.0/README.md"
    (*described,), result = describe([readme])
    names = [d for d in found(result, "RL809") if "internlm2_5_chat_7b_qlora_oasst1_e3" in d.message]
    assert names == []  # was: "cannot be read offline" on lines 219, 221, 222
    configs = [item(d, "configs", "mmengine config") for d in described if any(s.title == "configs" for s in d.sections)]
    assert len(configs) == 3 and all(c.source.endswith("internlm2_5_chat_7b/internlm2_5_chat_7b_qlora_oasst1_e3.py") for c in configs)
    (config, *_) = [c for c in map(mmengine_config, run(readme).recipes) if c is not None]
    assert config.source.path.name == "internlm2_5_chat_7b_qlora_oasst1_e3.py"


def test_xtuner_config_name_not_in_the_checkout_still_says_so(tmp_path: Path) -> None:
    root = clone("xtuner-checkout-v0.2.0", tmp_path)
    (root / "train.sh").write_text("xtuner train internlm2_chat_7b_qlora_oasst1_e3\n")
    (missing,) = found(run(root / "train.sh"), "RL809")
    assert "has no xtuner/configs/**/internlm2_chat_7b_qlora_oasst1_e3.py" in missing.message


def test_xtuner_v1_launch_is_reported_as_not_judged(tmp_path: Path) -> None:
    root = clone("xtuner-v1.0.1", tmp_path)
    result = run(root / "docs/en/get_started/sft.md")
    assert_snapshot("RL811", result.diagnostics, tmp_path)
    (v1,) = found(result, "RL811")
    assert v1.span.line == 76 and "not judged" in v1.message
    assert found(run(UPSTREAM / "xtuner-checkout-v0.2.0/README.md"), "RL811") == []
