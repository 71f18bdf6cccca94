"""Tempo: the beat period that the onset envelope repeats at most, weighed by a prior on usual tempos.

The envelope is cut into overlapping windows (8 s, Hann-tapered); each window's autocorrelation, with the window's
mean removed, is divided by its value at lag 0 and the windows are averaged (a mean tempogram, silent windows left out;
a few windows at a time so an hour's envelope needs no more memory). The period is the lag that maximizes the log of
that mean plus a log-normal prior centred on 120 BPM with a standard deviation of 0.8 octave (so 60-180 BPM is
preferred and tempos over 320 BPM are refused), refined to a fraction of a frame by a parabola through the peak. The
mean is removed because the tapered window's overlap with itself shrinks with the lag: the mean's share of the
correlation would favour short periods, more the steadier the envelope's floor (a floor a fifth of the onsets' height
turned a pulse at 62 BPM into 122). The confidence is that mean autocorrelation at the period: near 1 for a click
track, near 0 for noise, low for speech, whose syllables come at irregular intervals. It is read where the period
falls between frames as the autocorrelation of the envelope itself at that fractional lag (the sinc interpolation of
the whole-frame lags: the envelope's band-limited correlation, where a straight line between two frames' lags reads a
pulse a half frame off both as half as periodic: clicks at 120 BPM, 21.5 frames apart, 0.70 where 129 BPM, 20.0
frames, read 0.98), its largest value within half a frame, divided by the taper's own autocorrelation there (the
share of the window that overlaps itself at that lag, which no envelope could exceed).
"""

from dataclasses import dataclass

import numpy as np

WINDOW_SECONDS = 8.0  # autocorrelation window
WINDOW_STEP = 8  # windows overlap: a new one every 1/8 of a window
START_BPM = 120.0  # the prior's centre
PRIOR_OCTAVES = 0.8  # the prior's standard deviation, in octaves
MIN_BPM, MAX_BPM = 30.0, 320.0  # tempos outside are never chosen
SILENT = 1e-9  # a window of the envelope with less energy than this (dB squared) is silent
CHUNK = 256  # windows correlated at once


@dataclass(frozen=True)
class Tempo:
    """A tempo estimate: ``bpm`` (beats per minute), ``period`` (envelope frames per beat, fractional) and
    ``confidence`` in [0, 1]; ``correlation`` (lags,) is the mean normalized autocorrelation of the windows with
    their mean removed (lag in frames), which the confidence is read from, for plotting."""

    bpm: float
    period: float
    confidence: float
    correlation: np.ndarray


def _normalized_autocorrelation(windows: np.ndarray) -> np.ndarray:
    """Per-window autocorrelation over lags 0..length-1 divided by lag 0, shape (windows, length); all zeros for a
    silent window."""
    length = windows.shape[1]
    size = 1 << int(np.ceil(np.log2(2 * length)))  # zero padding: a linear, not circular, correlation
    spectrum = np.fft.rfft(windows, size, axis=1)
    correlation = np.fft.irfft(spectrum.real ** 2 + spectrum.imag ** 2, size, axis=1)[:, :length]
    energy = correlation[:, :1]
    return np.where(energy > SILENT, correlation / np.maximum(energy, SILENT), 0.0)


