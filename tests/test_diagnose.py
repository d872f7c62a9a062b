"""`recipelint diagnose`: the reader (streaming, gzip, several files, bounded memory), the
timeline, each signature's quiet case, the command line and its output formats, the docs."""

from __future__ import annotations

import gzip
import io
import json
import tracemalloc
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest

from recipelint.diagnose import Report, diagnose, is_log
from recipelint.diagnose import reader as reader_module
from recipelint.diagnose.docs import signatures_markdown
from recipelint.diagnose.reader import FileScan, Scanner
from recipelint.diagnose.signatures import all_signatures
from recipelint.diagnose.timeline import file_rank, progress, rank_of, timestamp
from recipelint.hardware.profile import load_profile
from recipelint.parse.where import shown
from tests.helpers import REPO, cli

LOGS = REPO / "tests" / "data" / "logs"
EXAMPLE = REPO / "examples" / "wenet-4node-v100"
SECTIONS = ("## What it does", "## Why is this bad", "## Example", "## Fix", "## Fix safety")


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def codes(report: Report) -> list[str]:
    return [f.signature.code for f in report.findings]


# --- the reader ---------------------------------------------------------------------------


def scanner() -> Scanner:
    return Scanner([p for s in all_signatures().values() for p in s.patterns])


def test_gzip_and_plain_logs_give_the_same_lines_and_hits(tmp_path: Path) -> None:
    source = (LOGS / "cosyvoice-180-join.log").read_bytes()
    packed = tmp_path / "rank0.log.gz"
    packed.write_bytes(gzip.compress(source))
    plain, zipped = diagnose([LOGS / "cosyvoice-180-join.log"], []), diagnose([packed], [])
    assert codes(zipped) == codes(plain) == ["LOG001"]
    assert zipped.findings[0].anchor.line.number == 2 and zipped.logs[0].lines == 7
    assert zipped.findings[0].anchor.line.text == plain.findings[0].anchor.line.text


def test_several_rank_logs_at_once_and_ranks_from_file_names(tmp_path: Path) -> None:
    line = "[E ProcessGroupNCCL.cpp:737] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600100 milliseconds before timing out.\n"
    logs = [write(tmp_path, f"train_rank{r}.log", line.format(seq=77 if r != 2 else 75)) for r in range(3)]
    report = diagnose(logs, [])
    evidence = "\n".join(report.findings[0].explanation.evidence)
    assert "rank 2 was stuck at SeqNum 75, 2 collectives before the others' 77" in evidence
    assert file_rank("train_rank12.log") == 12 and file_rank("slurm-123.out") is None


def test_a_torchelastic_error_file_is_read_as_the_lines_it_holds(tmp_path: Path) -> None:
    error = {
        "message": {
            "message": "RendezvousTimeoutError: ",
            "extraInfo": {
                "py_callstack": 'Traceback (most recent call last):\n  File "run.py", line 719, in main\n    run(args)\n',
                "timestamp": "1",
            },
        }
    }
    path = write(tmp_path, "error.json", json.dumps(error))
    assert is_log(path) and not is_log(EXAMPLE / "conf" / "ds_stage2.json") and not is_log(EXAMPLE)
    report = diagnose([path], [])
    assert codes(report) == ["LOG004"] and report.findings[0].anchor.line.number == 1
    assert report.logs[0].lines == 4


def test_context_and_line_numbers_across_chunk_boundaries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader_module, "CHUNK", 64)
    lines = [f"2024-01-01 10:00:{i:02d},000 DEBUG TRAIN | Batch 0/{i} loss 1.0 rank 0" for i in range(1, 30)]
    lines[20] = "[E ProcessGroupGloo.cpp:138] [Rank 0]: Rank 3 failed to pass monitoredBarrier in 30000 ms"
    report = diagnose([write(tmp_path, "small-chunks.log", "\n".join(lines) + "\n")], [])
    hit = report.findings[0].anchor
    assert hit.line.number == 21 and hit.line.text == lines[20]
    assert [(x.number, x.text) for x in hit.before] == [(18, lines[17]), (19, lines[18]), (20, lines[19])]
    assert [(x.number, x.text) for x in hit.after] == [(22, lines[21]), (23, lines[22]), (24, lines[23])]
    assert hit.progress is not None and (hit.progress.line, hit.progress.step) == (20, 20)
    assert report.logs[0].lines == 29


