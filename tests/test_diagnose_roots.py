"""Each rank's root error attributed by what the lines say (a rank prefix, torchelastic's error
file and summary), with the training code's frame; and LOG025's launcher-store cause."""

from __future__ import annotations

import json
from pathlib import Path

from recipelint.diagnose import diagnose

# Lines of a real traceback (SlowFast#337's frames) under srun --label's `N: ` prefixes, the
# two ranks interleaved: each rank's root must get its own frames.
INTERLEAVED = """\
1: Traceback (most recent call last):
0: Traceback (most recent call last):
1:   File "tools/run_net.py", line 46, in main
0:   File "tools/train_net.py", line 120, in train
1:   File "/home/u/anaconda3/envs/pyt/lib/python3.7/site-packages/torch/distributed/distributed_c10d.py", line 423, in init_process_group
0: ValueError: bad label 7
1: RuntimeError: Address already in use
"""


def test_a_rank_prefix_attributes_the_root_and_keeps_that_ranks_frames(tmp_path: Path) -> None:
    log = tmp_path / "job.log"
    log.write_text(INTERLEAVED)
    report = diagnose([log], [])
    got = {r.hit.rank: (r.raised.type, r.raised.where) for r in report.roots}
    assert got == {
        0: ("ValueError", "tools/train_net.py:120 in train"),
        # the training code's frame, not torch's innermost one
        1: ("RuntimeError", "tools/run_net.py:46 in main"),
    }


def test_without_a_prefix_the_innermost_frame_is_kept_when_no_training_frame_is_shown(tmp_path: Path) -> None:
    log = tmp_path / "job.log"
    log.write_text(
        '  File "/usr/lib/python3.8/site-packages/torch/distributed/rendezvous.py", line 133, in _tcp_rendezvous_handler\n'
        "RuntimeError: Address already in use\n"
    )
    (root,) = diagnose([log], []).roots
    assert root.hit.rank is None
    assert root.raised.where == "/usr/lib/python3.8/site-packages/torch/distributed/rendezvous.py:133 in _tcp_rendezvous_handler"


def test_a_torchelastic_error_file_is_attributed_to_the_local_rank_of_its_folder(tmp_path: Path) -> None:
    folder = tmp_path / "attempt_0" / "3"
    folder.mkdir(parents=True)
    error = folder / "error.json"
    trace = "Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\nKeyError: 'messages'\n"
    error.write_text(json.dumps({"message": {"message": "KeyError: 'messages'", "extraInfo": {"py_callstack": trace}}}))
    (root,) = diagnose([error], []).roots
    assert (root.hit.rank, root.raised.type, root.raised.where) == (3, "KeyError", "train.py:9 in <module>")
    other = tmp_path / "error.json"  # not in a rank's folder: no rank
    other.write_text(error.read_text())
    assert [r.hit.rank for r in diagnose([other], []).roots] == [None]


def test_the_summary_torchelastic_prints_attributes_its_quoted_traceback_to_the_rank_it_names(tmp_path: Path) -> None:
    log = tmp_path / "launcher.log"
    log.write_text(
        "Root Cause (first observed failure):\n"
        "[0]:\n"
        "  time      : 2023-11-05_06:21:10\n"
        "  host      : gpu-12.apptek.local\n"
        "  rank      : 1 (local_rank: 1)\n"
        "  exitcode  : 1 (pid: 11642)\n"
        "  error_file: /tmp/torchelastic_x/none_y/attempt_0/1/error.json\n"
        "  traceback : Traceback (most recent call last):\n"
        '    File "train.py", line 87, in main\n'
        "      raise ValueError('x')\n"
        "  ValueError: x\n"
    )
    (root,) = diagnose([log], []).roots
    assert (root.hit.rank, root.raised.type, root.raised.where) == (1, "ValueError", "train.py:87 in main")


# torchrun's own start-up line (llama-cookbook#186) before SlowFast#337's traceback of a tcp:// store.
LAUNCHER_STORE = """\
Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed.
  File "/home/alfasly/anaconda3/envs/pyt/lib/python3.7/site-packages/torch/distributed/rendezvous.py", line 133, in _tcp_rendezvous_handler
    store = TCPStore(result.hostname, result.port, world_size, start_daemon, timeout)
RuntimeError: Address already in use
"""


def test_address_in_use_under_torchs_launcher_with_a_tcp_store_is_the_launchers_store_first(tmp_path: Path) -> None:
    log = tmp_path / "train.log"
    log.write_text(LAUNCHER_STORE)
    finding = diagnose([log], []).findings[0]
    assert finding.signature.code == "LOG025"
    assert [c.key for c in finding.causes][:2] == ["launcher-store", "shared-port"]
    # Without the launcher's line it is another job's port, as before.
    log.write_text(LAUNCHER_STORE.split("\n", 1)[1])
    assert diagnose([log], []).findings[0].causes[0].key == "shared-port"


# Lines healthy runs print that hold the new patterns' words: DeepSpeed's start-up on Windows
# (xtts-webui#111), torchrun's OMP_NUM_THREADS banner (llama-cookbook#186), the Trainer's
# evaluation banner (transformers/trainer.py: `***** Running {description} *****`).
HEALTHY = """\
[2024-11-21 16:23:58,906] [INFO] [real_accelerator.py:161:get_accelerator] Setting ds_accelerator to cuda (auto detect)
[2024-11-21 16:24:00,223] torch.distributed.elastic.multiprocessing.redirects: [WARNING] NOTE: Redirects are currently not supported in Windows or MacOs.
WARNING:torch.distributed.run:
*****************************************
Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed.
*****************************************
***** Running Evaluation *****
  Num examples = 500
"""


def test_healthy_lines_with_the_new_patterns_words_give_no_finding(tmp_path: Path) -> None:
    log = tmp_path / "train.log"
    log.write_text(HEALTHY)
    assert diagnose([log], []).findings == []