def tempogram(envelope: np.ndarray, frame_rate: float, window_seconds: float = WINDOW_SECONDS) -> tuple[np.ndarray, np.ndarray]:
    """Mean normalized autocorrelation of ``envelope`` (frames,) over overlapping windows, shape (lags,) with lag in
    frames: of the envelope as it is, and of each window with its mean removed (the periodicity alone).

    An envelope shorter than a window is one window. Frames at ``frame_rate`` per second.
    """
    length = int(min(len(envelope), max(8, round(window_seconds * frame_rate))))
    step = max(1, length // WINDOW_STEP)
    starts = np.arange(0, len(envelope) - length + 1, step)
    if starts[-1] != len(envelope) - length:
        starts = np.append(starts, len(envelope) - length)
    view = np.lib.stride_tricks.sliding_window_view(envelope, length)
    taper = np.hanning(length + 2)[1:-1]
    plain, centred, sounding = np.zeros(length), np.zeros(length), 0
    for chunk in range(0, len(starts), CHUNK):
        windows = view[starts[chunk: chunk + CHUNK]]
        ac = _normalized_autocorrelation(windows * taper)
        plain += ac.sum(axis=0)
        centred += _normalized_autocorrelation((windows - windows.mean(axis=1, keepdims=True)) * taper).sum(axis=0)
        sounding += np.count_nonzero(ac[:, 0])  # silent windows are left out of the mean
    return plain / max(sounding, 1), centred / max(sounding, 1)


def _peak(score: np.ndarray, index: int) -> float:
    """The fractional position of the maximum of a parabola through ``score`` around ``index``."""
    if index <= 0 or index >= len(score) - 1 or not np.all(np.isfinite(score[index - 1: index + 2])):
        return float(index)
    left, middle, right = score[index - 1: index + 2]
    curvature = left - 2.0 * middle + right
    return float(index) if curvature >= 0 else index + 0.5 * (left - right) / curvature


def _sinc_interpolated(correlation: np.ndarray, lags: np.ndarray) -> np.ndarray:
    """The autocorrelation ``correlation`` (whole-frame lags 0..n-1, symmetric about 0) at fractional ``lags`` (k,)."""
    whole = np.arange(1 - len(correlation), len(correlation))
    return np.sinc(lags[:, None] - whole) @ np.concatenate([correlation[:0:-1], correlation])


def periodicity(correlation: np.ndarray, period: float) -> float:
    """The periodicity in [0, 1] of a mean tempogram ``correlation`` (lags,) of Hann-tapered windows as long as its lags,
    at ``period`` (frames, fractional): its sinc-interpolated peak within half a frame, divided by the taper's own."""
    lags = period + np.linspace(-0.5, 0.5, 21)
    lags = lags[(lags > 0) & (lags < len(correlation) - 1)]
    if not len(lags):
        return 0.0
    taper = np.hanning(len(correlation) + 2)[1:-1]
    overlap = _sinc_interpolated(np.correlate(taper, taper, "full")[len(taper) - 1:] / np.dot(taper, taper), lags)
    return float(np.clip(np.max(_sinc_interpolated(correlation, lags) / np.maximum(overlap, 1e-6)), 0.0, 1.0))


def estimate_tempo(envelope: np.ndarray, frame_rate: float, start_bpm: float = START_BPM,
                   prior_octaves: float = PRIOR_OCTAVES) -> Tempo:
    """The tempo of an onset-strength ``envelope`` (frames,) at ``frame_rate`` frames per second.

    Returns a :class:`Tempo`; its confidence is 0 and its bpm that of ``start_bpm`` when the envelope is silent or
    too short to hold a period.
    """
    envelope = np.asarray(envelope, dtype=np.float64)
    plain, centred = tempogram(envelope, frame_rate)
    lags = np.arange(len(plain), dtype=np.float64)
    with np.errstate(divide="ignore"):
        bpms = 60.0 * frame_rate / lags
        score = np.log(np.maximum(centred, 0.0) + 1e-6) - 0.5 * (np.log2(bpms / start_bpm) / prior_octaves) ** 2
    allowed = (bpms >= MIN_BPM) & (bpms <= MAX_BPM)
    if not allowed.any() or not np.any(plain[allowed] > 0):
        return Tempo(start_bpm, 60.0 * frame_rate / start_bpm, 0.0, centred)
    score[~allowed] = -np.inf
    best = int(np.argmax(score))
    period = _peak(score, best)
    return Tempo(60.0 * frame_rate / period, period, periodicity(centred, period), centred)
