"""`accelerate launch` (also `python -m accelerate.commands.launch`) as a launcher: how many
processes it starts, where they meet, the config file it reads and the DeepSpeed JSON that file
names, as accelerate's `_validate_launch_command` decides them
(huggingface/accelerate@16cb6eb8:src/accelerate/commands/launch.py, docs/toolkits/accelerate.md).

- A value on the command line wins over the config file (`--config_file X`; accelerate takes
  `-` for `_` in every option, so `--config-file X` too).
- `num_processes` counts the processes of every machine; each starts num_processes // num_machines.
- Without `--config_file`, accelerate reads ~/.cache/huggingface/accelerate/default_config.yaml
  when the node has one: recipelint cannot see it, so `show` says so as a condition. Without
  either it starts one process per visible GPU (`torch.cuda.device_count()`, which
  CUDA_VISIBLE_DEVICES limits) on one machine.
- A config file that is named but missing stops accelerate at start (`load_config_from_file`:
  FileNotFoundError "The passed configuration file `X` does not exist"); RL010 says so.
- With `distributed_type: DEEPSPEED` (or `--use_deepspeed`), `deepspeed_config.deepspeed_config_file`
  names the DeepSpeed JSON (`--deepspeed_config_file` wins); without DeepSpeed it is not read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.model import Launch, Link, Recipe, Setting, setting_source
from recipelint.parse.files import FileCache
from recipelint.parse.shell import Command, ShellScript, Word
from recipelint.parse.span import Span
from recipelint.parse.tree import Document, Node
from recipelint.toolkits.launchers import launch_env, scan_options, setting_from_word, to_int, word_text

ROLE = "Accelerate config"
MODULE = "accelerate.commands.launch"
DEFAULT_CONFIG = "~/.cache/huggingface/accelerate/default_config.yaml"
MISSING = (
    "accelerate launch stops at start when it is missing where the launch runs "
    "(FileNotFoundError: The passed configuration file `{value}` does not exist)"
)
# accelerate launch's options that take no value (scan_options' keys), so none swallows the next word
SWITCHES = frozenset(
    {
        "cpu", "multi_gpu", "tpu", "use_deepspeed", "use_fsdp", "use_megatron_lm", "use_xpu", "quiet", "q", "module", "m",
        "no_python", "debug", "enable_cpu_affinity", "dynamo_use_fullgraph", "dynamo_use_dynamic", "same_network",
        "tpu_use_cluster", "tpu_use_sudo", "downcast_bf16", "use_parallelism_config", "dynamo_use_regional_compilation",
    }
)  # fmt: skip


def options_start(words: list[Word], launcher: int) -> int | None:
    """The index of the word after which accelerate's own options start (`launch`, or the module
    after `python -m`); None when the launcher is not accelerate."""
    name = Path(word_text(words[launcher])).name
    if name == "accelerate":
        after = launcher + 1
        return after if after < len(words) and word_text(words[after]) == "launch" else None
    if name.startswith("python"):
        for index in range(launcher + 1, len(words) - 1):
            if word_text(words[index]) in ("-m", "--module"):
                return index + 1 if word_text(words[index + 1]) == MODULE else None
            if not word_text(words[index]).startswith("-"):
                return None
    return None


def options(words: list[Word], start: int, index: int) -> dict[str, Word]:
    """accelerate's options between its `launch` word and the training script."""
    return scan_options(words, start + 1, index, SWITCHES)


def config_value(config: Document | None, key: str) -> Setting | None:
    """A top-level scalar of the Accelerate config, as a setting that says where it is written."""
    node = config.root.get(key) if config is not None else None
    if node is None or node.kind != "scalar" or node.value is None:
        return None
    return Setting(key, node.value, True, node.span, node.span, origin=f"accelerate config: {key} {node.value}")


