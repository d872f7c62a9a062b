"""WeNet forks judged by their own code (issue 40): the unmodified files of three projects that
carry their own `wenet/` (tests/data/forks/*/SOURCE.md), each verdict once where the fork's code
accepts a value and once where it rejects it."""

from __future__ import annotations

import shutil
from pathlib import Path

from recipelint import engine
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.hardware.profile import load_profile
from recipelint.parse import pycode
from recipelint.parse.checkout import Checkout, identify
from recipelint.records import replace
from recipelint.toolkits.wenet.checkout import TRAIN_ENTRY, WENET_CODE, dataset_keys, trainers
from tests.helpers import NODE, RecipeSpec, cli, copy_upstream, lint
from tests.test_checkout import recipe_in

FORKS = Path(__file__).parent / "data" / "forks"
PROFILE = Path(__file__).parent / "data" / "profiles" / "a100-8x-96cpu-ib.yaml"
HEAD = Path(__file__).parent / "data" / "checkouts" / "wenet-head"


def check(path: Path) -> list[Diagnostic]:
    profile = load_profile(PROFILE)
    result = engine.check([path], hardware=lambda: profile)
    assert not result.errors, result.errors
    return result.diagnostics


def codes(found: list[Diagnostic], code: str) -> list[Diagnostic]:
    return [d for d in found if d.code == code]


def fork(name: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(FORKS / name, tmp_path / name))


# -- MSDM: a trainer variant with its own Dataset and model builder ---------------------------

# The repository has no licence: only its files with WeNet's header are kept (SOURCE.md). The
# run script's train YAML and path.sh are written here, with the keys of the fork's own config
# (examples/MSDM/conf/train_resnet_10.yaml at f7107635) that upstream's schema does not know.
MSDM_YAML = """\
encoder: conformer
encoder_conf:
    output_size: 128
    num_blocks: 3
resnet_conf:
    depth: 10
decoder: null
dys: true
output_dim: 4
dataset_conf:
    modarity: 'video'
    filter_conf:
        max_length: 40960
    fbank_conf:
        num_mel_bins: 80
    batch_conf:
        batch_type: 'static'
        batch_size: 8
accum_grad: 1
max_epoch: 50
optim: adam
scheduler: warmuplr
"""


def msdm(tmp_path: Path) -> Path:
    root = fork("msdm", tmp_path)
    (root / "examples/MSDM/conf").mkdir()
    (root / "examples/MSDM/conf/train_resnet_10.yaml").write_text(MSDM_YAML)
    (root / "examples/MSDM/path.sh").write_text("export PYTHONPATH=../../../:$PYTHONPATH\n")
    return root


def test_msdm_config_is_quiet_by_its_own_code(tmp_path: Path) -> None:
    """resnet_conf and dys are read by wenet/utils/init_model_dys.py, `decoder: null` is a branch
    of it (`elif decoder_type is None`), modarity is read by wenet/dataset/dataset_dys.py, which
    the fork's train_dys.py imports: upstream's schema called them 4 ignored keys and an error."""
    found = check(msdm(tmp_path))
    assert [d for d in found if d.code in ("RL701", "RL702")] == []
    assert [d.code for d in lint(msdm(tmp_path / "node"), NODE) if d.code in ("RL701", "RL702")] == []  # the node plays no part


def test_msdm_key_no_code_reads_still_warns(tmp_path: Path) -> None:
    root = msdm(tmp_path)
    config = root / "examples/MSDM/conf/train_resnet_10.yaml"
    config.write_text(config.read_text().replace("\ndys: true", "\ndyss: true").replace("modarity:", "modality:"))
    found = {d.setting: d for d in codes(check(root), "RL701")}
    assert set(found) == {"dyss", "dataset_conf.modality"}
    assert all(d.severity == Severity.WARNING for d in found.values())
    assert "train_dys.py" in found["dataset_conf.modality"].evidence[0]


def test_the_trainer_variant_reads_its_own_dataset() -> None:
    checkout = identify(Checkout(WENET_CODE, FORKS / "msdm", "test"))
    assert trainers(checkout) == ["bin/train.py", "bin/train_dys.py"]
    variant, plain = dataset_keys(checkout, "bin/train_dys.py"), dataset_keys(checkout, "bin/train.py")
    assert variant is not None and plain is not None
    assert "modarity" in variant[""].keys and "modarity" not in plain[""].keys
    assert {"resnet_conf", "dys"} <= checkout.config_keys()