def test_line_numbers_hold_when_an_error_line_comes_before_the_first_progress(tmp_path: Path) -> None:
    text = (
        "node0:1:1 [0] NCCL WARN NET/Plugin : plugin load failed\n"
        "2024-01-01 10:00:00,000 DEBUG TRAIN | Batch 0/1 loss 1.0 rank 0\n"
        "[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600001 milliseconds before timing out.\n"
    )
    report = diagnose([write(tmp_path, "order.log", text)], [])
    assert report.findings[0].anchor.line.number == 3
    assert [x.number for x in report.findings[0].anchor.before] == [1, 2]


def test_a_line_longer_than_the_carry_is_cut_not_kept_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader_module, "CHUNK", 1024)
    monkeypatch.setattr(reader_module, "MAX_CARRY", 4096)
    text = "x" * 50_000 + "\nRuntimeError: DataLoader worker (pid 9) is killed by signal: Killed.\n"
    report = diagnose([write(tmp_path, "long.log", text)], [])
    assert codes(report) == ["LOG008"] and len(report.findings[0].anchor.before[-1].text) <= reader_module.MAX_SHOWN + 3


def test_progress_bars_redrawn_with_carriage_returns_show_the_redraw_that_matters(tmp_path: Path) -> None:
    bar = "".join(f"\r  {i}%|#  | {i}/100 [00:{i:02d}<01:00,  1.00it/s]" for i in range(1, 40))
    text = (
        bar
        + "[E ProcessGroupNCCL.cpp:458] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9, OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600005 milliseconds before timing out.\n"
    )
    report = diagnose([write(tmp_path, "bar.log", text)], [])
    hit = report.findings[0].anchor
    assert hit.line.text.startswith("  39%|#  | 39/100 [00:39<01:00") and "\r" not in hit.line.text
    assert hit.progress is not None and (hit.progress.step, hit.progress.total) == (39, 100)


class Generated(io.RawIOBase):
    """A training log of `size` bytes produced as it is read: nothing of it is ever stored."""

    def __init__(self, size: int) -> None:
        self.left = size
        block = "".join(
            f"2024-03-11 14:{i // 60 % 60:02d}:{i % 60:02d},311 DEBUG TRAIN | Batch 2/{i} loss 18.41 grad_norm 4.11 rank 0\n"
            + ("2024-03-11 14:00:00,000 WARNING error to parse a.wav\n" if i % 97 == 0 else "")
            + (
                "[rank3]:[E311 14:40:38.961 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600003 milliseconds before timing out.\n"
                if i % 499 == 0
                else ""
            )
            for i in range(1000)
        )
        self.block = block.encode()
        self.at = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        count = min(len(buffer), self.left)
        for i in range(count):
            buffer[i] = self.block[(self.at + i) % len(self.block)]
        self.at += count
        self.left -= count
        return count


def peak(size: int) -> tuple[int, Scanner]:
    """Peak memory (bytes) allocated while one scanner reads a generated log of `size` bytes."""
    scan = scanner()
    tracemalloc.start()
    try:
        scan.stream(FileScan(Path("generated.log")), io.BufferedReader(Generated(size), buffer_size=1 << 16))
        return tracemalloc.get_traced_memory()[1], scan
    finally:
        tracemalloc.stop()


@pytest.mark.slow  # scans 28 MiB of generated log
def test_memory_does_not_grow_with_the_log(monkeypatch: pytest.MonkeyPatch) -> None:
    """A log six times longer costs no more memory: what is kept is bounded by the chunk, the
    context ring, the kept hits per pattern and the error-line deque (bench/diagnose_memory.py
    measures the same on 1 GiB)."""
    monkeypatch.setattr(Generated, "readinto", lambda self, b: _fill(self, b))
    small, _ = peak(4 << 20)
    large, scan = peak(24 << 20)
    stats = scan.stats["LOG002.watchdog"]
    assert stats.count > 100 and len(stats.all) <= reader_module.KEEP_HITS + reader_module.LAST_HITS
    assert len(scan.error_lines) == reader_module.ERROR_LINES
    assert large < small + (512 << 10), (small, large)
    assert large < 8 * reader_module.CHUNK


