"""WAV audio read with the standard library's ``wave`` module: mono float32 samples in [-1, 1] and the sample rate.

8-, 16-, 24- and 32-bit integer PCM; the channels are averaged to mono. :func:`wav_blocks` reads a file in blocks so
that an hour of audio never sits in memory at once; :func:`read_wav` reads it whole.
"""

import os
import wave
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from ..errors import AudioError

BLOCK_SECONDS = 10.0  # seconds of audio per block read by wav_blocks


@dataclass(frozen=True)
class WavInfo:
    """What a WAV file's header says: the sample ``rate`` (Hz), ``channels``, ``sample_width`` (bytes) and ``frames``
    (samples per channel)."""

    path: str
    rate: int
    channels: int
    sample_width: int
    frames: int

    @property
    def seconds(self) -> float:
        return self.frames / self.rate


def _open(path) -> wave.Wave_read:
    try:
        reader = wave.open(os.fspath(path), "rb")
    except FileNotFoundError:
        raise AudioError(path, "no such file") from None
    except IsADirectoryError:
        raise AudioError(path, "a folder, not an audio file") from None
    except (wave.Error, EOFError, ValueError) as error:
        raise AudioError(path, f"not a WAV file this reader supports ({str(error) or 'a truncated header'})") from None
    except OSError as error:
        raise AudioError(path, error.strerror or str(error)) from None
    if reader.getsampwidth() not in (1, 2, 3, 4) or reader.getnchannels() < 1 or reader.getframerate() <= 0:
        reader.close()
        raise AudioError(path, f"unsupported PCM: {reader.getsampwidth() * 8}-bit, {reader.getnchannels()} channels, "
                               f"{reader.getframerate()} Hz")
    return reader


def wav_info(path) -> WavInfo:
    """The header of the WAV file at ``path``; :class:`AudioError` when it cannot be read."""
    reader = _open(path)
    with reader:
        return WavInfo(os.fspath(path), reader.getframerate(), reader.getnchannels(), reader.getsampwidth(),
                       reader.getnframes())


def pcm_to_float(data: bytes, sample_width: int, channels: int) -> np.ndarray:
    """Little-endian integer PCM bytes -> mono float32 samples in [-1, 1], shape (frames,).

    8-bit WAV is unsigned (offset 128), wider samples are signed; a trailing partial frame is dropped.
    """
    frame_bytes = sample_width * channels
    data = data[: len(data) - len(data) % frame_bytes]
    if sample_width == 1:
        values = (np.frombuffer(data, np.uint8).astype(np.float32) - 128.0) / 128.0
    elif sample_width == 3:
        raw = np.frombuffer(data, np.uint8).reshape(-1, 3).astype(np.int32)
        packed = raw[:, 0] | (raw[:, 1] << 8) | (raw[:, 2] << 16)
        values = ((packed << 8) >> 8).astype(np.float32) / float(1 << 23)  # shifts sign-extend 24 to 32 bits
    else:
        dtype = {2: "<i2", 4: "<i4"}[sample_width]
        values = np.frombuffer(data, dtype).astype(np.float32) / float(1 << (8 * sample_width - 1))
    if channels > 1:
        values = values.reshape(-1, channels).mean(axis=1, dtype=np.float32)
    return values


def wav_blocks(path, block_seconds: float = BLOCK_SECONDS) -> Iterator[np.ndarray]:
    """Mono float32 blocks of ``block_seconds`` (the last one shorter) of the WAV file at ``path``, in order.

    Memory stays that of one block whatever the file's length. Raises :class:`AudioError` when the file cannot be
    opened or read; a file whose data ends before its header says simply ends early.
    """
    reader = _open(path)
    with reader:
        width, channels = reader.getsampwidth(), reader.getnchannels()
        frames = max(1, int(block_seconds * reader.getframerate()))
        while True:
            try:
                data = reader.readframes(frames)
            except (wave.Error, EOFError, ValueError, OSError) as error:
                raise AudioError(path, f"unreadable audio data ({error or 'truncated'})") from None
            if len(data) < width * channels:
                return
            yield pcm_to_float(data, width, channels)


def read_wav(path) -> tuple[np.ndarray, int]:
    """The whole WAV file at ``path``: mono float32 samples in [-1, 1], shape (frames,), and the sample rate (Hz).

    Raises :class:`AudioError` when the file cannot be read or holds no samples.
    """
    rate = wav_info(path).rate
    blocks = list(wav_blocks(path))
    if not blocks:
        raise AudioError(path, "no audio samples")
    return np.concatenate(blocks), rate