# -- DialectMoE: a fork that narrows feats_type --------------------------------------------------

DIALECT_YAML = """\
encoder: conformer
encoder_conf:
    output_size: 256
accum_grad: 1
dataset_conf:
    feats_type: {feats}
    fbank_conf:
        num_mel_bins: 80
    batch_conf:
        batch_type: static
        batch_size: 16
"""


def test_choices_come_from_the_forks_assert(tmp_path: Path) -> None:
    """wenet/dataset/dataset.py of the fork asserts `feats_type in ['fbank', 'mfcc']`: the
    log_mel_spectrogram upstream accepts stops this fork; mfcc runs."""
    root = fork("dialectmoe", tmp_path)
    (root / "conf").mkdir()
    (root / "conf/bad.yaml").write_text(DIALECT_YAML.format(feats="log_mel_spectrogram"))
    (root / "conf/good.yaml").write_text(DIALECT_YAML.format(feats="mfcc"))
    found = codes(lint(root / "conf"), "RL702")
    assert [(d.span.path.name, d.severity) for d in found] == [("bad.yaml", Severity.ERROR)]
    assert "rejected by the code this recipe runs (" in found[0].message and "dataset.py:161" in found[0].message


def test_a_value_no_code_compares_is_an_info(tmp_path: Path) -> None:
    root = fork("dialectmoe", tmp_path)
    (root / "conf").mkdir()
    (root / "conf/a.yaml").write_text(DIALECT_YAML.format(feats="fbank") + "optim: lamb\n")
    (only,) = codes(lint(root / "conf"), "RL702")
    assert only.severity == Severity.INFO and only.setting == "optim"
    assert "not judged: no code of the WeNet checkout" in only.message


def test_a_key_the_fork_reads_only_nested_is_not_read_at_the_top(tmp_path: Path) -> None:
    """The fork's wenet/utils/common.py reads `config["encoder_conf"]["input_layer"]`: a top-level
    `input_layer` (the fork's own conf/train_e_branchformer_moe.yaml has one) reaches no code;
    under encoder_conf it is read."""
    root = fork("dialectmoe", tmp_path)
    (root / "conf").mkdir()
    (root / "conf/top.yaml").write_text("input_layer: conv2d\n" + DIALECT_YAML.format(feats="fbank"))
    nested = DIALECT_YAML.format(feats="fbank").replace("    output_size: 256", "    output_size: 256\n    input_layer: conv2d")
    (root / "conf/nested.yaml").write_text(nested)
    found = [(d.span.path.name, d.setting, d.severity) for d in codes(lint(root / "conf"), "RL701")]
    assert found == [("top.yaml", "input_layer", Severity.WARNING)]


# -- deep-sparse-conformer: prefetch_factor and the join dropped ---------------------------------


def test_num_workers_zero_starts_where_the_fork_passes_no_prefetch_factor() -> None:
    (rl101,) = codes(check(FORKS / "deep-sparse-conformer"), "RL101")
    assert rl101.severity == Severity.INFO
    assert "train.py:" in rl101.evidence[0] and "prefetch_factor" in rl101.evidence[0]


TRAIN_PY = """\
import argparse
import datetime
import torch.distributed as dist


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--config', required=True)
    parser.add_argument('--train_engine', default='torch_ddp', choices=['torch_ddp', 'deepspeed'])
    parser.add_argument('--timeout', default=30, type=int)
    parser.add_argument('--num_workers', default=0, type=int)
    args = parser.parse_args()
    {join}
"""
RUN_SH = """\
#!/bin/bash
export CUDA_VISIBLE_DEVICES="0,1,2,3,4,5,6,7"
torchrun --nnodes=1 --nproc_per_node=8 wenet/bin/train.py --config conf/train.yaml \\
  --train_engine deepspeed --timeout 1800 --num_workers 2
"""