def _fill(stream: Generated, buffer: memoryview) -> int:
    count = min(len(buffer), stream.left)
    start = stream.at % len(stream.block)
    piece = (stream.block[start:] + stream.block * (count // len(stream.block) + 1))[:count]
    buffer[:count] = piece
    stream.at += count
    stream.left -= count
    return count


def test_unreadable_and_missing_logs_are_one_line_errors(tmp_path: Path) -> None:
    broken = tmp_path / "broken.log.gz"
    broken.write_bytes(gzip.compress(b"line\n" * 1000)[:40])
    report = diagnose([tmp_path / "missing.log", broken, tmp_path], [])
    messages = [str(e) for e in report.errors]
    assert messages[0] == f"{tmp_path / 'missing.log'}: no such file"
    assert messages[1].startswith(f"{broken}") and "gzip stream broken" in messages[1]
    assert messages[2] == f"{tmp_path}: is a directory, not a log"


# --- the timeline --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("2024-07-21 00:11:29,529 INFO Detected uneven", datetime(2024, 7, 21, 0, 11, 29, 529000)),
        ("2022/03/21 15:13:18 2022-03-21 15:13:18,614 DEBUG CV", datetime(2022, 3, 21, 15, 13, 18)),
        ("06/14 09:11:55 - mmengine - INFO - xtuner_dataset_timeout", datetime(1900, 6, 14, 9, 11, 55)),
        ("[rank0]:[E321 02:07:08.408271257 ProcessGroupNCCL.cpp:607]", datetime(1900, 3, 21, 2, 7, 8, 408271)),
        ("[rank0]:[E1206 18:44:12.715298746 ProcessGroupNCCL.cpp:607]", datetime(1900, 12, 6, 18, 44, 12, 715298)),
        ("E0213 12:07:20.086000 870572 torch/distributed/elastic/multiprocessing/api.py:869]", datetime(1900, 2, 13, 12, 7, 20, 86000)),
        ("  time      : 2025-05-21_15:43:03", datetime(2025, 5, 21, 15, 43, 3)),
        ("no time here", None),
    ],
)
def test_timestamps(line: str, expected: datetime | None) -> None:
    assert timestamp(line) == expected


def test_ranks_and_progress() -> None:
    assert rank_of("[rank7]:[E816 01:45:40] [Rank 7] Watchdog") == 7
    assert rank_of("[1,3]<stdout>:node NCCL INFO") == 3
    assert rank_of("Break current worker to manually join all workers, world_size 4, current rank 3, current local_rank 3") == 3
    assert rank_of("DEBUG TRAIN Batch 1/100 loss 48.8 lr 0.00007 rank 5") == 5
    wenet = progress("2024-01-01 10:00:00,000 DEBUG TRAIN | steps/sec 0.612| Batch 2/300 loss 1.0", 9)
    assert wenet is not None and (wenet.epoch, wenet.step, wenet.tag) == (2, 300, "train")
    mm = progress("06/14 09:12:00 - mmengine - INFO - Epoch(train)  [1][ 10/500]  lr: 2e-05", 3)
    assert mm is not None and (mm.epoch, mm.step, mm.total) == (1, 10, 500)
    prep = progress("Map (num_proc=14):  70%|#######   | 652383/930514 [6:39:53<4:31:33, 17.07 examples/s]", 1)
    assert prep is not None and prep.tag == "prep" and prep.elapsed is not None and prep.elapsed.total_seconds() == 23993


# --- each signature's quiet case: lines that hold its needle and must not fire ---------------

