"""Onset strength: how much the sound's spectrum rises from one short-time frame to the next (spectral flux).

Each window of audio (about 93 ms, a Hann window) is Fourier-transformed, its power summed into mel bands and
taken in decibels; the envelope's frame ``k`` is the median, over the bands that sound in either window, of the half-wave
rectified rise of the window that ends at ``(k + 1) * hop`` samples over the window a hop earlier. An onset raises the two windows whose ends
first pass it, so the rise is centred on the onset and frame ``k`` is at ``k * hop`` samples. The hop is fixed in seconds (512 samples at 22050 Hz,
about 23 ms) so every sample rate gives the same frame rate without resampling. The audio is taken block by block
(any iterable of sample arrays, or one array cut into blocks), so an hour of audio needs only the envelope itself
(about 43 floats a second) and one block of spectra in memory.
"""

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

HOP_SECONDS = 512 / 22050  # envelope frame step, seconds
WINDOW_HOPS = 4  # the analysis window spans this many hops (2048 samples at 22050 Hz)
BANDS = 64  # mel bands the flux is measured in
FLOOR_DB = -80.0  # decibels relative to a full-scale sine: quieter is silence
WINDOWS_PER_CHUNK = 512  # spectra computed at once: bounds the memory of a block (~30 MB at 44.1 kHz)


@dataclass(frozen=True)
class Envelope:
    """An onset-strength envelope: ``values`` (frames,) float64, non-negative, in decibels of rise; frame ``k`` is at
    ``k / frame_rate`` seconds. ``hop`` and ``window`` are in samples of the audio at ``rate`` Hz."""

    values: np.ndarray
    frame_rate: float
    rate: float
    hop: int
    window: int
    loudness: np.ndarray | None = None  # (frames,) each window's level in dB over all bands, FLOOR_DB in silence
    peaks: np.ndarray | None = None  # (frames,) the largest absolute sample of each hop from the frame's time: the waveform

    @property
    def times(self) -> np.ndarray:
        """The frames' times in seconds, shape (frames,)."""
        return np.arange(len(self.values)) / self.frame_rate

    @property
    def seconds(self) -> float:
        return len(self.values) / self.frame_rate


def frame_sizes(rate: float) -> tuple[int, int]:
    """The hop and window (samples) at sample ``rate`` (Hz): the hop nearest ``HOP_SECONDS``, the window a power of two
    of about ``WINDOW_HOPS`` hops."""
    hop = max(1, int(round(rate * HOP_SECONDS)))
    window = 1 << int(np.ceil(np.log2(hop * WINDOW_HOPS)))
    return hop, max(window, hop)


def mel_filterbank(rate: float, window: int, bands: int = BANDS) -> np.ndarray:
    """Triangular mel filters, shape (window // 2 + 1, bands), each a weight per FFT bin (peak 1).

    A band too narrow to hold a bin (low frequencies, small windows) takes the bin nearest its centre, so no band
    is empty and the median over bands is never pulled to zero by empty ones.
    """
    def mel(hz):
        return 2595.0 * np.log10(1.0 + np.asarray(hz) / 700.0)

    def hz(m):
        return 700.0 * (10.0 ** (np.asarray(m) / 2595.0) - 1.0)

    edges = hz(np.linspace(mel(0.0), mel(rate / 2.0), bands + 2))
    bins = np.arange(window // 2 + 1) * rate / window
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
        # powers relative to a full-scale sine's peak bin, so FLOOR_DB means the same at every window size
        self.scale = float(1.0 / (self.taper.sum() / 2.0) ** 2)
        self.pending = np.zeros(self.window - self.hop, np.float32)  # leading silence: the first window ends at one hop
        self.previous = np.full(bands, FLOOR_DB, np.float32)
        # The first windows hold audio in their last hops only: their power over the share of the taper's energy there is
        # the level of the sound itself, so a sound already going when the audio starts does not rise as it fills them.
        held = np.arange(1, int(np.ceil(self.window / self.hop)))
        energy = np.cumsum((self.taper ** 2)[::-1])[np.minimum(held * self.hop, self.window) - 1]
        self.filling = (float(np.sum(self.taper ** 2)) / energy).astype(np.float32)
        self.framed = 0  # windows framed so far

    def levels(self, frames: np.ndarray) -> np.ndarray:
        """Band levels (dB), shape (windows, bands), of frames (windows, window), the next ones of the audio."""
        spectrum = np.fft.rfft(frames * self.taper, axis=1)
        power = (spectrum.real ** 2 + spectrum.imag ** 2).astype(np.float32) * np.float32(self.scale)
        filling = self.filling[self.framed: self.framed + len(frames)]
        power[: len(filling)] *= filling[:, None]
        self.framed += len(frames)
        return 10.0 * np.log10(np.maximum(power @ self.filters, np.float32(10.0 ** (FLOOR_DB / 10.0))))

    def push(self, samples: np.ndarray) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Append samples; the flux, the loudness (dB) and the peak sample of the last hop of every window now complete,
        in chunks of at most ``WINDOWS_PER_CHUNK``."""
        out = []
        self.pending = np.concatenate([self.pending, np.asarray(samples, np.float32).ravel()])
        while len(self.pending) >= self.window:
            count = min((len(self.pending) - self.window) // self.hop + 1, WINDOWS_PER_CHUNK)
            frames = sliding_window_view(self.pending[: (count - 1) * self.hop + self.window], self.window)[:: self.hop]
            levels = self.levels(frames)
            before = np.concatenate([self.previous[None], levels[:-1]])
            loudness = 10.0 * np.log10(np.mean(10.0 ** (levels / 10.0), axis=1))
            out.append((sounding_median(np.maximum(levels - before, 0.0), np.maximum(levels, before) > FLOOR_DB),
                        loudness.astype(np.float64), np.abs(frames[:, -self.hop:]).max(axis=1).astype(np.float64)))
            self.previous = levels[-1]
            self.pending = self.pending[count * self.hop:]
        return out


def _blocks(audio, block: int) -> Iterable[np.ndarray]:
    if isinstance(audio, np.ndarray):
        return (audio[start: start + block] for start in range(0, len(audio), block))
    return audio


def onset_strength(audio: np.ndarray | Iterable[np.ndarray], rate: float, bands: int = BANDS) -> Envelope:
    """The onset-strength envelope of mono ``audio`` at ``rate`` Hz.

    audio: samples in [-1, 1], shape (samples,), or an iterable of such blocks in order (any sizes), read once.
    Returns an :class:`Envelope` of ``samples // hop`` frames (at least one), about 43 a second; frame 0 is 0.
    """
    if not rate > 0:
        raise ValueError(f"sample rate must be positive, not {rate}")
    flux = _Flux(float(rate), bands)
    pieces = []
    for block in _blocks(audio, WINDOWS_PER_CHUNK * flux.hop):
        pieces.extend(flux.push(block))
    values, loudness, peaks = (np.concatenate(column) for column in zip(*pieces)) if pieces else (
        np.zeros(1), np.full(1, FLOOR_DB), np.zeros(1))
    values[0] = 0.0  # the rise from the silence before the audio starts is not an onset
    return Envelope(values, float(rate) / flux.hop, float(rate), flux.hop, flux.window, loudness, peaks)
