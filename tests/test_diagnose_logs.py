"""Real log excerpts from public issue threads (tests/data/logs/SOURCE.md), each with its diagnosis."""

from __future__ import annotations

from pathlib import Path

import pytest

from recipelint.diagnose import Report, diagnose
from recipelint.diagnose.signatures import all_signatures
from tests.helpers import REPO
from tests.test_diagnose_threads import ENVIRONMENT, SECOND, THREADS

LOGS = REPO / "tests" / "data" / "logs"

# file, signature, line it points at, words of its message, words of its evidence, likeliest cause
CASES: list[tuple[str, str, int, list[str], list[str], str]] = [
    (
        "wenet-2552-gloo-recv-http.log",
        "LOG001",
        1,
        ["within 30000 ms = 30 s"],
        ["30000 ms = 30 s is train.py's default --timeout"],
        "slow-batch",
    ),
    (
        "cosyvoice-180-join.log",
        "LOG001",
        2,
        ["rank 2 did not reach the monitored barrier within 30000 ms", "WeNet's join then ended the epoch"],
        ["rank 2 never arrived", "rank 1, 3 reached the barrier and waited; world size 4"],
        "slow-batch",
    ),
    (
        "wenet-2266-ddp-join.log",
        "LOG001",
        3,
        ["rank 1 waited at the monitored barrier and lost rank 0"],
        ["rank 1 reached the barrier"],
        "rank0",
    ),
    ("torchtune-2676-gloo-barrier.log", "LOG001", 7, ["within 1800000 ms = 30 min"], ["timeout: 1800000 ms = 30 min"], "slow-batch"),
    (
        "deepspeed-4488-rank0-preprocess.log",
        "LOG001",
        1,
        ["rank 3 waited at the monitored barrier and lost rank 0"],
        ["while data was prepared", "data preparation 652383 of 930514", "6 h 39 min into the run"],
        "rank0",
    ),
    (
        "llamafactory-7396-watchdog.log",
        "LOG002",
        1,
        ["ALLREDUCE (SeqNum 1580) after 10 min on 2 ranks"],
        ["torch's NCCL default (10 min, torch >= 2.2)", "rank 0, 4 reported"],
        "loader",
    ),
    ("basicsr-737-watchdog.log", "LOG002", 1, ["ALLREDUCE (SeqNum 808) after 10 min on 3 ranks"], ["rank 0-2 reported"], "loader"),
    (
        "ofa-271-watchdog-v100.log",
        "LOG002",
        1,
        ["SeqNum 469508) after 30 min on 5 ranks"],
        ["1800000 ms = 30 min, the 30 min default of DeepSpeed's init_distributed", "rank 1-3, 6-7 reported"],
        "loader",
    ),
    (
        "pytorch-118369-watchdog-behind.log",
        "LOG002",
        1,
        ["SeqNum 96125) after 7 h 7 min"],
        [
            "rank 7 was stuck at SeqNum 64088, 32037 collectives before the others' 96125",
            "epoch 0, step 32040 of 500150, 6%",
            "6 h 28 min into the run",
        ],
        "loader",
    ),
    (
        "nccl-1409-watchdog-desync.log",
        "LOG002",
        1,
        ["ALLREDUCE/BROADCAST (SeqNum 80078)"],
        ["at SeqNum 80078 the ranks ran different collectives (BROADCAST on rank 7; ALLREDUCE on rank 3)"],
        "loader",
    ),
    ("xtuner-354-broadcast-seq1.log", "LOG002", 1, ["BROADCAST (SeqNum 1) after 30 min on 3 ranks"], ["rank 1-3 reported"], "long-step"),
    ("xtuner-390-broadcast-seq3.log", "LOG002", 1, ["BROADCAST (SeqNum 3) after 30 min"], ["1800000 ms = 30 min"], "long-step"),
    (
        "xtuner-768-dataset-broadcast.log",
        "LOG015",
        2,
        ["the BROADCAST after rank 0's dataset preprocessing (SeqNum 1) timed out after 1800000 ms = 30 min"],
        [
            "XTUNER_DATASET_TIMEOUT 2:00:00 for the barrier",
            "the barrier had 2 h 0 min, the broadcast only the process group's 1800000 ms",
            "rank 1-3 waited",
        ],
        "broadcast",
    ),
    (
        "xtuner-438-client-socket.log",
        "LOG003",
        1,
        ["could not connect to the TCP store at 33.97.225.68:58787 within 1800s"],
        ["1800s is the process group's TCP store with a 30 min timeout", "inside deepspeed.initialize -> init_distributed"],
        "launcher",
    ),
    ("controlnet-382-client-socket-local.log", "LOG003", 2, ["TCP store at 127.0.0.1:48391 within 1800s"], ["store: 1800s"], "loopback"),
    (
        "pytorch-107021-rendezvous.log",
        "LOG004",
        4,
        ["could not connect to the rendezvous store at 192.0.0.1:1234"],
        ["the client socket timed out after 60s"],
        "unreachable",
    ),
    (
        "pytorch-79388-rendezvous.log",
        "LOG004",
        18,
        ["rendezvous store at IP1:2222"],
        ["torchrun waited for 2 node(s)", "rendezvous timeout 900 s", "pytorch-79388-rendezvous.log:15"],
        "unreachable",
    ),
    ("avhubert-19-rendezvous-timeout.log", "LOG004", 3, ["timed out waiting for all nodes"], [], "missing-node"),
    (
        "megatron-ds-338-store-barrier.log",
        "LOG005",
        1,
        ["only 4 of 8 processes reached the process group's store barrier within 0:00:30; 4 never arrived"],
        ["reported by rank 5, 7"],
        "meeting",
    ),
    (
        "nccltests-29-mixed-socket-ib.log",
        "LOG006",
        1,
        ["sockets on some ranks and InfiniBand on others"],
        ["2 socket line(s) (server1, server3) and 3 InfiniBand line(s)", "enp41s0f1, virbr0"],
        "mixed",
    ),
    (
        "areal-639-socket-fallback.log",
        "LOG006",
        1,
        ["if the nodes have InfiniBand or RoCE, it is not used"],
        ["sockets use bond0"],
        "ib-disabled",
    ),
    ("horovod-969-no-ibverbs.log", "LOG006", 2, ["NCCL uses sockets for inter-node traffic"], [], "no-verbs"),
    ("nccl-1405-ib-completion.log", "LOG007", 1, ["status 12 (IBV_WC_RETRY_EXC_ERR"], ["peers: 10.216.210.236"], "peer"),
    ("nccl-928-ib-completion-old.log", "LOG007", 1, ["status 4 (IBV_WC_LOC_PROT_ERR"], ["fe80::966d:ae03:8b:df78%ib0"], "gdr"),
    ("pytorch-8976-worker-killed.log", "LOG008", 9, ["a DataLoader worker died (Killed)"], [], "ram"),
    ("gdrnet-16-bus-error.log", "LOG008", 3, ["a DataLoader worker died (Bus error)"], ["2 worker deaths reported"], "shm"),
    ("parallelwavegan-314-bus-error.log", "LOG008", 1, ["(Bus error)"], [], "shm"),
    ("dcpdn-58-bus-error.log", "LOG008", 1, ["(Bus error)"], [], "shm"),
    (
        "cppo-6-sigkill.log",
        "LOG009",
        15,
        ["killed with SIGKILL"],
        [],
        "loader-ram",
    ),  # no DeepSpeed line or recipe: offload is not ranked first (issue 44)
    ("chatglm2-520-sigkill-loading.log", "LOG009", 1, ["killed with SIGKILL (local rank 0)"], [], "model-load"),
    ("wenet-1678-cuda-oom.log", "LOG010", 1, ["1.81 GiB requested on GPU 1 (39.59 GiB, 1.69 GiB free)"], [], "long-batch"),
    ("framepack-382-cuda-oom-new.log", "LOG010", 1, ["544.00 MiB requested on GPU 0 (12.00 GiB, 6.47 GiB free)"], [], "long-batch"),
    (
        "deepspeed-6914-batch.log",
        "LOG011",
        1,
        ["train_batch_size 8 != 2 x 1 x world size 1 = 2"],
        ["DeepSpeed counted 1 process; the JSON was written for 4"],
        "world",
    ),
    ("openrlhf-346-batch.log", "LOG011", 1, ["train_batch_size 256 != 2 x 18 x world size 7 = 252"], [], "triple"),
    ("starcoder-77-batch-wrapped.log", "LOG011", 3, ["train_batch_size 64 != 4 x 8 x world size 1 = 32"], ["written for 2"], "world"),
    ("flagai-299-optimizer.log", "LOG012", 4, ["does not know the optimizer Adafactor"], [], "type"),
    ("gptneox-1166-untested-optimizer.log", "LOG012", 3, ["untested client optimizer (Lion)"], [], "untested"),
    (
        "deepspeed-3827-pydantic-v1.log",
        "LOG013",
        1,
        ["DeepSpeedZeroConfig: zero_hpz_partition_size, zero_quantized_gradients"],
        [],
        "unknown-key",
    ),
    (
        "flagembedding-1487-pydantic-v2.log",
        "LOG013",
        1,
        ["DeepSpeedBF16Config: loss_scale, initial_scale_power, loss_scale_window, hysteresis, min_loss_scale"],
        [],
        "unknown-key",
    ),
    ("delight-13-unrecognized.log", "LOG014", 4, ["train.py refused --t-mult"], [], "removed-flag"),
    ("maskcyclegan-16-unrecognized.log", "LOG014", 1, ["train.py refused --lr"], [], "removed-flag"),
    (
        "wenet-981-tar-readerror.log",
        "LOG016",
        11,
        ["a shard could not be read: unexpected end of data"],
        ["during training (epoch 1, step 200)", "came 32 s before"],
        "broken-file",
    ),
    ("wenet-2309-tar-empty.log", "LOG016", 10, ["a shard could not be read: empty file"], [], "broken-file"),
    ("mhcflurry-213-bz2-invalid.log", "LOG016", 13, ["Invalid data stream"], [], "compressed"),
]