def test_timeout_reaches_nothing_without_the_join(tmp_path: Path) -> None:
    """The firing side of the OSUM-EChat case below: a small train.py, once with the join's
    reading and once with it commented out, the only difference."""
    verdicts = {}
    for name, join in (
        ("joined", "group = dist.new_group(backend='gloo', timeout=datetime.timedelta(seconds=args.timeout))"),
        ("dropped", "# group = dist.new_group(backend='gloo', timeout=datetime.timedelta(seconds=args.timeout))"),
    ):
        root = tmp_path / name
        (root / "wenet/bin").mkdir(parents=True)
        (root / "wenet/bin/train.py").write_text(TRAIN_PY.format(join=join))
        (root / "run.sh").write_text(RUN_SH)
        (root / "conf").mkdir()
        (root / "conf/train.yaml").write_text(DIALECT_YAML.format(feats="fbank"))
        verdicts[name] = [(d.severity, d.message) for d in codes(check(root), "RL303")]
    assert [s for s, _ in verdicts["joined"]] == [Severity.ERROR]
    assert verdicts["dropped"] == [(Severity.INFO, "--timeout 1800 has no effect: the code this recipe runs never reads it")]


def test_value_read_follows_the_script_and_its_modules() -> None:
    fork_checkout = identify(Checkout(WENET_CODE, FORKS / "deep-sparse-conformer", "test"))
    head = identify(Checkout(WENET_CODE, HEAD, "test"))
    assert fork_checkout.value_read("timeout", TRAIN_ENTRY) is False and fork_checkout.value_read("prefetch", TRAIN_ENTRY) is False
    read = head.value_read("timeout", TRAIN_ENTRY)
    assert read and not isinstance(read, bool) and read.path.name == "train.py"
    assert (
        "prefetch_factor" in head.loader_keywords(TRAIN_ENTRY)[0] and "prefetch_factor" not in fork_checkout.loader_keywords(TRAIN_ENTRY)[0]
    )


def test_show_names_the_forks_code_not_a_release() -> None:
    out = cli("show", str(FORKS / "deep-sparse-conformer/examples/csj/s0/run_conformer_bidecoder_large.sh"), "--hardware", str(PROFILE))
    assert "wenet version      its own code (version unknown)" in out.stdout, out.stdout
    assert "v3.1.0" not in out.stdout and "newest known" not in out.stdout.split("deepspeed version")[0]


# -- following a dict through code: the readers on small code ------------------------------------


def parse(tmp_path: Path, name: str, text: str) -> pycode.PyFile:
    path = tmp_path / name
    path.write_text(text)
    file = pycode.parse_python(path)
    assert file is not None
    return file


def test_conf_handed_to_a_helper_and_a_block_to_a_datapipe(tmp_path: Path) -> None:
    dataset = parse(
        tmp_path,
        "dataset.py",
        "def Dataset(data_type, data_list_file, tokenizer, conf):\n"
        "    return get_dataset(data_type, data_list_file, tokenizer, conf)\n"
        "def get_dataset(data_type, data_list_file, tokenizer, conf):\n"
        "    shuffle = conf.get('shuffle', True)\n"
        "    merge_conf = conf.get('merge_conf', {})\n"
        "    dataset = dataset.merge_utterances(merge_conf, epoch=0)\n"
        "    other_conf = conf.get('other_conf', {})\n"
        "    dataset = unknown_helper(other_conf)\n"
        "    return dataset\n",
    )
    pipes = parse(
        tmp_path,
        "pipes.py",
        "@functional_datapipe('merge_utterances')\n"
        "class Merge(IterDataPipe):\n"
        "    def __init__(self, dataset, config, epoch=0):\n"
        "        self.n = config.get('max_utts', 3)\n"
        "        self.add = config['add_tag']\n",
    )
    reads = pycode.dataset_keys(dataset, None, [pipes])
    assert reads is not None
    assert {"shuffle", "merge_conf", "other_conf"} <= reads[""].keys
    assert reads["merge_conf"].keys == {"max_utts", "add_tag"} and not reads["merge_conf"].open
    assert reads["other_conf"].open and reads["other_conf"].unfollowed == "unknown_helper() at line 8"


