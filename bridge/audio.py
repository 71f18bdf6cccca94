"""Songs read by Blender's own audio library (``aud``): WAV, FLAC, OGG, MP3 and whatever Blender plays, as mono float32.

bpy side. The channels are averaged to mono. A song whose decoded samples
fit in :data:`WHOLE_BYTES` is decoded at once (``Sound.data()``); a longer
one is decoded by ``aud`` into a temporary float WAV (mono) that is read
back in blocks, so an hour of audio never sits in memory at once.
``Sound.limit(start, end)`` per block would need no disk, but its seeks are
not sample-exact in compressed files (an OGG block starts 1024 samples late,
an MP3 one mid-frame), which would move every beat after the first block.
Where ``aud`` is absent (the bpy 4.2 wheel is built without audaspace) the
standard library's WAV reader (:mod:`...core.music.audio`) reads WAV files.
"""

import os
import shutil
import struct
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import bpy  # noqa: F401  (the bpy module registers aud when it loads)
import numpy as np

from ..core.errors import AudioError
from ..core.music import audio as wav
from ..files.inputs import not_a_file

try:
    import aud
except ImportError:  # a bpy built without audaspace
    aud = None

BLOCK_SECONDS = wav.BLOCK_SECONDS  # seconds of audio per block
ROOM_MARGIN = 1.25  # the room a song decoded to a temporary file is given, over its header's length
WHOLE_BYTES = 64 * 2 ** 20  # decoded float32 samples (all channels) read in one piece (3 min of 44.1 kHz stereo); more go in blocks
UNDECODABLE = "not audio Blender can decode (a corrupt file, or a format its audio library does not read)"
NO_SAMPLES = "no audio samples (a header without sound, or 0 frames)"
EXACT_LENGTH = (".wav", ".wave", ".flac", ".aif", ".aiff")  # whose header gives the exact length (an MP3's is an estimate)
SHORT_SECONDS = 0.01  # samples that end this much before the header's length are a truncated file


@dataclass(frozen=True)
class Audio:
    """A song opened for reading: its ``rate`` (Hz), ``channels``, ``frames`` (samples per channel as the file's header
    gives it; an MP3's is an estimate) and the ``reader`` ('aud' or 'wave')."""

    path: str
    rate: float
    channels: int
    frames: int
    reader: str
    sound: object = None  # the aud.Sound

    @property
    def seconds(self) -> float:
        return self.frames / self.rate

    def blocks(self, block_seconds: float = BLOCK_SECONDS, progress: Callable[[float], None] | None = None) -> Iterator[np.ndarray]:
        """Mono float32 blocks of about ``block_seconds``, in order; ``progress(fraction)`` after each (None: silent).

        Raises :class:`AudioError` naming the file when its samples cannot be decoded."""
        if self.reader == "wave":
            blocks = wav.wav_blocks(self.path, block_seconds)
        elif self.frames * self.channels * 4 <= WHOLE_BYTES:
            blocks = _whole(self, block_seconds)
        else:
            blocks = _decoded(self, block_seconds)
        exact = self.reader == "wave" or os.path.splitext(self.path)[1].lower() in EXACT_LENGTH
        return _counted(_checked(blocks, self.path, self.rate, self.frames if exact else None), self.frames, progress)


def _regular_file(path) -> None:
    """AudioError unless ``path`` is a regular, non-empty file (naming what it is instead): a FIFO or a device would hang
    the decoder."""
    problem = not_a_file(path, "a song file")
    if problem:
        raise AudioError(path, problem)
    if os.stat(path).st_size == 0:
        raise AudioError(path, "an empty file")