def run(name: str) -> Report:
    return diagnose([LOGS / name], [])


@pytest.mark.parametrize(("name", "code", "line", "said", "evidence", "cause"), CASES, ids=[c[0] for c in CASES])
def test_real_excerpt_is_diagnosed(name: str, code: str, line: int, said: list[str], evidence: list[str], cause: str) -> None:
    report = run(name)
    assert [f.signature.code for f in report.findings] == [code]
    finding = report.findings[0]
    assert finding.anchor.line.number == line
    assert finding.anchor.line.path.name == name
    for words in said:
        assert words in finding.explanation.message
    joined = "\n".join(finding.explanation.evidence)
    for words in evidence:
        assert words in joined
    assert finding.causes[0].key == cause
    # With no recipe given nothing is fixed, and every cause says to give one.
    assert report.fixes == [] and {c.status for c in finding.causes} == {"no-recipe"}


def test_the_excerpts_come_from_at_least_twelve_threads_and_cover_every_signature_but_the_recipe_ones() -> None:
    source = (LOGS / "SOURCE.md").read_text()
    rows = [line for line in source.splitlines() if line.startswith("| `")]
    files = {row.split("`")[1] for row in rows}
    threads = {row.split("|")[2].strip() for row in rows}
    assert files == {p.name for p in LOGS.glob("*.log")} and len(files) >= 20
    assert len(threads) >= 12 and all(t.startswith("https://github.com/") for t in threads)
    assert {case[0] for case in CASES} | set(THREADS) | set(ENVIRONMENT) | set(SECOND) == files
    covered = {case[1] for case in CASES} | {code for code, _, _ in [*THREADS.values(), *ENVIRONMENT.values(), *SECOND.values()]}
    # LOG017-LOG019 are shown by the field reports and by written logs in test_diagnose.py.
    assert set(all_signatures()) - covered == {"LOG017", "LOG018", "LOG019"}


def test_each_excerpt_line_is_kept_as_the_thread_printed_it() -> None:
    """The excerpt shown is the file's own lines, numbered as in the file."""
    report = run("cosyvoice-180-join.log")
    hit = report.findings[0].anchor
    lines = (LOGS / "cosyvoice-180-join.log").read_text().splitlines()
    for item in (*hit.before, hit.line, *hit.after):
        assert item.text == lines[item.number - 1]
    assert [x.number for x in hit.before] == [1] and [x.number for x in hit.after] == [3, 4, 5]


def test_excerpts_need_no_file_outside_the_checkout() -> None:
    assert all(Path(p).resolve().is_relative_to(REPO) for p in LOGS.iterdir())