QUIET = {
    "LOG001": "2024-01-01 10:00:00,000 INFO every rank passed the monitoredBarrier\n",
    "LOG002": "[PG 0 Rank 0] ProcessGroupNCCL last enqueued NCCL work: 5, last completed NCCL work: 5.\n",
    "LOG003": "requests: connection timed out, retrying in 5 s\n",
    "LOG004": "  rdzv_endpoint    : node0:29400\n  min_nodes        : 2\n",
    "LOG005": "Timed out after 5 s waiting for the file lock, retrying\n",
    "LOG007": "node0:1:1 [0] NCCL INFO NET/IB : Got completion from peer list\n",
    "LOG008": "Worker 3 exited unexpectedly; restarting (not a DataLoader message)\n",
    "LOG009": "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 31631) of binary: /usr/bin/python3\n",
    "LOG010": "hint: CUDA out of memory. Tried to allocate buffers too early\n",
    "LOG011": "[INFO] train_batch_size is not set: DeepSpeed derives it from the micro batch\n",
    "LOG012": "[2024-03-01 14:35:58,937] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed Basic Optimizer = AdamW\n",
    "LOG013": "pydantic.error_wrappers.ValidationError: 1 validation error for DeepSpeedZeroConfig\nstage\n  ensure this value is less than or equal to 3\n",
    "LOG014": "if you see 'error: unrecognized arguments:' run train.py --help\n",
    "LOG015": "06/14 09:11:55 - mmengine - INFO - xtuner_dataset_timeout = 1:00:00\n",
    "LOG016": "httpx.ReadError: connection reset by peer\n",
    "LOG017": "2024-01-24 10:00:00,000 DEBUG TRAIN | Batch 0/100 loss 1.0 rank 0\nslurmstepd: error: *** STEP 4242.0 ON gpu-node01 CANCELLED AT 2024-01-24T10:03:00 DUE TO TIME LIMIT ***\n",
    "LOG018": "KeyError: 'loss'\n",
    "LOG019": "FileNotFoundError: [Errno 2] Failed to open local file '/data/train.json'\n",
    # a line a healthy NCCL set-up prints (Lightning-AI/pytorch-lightning#20757's first line)
    "LOG020": "[1] NCCL INFO retrieving ncclUniqueId from [0] via c10d key-value store by key '0': done\n",
    "LOG021": "user-MH53-G40-001:10225:10225 [0] NCCL INFO Bootstrap: Using enp1s0f0np0:10.70.59.78<0>\n",
    # a DataLoader's /dev/shm trouble is LOG008's, NCCL's own segments this one's
    "LOG022": "RuntimeError: unable to write to file </torch_61_1985512843>: No space left on device (28)\n",
    # out of memory is LOG010's
    "LOG023": "RuntimeError: CUDA error: out of memory\n",
    # TORCH_DISTRIBUTED_DEBUG=DETAIL's normal output (DeepSpeed#4890): ranks a few collectives apart while they run
    "LOG024": "[I ProcessGroupWrapper.cpp:562] [Rank 0] Running collective: CollectiveFingerPrint(SequenceNumber=1277, OpType=ALLREDUCE, TensorShape=[], TensorDtypes=Float)\n"
    "[I ProcessGroupWrapper.cpp:562] [Rank 1] Running collective: CollectiveFingerPrint(SequenceNumber=1275, OpType=ALLREDUCE, TensorShape=[], TensorDtypes=Float)\n",
    "LOG025": "INFO: port 29500: Address already in use, trying 29501\n",
}


@pytest.mark.parametrize("code", sorted(QUIET))
def test_signature_stays_quiet(code: str, tmp_path: Path) -> None:
    report = diagnose([write(tmp_path, "quiet.log", QUIET[code])], [])
    assert code not in codes(report)


def test_socket_transport_is_quiet_on_ethernet_nodes_with_a_real_interface(tmp_path: Path) -> None:
    log = write(
        tmp_path,
        "node0.log",
        "node0:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.1.0.10<0>\nnode0:1:1 [0] NCCL INFO Using network Socket\n",
    )
    profile = load_profile(EXAMPLE / "hardware-v100-node.yaml")
    assert codes(diagnose([log], [EXAMPLE], lambda: profile)) == []
    alone = diagnose([log], [])
    assert codes(alone) == ["LOG006"] and str(alone.findings[0].severity) == "info"


@pytest.mark.parametrize(
    ("code", "text", "said"),
    [
        (
            "LOG017",
            "2024-01-24 10:00:00,000 DEBUG TRAIN | Batch 0/100 loss 1.0 rank 0\nslurmstepd: error: *** STEP 7.0 ON n1 CANCELLED AT 2024-01-24T11:00:00 ***\n",
            "cancelled by Slurm after 60 min without progress",
        ),
        (
            "LOG018",
            "  File \"/x/mmengine/dist/utils.py\", line 130, in _init_dist_pytorch\n    rank = int(os.environ['RANK'])\nKeyError: 'RANK'\n",
            "expected RANK in its environment",
        ),
        (
            "LOG019",
            "FileNotFoundError: [Errno 2] Failed to open local file '/root/.cache/huggingface/datasets/json/default/cache-1a2b.arrow'. Detail: [errno 2]\n",
            "/root/.cache/huggingface/datasets/json/default/cache-1a2b.arrow",
        ),
        (
            "LOG005",
            "RuntimeError: Timed out initializing process group in store based barrier on rank: 3, for key: store_based_barrier_key:1 (world_size=16, worker_count=12, timeout=0:30:00)\n",
            "only 12 of 16 processes",
        ),
    ],
)
def test_written_logs_fire_the_signatures_no_excerpt_shows(code: str, text: str, said: str, tmp_path: Path) -> None:
    report = diagnose([write(tmp_path, "x.log", text)], [])
    assert codes(report) == [code] and said in report.findings[0].explanation.message