def test_a_dict_read_by_computed_keys_is_not_followed(tmp_path: Path) -> None:
    dataset = parse(
        tmp_path,
        "dataset.py",
        "def Dataset(data_type, data_list_file, tokenizer, conf):\n"
        "    shuffle = conf.get('shuffle', True)\n"
        "    for name in ('a', 'b'):\n"
        "        x = conf[name]\n"
        "    fbank_conf = conf.get('fbank_conf', {})\n"
        "    feats = {k: v for k, v in fbank_conf.items()}\n"
        "    return feats\n",
    )
    reads = pycode.dataset_keys(dataset, None, [])
    assert reads is not None
    assert reads[""].open and reads[""].unfollowed == "conf[name] at line 4" and "shuffle" in reads[""].keys
    assert reads["fbank_conf"].open and reads["fbank_conf"].unfollowed == "fbank_conf.items() at line 6"
    spread = parse(tmp_path, "spread.py", "def Dataset(a, b, c, conf):\n    return build(**conf)\n")
    only = pycode.dataset_keys(spread, None, [])
    assert only is not None and only[""].unfollowed == "**conf into build() at line 2"


def test_keys_of_a_block_not_followed_are_an_info(tmp_path: Path) -> None:
    """A key under a block the code reads by computed keys is not called unread: RL701 says it
    was not judged, naming where the reading went; a key the code reads is quiet."""
    root = tmp_path / "fork"
    (root / "wenet/dataset").mkdir(parents=True)
    (root / "wenet/__init__.py").write_text("")
    (root / "wenet/dataset/dataset.py").write_text(
        "def Dataset(data_type, data_list_file, symbol_table, conf, partition=True):\n"
        "    shuffle = conf.get('shuffle', True)\n"
        "    for name in conf.get('steps', []):\n"
        "        step = conf[name + '_conf']\n"
        "    return shuffle\n"
    )
    (root / "conf").mkdir()
    (root / "conf/train.yaml").write_text(DIALECT_YAML.format(feats="fbank").replace("dataset_conf:", "dataset_conf:\n    shuffle: true"))
    (info,) = codes(lint(root / "conf"), "RL701")
    assert info.severity == Severity.INFO and info.setting == "dataset_conf"
    assert info.message.startswith(
        "'dataset_conf': 3 key(s) not judged (feats_type, fbank_conf, batch_conf): no code seen reads them, "
        "and dataset_conf was not followed: conf[name + '_conf'] at line 4 of the WeNet checkout"
    )


def test_compared_values_of_an_if_chain_that_raises(tmp_path: Path) -> None:
    utils = parse(
        tmp_path,
        "train_utils.py",
        "def init_scheduler(configs):\n"
        "    if configs['scheduler'] == 'warmuplr':\n        pass\n"
        "    elif configs['scheduler'] == 'steadylr':\n        pass\n"
        "    else:\n        raise ValueError(configs['scheduler'])\n"
        "def other(configs):\n"
        "    kind = configs.get('optim', 'adam')\n"
        "    if kind == 'adam':\n        pass\n",
    )
    scheduler = pycode.compared_values([utils], "scheduler")
    assert scheduler is not None and scheduler.values == {"warmuplr", "steadylr"} and scheduler.rejects is not None
    optim = pycode.compared_values([utils], "optim")
    assert optim is not None and optim.values == {"adam"} and optim.rejects is None
    assert pycode.compared_values([utils], "feats_type") is None


def test_choices_from_a_dict_lookup_and_a_literal(tmp_path: Path) -> None:
    """`SCHEDULERS[configs['scheduler']]` takes the dict's keys and fails (KeyError) for another;
    `.get()` takes them without failing; a table imported from another module counts; a
    `Literal` annotation declares the values without checking them."""
    tables = parse(
        tmp_path,
        "scheduler.py",
        "SCHEDULERS = {'warmuplr': WarmupLR, 'noamhold': NoamHoldAnnealing}\nOPTIMS = {'adam': Adam, 'sgd': SGD}\n",
    )
    utils = parse(
        tmp_path,
        "train_utils.py",
        "from wenet.utils.scheduler import SCHEDULERS, OPTIMS\n"
        "def init_scheduler(configs, optimizer):\n"
        "    return SCHEDULERS[configs['scheduler']](optimizer, **configs['scheduler_conf'])\n"
        "def init_optim(configs, model):\n"
        "    optim = configs.get('optim', 'adam')\n"
        "    cls = OPTIMS.get(optim)\n"
        "    return cls(model.parameters())\n"
        "def dataset(feats_type: Literal['fbank', 'mfcc'] = 'fbank', batch_type: str = 'static'):\n"
        "    return feats_type\n",
    )
    scheduler = pycode.compared_values([tables, utils], "scheduler")
    assert scheduler is not None and scheduler.values == {"warmuplr", "noamhold"}
    assert scheduler.rejects is not None and scheduler.rejects.line == 3
    optim = pycode.compared_values([tables, utils], "optim")
    assert optim is not None and optim.values == {"adam", "sgd"} and optim.rejects is None
    feats = pycode.compared_values([utils], "feats_type")
    assert feats is not None and feats.values == {"fbank", "mfcc"} and feats.rejects is None
    assert pycode.compared_values([utils], "batch_type") is None
    assert pycode.compared_values([utils], "scheduler") is None  # the table's module not read: not followed


