"""Onset strength: how much the sound's spectrum rises from one short-time frame to the next (spectral flux).

Each window of audio (four hops, about 93 ms, a Hann window) is Fourier-transformed, its power summed into mel bands
from 0 to 8 kHz and taken in decibels; the envelope's frame ``k`` is the median, over the bands that sound in either
window, of the half-wave rectified rise of the window that ends at ``(k + 1) * hop`` samples over the window a hop
earlier. An onset raises the two windows whose ends first pass it, so the rise is centred on the onset and frame ``k``
is at ``k * hop`` samples. The hop and window are fixed in seconds (512 and 2048 samples at 22050 Hz; the hop a fraction
of a sample at other rates, each window ending at the sample nearest its time) and the bands in Hz, up to the Nyquist
frequency of 16 kHz audio, so a song at 16, 22.05 or 44.1 kHz gives the same envelope without resampling. The same
rise over the bands below 200 Hz alone is kept beside it: the bass drum's strokes, which mark the beat. The audio is
taken block by block (any iterable of sample arrays, or one array cut into blocks), so an hour of audio needs only the
envelope itself (about 43 floats a second) and one block of spectra in memory.
"""

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

HOP_SECONDS = 512 / 22050  # envelope frame step, seconds
WINDOW_HOPS = 4  # the analysis window spans this many hops (2048 samples at 22050 Hz)
BANDS = 64  # mel bands the flux is measured in
TOP_HZ = 8000.0  # the bands' top at every sample rate: 16 kHz audio's Nyquist frequency
BASS_HZ = 200.0  # the bands centred below this hold the bass drum's strokes
FLOOR_DB = -80.0  # decibels relative to a full-scale sine: quieter is silence
WINDOWS_PER_CHUNK = 256  # spectra computed at once: bounds the memory of a block (~20 MB at 44.1 kHz)


@dataclass(frozen=True)
class Envelope:
    """An onset-strength envelope: ``values`` (frames,) float64, non-negative, in decibels of rise; frame ``k`` is at
    ``k / frame_rate`` seconds. ``hop`` (fractional) and ``window`` are in samples of the audio at ``rate`` Hz."""

    values: np.ndarray
    frame_rate: float
    rate: float
    hop: float
    window: int
    loudness: np.ndarray | None = None  # (frames,) each window's level in dB over all bands, FLOOR_DB in silence
    peaks: np.ndarray | None = None  # (frames,) the largest absolute sample of each hop from the frame's time: the waveform
    bass: np.ndarray | None = None  # (frames,) the same rise over the bands below BASS_HZ alone

    @property
    def times(self) -> np.ndarray:
        """The frames' times in seconds, shape (frames,)."""
        return np.arange(len(self.values)) / self.frame_rate

    @property
    def seconds(self) -> float:
        return len(self.values) / self.frame_rate


def _smooth(length: int) -> bool:
    """Whether ``length`` has no prime factor over 11: its FFT is fast (a factor like 743 makes it 5x slower)."""
    for prime in (2, 3, 5, 7, 11):
        while length % prime == 0:
            length //= prime
    return length == 1


def frame_sizes(rate: float) -> tuple[float, int]:
    """The hop (samples, fractional: ``HOP_SECONDS`` at any rate) and the window (samples: the length nearest
    ``WINDOW_HOPS`` hops with a fast FFT, 1485 at 16 kHz) at sample ``rate`` (Hz): the same times at every rate."""
    hop = rate * HOP_SECONDS
    window = max(1, int(round(hop * WINDOW_HOPS)))
    return hop, next(length for step in range(window) for length in (window - step, window + step) if _smooth(length))