def test_deepspeed_launcher_kill_with_the_memory_reading_before_it(tmp_path: Path) -> None:
    """DeepSpeed's launcher (launch.py sigkill_handler) after a rank got SIGKILL: the last
    see_memory_usage reading before it is the evidence; an exit with another code is not a SIGKILL."""
    reading = "[2023-04-07 13:08:55,469] [INFO] [utils.py:838:see_memory_usage] CPU Virtual Memory:  used = 241.43 GB, percent = 96.6%\n"
    killed = "[2023-04-07 13:09:33,201] [INFO] [launch.py:318:sigkill_handler] Killing subprocess 80\n"
    exits = "[2023-04-07 13:09:33,220] [ERROR] [launch.py:324:sigkill_handler] ['/usr/bin/python3', '-u', 'run_clm.py'] exits with return code = {}\n"
    report = diagnose([write(tmp_path, "ds.log", reading + killed + exits.format(-9))], [])
    assert codes(report) == ["LOG009"]
    said = "\n".join(report.findings[0].explanation.evidence)
    assert "241.43 GB used, 96.6% of the host" in said and "killed 1 others" in said
    # -11 (DeepSpeedExamples#626's, a segmentation fault) is not the OOM killer's signal
    assert "LOG009" not in codes(diagnose([write(tmp_path, "segv.log", killed + exits.format(-11))], []))


def test_a_watchdog_line_wrapped_by_the_terminal_is_read_whole(tmp_path: Path) -> None:
    """xtuner#354's watchdog line as an 80-column terminal shows it: two lines, read as one."""
    line = (LOGS / "xtuner-354-broadcast-seq1.log").read_text().splitlines()[0]
    wrapped = write(tmp_path, "wrapped.log", line[:80] + "\n" + line[80:] + "\n")
    report = diagnose([wrapped], [])
    assert codes(report) == ["LOG002"] and "BROADCAST (SeqNum 1)" in report.findings[0].explanation.message
    assert report.findings[0].anchor.line.number == 1
    # a line that merely ends where the next begins is not joined into a match
    two = write(
        tmp_path,
        "two.log",
        "NCCL INFO NET/Plugin : No plugin found (libnccl-net.so).\nNCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB eth0:<0>\n",
    )
    scan = scanner()
    scan.read(two)
    assert [h.line.number for h in scan.stat("LOG006.ib").all] == [2]


def test_store_barrier_counts_whole_missing_nodes_with_the_recipe(tmp_path: Path) -> None:
    text = "RuntimeError: Timed out initializing process group in store based barrier on rank: 3, for key: store_based_barrier_key:1 (world_size=16, worker_count=8, timeout=0:30:00)\n"
    profile = load_profile(EXAMPLE / "hardware-v100-node.yaml")
    report = diagnose([write(tmp_path, "x.log", text)], [EXAMPLE], lambda: profile)
    assert "nodes: 8 missing processes = 2 whole node(s) of 4 ranks" in report.findings[0].explanation.evidence
    causes = report.findings[0].causes
    # The recipe confirms the interface cause (RL504), so it ranks first; the log's own hint is next.
    assert [(c.key, c.status) for c in causes[:2]] == [("unreachable", "found"), ("missing-node", "unchecked")]
    assert causes[1].why == "exactly 2 node(s) worth of ranks is missing"


# --- the command line ------------------------------------------------------------------------