def test_a_scheduler_outside_the_forks_table_is_an_error(tmp_path: Path) -> None:
    root = fork("dialectmoe", tmp_path)
    (root / "wenet/utils/scheduler_table.py").write_text(
        "SCHEDULERS = {'warmuplr': 1, 'steadylr': 2}\ndef init_scheduler(configs):\n    return SCHEDULERS[configs['scheduler']]\n"
    )
    (root / "conf").mkdir()
    for name, scheduler in (("bad", "noamhold"), ("good", "steadylr")):
        (root / f"conf/{name}.yaml").write_text(DIALECT_YAML.format(feats="fbank") + f"scheduler: {scheduler}\n")
    found = codes(lint(root / "conf"), "RL702")
    assert [(d.span.path.name, d.severity) for d in found] == [("bad.yaml", Severity.ERROR)]
    assert "'noamhold' is rejected by the code this recipe runs (" in found[0].message
    assert "scheduler_table.py:3; it handles 'steadylr', 'warmuplr')" in found[0].message


def test_self_configs_counts_as_the_config(tmp_path: Path) -> None:
    trainer = parse(tmp_path, "asr.py", "class T:\n    def run(self):\n        return self.configs.get('patience', 10)\n")
    assert pycode.config_keys([trainer]) == {"patience"}


# -- PLaST: XTuner's repository vendored in xtuner/ ----------------------------------------------


def test_a_vendored_xtuner_repository_is_the_code_every_rule_reads(tmp_path: Path) -> None:
    """`torchrun -m xtuner.tools.train` is XTuner's train.py; the package is xtuner/xtuner/ (the
    vendored repository), found once for the recipe: show and RL809 name the same checkout."""
    script = FORKS / "plast/scripts/train_plast_2b.sh"
    out = cli("show", str(script), "--hardware", str(PROFILE))
    assert "XTuner code        " in out.stdout and "plast/xtuner\n" in out.stdout and "xtuner/ repository vendored in" in out.stdout
    assert "xtuner version     0.1.21" in out.stdout
    (missing,) = codes(check(script), "RL809")  # the script names a config the repository lacks
    assert missing.severity == Severity.WARNING and "plast_2b_tinyllama_chat.py does not exist" in missing.message
    root = fork("plast", tmp_path)
    named = root / "scripts/train_plast_2b.sh"
    named.write_text(named.read_text().replace("../workspace/plast_2b_tinyllama_chat.py", "plast_2b_tinyllama_chat"))
    (name,) = codes(check(named), "RL809")  # a config name: looked up in the vendored checkout, not "no checkout"
    assert "the XTuner checkout" in name.message and "has no xtuner/configs/**/plast_2b_tinyllama_chat.py" in name.message
    staged = root / "scripts/train_plast_2b.sh"
    staged.write_text(named.read_text().replace("plast_2b_tinyllama_chat \\", "../workspace/plast_2b_tinyllama_chat_stage1.py \\"))
    assert codes(check(staged), "RL809") == []


# -- OSUM-EChat: the join commented out, a batcher with its own cap -----------------------------

OSUM = FORKS / "osum-echat"