def open_audio(path) -> Audio:
    """The song at ``path``, opened: :class:`Audio`. Raises :class:`AudioError` naming it (one line) when it is missing,
    not a file, or not audio that Blender (or, without ``aud``, the WAV reader) can decode."""
    path = os.fspath(path)
    _regular_file(path)
    if aud is None:
        if not path.lower().endswith((".wav", ".wave")):
            raise AudioError(path, "this Blender has no audio library (aud), and without it only WAV files can be read")
        info = wav.wav_info(path)
        return Audio(path, float(info.rate), info.channels, info.frames, "wave")
    try:
        sound = aud.Sound(path)
        (rate, channels), frames = sound.specs, sound.length  # the file is opened here
    except aud.error:
        raise AudioError(path, UNDECODABLE) from None
    if not rate > 0 or channels < 1:  # data() of a sound without specs kills the process (SIGFPE)
        raise AudioError(path, UNDECODABLE)
    if frames == 0:
        raise AudioError(path, NO_SAMPLES)
    return Audio(path, float(rate), int(channels), max(int(frames), _header_frames(path)), "aud", sound)


def _header_frames(path) -> int:
    """The samples per channel a PCM WAV's header gives (aud counts what the file holds: a truncated file would pass for a
    shorter song); 0 for another file, or a header that leaves its length open (a stream's 0 or 0xFFFFFFFF bytes)."""
    if not path.lower().endswith((".wav", ".wave")):
        return 0
    try:
        info = wav.wav_info(path)
    except AudioError:
        return 0  # a float WAV, which the standard library does not read: aud's count stands
    return info.frames if 0 < info.frames * info.sample_width * info.channels < 0xFFFFFFFF - 8 else 0


def _counted(blocks: Iterator[np.ndarray], frames: int, progress) -> Iterator[np.ndarray]:
    done = 0
    for block in blocks:
        done += len(block)
        yield block
        if progress is not None:
            progress(min(1.0, done / max(frames, 1)))
    if progress is not None and done < frames:  # the header's length was an estimate (MP3)
        progress(1.0)


def _checked(blocks: Iterator[np.ndarray], path, rate: float, frames: int | None = None) -> Iterator[np.ndarray]:
    """``blocks`` as they come; AudioError naming the song when there is none, where a sample is NaN or infinite (a
    float WAV can hold them, and the beat tracker would hear silence), with the first one's time, or where they end
    :data:`SHORT_SECONDS` or more before the ``frames`` its header gives (None: a header's estimate, as an MP3's)."""
    done = 0
    for block in blocks:
        bad = np.flatnonzero(~np.isfinite(block))
        if len(bad):
            kind = "NaN" if np.isnan(block[bad[0]]) else "infinite"
            raise AudioError(path, f"its samples hold {kind} values (the first at {(done + bad[0]) / rate:.3f} s): a damaged or "
                                   "wrongly converted file")
        done += len(block)
        yield block
    if done == 0:
        raise AudioError(path, NO_SAMPLES)
    if frames is not None and done < frames - SHORT_SECONDS * rate:
        raise AudioError(path, f"its samples end after {done / rate:.2f} s of the {frames / rate:.2f} s its header gives: the file looks "
                               "truncated")


def _mono(data: np.ndarray) -> np.ndarray:
    """Samples (frames, channels) -> mono float32 (frames,)."""
    if data.ndim == 1 or data.shape[1] == 1:
        return np.ascontiguousarray(data.reshape(len(data), -1)[:, 0], dtype=np.float32)
    return data.mean(axis=1, dtype=np.float32)


def _whole(audio: Audio, block_seconds: float) -> Iterator[np.ndarray]:
    """The song decoded at once (``Sound.data()``), cut into blocks."""
    try:
        data = np.asarray(audio.sound.data())
    except aud.error:
        raise AudioError(audio.path, UNDECODABLE) from None
    if data.size == 0:
        raise AudioError(audio.path, NO_SAMPLES)
    samples = _mono(data)
    size = max(1, int(block_seconds * audio.rate))
    for start in range(0, len(samples), size):
        yield samples[start: start + size]