def test_no_known_signature_exits_0_with_the_last_error_lines(tmp_path: Path) -> None:
    text = "".join(f"2024-01-01 10:00:{i:02d},000 DEBUG TRAIN | Batch 0/{i} loss 1.0 rank 0\n" for i in range(40))
    text += 'Traceback (most recent call last):\n  File "train.py", line 3, in <module>\nZeroDivisionError: division by zero\n'
    log = write(tmp_path, "train.log", text)
    result = cli("diagnose", str(log))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == "No known failure signature in 1 log (43 lines)."
    assert "Last error lines:" in result.stdout
    assert f"{log}:43 | ZeroDivisionError: division by zero" in result.stdout
    assert f"{log}:41 | Traceback (most recent call last):" in result.stdout
    data = json.loads(cli("diagnose", str(log), "--format", "json").stdout)
    assert data["findings"] == [] and data["unknown"][-1] == {"path": str(log), "line": 43, "text": "ZeroDivisionError: division by zero"}


def test_a_clean_log_without_errors_shows_its_last_lines(tmp_path: Path) -> None:
    log = write(tmp_path, "ok.log", "".join(f"step {i}\n" for i in range(10)))
    result = cli("diagnose", str(log))
    assert result.returncode == 0 and "Last lines:" in result.stdout and f"{log}:10 | step 9" in result.stdout


def test_exit_codes_for_bad_input(tmp_path: Path) -> None:
    missing = cli("diagnose", str(tmp_path / "nope.log"))
    assert missing.returncode == 2 and missing.stderr.strip() == f"{tmp_path / 'nope.log'}: no such file"
    no_log = cli("diagnose", str(EXAMPLE))
    assert no_log.returncode == 2 and "no log among the paths" in no_log.stderr
    write_only = cli("diagnose", str(LOGS / "openrlhf-346-batch.log"), "--write")
    assert write_only.returncode == 2 and "use it with --fix" in write_only.stderr
    assert "Traceback" not in missing.stderr + no_log.stderr + write_only.stderr


def test_text_output_has_the_excerpt_the_causes_and_the_check_findings() -> None:
    log = REPO / "tests" / "data" / "diagnose" / "wenet-4node-v100" / "node2.log"
    result = cli("diagnose", str(log), str(EXAMPLE), "--hardware", str(EXAMPLE / "hardware-v100-node.yaml"))
    assert result.returncode == 1
    out = result.stdout
    assert f"{log}:32: LOG002 [error] the NCCL watchdog ended ALLREDUCE (SeqNum 41237) after 10 min on 3 ranks" in out
    assert "  > 32 | [rank8]:[E311 14:40:38.927000000 ProcessGroupNCCL.cpp:616] [Rank 8] Watchdog caught" in out
    assert "    31 | 2024-03-11 14:30:35,791 DEBUG TRAIN | steps/sec 0.146| Batch 2/1000" in out
    assert "stuck: rank 9 did not report while the other ranks of its node did" in out
    assert "    1. one rank's DataLoader fell behind" in out and "[RL105 RL102 RL103 RL201: found in the recipe]" in out
    assert "The fix, as `recipelint check` reports it:" in out
    assert (
        f"{shown(EXAMPLE / 'run.sh')}:47:21: RL105 [warning]" in out
    )  # relative to the folder it runs in and "      = fix: set num_workers 2, prefetch 125" in out
    assert out.rstrip().endswith("4 findings behind the causes, 2 fixable with `recipelint diagnose ... --fix --write`.")


def test_fix_without_write_prints_the_diff_and_writes_nothing(tmp_path: Path) -> None:
    import shutil

    recipe = tmp_path / "ex"
    shutil.copytree(EXAMPLE, recipe)
    log = REPO / "tests" / "data" / "diagnose" / "wenet-4node-v100" / "node0.log"
    result = cli("diagnose", str(log), str(recipe), "--hardware", str(recipe / "hardware-v100-node.yaml"), "--fix", "--format", "concise")
    assert result.returncode == 1
    assert "-num_workers=4\n-prefetch=250\n+num_workers=2\n+prefetch=125\n" in result.stdout
    assert "Would fix 2 problem(s) in 1 file(s)" in result.stderr
    assert (recipe / "run.sh").read_bytes() == (EXAMPLE / "run.sh").read_bytes()


