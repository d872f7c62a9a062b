"""Generate a WeNet shard dataset: 16 kHz 16-bit mono WAV + transcript per utterance, packed into
uncompressed tars as tools/make_shard_list.py writes them (key.txt, key.wav), a data.list, and a
char dictionary. `--raw` writes the wav and text files themselves and a raw data.list of JSON
lines (`{"key", "wav", "txt"}`), as WeNet's tools/make_raw_list.py does, repeated to `--lines`.

Durations follow a log-normal distribution (median 4.2 s, mean about 5 s, 0.5-20 s), close to
AISHELL-1's 4.5 s mean; text is about 3 characters a second. The audio is noise with a few
tones: its content does not change the pipeline's work or memory.
"""

from __future__ import annotations

import argparse
import io
import json
import tarfile
import wave
from pathlib import Path

import numpy as np

RATE = 16000
CHARS = [chr(0x4E00 + i) for i in range(600)]


def wav_bytes(samples: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as handle:
        handle.setnchannels(1)
        handle.setsampwidth(2)
        handle.setframerate(RATE)
        handle.writeframes(samples.astype("<i2").tobytes())
    return buffer.getvalue()


def utterance(rng: np.random.Generator, seconds: float) -> tuple[bytes, str]:
    n = int(seconds * RATE)
    t = np.arange(n) / RATE
    signal = 0.05 * rng.standard_normal(n) + 0.1 * np.sin(2 * np.pi * rng.uniform(100, 400) * t)
    text = "".join(rng.choice(CHARS, size=max(1, int(seconds * 3))))
    return wav_bytes(np.clip(signal * 32767, -32768, 32767)), text


def add(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


def generate(
    out: Path, shards: int, per_shard: int, lines: int, seed: int, mean_scale: float, max_seconds: float, raw: bool
) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    out.mkdir(parents=True, exist_ok=True)
    durations = []
    entries = []
    for s in range(shards):
        path = out / f"shards_{s:09d}.tar"
        tar = None if raw else tarfile.open(path, "w")
        for u in range(per_shard):
            seconds = float(np.clip(rng.lognormal(np.log(4.2 * mean_scale), 0.6), 0.5, max_seconds))
            durations.append(seconds)
            audio, text = utterance(rng, seconds)
            key = f"utt{s:05d}_{u:04d}"
            if tar is None:
                wav = out / "wav" / f"{key}.wav"
                wav.parent.mkdir(exist_ok=True)
                wav.write_bytes(audio)
                entries.append(json.dumps({"key": key, "wav": str(wav.resolve()), "txt": text}, ensure_ascii=False))
            else:
                add(tar, key + ".txt", text.encode("utf8"))
                add(tar, key + ".wav", audio)
        if tar is not None:
            tar.close()
            entries.append(str(path.resolve()))
    (out / "data.list").write_text("".join(entries[i % len(entries)] + "\n" for i in range(lines)), encoding="utf8")
    symbols = ["<blank> 0", "<unk> 1", "<sos/eos> 2"] + [f"{c} {i + 3}" for i, c in enumerate(CHARS)]
    (out / "lang_char.txt").write_text("\n".join(symbols) + "\n", encoding="utf8")
    stats = {
        "utterances": len(durations),
        "mean_seconds": float(np.mean(durations)),
        "hours": float(np.sum(durations) / 3600),
        "durations": [round(d, 3) for d in durations],
    }
    (out / "stats.json").write_text(json.dumps(stats, indent=2), encoding="utf8")
    return stats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path)
    parser.add_argument("--shards", type=int, default=40)
    parser.add_argument("--per-shard", type=int, default=100)
    parser.add_argument("--lines", type=int, default=400, help="data.list lines (the shards repeated)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--mean-scale", type=float, default=1.0, help="scale every duration (tests use short ones)")
    parser.add_argument("--max-seconds", type=float, default=20.0, help="the longest utterance (durations are clipped)")
    parser.add_argument("--raw", action="store_true", help="wav files and a raw data.list of JSON lines, not tar shards")
    args = parser.parse_args()
    stats = generate(args.out, args.shards, args.per_shard, args.lines, args.seed, args.mean_scale, args.max_seconds, args.raw)
    print(json.dumps({k: v for k, v in stats.items() if k != "durations"}))


if __name__ == "__main__":
    main()