def _given(found: dict[str, Word], config: Document | None, name: str, script: ShellScript, command: Command) -> Setting | None:
    """The command line's value, else the config file's: accelerate copies a config value only
    into an option left unset (`_validate_launch_command`)."""
    word = found.get(name)
    if word is not None:
        return setting_from_word(name, word, script, command.span.start)
    return config_value(config, name)


def parse_accelerate(script: ShellScript, command: Command, index: int, recipe: Recipe, files: FileCache) -> Launch:
    """The launch `command.words[0]` starts (accelerate, or python with `-m accelerate.commands.launch`),
    its config file read and linked on `recipe`."""
    words = command.words
    start = options_start(words, 0)
    found = options(words, start if start is not None else 0, index)
    config = read_config(recipe, script, command, found.get("config_file"), files)
    if "config_file" not in found:
        recipe.note(
            "launch",
            "accelerate config",
            "none named",
            f"accelerate reads {DEFAULT_CONFIG} when the training node has one (not visible here): "
            "its num_processes, num_machines and deepspeed_config would then apply",
        )
    _note_mode(recipe, found, config, script, command)
    nodes = _given(found, config, "num_machines", script, command) or Setting("num_machines", 1, False, words[0].span)
    switches = _switches(command, index)
    total = _given(found, config, "num_processes", script, command) or _default_processes(script, command, config, found, switches)
    per_node = _per_node(total, nodes)
    launcher = "accelerate"
    launch = Launch(launcher, command, words[index], nodes, per_node, _rendezvous(found, config, nodes, script, command))
    launch.env = launch_env(script, command)
    launch.config = config
    return launch


def _note_mode(recipe: Recipe, found: dict[str, Word], config: Document | None, script: ShellScript, command: Command) -> None:
    """`show` rows for what the config file decides beside the sizes: its distributed type, and
    the mixed precision the processes get (`--mixed_precision` wins over the file; default "no")."""
    kind = config_value(config, "distributed_type")
    if kind is not None and kind.span is not None:
        recipe.note("launch", "distributed type", kind.value, f"accelerate config ({kind.span.path.name}:{kind.span.line})")
    precision = _given(found, config, "mixed_precision", script, command)
    if precision is not None:
        recipe.note("launch", "mixed precision", precision.value, setting_source(precision))
    elif config is not None:
        recipe.note("launch", "mixed precision", "no", "accelerate default (not in the config file)")
    elif "config_file" not in found:
        recipe.note("launch", "mixed precision", "no", "accelerate default, unless a default config on the node sets it")


def read_config(recipe: Recipe, script: ShellScript, command: Command, word: Word | None, files: FileCache) -> Document | None:
    """The config file `--config_file` names, looked up in the launch's folders and kept as a link."""
    if word is None:
        return None
    setting = setting_from_word("config_file", word, script, command.span.start)
    text = setting.value
    if not isinstance(text, str) or not text:
        # only the run time knows the name: `show` says so; its checks are skipped quietly
        recipe.links.append(Link(ROLE, setting, None, [], report_missing=False))
        return None
    written = _written_before(script, command, text)
    if written is not None:  # `accelerate config --config_file X` earlier writes it: not missing, not read
        recipe.links.append(Link(ROLE, setting, None, [], written_at=written))
        return None
    reader = _read_json if isinstance(text, str) and text.endswith(".json") else _read_yaml
    document = recipe.read_config(text, reader, files, ROLE, setting)
    if recipe.links and recipe.links[-1].setting is setting:
        recipe.links[-1].missing = MISSING.format(value=text)
    return document if isinstance(document, Document) else None


def _written_before(script: ShellScript, command: Command, name: str) -> Span | None:
    """Where an earlier `accelerate config [default|update] --config_file NAME` of the same script
    (or Markdown page) writes the file this launch reads (accelerate's docs do it in two steps)."""
    found = None
    for earlier in script.commands:
        words = earlier.words
        if earlier.span.start >= command.span.start or len(words) < 2:
            continue
        if Path(word_text(words[0])).name != "accelerate" or word_text(words[1]) != "config":
            continue
        written = scan_options(words, 2, len(words)).get("config_file")
        if written is not None and written.value == name:
            found = earlier.span  # the last one before the launch: the file it reads
    return found