def test_json_output_carries_the_finding_its_causes_and_the_diagnostics(tmp_path: Path) -> None:
    log = REPO / "tests" / "data" / "diagnose" / "xtuner-multinode" / "train.log"
    recipe = REPO / "tests" / "data" / "diagnose" / "xtuner-multinode"
    out = tmp_path / "report.json"
    result = cli("diagnose", str(log), str(recipe), "--hardware", str(recipe / "node.yaml"), "--format", "json", "-o", str(out))
    assert result.returncode == 1 and result.stdout == ""
    data = json.loads(out.read_text())
    finding = data["findings"][0]
    assert (finding["code"], finding["name"], finding["line"], finding["matched_lines"]) == ("LOG003", "store-connect-timeout", 1, 3)
    assert finding["excerpt"][0] == {"path": str(log), "line": 1, "text": (log.read_text().splitlines()[0])}
    first = finding["causes"][0]
    assert (first["rank"], first["cause"], first["status"], first["codes"]) == (1, "launcher", "found", ["RL801"])
    assert first["diagnostics"][0]["fix"]["edits"][0]["content"] == " --launcher pytorch"
    assert [d["code"] for d in data["diagnostics"]] == ["RL801", "RL504"]
    assert data["logs"] == [{"path": str(log), "lines": 16}] and data["errors"] == []


