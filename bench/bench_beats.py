"""Beat tracking time on a synthesized 4-minute song (44.1 kHz) beside librosa's ``beat_track`` on the same samples,
the peak memory of an hour of audio tracked block by block, and the time to read the song from an OGG and a WAV file
through Blender's audio library (``bridge.audio.read_audio``, when bpy is importable).

Each variant runs in its own process so its peak memory can be read. Run: ``python bench/bench_beats.py`` (numpy
only; the librosa column needs librosa, a test-only dependency of the core venv, and says so when it is missing).
"""

import importlib
import pathlib
import sys
import tempfile
import time
import wave

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import common  # noqa: E402
from core.music import f_measure, track_beats  # noqa: E402

RATE = 44100
BPM = 128.0
SONG_SECONDS = 240.0
HOUR_SECONDS = 3600.0
TARGET = 2.0  # seconds for the 4-minute song


def _bar(rate=RATE, bpm=BPM):
    """One bar of four-on-the-floor drums with off-beat hats and a decaying chord, shape (samples,)."""
    rng = np.random.default_rng(0)
    beat = int(round(60.0 / bpm * rate))
    bar = np.zeros(4 * beat)
    t = np.arange(int(0.25 * rate)) / rate
    kick = np.sin(2 * np.pi * np.cumsum(50 + 100 * np.exp(-t / 0.03)) / rate) * np.exp(-t / 0.12)
    kick += 0.5 * rng.standard_normal(len(t)) * np.exp(-t / 0.004)
    hat = 0.3 * np.diff(rng.standard_normal(len(t) + 1)) * np.exp(-t / 0.012)
    snare = (0.6 * rng.standard_normal(len(t)) + 0.5 * np.sin(2 * np.pi * 190 * t)) * np.exp(-t / 0.05)
    for k in range(4):
        bar[k * beat: k * beat + len(t)] += 0.7 * kick + (0.35 * snare if k % 2 else 0)
        bar[k * beat + beat // 2: k * beat + beat // 2 + len(t)] += hat[: len(bar) - k * beat - beat // 2]
    s = np.arange(len(bar)) / rate
    bar += 0.05 * np.exp(-s / 1.2) * sum(np.sin(2 * np.pi * 220 * r * s) for r in (1, 1.26, 1.5))
    return (0.5 * bar).astype(np.float32), beat


def song_blocks(seconds, block_seconds=10.0, rate=RATE):
    """The song, ``seconds`` long, as float32 blocks of ``block_seconds``: built on the fly, never whole."""
    bar, _ = _bar(rate)
    total, size = int(seconds * rate), int(block_seconds * rate)
    for start in range(0, total, size):
        yield bar[(start + np.arange(min(size, total - start))) % len(bar)]


def song(seconds=SONG_SECONDS, rate=RATE):
    _, beat = _bar(rate)
    return np.concatenate(list(song_blocks(seconds, rate=rate))), np.arange(0, seconds, beat / rate)


def variant_mine():
    samples, truth = song()
    seconds, extra = common.measure(lambda: track_beats(samples, RATE))
    beats = track_beats(samples, RATE)
    return {"seconds": seconds, "extra_mb": extra, "bpm": beats.tempo_bpm, "f": f_measure(beats.times, truth),
            "times": beats.times.tolist()}


def variant_librosa():
    try:
        import librosa
    except ImportError:
        return {"missing": "librosa is not installed (tools/venv.sh puts it in the core venv)"}
    samples, truth = song()
    librosa.beat.beat_track(y=samples[: 10 * RATE], sr=RATE)  # compile its numba kernels outside the timing
    seconds, extra = common.measure(lambda: librosa.beat.beat_track(y=samples, sr=RATE))
    bpm, times = librosa.beat.beat_track(y=samples, sr=RATE, units="time")
    return {"seconds": seconds, "extra_mb": extra, "bpm": float(np.atleast_1d(bpm)[0]), "f": f_measure(times, truth),
            "times": times.tolist()}


def variant_hour():
    common.reset_peak()
    before, _ = common.rss_mb()
    start = time.perf_counter()
    beats = track_beats(song_blocks(HOUR_SECONDS), RATE)
    seconds = time.perf_counter() - start
    _, peak = common.rss_mb()
    audio_mb = HOUR_SECONDS * RATE * 4 / 2 ** 20
    return {"seconds": seconds, "extra_mb": peak - before, "audio_mb": audio_mb, "beats": len(beats.times),
            "bpm": beats.tempo_bpm}


def _song_files(folder, aud):
    """The 4-minute song in stereo (the right channel at half the left) as an OGG written by aud and a 16-bit WAV."""
    samples, _ = song()
    stereo = np.stack([samples, 0.5 * samples], axis=1).astype(np.float32)
    ogg = folder / "song.ogg"
    aud.Sound.buffer(stereo, RATE).write(str(ogg), RATE, 2, aud.FORMAT_FLOAT32, aud.CONTAINER_OGG, aud.CODEC_VORBIS, 160000)
    wav = folder / "song.wav"
    with wave.open(str(wav), "wb") as out:
        out.setnchannels(2)
        out.setsampwidth(2)
        out.setframerate(RATE)
        out.writeframes(np.round(np.clip(stereo, -1, 1) * 32767).astype("<i2").tobytes())
    return {"ogg": ogg, "wav": wav}


def variant_read():
    try:
        audio = importlib.import_module("loopsmith.bridge.audio")
    except ImportError as error:
        return {"missing": f"bpy or the venv's loopsmith link is missing ({error})"}
    if audio.aud is None:
        return {"missing": "this bpy is built without Blender's audio library (aud)"}
    found = {}
    with tempfile.TemporaryDirectory(prefix="loopsmith-bench-audio-") as folder:
        for kind, path in _song_files(pathlib.Path(folder), audio.aud).items():
            seconds, extra = common.measure(lambda: audio.read_audio(path))
            start = time.perf_counter()
            song_file = audio.open_audio(path)
            beats = track_beats(song_file.blocks(), song_file.rate)
            found[kind] = {"seconds": seconds, "extra_mb": extra, "mb": path.stat().st_size / 2 ** 20,
                           "with_beats": time.perf_counter() - start, "bpm": beats.tempo_bpm}
    return found


VARIANTS = {"mine": variant_mine, "librosa": variant_librosa, "hour": variant_hour, "read": variant_read}


def main():
    arguments = common.size_arguments(__doc__)
    if arguments.variant:
        common.finish(VARIANTS[arguments.variant]())
    script = str(pathlib.Path(__file__).resolve())
    mine, theirs, hour, read = (common.run_variant(script, name) for name in ("mine", "librosa", "hour", "read"))
    print(f"beat tracking: a synthesized {SONG_SECONDS / 60:.0f}-minute song at {BPM:g} BPM, {RATE} Hz, best of 3")
    print(f"  loopsmith: {mine['seconds']:.2f} s (target <= {TARGET:g} s), {mine['bpm']:.1f} BPM, "
          f"F {mine['f']:.3f} against the known beats, +{mine['extra_mb']:.0f} MB")
    if "missing" in theirs:
        print(f"  librosa:   {theirs['missing']}")
    else:
        print(f"  librosa:   {theirs['seconds']:.2f} s, {theirs['bpm']:.1f} BPM, F {theirs['f']:.3f} against the known beats, "
              f"+{theirs['extra_mb']:.0f} MB")
        print(f"  ratio:     loopsmith / librosa = {mine['seconds'] / theirs['seconds']:.2f}; "
              f"F of loopsmith against librosa's beats {f_measure(np.array(mine['times']), np.array(theirs['times'])):.3f}")
    if "missing" in read:
        print(f"  reading:   {read['missing']}")
    for kind, found in ({} if "missing" in read else read).items():
        print(f"  reading the song from {kind.upper()} ({found['mb']:.1f} MB) through bridge.audio.read_audio: {found['seconds']:.2f} s, "
              f"+{found['extra_mb']:.0f} MB; read in blocks and tracked: {found['with_beats']:.2f} s ({found['bpm']:.1f} BPM)")
    print(f"one hour in 10 s blocks: {hour['seconds']:.1f} s, peak +{hour['extra_mb']:.0f} MB "
          f"(the audio itself would be {hour['audio_mb']:.0f} MB as float32), {hour['beats']} beats at {hour['bpm']:.1f} BPM")


if __name__ == "__main__":
    main()