def _read_yaml(source: Any) -> Document:
    from recipelint.parse.yamlfile import parse_yaml

    return parse_yaml(source)


def _read_json(source: Any) -> Document:
    from recipelint.parse.jsonfile import parse_json

    return parse_json(source)


def visible_gpus(script: ShellScript, command: Command) -> Setting | None:
    """CUDA_VISIBLE_DEVICES as the launch sees it (on the command or exported before it)."""
    return launch_env(script, command).get("CUDA_VISIBLE_DEVICES")


def _default_processes(
    script: ShellScript, command: Command, config: Document | None, found: dict[str, Word], switches: set[str]
) -> Setting:
    """num_processes when neither the command nor the config gives it."""
    span = command.words[0].span
    if config is None and "config_file" in found:  # named but not read: its num_processes is unknown
        return Setting("num_processes", None, False, span, origin="in the accelerate config, which was not read")
    if config is not None:
        # ClusterConfig.process_config: one process (`NO` unquoted is YAML 1.1's false, as PyYAML reads it)
        if config.root.scalar("distributed_type") in ("NO", False):
            return Setting("num_processes", 1, False, span, origin="accelerate config: distributed_type NO, one process")
        # accelerate stops: "You need to manually pass in `--num_processes` using this config yaml."
        return Setting("num_processes", None, False, span, origin="not in the accelerate config nor on the command line")
    if "cpu" in switches:  # simple_launcher: one process, and no default config is read
        return Setting("num_processes", 1, False, span, origin="accelerate --cpu: one process")
    visible = visible_gpus(script, command)
    if visible is not None and isinstance(visible.value, str) and visible.value.strip():
        count = len([gpu for gpu in visible.value.split(",") if gpu.strip()])
        origin = f"accelerate default: one process per visible GPU (CUDA_VISIBLE_DEVICES={visible.value})"
        return Setting("num_processes", count, False, visible.span, origin=origin)
    return Setting("num_processes", None, False, span, origin="accelerate default: one process per visible GPU of the node")


