"""Songs with known beats for the tests and benchmarks, synthesized deterministically (fixed seeds): clicks, drums, a tempo
ramp, a pause, a song with chords, speech-like noise; written as integer PCM WAV."""

import importlib
import wave

import numpy as np

RATE = 22050  # samples per second


def click_track(seconds=20.0, bpm=120.0, start=0.5, rate=RATE):
    """Decaying 1 kHz clicks (4 ms) on every beat from ``start`` (s): (samples ``(N,)`` in [-1, 1], beat times ``(K,)`` s)."""
    beats = np.arange(start, seconds - 0.1, 60.0 / bpm)
    out = np.zeros(int(seconds * rate))
    t = np.arange(int(0.02 * rate)) / rate
    click = 0.8 * np.sin(2 * np.pi * 1000 * t) * np.exp(-t / 0.004)
    for time in beats:
        first = int(round(time * rate))
        out[first: first + len(click)] += click[: len(out) - first]
    return out, beats


def _place(out, times, sound, gain):
    for time in times:
        start = int(round(time * RATE))
        count = min(len(sound), len(out) - start)
        if count > 0:
            out[start: start + count] += gain * sound[:count]


def _decay(seconds, tau):
    t = np.arange(int(seconds * RATE)) / RATE
    return t, np.exp(-t / tau)


def _click():
    t, envelope = _decay(0.02, 0.004)
    return np.sin(2 * np.pi * 1000 * t) * envelope


def _kick():
    t, envelope = _decay(0.25, 0.12)
    sweep = np.sin(2 * np.pi * np.cumsum(50 + 100 * np.exp(-t / 0.03)) / RATE)  # 150 -> 50 Hz
    beater = np.random.default_rng(3).standard_normal(len(t)) * np.exp(-t / 0.004)
    return sweep * envelope + 0.5 * beater


def _snare():
    t, envelope = _decay(0.18, 0.05)
    return (0.6 * np.random.default_rng(1).standard_normal(len(t)) + 0.5 * np.sin(2 * np.pi * 190 * t)) * envelope


def _hat():
    t, envelope = _decay(0.05, 0.012)
    return 0.3 * np.diff(np.random.default_rng(2).standard_normal(len(t) + 1)) * envelope


def _grid(bpm, seconds, start=0.5):
    return np.arange(start, seconds - 0.1, 60.0 / bpm)


def _drums(beats, seconds):
    """Kick on beats 1 and 3, snare on 2 and 4, hi-hats on eighths."""
    out = np.zeros(int(seconds * RATE))
    _place(out, beats[0::2], _kick(), 0.8)
    _place(out, beats[1::2], _snare(), 0.5)
    _place(out, np.concatenate([beats, (beats[:-1] + beats[1:]) / 2]), _hat(), 0.3)
    return out


def clicks(bpm=120.0, seconds=30.0):
    beats = _grid(bpm, seconds)
    out = np.zeros(int(seconds * RATE))
    _place(out, beats, _click(), 0.8)
    return out, beats


def loose_clicks(bpm=120.0, seconds=12.0, jitter=0.0, noise=0.0, seed=0):
    """Clicks on the beats, each off by a normal error of ``jitter`` s (standard deviation), over white noise of
    standard deviation ``noise`` (the clicks peak at 0.8): (samples, the beats of the steady grid)."""
    rng = np.random.default_rng(seed)
    beats = _grid(bpm, seconds)
    out = np.zeros(int(seconds * RATE))
    _place(out, np.maximum(beats + rng.normal(0.0, jitter, len(beats)), 0.0), _click(), 0.8)
    return out + noise * rng.standard_normal(len(out)), beats


def kick_snare(bpm=100.0, seconds=30.0):
    beats = _grid(bpm, seconds)
    return _drums(beats, seconds), beats


