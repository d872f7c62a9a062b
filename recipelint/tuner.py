"""The tuner: every formula behind a suggested value, as pure functions in one place.

Each rule's documentation names the function it uses. The DataLoader model (memory, workers,
prefetch) was calibrated against WeNet's own dataset pipeline (HEAD 01546996) run by
`bench/fidelity` on a 2-core machine: the constants below cite the figure they came from,
and docs/tuner.md has the full table (predicted against measured, per grid point).
"""

from __future__ import annotations

import math
from typing import Any

from recipelint.records import dataclass, field

FLOAT32 = 4
# Shards hold 16-bit PCM WAV (tools/make_shard_list.py): the source prefetch keeps these raw bytes.
PCM16 = 2
# A dynamic batch closes when the next utterance would pass max_frames_in_batch, so it is
# filled to 0.97 of it on average (bench/fidelity: 3884 of 4000, 11640 of 12000 padded frames).
BATCH_FILL = 0.97
# What a dynamic batch lacks of max_frames_in_batch, in mean utterances, at the deciles of the
# queued batches (bench/fidelity results/calibration-2.json, 12000 and 24000 frames): the last
# utterance that did not fit, so it does not grow with the batch. Pinned, each tensor is rounded
# up to a power of two, so the spread matters, not only the mean: a mean fill just under a
# boundary hides the batches just over it.
BATCH_DEFICITS = (0.02, 0.22, 0.32, 0.41, 0.48, 0.75, 0.95, 1.21, 1.45, 2.07)
# Static batches pad every utterance to the batch's longest. Without the data at hand, lengths
# are taken as log-normal with sigma 0.6 (the bench's generated data; wider than a corpus whose
# lengths cluster, so the padding errs high).
LENGTH_SIGMA = 0.6
# A buffered sample keeps more than its batch's tensors (its dict, key, text, tokens and the
# allocator's slack): 1035 B a frame at 4.9 s utterances and 1113 B at 11.5 s, measured as the
# growth of a worker over 3200 and 1500 more buffered samples (bench/fidelity
# results/calibration-2.json, cal-buf-*). The model takes 1100 B, 140 B over the batch's 960.
BUFFERED_EXTRA_PER_FRAME = 140
# The mean utterance when the recipe does not say: 5 s, near AISHELL-1's 4.5 s (150 h over 120,098
# training utterances; LibriSpeech's 960 h over 281,241 is 12.3 s). The evidence line names it;
# `mean-utterance-seconds` in recipelint.toml or a raw data.list's durations replace it.
DEFAULT_UTTERANCE_SECONDS = 5.0
FRAMES_PER_SECOND = 100  # WeNet counts 10 ms frames (processor.filter)
# PrefetchDataPipe(500) after the tar reader refills when it falls to 250: it holds 250-500
# utterances of raw bytes, 375 on average (wenet/dataset/datapipes.py, #2316, WeNet >= 3.0.1).
SOURCE_PREFETCH = 500
SOURCE_PREFETCH_MEAN = 0.75
# A raw data.list is read ahead as 500 text lines, not audio (WenetRawDatasetSource: prefetch on
# the text lines; the audio is read one sample at a time further down). Both sources shuffle
# the whole list before the rank/worker split (list_shuffle_size defaults to sys.maxsize, and
# `.shuffle` comes before `.shard`, wenet/dataset/dataset.py and datapipes.py), so every worker
# holds every line: a dict {"file_name", "line"} (184 B), the str (about 74 B + 2 B a character
# for a line with Chinese text) and the list's slot (8 B).
LIST_LINE_FIXED = 184 + 74 + 8
LIST_LINE_PER_BYTE = 2
# A worker's own memory besides its buffers (Python and torch pages it writes after the fork),
# and the heap it keeps from building its batches after handing them over (glibc keeps freed
# chunks): fitted over the 35 pinned points of bench/fidelity with the rest of the model as it
# stands (`python bench/fidelity/fit.py bench/fidelity/results/grid-pin.json`): 0.067 GB and
# 0.20 x the bytes of the batches it queued. The base is small because the buffers are counted
# full (shuffle + sort), an upper bound: at rest the sort buffer holds half of its size on average.
WORKER_BASE_BYTES = 67_000_000
WORKER_HEAP_SHARE = 0.20
# Without --pin_memory the queued batches reach /dev/shm only as they are pickled into the
# loader's one result pipe, shared by all its workers: at rest the bench held 8, 32 and at most
# 48 batches in /dev/shm (1, 2 or 4 workers, prefetch 8-125), the rest on the workers' heaps.
SHM_BATCHES = 48
# The loader's share of RAM: the rest is left to the training processes, the model and optimizer
# state on the host, and the page cache of the data (a policy, not a measurement).
RAM_SHARE = 0.5
# Measured throughput (bench/fidelity, 2 cores, F = 12000, 50 ms fake step, results/throughput.jsonl):
# 2, 3 and 4 workers all reach 0.9 of the best rate (2: 0.92), more workers than cores add
# nothing; 1 worker, the old `cores - 1` cap, reached 0.49 of it, while the trainer, waiting on
# its step, used 0.02-0.05 of a core. So a rank's workers may use every core it gets:
# num_workers <= cpus // ranks.
# A plateau is the set of settings within 10 % of the best measured batches/s.
PLATEAU = 0.9
# WeNet's aishell/s0 recipe default (run.sh at HEAD) when a recipe gives no worker count.
UPSTREAM_NUM_WORKERS = 8
# Upstream's join timeout for WenetSpeech (HTTP-scale data): examples/wenetspeech/*/run.sh.
UPSTREAM_SLOW_TIMEOUT = 1200
# Default process-group timeouts (seconds): NCCL 10 min since torch 2.2 (pytorch#110947).
# DeepSpeed's init_distributed uses DEEPSPEED_TIMEOUT minutes, default 30 up to 0.19.5 and
# 10 from 0.19.6 (deepspeed/constants.py `default_pg_timeout`, read in each release's sdist).
PG_TIMEOUT = {"torch_ddp": 600, "torch_fsdp": 600, "deepspeed": 600}
DEEPSPEED_PG_TIMEOUT_CHANGED = (0, 19, 6)


