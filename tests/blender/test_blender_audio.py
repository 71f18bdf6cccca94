"""Songs read by Blender's audio library (``aud``) in ``bridge.audio``: the samples the standard library's WAV reader
gives for a WAV, the same samples whole and in blocks, every format aud writes read back, one line for bad files.

The test sounds are made here (deterministic), written with the stdlib ``wave`` module or with aud itself.
"""

import os
import wave

import numpy as np
import pytest

from helpers import extension_module

bpy = pytest.importorskip("bpy")
RATE = 44100


@pytest.fixture
def audio(loopsmith):
    return extension_module(loopsmith, "bridge.audio")


@pytest.fixture
def has_aud(audio):
    if audio.aud is None:
        pytest.skip(f"bpy {bpy.app.version_string} is built without its audio library (aud)")
    return audio.aud


def _stereo(seconds=3.0):
    """A chord on the left, a lower one on the right and decaying clicks on both: (frames, 2) float32 in [-0.9, 0.9]."""
    t = np.arange(int(seconds * RATE)) / RATE
    clicks = np.exp(-(t % 0.5) / 0.01) * np.sin(2 * np.pi * 1000 * t)
    left = 0.3 * np.sin(2 * np.pi * 440 * t) + 0.2 * np.sin(2 * np.pi * 554.4 * t) + 0.3 * clicks
    right = 0.4 * np.sin(2 * np.pi * 220 * t) + 0.3 * clicks
    return np.stack([left, right], axis=1).astype(np.float32)


def _write_wav(path, samples, width=2):
    scale = float(2 ** (8 * width - 1) - 1)
    dtype = {2: "<i2", 4: "<i4"}[width]
    with wave.open(str(path), "wb") as out:
        out.setnchannels(samples.shape[1])
        out.setsampwidth(width)
        out.setframerate(RATE)
        out.writeframes(np.round(samples * scale).astype(dtype).tobytes())
    return path


@pytest.mark.parametrize("width", [2, 4])
def test_a_wav_reads_as_the_standard_library_reads_it(audio, loopsmith, tmp_path, width):
    path = _write_wav(tmp_path / "song.wav", _stereo(), width)
    samples, rate = audio.read_audio(path)
    expected, expected_rate = extension_module(loopsmith, "core.music.audio").read_wav(path)
    assert rate == expected_rate == RATE and samples.dtype == np.float32 and samples.shape == expected.shape
    assert np.abs(samples - expected).max() < 1e-4


def _aud_written(aud, path, samples, container, codec, sample_format):
    sound = aud.Sound.buffer(samples, RATE)
    sound.write(str(path), RATE, samples.shape[1], sample_format, container, codec, 192000)
    return path


def _formats(aud):
    return {"flac": (aud.CONTAINER_FLAC, aud.CODEC_FLAC, aud.FORMAT_S16), "ogg": (aud.CONTAINER_OGG, aud.CODEC_VORBIS, aud.FORMAT_FLOAT32),
            "mp3": (aud.CONTAINER_MP3, aud.CODEC_MP3, aud.FORMAT_FLOAT32)}


@pytest.mark.parametrize("kind", ["flac", "ogg", "mp3"])
def test_every_format_aud_writes_reads_back_mono_and_whole_or_in_blocks(audio, has_aud, tmp_path, monkeypatch, kind):
    stereo = _stereo()
    path = _aud_written(has_aud, tmp_path / f"song.{kind}", stereo, *_formats(has_aud)[kind])
    samples, rate = audio.read_audio(path)
    assert rate == RATE and samples.ndim == 1 and samples.dtype == np.float32
    assert abs(len(samples) - len(stereo)) <= 1200  # an MP3 frame of padding at most
    mean = stereo.mean(axis=1)
    if kind == "flac":  # lossless: the mean of the channels to 16 bits
        assert len(samples) == len(stereo) and np.abs(samples - mean).max() < 1e-4
    else:  # lossy: the same loudness (RMS within 10%)
        assert abs(np.sqrt(np.mean(samples ** 2)) / np.sqrt(np.mean(mean ** 2)) - 1) < 0.1
    monkeypatch.setattr(audio, "WHOLE_BYTES", 1000)  # every song "long": decoded to a temporary WAV and read in blocks
    seen = []
    blocks = list(audio.open_audio(path).blocks(block_seconds=0.5, progress=seen.append))
    in_blocks = np.concatenate(blocks)
    common = min(len(in_blocks), len(samples))
    assert len(blocks) >= 6 and np.abs(in_blocks[:common] - samples[:common]).max() < 1e-6
    assert abs(len(in_blocks) - len(samples)) <= 1200 and seen == sorted(seen) and seen[-1] == 1.0


def test_a_wav_in_blocks_is_the_wav_whole(audio, has_aud, tmp_path, monkeypatch):
    path = _write_wav(tmp_path / "song.wav", _stereo())
    whole, _ = audio.read_audio(path)
    monkeypatch.setattr(audio, "WHOLE_BYTES", 1000)
    blocks, _ = audio.read_audio(path)
    assert np.array_equal(whole, blocks) or np.abs(whole - blocks).max() < 1e-6


def test_without_aud_a_wav_is_read_by_the_standard_library_and_other_formats_are_refused(audio, loopsmith, tmp_path, monkeypatch):
    monkeypatch.setattr(audio, "aud", None)
    path = _write_wav(tmp_path / "song.wav", _stereo())
    samples, rate = audio.read_audio(path)
    expected, _ = extension_module(loopsmith, "core.music.audio").read_wav(path)
    assert rate == RATE and np.array_equal(samples, expected)
    (tmp_path / "song.ogg").write_bytes(b"OggS" + bytes(200))
    with pytest.raises(audio.AudioError, match="only WAV files can be read"):
        audio.read_audio(tmp_path / "song.ogg")


def _bad_files(folder):
    """Files no decoder reads, each named as audio: {name: the reason expected}."""
    (folder / "noise.ogg").write_bytes(np.random.default_rng(4).integers(0, 256, 20000, dtype=np.uint8).tobytes())
    (folder / "text.mp3").write_text("not a song at all\n" * 200)  # aud opens it with no channels: data() would kill the process
    (folder / "empty.wav").write_bytes(b"")
    os.mkfifo(folder / "pipe.wav")
    return {"noise.ogg": "not audio Blender can decode", "text.mp3": "not audio Blender can decode", "empty.wav": "an empty file",
            "pipe.wav": "a named pipe (FIFO), not a song file", "missing.flac": "no such file"}


def test_a_bad_file_is_one_line_naming_it(audio, has_aud, tmp_path):
    for name, reason in _bad_files(tmp_path).items():
        with pytest.raises(audio.AudioError) as refused:
            audio.read_audio(tmp_path / name)
        message = str(refused.value)
        assert "\n" not in message and name in message and reason in message, message