def test_osum_timeout_reaches_nothing_and_its_batcher_is_not_extrapolated(tmp_path: Path) -> None:
    """The fork's train.py comments out the join group and train.sh still passes --timeout 1200:
    RL303 is an info. Its batch() closes a batch at max_seq_in_batch (3700) besides
    max_frames_in_batch (28,000,000): the memory model says it cannot model it (was 18,560 GiB
    per node extrapolated from the frames alone); without the cap in the YAML the frames alone
    bound the batch and the estimate stands."""
    found = check(OSUM / "train.sh")
    (timeout,) = codes(found, "RL303")
    assert (timeout.severity, timeout.message) == (Severity.INFO, "--timeout 1200 has no effect: the code this recipe runs never reads it")
    (memory,) = codes(found, "RL103")
    assert memory.severity == Severity.INFO
    assert "not estimated: batch_conf.max_seq_in_batch, which batch() of the WeNet checkout" in memory.message
    root = fork("osum-echat", tmp_path)
    config = root / "conf/ct_config.yaml"
    config.write_text(config.read_text().replace("    max_seq_in_batch: 3700", "    # max_seq_in_batch: 3700"))
    (estimate,) = codes(check(root / "train.sh"), "RL103")
    assert estimate.severity == Severity.WARNING and "GiB per node" in estimate.message


def test_osum_dataset_conf_by_its_own_pipeline() -> None:
    """other_tokenze_conf reaches tokenize() through Processor(..., other_tokenze_conf=...) and
    BigDataset writes into only_info and use_s2s_convert_s2t of its copies: those keys are the
    code's. The keys no code of the fork reads are warnings a maintainer would agree with
    (other_filter_conf is read under filter_conf, not beside it)."""
    found = [d for d in codes(check(OSUM / "train.sh"), "RL701") if (d.setting or "").startswith("dataset_conf.")]
    assert {d.setting: d.severity for d in found} == {
        "dataset_conf.language_conf": Severity.WARNING,
        "dataset_conf.other_tokenze_conf.use_s2s_streaming_random": Severity.WARNING,
        "dataset_conf.other_tokenze_conf.natural_language_convert": Severity.WARNING,
        "dataset_conf.other_tokenze_conf.use_think_mode": Severity.WARNING,
        "dataset_conf.other_filter_conf": Severity.WARNING,
    }
    checkout = identify(Checkout(WENET_CODE, OSUM, "test"))
    reads = dataset_keys(checkout)
    assert reads is not None and {"only_info", "use_s2s_convert_s2t", "use_streaming_tts"} <= reads["other_tokenze_conf"].keys
    assert "max_seq_in_batch" in reads["batch_conf"].keys and reads["batch_conf"].function == "batch"


# -- the memory model and a fork's own batcher ----------------------------------------------------


def test_a_batcher_with_its_own_cap_is_not_extrapolated(tmp_path: Path) -> None:
    """WeNet v2.2.1's processor.batch() with one more parameter (a real fork's: OSUM-EChat above). The YAML that sets the cap gets an
    info instead of upstream's memory estimate; without it, the estimate is the same as upstream's."""
    repo = copy_upstream("wenet-v2.2.1", tmp_path / "fork")
    processor = repo / "wenet/dataset/processor.py"
    text = processor.read_text()
    old = "def batch(data, batch_type='static', batch_size=16, max_frames_in_batch=12000):"
    assert old in text
    processor.write_text(text.replace(old, old[:-2] + ", max_seq_in_batch=400):"))
    loader = {"num_workers": "8", "prefetch": "500"}
    capped = replace(
        RecipeSpec(), variables=loader, batch="    batch_type: dynamic\n    max_frames_in_batch: 12000\n    max_seq_in_batch: 400"
    )
    small = {**NODE, "memory_gib": 16}
    (info,) = [d for d in lint(recipe_in(repo, capped), small) if d.code == "RL103"]
    assert (
        info.severity == Severity.INFO and "not estimated: batch_conf.max_seq_in_batch, which batch() of the WeNet checkout" in info.message
    )
    plain = replace(RecipeSpec(), variables=loader, batch="    batch_type: dynamic\n    max_frames_in_batch: 12000")
    upstream = copy_upstream("wenet-v2.2.1", tmp_path / "upstream")
    verdicts = [[(d.severity, d.message) for d in lint(recipe_in(root, plain), small) if d.code == "RL103"] for root in (repo, upstream)]
    assert verdicts[0] == verdicts[1] and verdicts[0] and verdicts[0][0][0] == Severity.WARNING