def tempo_ramp(first=110.0, last=121.0, seconds=30.0):
    """Drums whose tempo rises linearly in time by 10%: each beat's interval is that of the tempo where it starts."""
    beats = [0.5]
    while True:
        following = beats[-1] + 60.0 / (first + (last - first) * beats[-1] / seconds)
        if following > seconds - 0.1:
            break
        beats.append(following)
    beats = np.array(beats)
    return _drums(beats, seconds), beats


def with_pause(bpm=100.0, seconds=30.0):
    """Drums with two bars of silence in the middle; the beat goes on through the rest, so the known beats do too."""
    out, beats = kick_snare(bpm, seconds)
    out[int((beats[12] - 0.05) * RATE): int((beats[20] - 0.05) * RATE)] = 0.0
    return out, beats


def song(bpm=128.0, seconds=30.0):
    """Four-on-the-floor drums with off-beat hats and a chord each bar (a four-chord loop, decaying)."""
    beats = _grid(bpm, seconds)
    out = np.zeros(int(seconds * RATE))
    _place(out, beats, _kick(), 0.7)
    _place(out, beats[1::2], _snare(), 0.35)
    _place(out, beats + 30.0 / bpm, _hat(), 0.3)
    for bar, start in enumerate(beats[::4]):
        t = np.arange(int(4 * 60.0 / bpm * RATE)) / RATE
        root = (220.0, 174.61, 261.63, 196.0)[bar % 4]
        tone = sum(np.sin(2 * np.pi * root * ratio * harmonic * t) / harmonic for ratio in (1, 1.26, 1.5) for harmonic in (1, 2, 3))
        _place(out, [start], 0.05 * np.minimum(1, t / 0.01) * np.exp(-t / 1.2) * tone, 1.0)
    return out, beats


def soft_chords(bpm=84.0, seconds=12.0, attack=0.03, seed=0):
    """A new chord on every beat, swelling in over ``attack`` s and dying away, over a quiet hiss that never stops:
    music with a soft beat (periodicity 0.35-0.40), without the gaps of speech."""
    beats = _grid(bpm, seconds, 0.4)
    out = 0.02 * np.convolve(np.random.default_rng(seed).standard_normal(int(seconds * RATE)), np.ones(8) / 8, mode="same")
    t = np.arange(int(60.0 / bpm * RATE)) / RATE
    for k, start in enumerate(beats):
        root = (196.0, 220.0, 246.9, 174.6)[k % 4]
        tone = sum(np.sin(2 * np.pi * root * ratio * t) / ratio for ratio in (1, 1.5, 2, 3))
        _place(out, [start], 0.15 * np.minimum(1, t / attack) * np.exp(-t / 0.6) * tone, 1.0)
    return out, beats


def clicks_between(bpm=120.0, seconds=10.0, after=0.5, gain=0.4, tail=0.8):
    """Clicks on the beats and quieter ones (``gain`` of theirs) ``after`` a beat's fraction later, the audio ending
    ``tail`` of a beat after the last beat."""
    period = 60.0 / bpm
    beats = _grid(bpm, seconds)
    out = np.zeros(int((beats[-1] + tail * period) * RATE))
    _place(out, beats, _click(), 0.8)
    _place(out, beats + after * period, _click(), 0.8 * gain)
    return out, beats


def syncopated(bpm=130.0, seconds=12.0, bass=0.5):
    """A bass drum (``bass``) on the beats, a louder drum (0.9) a sixteenth after each and hats on the off-beat
    sixteenths: the loudest stroke is not the beat's (a candombe's or a samba's pulse)."""
    beats = _grid(bpm, seconds)
    period = 60.0 / bpm
    out = np.zeros(int(seconds * RATE))
    _place(out, beats, _kick(), bass)
    _place(out, beats + period / 4, _snare(), 0.9)
    _place(out, np.concatenate([beats + period / 2, beats + 3 * period / 4]), _hat(), 0.3)
    return out, beats


