"""Known issues of WeNet's training code (github.com/wenet-e2e/wenet), from its history.

Ranges were found with `git log -S` / `git log -- path` on the full history; each pattern was
checked against the code at every release tag and at the commits that introduced and fixed it.
"""

from __future__ import annotations

from recipelint.knownissues import Change, KnownIssue

PR = "https://github.com/wenet-e2e/wenet/pull/"
ISSUE = "https://github.com/wenet-e2e/wenet/issues/"

ISSUES: tuple[KnownIssue, ...] = (
    KnownIssue(
        id="wenet-step-save-default",
        toolkit="wenet",
        title=(
            "save_interval defaults to 10000 in the executor: every 10000 steps each rank runs CV "
            "(a fresh iterator over the multi-process CV DataLoader) and saves a checkpoint inside the training loop, "
            "whether or not the YAML asks for step saving"
        ),
        symptom=(
            "8 x 2080 Ti, AISHELL plus some own data: training hangs in stage 4, every rank stuck at "
            "`for batch_idx, batch_dict in enumerate(train_data_loader)` next to `wenet_join` (#2294)"
        ),
        reports=(f"{ISSUE}2294",),
        introduced=Change("56c0e8e2120bc011a540d67644c6a932576e013c", "2023-12-19", "#2248", f"{PR}2248", "v3.0.0"),
        fixed=Change("8ab5354a934db3ee7ee93489045a27789dc4c92f", "2024-01-09", "#2286", f"{PR}2286", "v3.0.0"),
        advice="update WeNet to a commit with #2286 (any release from v3.0.0); step saving then happens only when the YAML sets save_interval",
        pattern="step_save_by_default",
        pattern_text="info_dict.get('save_interval', <number>) in wenet/utils/executor.py",
        trigger="several_ranks_epoch_mode",
    ),
    KnownIssue(
        id="wenet-tar-member-decoded-in-place",
        toolkit="wenet",
        title=(
            "a tar member's file object goes straight to the audio decoder (torchaudio.load(file_obj)) "
            "instead of its bytes through io.BytesIO"
        ),
        symptom=(
            "multi-dataset training on 8 GPUs with bz2-compressed shards hangs, one GPU at 0 % and the others at 100 % (#2338); "
            "with torchaudio 2.x a stream-mode member fails with \"'_Stream' object has no attribute 'seekable'\" (#2301)"
        ),
        reports=(f"{ISSUE}2338",),
        introduced=Change(
            "3edb6e1ac5a886ea0cf60a0bf1682cb0fb2220c0",
            "2021-09-14",
            "shard dataset (3edb6e1a)",
            "https://github.com/wenet-e2e/wenet/commit/3edb6e1a",
            "v2.0.0",
        ),
        fixed=Change("4c81459f9bf12bc0d9b2c2381b3d003c764bdb1a", "2024-01-31", "#2316", f"{PR}2316", "v3.0.1"),
        advice="read the member and decode from memory, as WeNet's new IO does: torchaudio.load(io.BytesIO(file_obj.read()))",
        pattern="tar_member_to_decoder",
        pattern_text="torchaudio.load/info or soundfile.read called on a name bound to tarfile.extractfile() in wenet/dataset/*.py",
        trigger="compressed_shards",
    ),
    KnownIssue(
        id="wenet-decode-wav-branch",
        toolkit="wenet",
        title=(
            "decode_wav stores sample['wav'] and sample['sample_rate'] inside one branch of its if/else: "
            "a data.list line with start/end keeps its raw bytes and gets no sample rate"
        ),
        symptom="segmented utterances (start/end in the data.list) stop the DataLoader worker at `assert 'sample_rate' in sample` in processor.filter",
        reports=(f"{ISSUE}2338",),
        introduced=Change("4c81459f9bf12bc0d9b2c2381b3d003c764bdb1a", "2024-01-31", "#2316", f"{PR}2316", "v3.0.1"),
        fixed=Change("331c41408ecba0ddaae9bc6c403ca40249faa9f0", "2024-02-05", "#2340", f"{PR}2340", "v3.0.1"),
        advice="assign sample['wav'] and sample['sample_rate'] after the if/else (as #2340 does)",
        pattern="decode_wav_branch_assignment",
        pattern_text="sample['wav'] / sample['sample_rate'] assigned in only one branch of decode_wav in wenet/dataset/processor.py",
    ),
    KnownIssue(
        id="wenet-http-shards-seek-mode",
        toolkit="wenet",
        title="shards are opened with tarfile mode 'r:*', which seeks, and a remote shard arrives on a wget pipe that cannot seek",
        symptom='"In tar_file_and_group: [Errno 29] Illegal seek when processing <url>": HTTP shards yield no samples (#2765)',
        reports=(f"{ISSUE}2765",),
        introduced=Change("f71e80bcbddea8d5407acf65e22f2f960cf8774b", "2024-01-18", "#2301", f"{PR}2301", "v3.0.0"),
        fixed=None,
        advice="copy the shards to local or network storage and list those paths, or apply PR #2509 (stream mode 'r|*'): " + f"{PR}2509",
        pattern="tar_opened_seekable",
        pattern_text="tarfile.open(fileobj=..., mode='r:*') in wenet/dataset/*.py",
        trigger="http_shards",
        rule="RL203",
    ),
    KnownIssue(
        id="wenet-recipe-prefetch-500",
        toolkit="wenet",
        title="{recipe} sets prefetch=500: each DataLoader worker queues up to 500 padded batches",
        symptom="stage 4 freezes the machine (out of host memory) until it comes back hours later; solved by prefetch 500 -> 20 (#2438)",
        reports=(f"{ISSUE}2438",),
        introduced=Change("2505d18e24dec878807e8453b5af52ff078b702e", "2023-05-27", "#1849", f"{PR}1849", "v3.0.0"),
        fixed=Change("6aae6efb74571b2d185899fbc72987e1a495c857", "2024-04-16", "#2486", f"{PR}2486", "v3.1.0"),
        advice='pass --prefetch 10, the upstream recipes\' value since #2486 ("Large prefetch may cause OOM issue")',
        trigger="prefetch_500",
        recipes=("examples/aishell/s0", "examples/aishell/whisper", "examples/wenetspeech/s0", "examples/wenetspeech/whisper"),
    ),
)
