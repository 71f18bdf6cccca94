"""Songs with known beats for the tests: click tracks synthesized here, written as 16-bit WAV."""

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


def write_wav(path, samples, rate=RATE):
    """``samples`` ``(N,)`` in [-1, 1] as a mono 16-bit WAV at ``path``; returns the path."""
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(np.round(np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes())
    return path


def blender_audio_missing():
    """Why Blender's audio library cannot be used here (the bpy 4.2 wheel is built without it, unlike Blender 4.2 itself),
    or None when it can: songs other than WAV and sound strips in the sequencer need it."""
    try:
        importlib.import_module("bpy")  # the bpy module provides aud where Blender was built with audaspace
        importlib.import_module("aud")
    except ImportError:
        return "this bpy is built without Blender's audio library (aud): no sound strips, no OGG/MP3 songs"
    return None