def breakbeat(bpm=135.0, seconds=20.0, seed=3):
    """A sparse breakbeat: each bar a kick on 1 and one to three more on off-beat sixteenths, the snare on 2 and 4 with up
    to two ghost strokes, hats on six in ten eighths; silence between the strokes (a drum-and-bass break's gaps) and a
    weak beat (periodicity 0.31-0.59 over seeds 0-29), but the same kind of bar over and over (0.49-0.66 over a bar)."""
    rng = np.random.default_rng(seed)
    beats = _grid(bpm, seconds)
    sixteenth = 15.0 / bpm
    kicks, snares, hats = [], [], []
    for bar in beats[::4]:
        kicks += [bar] + [bar + step * sixteenth for step in rng.choice([2, 3, 6, 7, 10, 11, 14], rng.integers(1, 4), replace=False)]
        snares += [bar + step * sixteenth for step in [4, 12, *rng.choice([5, 9, 13, 15], rng.integers(0, 3), replace=False)]]
        hats += [bar + step * 2 * sixteenth for step in range(8) if rng.random() < 0.6]
    out = np.zeros(int(seconds * RATE))
    _place(out, [time for time in kicks if time < seconds - 0.3], _kick(), 0.8)
    _place(out, [time for time in snares if time < seconds - 0.3], _snare(), 0.6)
    _place(out, hats, _hat(), 0.3)
    return out, beats


def speech_like(seconds=20.0, seed=5):
    """Amplitude-modulated noise and voiced buzz in syllables of irregular lengths and gaps, phrases apart."""
    rng = np.random.default_rng(seed)
    out = np.zeros(int(seconds * RATE))
    noise = np.convolve(rng.standard_normal(len(out)), np.ones(4) / 4, mode="same")
    time = 0.3
    while time < seconds - 0.5:
        for _ in range(rng.integers(2, 9)):
            length = rng.uniform(0.08, 0.3)
            start, count = int(time * RATE), int(length * RATE)
            shape = np.sin(np.pi * np.arange(count) / count) ** 2 * rng.uniform(0.3, 1.0)
            voice = np.sin(2 * np.pi * rng.uniform(100, 220) * np.arange(count) / RATE)
            out[start: start + count] += 0.5 * shape * (0.5 * noise[start: start + count] + voice)
            time += length + rng.uniform(0.02, 0.25)
            if time > seconds - 0.5:
                break
        time += rng.uniform(0.3, 1.2)
    return out


def write_wav(path, samples, rate=RATE, width=2, channels=1):
    """``samples`` (n,) in [-1, 1] as integer PCM of ``width`` bytes, the same signal in every channel."""
    scaled = np.clip(samples, -1, 1 - 2.0 ** (1 - 8 * width))
    if width == 1:
        data = np.round(scaled * 128 + 128).astype(np.uint8).tobytes()
    elif width == 3:
        values = np.round(scaled * 2 ** 23).astype("<i4")
        data = values.view(np.uint8).reshape(-1, 4)[:, :3].tobytes()
    else:
        data = np.round(scaled * 2.0 ** (8 * width - 1)).astype({2: "<i2", 4: "<i4"}[width]).tobytes()
    if channels > 1:
        frame = np.frombuffer(data, np.uint8).reshape(-1, width)
        data = np.repeat(frame, channels, axis=0).tobytes()
    with wave.open(str(path), "wb") as out:
        out.setnchannels(channels)
        out.setsampwidth(width)
        out.setframerate(rate)
        out.writeframes(data)
    return path


TRACKS = {"clicks at 120 BPM": clicks, "kick and snare at 100 BPM": kick_snare, "tempo ramp 110-121 BPM": tempo_ramp,
          "two bars of silence": with_pause}


def blender_audio_missing():
    """Why Blender's audio library cannot be used here (the bpy 4.2 wheel is built without it, unlike Blender 4.2 itself),
    or None when it can: songs other than WAV and sound strips in the sequencer need it."""
    try:
        importlib.import_module("bpy")  # the bpy module provides aud where Blender was built with audaspace
        importlib.import_module("aud")
    except ImportError:
        return "this bpy is built without Blender's audio library (aud): no sound strips, no OGG/MP3 songs"
    return None