def mel_filterbank(rate: float, size: int, bands: int = BANDS, top: float = TOP_HZ) -> np.ndarray:
    """Triangular mel filters from 0 Hz to ``top`` Hz (or the Nyquist frequency, if lower), shape (size // 2 + 1, bands),
    each a weight per bin of an FFT of ``size`` samples (peak 1).

    A band too narrow to hold a bin (low frequencies, small windows) takes the bin nearest its centre, so no band
    is empty and the median over bands is never pulled to zero by empty ones.
    """
    def mel(hz):
        return 2595.0 * np.log10(1.0 + np.asarray(hz) / 700.0)

    def hz(m):
        return 700.0 * (10.0 ** (np.asarray(m) / 2595.0) - 1.0)

    edges = hz(np.linspace(mel(0.0), mel(min(top, rate / 2.0)), bands + 2))
    bins = np.arange(size // 2 + 1) * rate / size
    low, centre, high = edges[:-2, None], edges[1:-1, None], edges[2:, None]
    rising = (bins[None] - low) / np.maximum(centre - low, 1e-9)
    falling = (high - bins[None]) / np.maximum(high - centre, 1e-9)
    weights = np.clip(np.minimum(rising, falling), 0.0, None)
    empty = weights.sum(axis=1) == 0
    weights[empty, np.abs(bins[None] - centre[empty]).argmin(axis=1)] = 1.0
    return weights.T.astype(np.float32)


def sounding_median(rise: np.ndarray, sounding: np.ndarray) -> np.ndarray:
    """The median of each row of ``rise`` (windows, bands) over the bands that sound (``sounding``, same shape), 0 where
    none does. A band silent in a window and the one before cannot rise: counted, the silent bands above band-limited
    audio's top (resampled, low-passed or old recordings) would pull the median of every window to zero."""
    if sounding.all():
        return np.median(rise, axis=1).astype(np.float64)
    ordered = np.sort(np.where(sounding, rise, np.inf), axis=1)  # the silent bands last
    count = sounding.sum(axis=1)
    rows = np.arange(len(rise))
    low, high = ordered[rows, np.maximum(count - 1, 0) // 2], ordered[rows, np.maximum(count, 1) // 2]
    return np.where(count > 0, 0.5 * (low + high), 0.0).astype(np.float64)


class _Flux:
    """The streaming state: samples not yet framed and the last window's band levels."""

    def __init__(self, rate: float, bands: int):
        self.hop, self.window = frame_sizes(rate)
        self.taper = np.hanning(self.window + 1)[:-1].astype(np.float32)  # periodic Hann
        self.filters = mel_filterbank(rate, self.window, bands)
        centres = (np.arange(self.window // 2 + 1) * rate / self.window) @ self.filters / self.filters.sum(axis=0)
        self.bass = max(1, int(np.count_nonzero(centres < BASS_HZ)))  # the first bands
        # powers relative to a full-scale sine's peak bin, so FLOOR_DB means the same at every window size
        self.scale = float(1.0 / (self.taper.sum() / 2.0) ** 2)
        # the audio after a window of leading silence; window k ends (k + 1) hops into the audio, at the nearest sample
        self.pending = np.zeros(self.window, np.float32)
        self.offset = 0  # where pending starts in that padded audio
        self.previous = np.full(bands, FLOOR_DB, np.float32)
        # The first windows hold audio in their last hops only: their power over the share of the taper's energy there is
        # the level of the sound itself, so a sound already going when the audio starts does not rise as it fills them.
        held = self._end(np.arange(int(np.ceil(self.window / self.hop))))
        energy = np.cumsum((self.taper ** 2)[::-1])[np.clip(held[held < self.window], 1, None) - 1]
        self.filling = (float(np.sum(self.taper ** 2)) / energy).astype(np.float32)
        self.framed = 0  # windows framed so far

    def _end(self, frames: np.ndarray) -> np.ndarray:
        """Where windows ``frames`` end in the audio (samples)."""
        return np.round((frames + 1) * self.hop).astype(np.int64)

    def levels(self, frames: np.ndarray) -> np.ndarray:
        """Band levels (dB), shape (windows, bands), of frames (windows, window), the next ones of the audio."""
        spectrum = np.fft.rfft(frames * self.taper, axis=1)
        power = (spectrum.real ** 2 + spectrum.imag ** 2).astype(np.float32) * np.float32(self.scale)
        filling = self.filling[self.framed: self.framed + len(frames)]
        power[: len(filling)] *= filling[:, None]
        self.framed += len(frames)
        return 10.0 * np.log10(np.maximum(power @ self.filters, np.float32(10.0 ** (FLOOR_DB / 10.0))))

    def push(self, samples: np.ndarray) -> list[tuple[np.ndarray, ...]]:
        """Append samples; the flux, the loudness (dB), the peak sample of the last hop and the bass's flux of every
        window now complete, in chunks of at most ``WINDOWS_PER_CHUNK``."""
        out = []
        self.pending = np.concatenate([self.pending, np.asarray(samples, np.float32).ravel()])
        last = int(self.hop) + 1  # the samples of a window's last hop, for the waveform
        while True:
            starts = self._end(self.framed + np.arange(WINDOWS_PER_CHUNK)) - self.offset  # in pending: the padding is a window
            starts = starts[starts + self.window <= len(self.pending)]
            if len(starts) == 0:
                return out
            frames = self.pending[starts[:, None] + np.arange(self.window)]
            levels = self.levels(frames)
            before = np.concatenate([self.previous[None], levels[:-1]])
            loudness = 10.0 * np.log10(np.mean(10.0 ** (levels / 10.0), axis=1))
            rise, sounding = np.maximum(levels - before, 0.0), np.maximum(levels, before) > FLOOR_DB
            out.append((sounding_median(rise, sounding), loudness.astype(np.float64),
                        np.abs(frames[:, -last:]).max(axis=1).astype(np.float64),
                        sounding_median(rise[:, : self.bass], sounding[:, : self.bass])))
            self.previous = levels[-1]
            drop = int(self._end(np.array([self.framed]))[0]) - self.offset  # the next window's start
            self.pending, self.offset = self.pending[drop:], self.offset + drop


def _blocks(audio, block: int) -> Iterable[np.ndarray]:
    if isinstance(audio, np.ndarray):
        return (audio[start: start + block] for start in range(0, len(audio), block))
    return audio


def onset_strength(audio: np.ndarray | Iterable[np.ndarray], rate: float, bands: int = BANDS) -> Envelope:
    """The onset-strength envelope of mono ``audio`` at ``rate`` Hz.

    audio: samples in [-1, 1], shape (samples,), or an iterable of such blocks in order (any sizes), read once.
    Returns an :class:`Envelope` of ``samples / hop`` frames (at least one), about 43 a second; frame 0 is 0.
    """
    if not rate > 0:
        raise ValueError(f"sample rate must be positive, not {rate}")
    flux = _Flux(float(rate), bands)
    pieces = []
    for block in _blocks(audio, int(WINDOWS_PER_CHUNK * flux.hop)):
        pieces.extend(flux.push(block))
    values, loudness, peaks, bass = (np.concatenate(column) for column in zip(*pieces)) if pieces else (
        np.zeros(1), np.full(1, FLOOR_DB), np.zeros(1), np.zeros(1))
    values[0] = bass[0] = 0.0  # the rise from the silence before the audio starts is not an onset
    return Envelope(values, float(rate) / flux.hop, float(rate), flux.hop, flux.window, loudness, peaks, bass)