def _per_node(total: Setting, nodes: Setting) -> Setting:
    """Processes per machine: num_processes // num_machines (accelerate's nproc_per_node). A
    value divided here is no longer the one written, so it is not rewritten in place."""
    count, machines = to_int(total.value), to_int(nodes.value)
    if count is None or machines is None or machines <= 1:
        return total
    origin = f"{total.origin or 'num_processes ' + str(count)} over {machines} machines"
    return Setting(total.name, count // machines, total.given, total.span, None, total.via, total.word, origin=origin)


def _rendezvous(found: dict[str, Word], config: Document | None, nodes: Setting, script: ShellScript, command: Command) -> Setting:
    address = _given(found, config, "main_process_ip", script, command)
    port = _given(found, config, "main_process_port", script, command)
    port_text = word_text(port.word) if port is not None and port.word is not None else (port.value if port is not None else 29500)
    if address is not None:
        host = address.value
        address.value = f"{host}:{port_text}" if host is not None else None
        return address
    span = command.words[0].span
    if config is None:
        origin = (
            "in the accelerate config, which was not read" if "config_file" in found else "the node's default accelerate config, if any"
        )
        return Setting("main_process_ip", "(accelerate config)", False, span, origin=origin)
    if (to_int(nodes.value) or 1) > 1:
        return Setting("main_process_ip", None, False, span, origin="not in the accelerate config nor on the command line")
    return Setting("main_process_ip", f"127.0.0.1:{port_text}", False, span, origin="one machine: this one")


def uses_file(config: Document | None, switches: set[str]) -> Node | None:
    """The Accelerate config's `deepspeed_config.deepspeed_config_file` when the launch uses
    DeepSpeed (`distributed_type: DEEPSPEED`, or `--use_deepspeed`): without DeepSpeed it is not read."""
    if config is None:
        return None
    uses = config.root.scalar("distributed_type") == "DEEPSPEED" or "use_deepspeed" in switches
    node = config.root.get("deepspeed_config.deepspeed_config_file")
    if not uses or node is None or node.kind != "scalar" or not isinstance(node.value, str):
        return None
    return node


def config_file_setting(config: Document | None, switches: set[str]) -> Setting | None:
    """The DeepSpeed JSON an Accelerate config names (when DeepSpeed is used), as a setting."""
    node = uses_file(config, switches)
    if node is None:
        return None
    return Setting("deepspeed_config_file", node.value, True, node.span, node.span, origin="accelerate config: deepspeed_config_file")


def deepspeed_file(recipe: Recipe) -> Setting | None:
    """The DeepSpeed JSON the launch's Accelerate config names; `--deepspeed_config_file` on the
    command is read by the DeepSpeed front end itself."""
    if recipe.launch is None:
        return None
    return config_file_setting(recipe.launch.config, launch_options(recipe.launch)[1])


def config_of(recipe: Recipe) -> Document | None:
    """The Accelerate config the recipe's launch reads (named and found), or the one checked alone."""
    launch = recipe.launch
    if launch is not None:
        return launch.config if launch.launcher == "accelerate" else None
    payload = recipe.payload
    return payload if isinstance(payload, Document) and is_config(payload.root) else None


def is_config(root: Node) -> bool:
    """An Accelerate config YAML by its top-level keys (what `accelerate config` writes)."""
    return (
        root.kind == "map"
        and "distributed_type" in root.entries
        and ("compute_environment" in root.entries or "num_processes" in root.entries)
    )


def launch_options(launch: Launch) -> tuple[dict[str, Word], set[str]]:
    """accelerate's options on a launch's command line: those with a value, and the switches given."""
    words = launch.command.words
    start = options_start(words, 0)
    if start is None:
        return {}, set()
    index = next((i for i, word in enumerate(words) if word is launch.script), len(words))
    return options(words, start, index), _switches(launch.command, index)


def _switches(command: Command, index: int) -> set[str]:
    """The value-less options (`--cpu`, `--use_deepspeed`) before the training script's word."""
    words = command.words
    start = options_start(words, 0)
    if start is None:
        return set()
    given = {word_text(w).lstrip("-").replace("-", "_") for w in words[start + 1 : index] if word_text(w).startswith("--")}
    return given & SWITCHES


# The top-level keys accelerate's config file may hold (ClusterConfig and BaseConfig fields at
# huggingface/accelerate@16cb6eb8, plus `fp16` and `dynamo_backend`, which process_config converts).
# load_config_from_file rejects any other (ValueError "had unknown keys" since 0.23.0, TypeError before).
CONFIG_KEYS = frozenset(
    {
        "compute_environment", "distributed_type", "mixed_precision", "use_cpu", "debug", "num_processes", "machine_rank",
        "num_machines", "gpu_ids", "main_process_ip", "main_process_port", "rdzv_backend", "same_network",
        "main_training_function", "enable_cpu_affinity", "fp8_config", "deepspeed_config", "fsdp_config",
        "parallelism_config", "megatron_lm_config", "mpirun_config", "downcast_bf16", "tpu_name", "tpu_zone",
        "tpu_use_cluster", "tpu_use_sudo", "command_file", "commands", "tpu_vm", "tpu_env", "dynamo_config",
        "fp16", "dynamo_backend",
    }
)  # fmt: skip
# Keys an older release knew and a newer one rejects: key -> the last release that knew it
# (ClusterConfig's fields at each release tag).
RETIRED_KEYS = {"ipex_config": "1.12.0", "tp_config": "1.6.0"}
SAGEMAKER = "AMAZON_SAGEMAKER"  # a SageMaker config has its own keys (SageMakerConfig)


def visible_devices(recipe: Recipe) -> Setting | None:
    """The GPUs an accelerate launch's processes see: `gpu_ids` (command line, else the config
    file) when it names GPUs, since accelerate then sets CUDA_VISIBLE_DEVICES to it
    (utils/launch.py); else CUDA_VISIBLE_DEVICES as the launch sets or exports it."""
    launch = recipe.launch
    if launch is None:
        return None
    found, _ = launch_options(launch)
    ids = found.get("gpu_ids")
    chosen: Setting | None
    if ids is not None:
        chosen = Setting("--gpu_ids", ids.value, True, ids.span, None, ids.ref, ids)
    else:
        chosen = config_value(launch.config, "gpu_ids")
    if chosen is not None and str(chosen.value) != "all":
        return chosen
    return launch.env.get("CUDA_VISIBLE_DEVICES")


def uses_cpu(recipe: Recipe) -> bool:
    """`--cpu` on the command, or `use_cpu: true` in the config file: no GPU is used."""
    launch = recipe.launch
    if launch is None:
        return False
    _, switches = launch_options(launch)
    in_file = config_value(launch.config, "use_cpu")
    return "cpu" in switches or (in_file is not None and in_file.value is True)


# `accelerate launch`'s options (launch_command_parser at huggingface/accelerate@16cb6eb8, `_` for
# `-`: CustomArgumentParser takes both). argparse stops on any other before the training script
# ("unrecognized arguments"; allow_abbrev=False, so no prefix of one counts).
LAUNCH_OPTIONS = frozenset(
    """
    aws_access_key_id aws_secret_access_key config_file cpu debug deepspeed_config_file
    deepspeed_exclusion_filter deepspeed_hostfile deepspeed_inclusion_filter
    deepspeed_moe_layer_cls_names deepspeed_multinode_launcher downcast_bf16 dynamo_backend dynamo_mode
    dynamo_use_dynamic dynamo_use_fullgraph dynamo_use_regional_compilation enable_cpu_affinity env
    fp8_amax_compute_algo fp8_amax_history_len fp8_backend fp8_enable_fsdp_float8_all_gather fp8_format
    fp8_interval fp8_margin fp8_opt_level fp8_override_linear_precision fp8_pad_inner_dim
    fp8_use_autocast_during_eval fsdp_activation_checkpointing fsdp_auto_wrap_policy
    fsdp_backward_prefetch fsdp_cpu_ram_efficient_loading fsdp_forward_prefetch fsdp_min_num_params
    fsdp_offload_params fsdp_reshard_after_forward fsdp_sharding_strategy fsdp_state_dict_type
    fsdp_sync_module_states fsdp_transformer_layer_cls_to_wrap fsdp_use_orig_params fsdp_version gpu_ids
    gradient_accumulation_steps gradient_clipping help log_dir machine_rank main_process_ip
    main_process_port main_training_function max_restarts megatron_lm_attention_backend
    megatron_lm_attention_dropout megatron_lm_attention_softmax_in_fp32
    megatron_lm_calculate_per_token_loss megatron_lm_context_parallel_size
    megatron_lm_decoder_last_pipeline_num_layers megatron_lm_eod_mask_loss
    megatron_lm_expert_model_parallel_size megatron_lm_expert_tensor_parallel_size
    megatron_lm_gradient_clipping megatron_lm_hidden_dropout megatron_lm_no_load_optim
    megatron_lm_no_save_optim megatron_lm_num_micro_batches megatron_lm_optimizer_cpu_offload
    megatron_lm_overlap_cpu_optimizer_d2h_h2d megatron_lm_pp_degree megatron_lm_recompute_activations
    megatron_lm_recompute_granularity megatron_lm_recompute_method megatron_lm_recompute_num_layers
    megatron_lm_sequence_parallelism megatron_lm_tp_degree megatron_lm_use_custom_fsdp
    megatron_lm_use_distributed_optimizer megatron_lm_use_precision_aware_optimizer
    megatron_lm_use_rotary_position_embeddings mixed_precision module monitor_interval mpirun_hostfile
    multi_gpu no_python no_tpu_cluster num_cpu_threads_per_process num_machines num_processes
    offload_optimizer_device offload_optimizer_nvme_path offload_param_device offload_param_nvme_path
    parallelism_config_cp_backend parallelism_config_cp_comm_strategy parallelism_config_cp_size
    parallelism_config_dp_replicate_size parallelism_config_dp_shard_size
    parallelism_config_sp_attn_implementation parallelism_config_sp_backend
    parallelism_config_sp_seq_length parallelism_config_sp_seq_length_is_variable
    parallelism_config_sp_size parallelism_config_tp_size quiet rdzv_backend rdzv_conf role same_network
    tee tpu tpu_cluster tpu_use_sudo use_deepspeed use_fsdp use_megatron_lm use_parallelism_config vm
    zero3_init_flag zero3_save_16bit_model zero_stage
    """.split()
)
# Options older releases had and newer ones refuse: option -> the last release that had it.
RETIRED_OPTIONS = {
    "fp16": "0.15.0", "min_num_params": "0.13.2", "offload_params": "0.13.2", "sharding_strategy": "0.13.2",
    "transformer_layer_cls_to_wrap": "0.13.2", "fsdp_backward_prefetch_policy": "0.34.2", "use_mps_device": "0.15.0",
    "mps": "0.18.0", "ipex_enabled": "0.19.0", "ipex": "1.9.0", "use_xpu": "1.12.0", "mpirun_ccl": "1.12.0",
    "tp_size": "1.6.0", "use_tp": "1.6.0",
}  # fmt: skip


def written_options(launch: Launch) -> list[tuple[str, Word]]:
    """Each `--option` word accelerate itself reads (between `launch` and the training script),
    with its name as accelerate keys it (`_` for `-`, no `=value`)."""
    words = launch.command.words
    start = options_start(words, 0)
    if start is None:
        return []
    index = next((i for i, word in enumerate(words) if word is launch.script), len(words))
    found = []
    for word in words[start + 1 : index]:
        name = word.option[0] if word.option is not None else word_text(word)
        if name.startswith("--"):
            found.append((name[2:].split("=", 1)[0].replace("-", "_"), word))
    return found


def retired(ctx: Context, code: str, what: str, last: str, failure: str, span: Span, setting: str) -> Diagnostic | None:
    """The finding for a name accelerate knew through release `last` (a launch option, a config
    key), judged against the accelerate releases the run imports: none when every one of them
    still knows it, an error when none does, a warning when some do, with where the range was read."""
    from recipelint import versions

    rng = ctx.version_range("accelerate")
    gone = versions.parse(last)
    # the first release after `last` is not recorded: a point just above it stands for it
    verdict = versions.evaluate(rng, lambda version: version > gone, (f"{last}.1",))
    if verdict.holds == "none":
        return None
    severity, why = (
        (Severity.ERROR, f"accelerate after {last} does not know it, and {rng.allows()}")
        if verdict.holds == "all"
        else (Severity.WARNING, f"only accelerate {last} and older know it; {rng.allows()}")
    )
    return ctx.diagnostic(
        code, severity, f"{what} through accelerate {last}: a newer release stops at start on it ({failure}); {why}", span, setting=setting
    )


def launches_deepspeed(recipe: Recipe) -> bool:
    """Whether the recipe's `accelerate launch` runs DeepSpeed (`distributed_type: DEEPSPEED` in its
    config, or `--use_deepspeed`): then the run imports deepspeed."""
    launch = recipe.launch
    if launch is None or launch.launcher != "accelerate":
        return False
    config = launch.config
    return (config is not None and config.root.scalar("distributed_type") == "DEEPSPEED") or "use_deepspeed" in launch_options(launch)[1]