DEEPSPEED_TIMEOUT_SINCE = (0, 11, 2)  # init_distributed reads DEEPSPEED_TIMEOUT (PR #4405)
TORCH_NCCL_TIMEOUT_CHANGED = (2, 2)  # ProcessGroupNCCL default 30 -> 10 min (pytorch#110947)


def deepspeed_pg_timeout(version: tuple[int, ...]) -> int:
    """DeepSpeed's default process-group timeout in seconds for a release."""
    return 600 if version >= DEEPSPEED_PG_TIMEOUT_CHANGED else 1800


def torch_pg_timeout(version: tuple[int, ...]) -> int:
    """torch.distributed's default NCCL process-group timeout in seconds for a release (30 min
    for every backend before 2.2)."""
    return 600 if version >= TORCH_NCCL_TIMEOUT_CHANGED else 1800


# The one CPU formula: every rule, fix and page that counts a node's DataLoader workers says it
# (tests/test_docs.py pins the pages to it).
CPU_FORMULA = "ranks_per_node x num_workers <= usable CPUs"


def loader_worker_cap(usable_cpus: int, ranks_per_node: int) -> int:
    """Largest num_workers with ranks_per_node x num_workers <= usable CPUs (never below 1).

    Each rank's training process is a CPU user too, but it waits on the GPU most of a step: its
    CPU share (0.02-0.05 core measured with WeNet's pipeline) does not justify a core of its own,
    and keeping one (`cpus // ranks - 1`) gave 0.49 of the best throughput on 2 cores where this
    cap gives 0.92; workers past the cores add nothing (bench/fidelity, docs/tuner.md)."""
    return max(1, usable_cpus // max(ranks_per_node, 1))


def shard_worker_cap(shards: int, world_size: int) -> int:
    """Largest num_workers that leaves no worker without a shard: shards // world_size.

    WeNet splits the data.list lines over world_size x num_workers readers (reference 3.3)."""
    return shards // max(world_size, 1)


def scale_prefetch(prefetch: int, old_workers: int, new_workers: int) -> int:
    """Keep batches queued per worker proportional: the documents' fix took 4 workers x 250 to 2 x 125."""
    if old_workers <= 0 or new_workers >= old_workers:
        return prefetch
    return max(1, prefetch * new_workers // old_workers)


@dataclass(frozen=True)
class Pipeline:
    """What the training code's data pipeline keeps in memory (its toolkit reads it from the
    code: toolkits/wenet/loader.py); the default is upstream WeNet HEAD's behaviour.

    `pcm`: samples and batches keep the waveform next to the features (#2268, 2024-01-02; v3.0.0
    on). Before it a sample and a batch hold the features only. `source_prefetch`: utterances of
    raw bytes a worker reads ahead (the new IO, #2316, v3.0.1 on; none before)."""

    pcm: bool = True
    source_prefetch: int = SOURCE_PREFETCH
    evidence: str = "the modelled pipeline assumed (waveform kept in every batch, source prefetch 500)"
    # Why the code's batcher is not the one modelled (a fork's batch() with its own caps): the
    # memory is then not estimated at all, rather than extrapolated from upstream's batcher.
    unmodelled: str = ""


@dataclass
class Utterance:
    frames: float  # mean utterance length in 10 ms frames
    how: str


def utterance_estimate(conf: Any, setting_seconds: float | None = None, listed: tuple[float, str] | None = None) -> Utterance:
    """The mean utterance: `mean-utterance-seconds`, else a raw data.list's durations, else the
    5 s default bounded by filter_conf's [min_length, max_length] midpoint."""
    if setting_seconds:
        return Utterance(setting_seconds * FRAMES_PER_SECOND, f"mean utterance {setting_seconds:g} s from mean-utterance-seconds")
    if listed is not None:
        return Utterance(listed[0] * FRAMES_PER_SECOND, f"mean utterance {listed[0]:.1f} s from {listed[1]}")
    frames = DEFAULT_UTTERANCE_SECONDS * FRAMES_PER_SECOND
    how = f"mean utterance {DEFAULT_UTTERANCE_SECONDS:g} s assumed (AISHELL-1 4.5 s; set mean-utterance-seconds)"
    if conf is not None:
        low = _num(conf.scalar("filter_conf.min_length")) or 0.0
        high = _num(conf.scalar("filter_conf.max_length"))
        if high is not None and (low + high) / 2 < frames:
            frames = max((low + high) / 2, 1.0)
            how = f"mean utterance {frames / FRAMES_PER_SECOND:g} s, the middle of filter_conf min_length {low:g} .. max_length {high:g} frames"
    return Utterance(frames, how)


@dataclass
class BatchEstimate:
    bytes: int
    how: str  # the formula with its numbers, for the evidence line
    pinned: int = 0  # its size in pinned memory (0: not known, take bytes)


@dataclass
class LoaderModel:
    """The parts of dataset_conf that set a WeNet loader's memory."""

    mels: float
    rate: float
    shift_ms: float
    batch_type: str
    max_frames: float
    batch_size: float | None
    shuffle_size: int
    sort_size: int
    utterance: Utterance
    pipeline: Pipeline = field(default_factory=Pipeline)
    sort: bool = True  # the sort stage is on (static batches pad less when sorted)
    raw: bool = False  # --data_type raw: the source reads text lines ahead, not audio
    list_lines: int = 0  # lines of the train data.list, held by every worker's list shuffle
    list_line_bytes: float = 0.0  # their mean length in bytes

    @property
    def frame_samples(self) -> float:
        return self.rate * self.shift_ms / 1000

    @property
    def bytes_per_frame(self) -> int:
        """fbank float32, plus the float32 waveform when the version keeps it: 960 B at 80 mels, 16 kHz."""
        return int(FLOAT32 * (self.mels + (self.frame_samples if self.pipeline.pcm else 0)))

    def batch(self) -> BatchEstimate | None:
        u = self.utterance.frames
        if self.batch_type == "dynamic":
            fill = self.mean_fill
            frames = self.max_frames * fill
            how = f"max_frames_in_batch {self.max_frames:g} x {fill:.3g} fill x {self.bytes_per_frame} B/frame"
        elif self.batch_size:
            pad = pad_factor(int(self.batch_size), self.sort_size if self.sort else 0)
            frames = self.batch_size * u * pad
            how = (
                f"batch_size {self.batch_size:g} x {u:g} frames x {pad:.2f} padding to the longest"
                f" ({'sorted by ' + str(self.sort_size) if self.sort and self.sort_size else 'unsorted'}) x {self.bytes_per_frame} B/frame"
            )
            # Static batches vary in size over more than an octave: rounded up to a power of two,
            # a size spread evenly over octaves grows by 1 / ln 2 on average.
            return BatchEstimate(int(frames * self.bytes_per_frame), how, int(frames * self.bytes_per_frame / math.log(2)))
        else:
            return None
        return BatchEstimate(int(frames * self.bytes_per_frame), how, self.pinned_dynamic())

    @property
    def mean_fill(self) -> float:
        """Padded frames / max_frames_in_batch: BATCH_FILL, or more when one utterance is a small
        part of a large batch."""
        deficit = sum(BATCH_DEFICITS) / len(BATCH_DEFICITS)
        return max(BATCH_FILL, 1 - deficit * self.utterance.frames / self.max_frames)

    def pinned_dynamic(self) -> int:
        """The mean pinned size of a dynamic batch over the measured spread of fills, each
        tensor rounded up to a power of two."""
        per_frame = [FLOAT32 * self.mels] + ([FLOAT32 * self.frame_samples] if self.pipeline.pcm else [])
        fills = [min(1.0, max(0.0, 1 - d * self.utterance.frames / self.max_frames)) for d in BATCH_DEFICITS]
        return int(sum(pinned_bytes(tuple(int(f * self.max_frames * b) for b in per_frame)) for f in fills) / len(fills))

    def worker(self) -> tuple[int, str]:
        """One worker's memory besides its queue: base + shuffle and sort buffers + source prefetch."""
        u = self.utterance.frames
        buffered = (self.shuffle_size + self.sort_size) * u * self.buffered_frame_bytes
        listed = self.list_lines * (LIST_LINE_FIXED + LIST_LINE_PER_BYTE * self.list_line_bytes)
        if self.raw:
            source = self.pipeline.source_prefetch * SOURCE_PREFETCH_MEAN * (LIST_LINE_FIXED + LIST_LINE_PER_BYTE * self.list_line_bytes)
            ahead = f"{self.pipeline.source_prefetch * SOURCE_PREFETCH_MEAN:g} text lines read ahead"
        else:
            source = self.pipeline.source_prefetch * SOURCE_PREFETCH_MEAN * u * PCM16 * self.frame_samples
            ahead = f"{self.pipeline.source_prefetch * SOURCE_PREFETCH_MEAN:g} raw utterances read ahead"
        total = WORKER_BASE_BYTES + buffered + source + listed
        how = (
            f"one worker about {total / 1e9:.2f} GB: (shuffle {self.shuffle_size} + sort {self.sort_size}) samples x {u:g} frames"
            f" x {self.buffered_frame_bytes} B + {ahead}"
            + (f" + the whole data.list ({self.list_lines} lines) in its list shuffle buffer" if self.list_lines else "")
            + f" + {WORKER_BASE_BYTES / 1e9:g} GB"
        )
        return int(total), how

    @property
    def buffered_frame_bytes(self) -> int:
        """A buffered sample's bytes per frame: the batch's tensors plus what a sample keeps
        besides them (measured, bench/fidelity calibration-2)."""
        return self.bytes_per_frame + (BUFFERED_EXTRA_PER_FRAME if self.pipeline.pcm else 0)

    def burst(self) -> int:
        """Batches a worker yields at once after its sort buffer fills: sort_size / utterances per batch.

        A prefetch below it makes workers wait on each other: 2 workers at prefetch 4, burst 21,
        gave 8.7 batches/s against 10.9 at prefetch 32 (bench/fidelity, results/throughput.jsonl)."""
        batch = self.batch()
        if not self.sort_size or batch is None:
            return 1
        per_batch = max(batch.bytes / (self.utterance.frames * self.bytes_per_frame), 1.0)
        return max(1, math.ceil(self.sort_size / per_batch))


# The batch_conf keys the model understands (upstream's batch(): static, dynamic, bucket).
MODELLED_BATCH_KEYS = frozenset({"batch_type", "batch_size", "max_frames_in_batch", "bucket_boundaries", "bucket_batch_sizes"})
MODELLED_BATCH_TYPES = frozenset({"static", "dynamic", "bucket"})


def loader_model(config: Any, utterance: Utterance | None = None, pipeline: Pipeline | None = None) -> LoaderModel | None:
    """The memory model of a WeNet train loader from its YAML root (None when there is no
    dataset_conf, or when the code's batcher is not the one modelled: `pipeline.unmodelled`)."""
    if config is None:
        return None
    conf = config.get("dataset_conf")
    if conf is None or (pipeline is not None and pipeline.unmodelled):
        return None
    mels = _num(conf.scalar("fbank_conf.num_mel_bins")) or _num(conf.scalar("log_mel_spectrogram_conf.num_mel_bins")) or 80
    batch_type = str(conf.scalar("batch_conf.batch_type") or "static")
    size = _num(conf.scalar("batch_conf.batch_size"))
    if batch_type == "bucket":
        sizes = conf.get("batch_conf.bucket_batch_sizes")
        values = [c.value for c in sizes.children if isinstance(c.value, (int, float))] if sizes is not None else []
        size = max(values) if values else None
    return LoaderModel(
        mels=mels,
        rate=_num(conf.scalar("resample_conf.resample_rate")) or 16000,
        shift_ms=_num(conf.scalar("fbank_conf.frame_shift")) or 10,
        batch_type=batch_type,
        max_frames=_num(conf.scalar("batch_conf.max_frames_in_batch")) or 12000,
        batch_size=size,
        shuffle_size=_stage(conf, "shuffle"),
        sort_size=_stage(conf, "sort"),
        sort=conf.scalar("sort") is not False,
        utterance=utterance or utterance_estimate(conf),
        pipeline=pipeline or Pipeline(),
    )


def pad_factor(batch_size: int, sort_size: int, sigma: float = LENGTH_SIGMA) -> float:
    """Padded frames over real frames of a static batch of `batch_size` utterances whose lengths
    are log-normal with `sigma`: E[longest of B] / mean when unsorted; sorted by a buffer of
    `sort_size`, the mean over its consecutive chunks of B of the chunk's longest."""
    from statistics import NormalDist

    if batch_size <= 1:
        return 1.0
    normal = NormalDist()
    median = math.exp(-sigma * sigma / 2)  # a log-normal of mean 1

    def length(quantile: float) -> float:
        return median * math.exp(sigma * normal.inv_cdf(min(max(quantile, 1e-9), 1 - 1e-9)))

    if sort_size >= batch_size:
        # Each sort buffer is emitted shortest first and the batches run on across buffers, so
        # one batch in each buffer joins its longest utterances with the next one's shortest.
        # The stream of `batch_size` buffers meets every offset of that seam.
        ordered = [length((i + 0.5) / sort_size) for i in range(sort_size)]
        stream = ordered * batch_size
        padded = sum(len(chunk) * max(chunk) for chunk in (stream[i : i + batch_size] for i in range(0, len(stream), batch_size)))
        return padded / sum(stream)
    steps = 2000  # E[max of B] = integral of Q(u) d(u^B), on a grid of quantiles
    return sum(length((i + 0.5) / steps) * (((i + 1) / steps) ** batch_size - (i / steps) ** batch_size) for i in range(steps))


def _stage(conf: Any, name: str) -> int:
    """Buffer size of the shuffle or sort stage; both are on unless the YAML turns them off."""
    if conf.scalar(name) is False:
        return 0
    return int(_num(conf.scalar(f"{name}_conf.{name}_size")) or 0)


def batch_bytes(config: Any) -> BatchEstimate | None:
    """Bytes of one padded batch from dataset_conf (config is the YAML root node, or None)."""
    model = loader_model(config)
    return model.batch() if model is not None else None


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def pinned_bytes(tensors: tuple[int, ...]) -> int:
    """CUDA's caching host allocator rounds every pinned tensor up to a power of two
    (ATen/core/CachingHostAllocator.h: `c10::llvm::PowerOf2Ceil(size)`)."""
    return sum(1 << max(int(t) - 1, 0).bit_length() for t in tensors)


@dataclass
class LoaderMemory:
    """One rank's loader memory: workers' own memory and the queued batches."""

    workers: int  # bytes: train workers with their buffers, plus the idle cv workers
    queue: int  # bytes of nw x prefetch batches (pinned size when pinned)
    how: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return self.workers + self.queue


def loader_memory(
    model: LoaderModel,
    num_workers: int,
    prefetch: int,
    pin: bool,
    batch: BatchEstimate | None = None,
    worker: tuple[int, str] | None = None,
    cv: bool = True,
) -> LoaderMemory | None:
    """nw x worker + nw x prefetch x (batch (pinned size with --pin_memory) + the heap it leaves),
    plus nw idle cv workers.

    The cv loader is built with the same num_workers and persistent workers (wenet.md 3.1); between
    its passes its workers hold only their base memory."""
    batch = batch or model.batch()
    if batch is None:
        return None
    per_worker, worker_how = worker or model.worker()
    one = batch.pinned if pin and batch.pinned else batch.bytes
    queued = num_workers * prefetch
    how = [f"one batch about {batch.bytes / 1e6:.1f} MB ({batch.how})", model.utterance.how, worker_how]
    if pin and one != batch.bytes:
        how.append(f"--pin_memory: each batch pinned as {one / 1e6:.1f} MB (every tensor rounded up to a power of two)")
    how.append(f"each queued batch also leaves {WORKER_HEAP_SHARE:g} of its bytes on its worker's heap (measured)")
    workers = num_workers * (per_worker + (WORKER_BASE_BYTES if cv else 0))
    return LoaderMemory(workers, int(queued * (one + WORKER_HEAP_SHARE * batch.bytes)), how)


def memory_budget(memory_gib: float | None) -> tuple[float, str] | None:
    """Bytes one node's loaders may take: RAM x 0.5. Pinned or not, the queued batches end up in
    RAM (pinned host memory, or worker heaps and /dev/shm, which is RAM too); see queue_budget."""
    if not memory_gib:
        return None
    return memory_gib * RAM_SHARE * 1024**3, f"half of RAM {memory_gib:g} GiB"


def queue_budget(shm_gib: float | None, pin: bool) -> tuple[float, str] | None:
    """Without --pin_memory, the batches in the loader's result pipe wait in /dev/shm (at most
    SHM_BATCHES of them). Pinned, the pin thread copies them out at once: no bound."""
    if pin or not shm_gib:
        return None
    return shm_gib * 1024**3, f"/dev/shm {shm_gib:g} GiB (no --pin_memory: batches wait in shared memory)"


def queued_batches(ranks_per_node: int, num_workers: int, prefetch: int) -> int:
    """Batches a node can hold in DataLoader queues: ranks x workers x prefetch_factor."""
    return ranks_per_node * num_workers * prefetch


def shm_batches(num_workers: int, prefetch: int) -> int:
    """Batches one unpinned loader holds in /dev/shm at most: min(workers x prefetch, SHM_BATCHES)."""
    return min(num_workers * prefetch, SHM_BATCHES)


def prefetch_cap(budget: float, ranks_per_node: int, num_workers: int, batch: int, fixed: int = 0) -> int:
    """Largest prefetch with ranks x (fixed + workers x prefetch x batch_bytes) <= budget."""
    room = budget / max(ranks_per_node, 1) - fixed
    return int(room // max(max(num_workers, 1) * batch, 1)) if room > 0 else 0


@dataclass
class MemoryInputs:
    """What the memory bound of the plan needs; batch and worker are measured values when a
    profile has them (`recipelint tune --measure`), else the model's estimates."""

    model: LoaderModel
    pin: bool
    ram: tuple[float, str] | None
    shm: tuple[float, str] | None
    batch: BatchEstimate
    worker: tuple[int, str]

    def usage(self, num_workers: int, prefetch: int) -> LoaderMemory:
        memory = loader_memory(self.model, num_workers, prefetch, self.pin, self.batch, self.worker)
        assert memory is not None  # batch is given
        return memory

    def cap(self, ranks: int, num_workers: int) -> int | None:
        """Largest prefetch that fits RAM (and /dev/shm when unpinned); None without a budget."""
        caps = []
        one = self.usage(num_workers, 1)
        if self.ram is not None:
            caps.append(prefetch_cap(self.ram[0], ranks, num_workers, one.queue // max(num_workers, 1), one.workers))
        if self.shm is not None and ranks * shm_batches(num_workers, 10**9) * self.batch.bytes > self.shm[0]:
            caps.append(prefetch_cap(self.shm[0], ranks, num_workers, self.batch.bytes))
        return min(caps) if caps else None


@dataclass
class LoaderPlan:
    """One recommendation for (num_workers, prefetch) that every loader rule agrees on.

    The settings interact, so the CPU, shard and memory rules share this plan; their fixes
    are then the same edits and one pass of `fix` settles them.
    """

    num_workers: int | None
    prefetch: int | None
    limits: dict[str, int] = field(default_factory=dict)  # cpu / shards / memory caps that applied
    evidence: list[str] = field(default_factory=list)
    # The worker count the caps allow, up to upstream's 8: what a recipe with 0 workers gets, and
    # what an under-used loader can be raised to. None without the recipe's workers or ranks.
    headroom: int | None = None
    headroom_prefetch: int | None = None  # the prefetch that goes with `headroom` workers (same queue, same bounds)
    prefetch_floor: int | None = None  # the sort burst: less prefetch makes workers wait on each other

    def advised(self, workers: int | None) -> tuple[int | None, int | None]:
        """(num_workers, prefetch) as the rules advise them for a recipe now at `workers`: the caps'
        values, or, for a loader of one worker per rank that the caps would let grow (RL106's
        case), the headroom. `tune`, RL106 and the server's hover print this one pair."""
        if workers == 1 and self.headroom is not None and self.headroom > workers:
            return self.headroom, self.headroom_prefetch
        return self.num_workers, self.prefetch


def plan_loader(
    num_workers: int | None,
    prefetch: int | None,
    ranks_per_node: int | None,
    world_size: int | None,
    cpu_cap: int | None,
    shards: int | None,
    memory: MemoryInputs | None = None,
) -> LoaderPlan:
    plan = LoaderPlan(num_workers, prefetch)
    if num_workers is None or ranks_per_node is None:
        return plan
    caps: list[int] = []
    if cpu_cap is not None:
        plan.limits["cpu"] = cpu_cap
        caps.append(cpu_cap)
    if shards is not None and world_size is not None and shards >= world_size:
        plan.limits["shards"] = shard_worker_cap(shards, world_size)
        caps.append(plan.limits["shards"])
    plan.headroom = max(1, min(caps + [UPSTREAM_NUM_WORKERS]))
    workers = num_workers if num_workers >= 1 else plan.headroom
    workers = max(1, min([workers] + caps))
    plan.num_workers = workers
    if prefetch is not None:
        plan.prefetch = _bounded_prefetch(plan, prefetch, scale_prefetch(prefetch, num_workers, workers), ranks_per_node, workers, memory)
        if num_workers >= 1 and plan.headroom > num_workers:  # more producers, the same batches queued
            kept = max(1, prefetch * num_workers // plan.headroom)
            plan.headroom_prefetch = _bounded_prefetch(plan, prefetch, kept, ranks_per_node, plan.headroom, memory, record=False)
    return plan


def _bounded_prefetch(
    plan: LoaderPlan, prefetch: int, wanted: int, ranks: int, workers: int, memory: MemoryInputs | None, record: bool = True
) -> int:
    """`wanted`, raised to the sort burst (never above the recipe's own prefetch) and cut to what
    memory allows for `workers`."""
    if memory is not None:
        plan.prefetch_floor = memory.model.burst()
        wanted = max(wanted, min(prefetch, plan.prefetch_floor))
        cap = memory.cap(ranks, workers)
        if cap is not None:
            if record:
                plan.limits["memory"] = cap
            wanted = min(wanted, cap)
    return max(1, wanted)


def plateau_workers(rates: dict[int, float]) -> int | None:
    """The fewest workers within 10 % of the best measured batches/s (more add nothing)."""
    if not rates:
        return None
    best = max(rates.values())
    return min(n for n, rate in rates.items() if rate >= PLATEAU * best)


def join_timeout(engine: str, pg_timeout: int | None = None) -> int:
    """The join timeout to suggest for slow data: upstream's 1200 s, kept below the
    process-group timeout (half of it when 1200 s would not fit)."""
    limit = pg_timeout or PG_TIMEOUT.get(engine, 600)
    return UPSTREAM_SLOW_TIMEOUT if UPSTREAM_SLOW_TIMEOUT < limit else limit // 2


@dataclass(frozen=True)
class BatchTriple:
    """A batch triple DeepSpeed accepts: train_batch_size = micro x accumulation x data-parallel size."""

    micro: int
    accumulation: int
    world: int
    changed: tuple[str, ...]  # the keys of the config a fix rewrites, in KEYS order

    @property
    def total(self) -> int:
        return self.micro * self.accumulation * self.world

    def describe(self) -> str:
        return f"train_batch_size {self.total} = micro {self.micro} x accumulation {self.accumulation} x {self.world}"


# Candidates are searched over the micro batch; beyond this the search is cut (DeepSpeed configs
# in the corpus use micro batches up to 64).
MAX_MICRO_SEARCH = 4096


def nearest_batch_triples(tbs: int, mbs: int | None, gas: int | None, world: int, limit: int = 3) -> list[BatchTriple]:
    """Consistent triples nearest to the global batch `tbs` asks for, best first.

    The micro batch is what fits GPU memory, so it is kept when `tbs` holds at least one micro
    batch per rank, and only lowered (never raised) when it does not. Accumulation >= 1. Only
    keys the config gives may change: DeepSpeed derives the others, consistently once
    train_batch_size is a product. Order: |new train_batch_size - tbs|, then the fewest
    rewritten keys, then the larger micro batch."""
    if mbs is not None and tbs >= mbs * world:
        micros = [mbs]
    else:
        cap = max(1, mbs - 1) if mbs is not None else max(1, -(-tbs // (world * (gas or 1))))
        micros = list(range(1, min(cap, MAX_MICRO_SEARCH) + 1))
    found: dict[tuple[int, int], BatchTriple] = {}
    for micro in micros:
        if mbs is None and gas is None:
            accumulations = {1}  # DeepSpeed derives micro = train_batch_size // world, accumulation 1
        else:
            accumulations = {max(1, tbs // (micro * world)), max(1, -(-tbs // (micro * world)))}
            if gas is not None:
                accumulations.add(gas)
        for accumulation in accumulations:
            total = micro * accumulation * world
            changed = tuple(
                key
                for key, differs in (
                    ("train_batch_size", total != tbs),
                    ("train_micro_batch_size_per_gpu", mbs is not None and micro != mbs),
                    ("gradient_accumulation_steps", gas is not None and accumulation != gas),
                )
                if differs
            )
            found[(micro, accumulation)] = BatchTriple(micro, accumulation, world, changed)
    ranked = sorted(found.values(), key=lambda t: (abs(t.total - tbs), len(t.changed), -t.micro, t.accumulation))
    return ranked[:limit]