def _decoded(audio: Audio, block_seconds: float) -> Iterator[np.ndarray]:
    """The song decoded by aud into a temporary mono float32 WAV, read back in blocks (bounded memory)."""
    sound = audio.sound
    if audio.channels > 1:  # rechannel sums the channels: scaled, the sum is their mean
        sound = sound.rechannel(1).volume(1.0 / audio.channels)
    with tempfile.TemporaryDirectory(prefix="loopsmith-audio-") as folder:
        _require_room(audio, folder)
        decoded = os.path.join(folder, "decoded.wav")
        try:
            sound.write(decoded, int(round(audio.rate)), 1, aud.FORMAT_FLOAT32, aud.CONTAINER_WAV, aud.CODEC_PCM, 0)
        except aud.error as error:
            raise AudioError(audio.path, f"{UNDECODABLE} ({error})") from None
        except OSError as error:
            raise AudioError(audio.path, f"cannot be decoded to a temporary file in {folder}: {error.strerror or error}") from None
        yield from float_wav_blocks(decoded, audio.frames, max(1, int(block_seconds * audio.rate)), audio.path)


def _require_room(audio: Audio, folder) -> None:
    """AudioError naming the song unless ``folder`` has room for it decoded (mono float32, and :data:`ROOM_MARGIN` more: an
    MP3's length is an estimate). Blender's audio library aborts the whole process when its disk fills while it writes."""
    needed = int(audio.frames * 4 * ROOM_MARGIN) + 2 ** 20
    try:
        free = shutil.disk_usage(folder).free
    except OSError:
        return  # a folder whose room cannot be told: the write says more
    if free < needed:
        raise AudioError(audio.path, f"decoding it needs {needed / 2 ** 20:.0f} MB in the temporary folder {os.path.dirname(folder)}, "
                                     f"which has {free / 2 ** 20:.0f} MB free: free some space or set TMPDIR to a folder with room")


def _data_chunk(stream, source) -> tuple[int, int]:
    """(offset, bytes) of the samples of the mono float32 WAV open in ``stream``, checked to be such a file."""
    if stream.read(12)[8:12] != b"WAVE":
        raise AudioError(source, "decoding gave no WAV file")
    fmt = None
    while True:
        header = stream.read(8)
        if len(header) < 8:
            raise AudioError(source, "decoding gave a WAV file without samples")
        kind, size = header[:4], struct.unpack("<I", header[4:])[0]
        if kind == b"data":
            if fmt is None or fmt[0] not in (3, 0xFFFE) or fmt[1] != 1 or fmt[2] != 32:
                raise AudioError(source, f"decoding gave a WAV file of another format ({fmt})")
            return stream.tell(), size
        body = stream.read(size + (size & 1))
        if kind == b"fmt ":
            fmt = (struct.unpack("<H", body[0:2])[0], struct.unpack("<H", body[2:4])[0], struct.unpack("<H", body[14:16])[0])


def float_wav_blocks(path, frames: int, block: int, source=None) -> Iterator[np.ndarray]:
    """Blocks of ``block`` samples of the mono 32-bit float WAV at ``path`` (as aud writes it), at most ``frames`` samples
    in all (the writer pads its last buffer with stale samples); ``source`` names the song in errors."""
    source = source or path
    with open(path, "rb") as stream:
        offset, size = _data_chunk(stream, source)
        available = (os.fstat(stream.fileno()).st_size - offset) // 4
        left = min(available if size in (0, 0xFFFFFFFF) else size // 4, frames if frames > 0 else available)
        while left > 0:
            data = stream.read(4 * min(block, left))
            samples = np.frombuffer(data[: len(data) - len(data) % 4], "<f4")
            if len(samples) == 0:
                return
            left -= len(samples)
            yield samples.astype(np.float32)


def read_audio(path, progress: Callable[[float], None] | None = None) -> tuple[np.ndarray, float]:
    """The whole song at ``path``: mono float32 samples (N,) and the sample rate (Hz). Raises :class:`AudioError`
    naming the file (one line) when it cannot be read. For a long song prefer ``open_audio(path).blocks()``."""
    audio = open_audio(path)
    blocks = list(audio.blocks(progress=progress))
    if not blocks:
        raise AudioError(path, NO_SAMPLES)
    return np.concatenate(blocks), audio.rate