def test_github_concise_and_sarif_formats() -> None:
    log = str(LOGS / "deepspeed-6914-batch.log")
    github = cli("diagnose", log, "--format", "github").stdout.strip().splitlines()
    where = shown(Path(log))  # findings name files relative to the folder recipelint runs in
    assert github == [
        f"::error file={where},line=1,col=1,endLine=1,endColumn=159,title=LOG011::LOG011 DeepSpeed's batch assertion failed: train_batch_size 8 != 2 x 1 x world size 1 = 2"
    ]
    concise = cli("diagnose", log, "--format", "concise").stdout.splitlines()
    assert concise[0] == f"{where}:1:1: LOG011 [error] DeepSpeed's batch assertion failed: train_batch_size 8 != 2 x 1 x world size 1 = 2"
    sarif = json.loads(cli("diagnose", log, "--format", "sarif").stdout)
    run = sarif["runs"][0]
    rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
    assert (
        rules["LOG011"]["name"] == "deepspeed-batch-assert"
        and "RL415" in rules
        and "## Why is this bad" in rules["LOG011"]["help"]["markdown"]
    )
    assert [(r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in run["results"]] == [("LOG011", 1)]


def test_sarif_validates_against_the_official_schema() -> None:
    schema_path = REPO / "tests" / "data" / "schemas" / "sarif-2.1.0.json"
    from jsonschema import Draft7Validator

    log = REPO / "tests" / "data" / "diagnose" / "wenet-4node-v100" / "node0.log"
    result = cli("diagnose", str(log), str(EXAMPLE), "--hardware", str(EXAMPLE / "hardware-v100-node.yaml"), "--format", "sarif")
    data = json.loads(result.stdout)
    assert list(Draft7Validator(json.loads(schema_path.read_text())).iter_errors(data)) == []
    assert sorted({r["ruleId"] for r in data["runs"][0]["results"]}) == ["LOG002", "LOG006", "RL105", "RL201", "RL205", "RL504"]


# --- the signatures' documentation --------------------------------------------------------


@pytest.mark.parametrize("code", sorted(all_signatures()))
def test_signature_doc_has_every_section_and_known_codes(code: str) -> None:
    from recipelint.rules import all_rules

    signature = all_signatures()[code]
    for section in SECTIONS:
        assert section in signature.doc, f"{code} lacks {section}"
    assert signature.source and signature.name == signature.name.lower() and code.startswith("LOG")
    assert 1 <= int(code[3:]) <= 99
    assert set(signature.codes) <= set(all_rules()), "a cause names a rule that does not exist"


def test_generated_signatures_doc_is_current() -> None:
    assert (REPO / "docs" / "signatures.md").read_text() == signatures_markdown(), (
        "run: python -m recipelint.diagnose.docs > docs/signatures.md"
    )


def iter_needles() -> Iterator[str]:
    for signature in all_signatures().values():
        for pattern in signature.patterns:
            yield pattern.needle


def test_every_needle_is_searched_for_through_one_that_it_contains() -> None:
    scan = scanner()
    for needle in iter_needles():
        assert any(short in needle.encode() for short in scan.needles), needle


def test_error_lines_no_signature_explains_are_listed_as_unknown(tmp_path: Path) -> None:
    filler = "".join(f"2024-01-01 10:00:00,000 DEBUG TRAIN | Batch 0/{i} loss 1.0 rank 0\n" for i in range(100))
    text = (
        "WARNING: tokenizer vocabulary mismatch, falling back to slow tokenizer (Error 17)\n"
        + filler
        + "RuntimeError: DataLoader worker (pid 4161) is killed by signal: Killed.\n"
        + "Traceback (most recent call last):\n"
    )
    report = diagnose([write(tmp_path, "mixed.log", text)], [])
    assert codes(report) == ["LOG008"]
    from recipelint.diagnose import other_error_lines
    from recipelint.diagnose.render import text_report
    from recipelint.parse.files import FileCache

    assert [(x.number, x.text[:26]) for x in other_error_lines(report)] == [(1, "WARNING: tokenizer vocabul")]
    out = text_report(report, FileCache())
    assert f"Other error lines, no known signature:\n  {tmp_path / 'mixed.log'}:1 | WARNING: tokenizer" in out
    assert "mixed.log:103 | Traceback" not in out  # the finding's own traceback


def test_a_recipe_that_cannot_be_read_is_an_error_and_the_log_still_diagnosed(tmp_path: Path) -> None:
    result = cli("diagnose", str(LOGS / "openrlhf-346-batch.log"), str(tmp_path / "missing.yaml"))
    assert result.returncode == 2
    assert result.stdout.startswith(f"{LOGS / 'openrlhf-346-batch.log'}:1: LOG011 [error]")
    assert result.stderr.strip() == f"{tmp_path / 'missing.yaml'}: no such file or directory"


# --- logs as terminals and other systems write them (issue: the adversarial audit) -----------

WATCHDOG_LOG = REPO / "tests" / "data" / "logs" / "llamafactory-7396-watchdog.log"


def _watchdog_line() -> bytes:
    return WATCHDOG_LOG.read_bytes().splitlines()[0]


def _codes(report: Report) -> set[str]:
    return {finding.signature.code for finding in report.findings}


def test_watchdog_after_a_long_progress_bar_on_the_same_line(tmp_path: Path) -> None:
    """tqdm redraws with `\\r`: 64K characters of bar before the watchdog message on one line."""
    bar = b"".join(b"\r 45%|" + b"#" * 40 + b"| %d/9000 [00:10<00:12, 9.1it/s]" % i for i in range(2000))
    log = tmp_path / "train.log"
    log.write_bytes(bar + b"\r" + _watchdog_line() + b"\n")
    assert len(bar) > 65536
    assert "LOG002" in _codes(diagnose([log], []))


def test_watchdog_more_than_64k_into_a_line_without_carriage_returns(tmp_path: Path) -> None:
    """A launcher that prints its progress with no `\\r` (or a log whose `\\r` were stripped):
    70K characters, then the watchdog message, on one line; and a second one 300K further on."""
    filler = b"x" * 70_000 + b" "
    log = tmp_path / "train.log"
    log.write_bytes(filler + _watchdog_line() + b" " + b"y" * 300_000 + b"\n")
    assert "LOG002" in _codes(diagnose([log], []))


def test_colour_codes_inside_the_message(tmp_path: Path) -> None:
    line = _watchdog_line().replace(b"Watchdog caught", b"\x1b[31mWatchdog\x1b[0m caught")
    log = tmp_path / "train.log"
    log.write_bytes(line + b"\n")
    assert "LOG002" in _codes(diagnose([log], []))


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-le"])
def test_a_utf16_log_is_read(tmp_path: Path, codec: str) -> None:
    """PowerShell's `>` writes UTF-16 (with a byte order mark); some tools write it without."""
    log = tmp_path / "train.log"
    log.write_bytes(WATCHDOG_LOG.read_text(encoding="utf-8").encode(codec))
    assert "LOG002" in _codes(diagnose([log], []))


def test_a_nested_elastic_error_file_keeps_the_other_logs(tmp_path: Path) -> None:
    odd = tmp_path / "error.json"
    odd.write_text(json.dumps({"message": {"message": "RuntimeError: boom", "extraInfo": ["not", {"a": "dict"}]}}))
    deep = tmp_path / "deep_error.json"
    deep.write_text('{"message": ' + "[" * 100000 + "]" * 100000 + "}")
    report = diagnose([odd, deep, WATCHDOG_LOG], [])
    assert "LOG002" in _codes(report)
