"""Beat times from audio: the onset envelope, its tempo, then the beats by dynamic programming over the envelope
(the method of Ellis 2007, "Beat tracking by dynamic programming", as librosa's ``beat_track`` implements it).

The envelope, divided by its standard deviation and smoothed by a narrow Gaussian, is each frame's local score. A
frame's cumulative score is its local score plus the best, over earlier frames half a period to two periods back,
of their cumulative score minus ``tightness * log(interval / period) ** 2``; the beats are the backtrace from the
last strong peak of the cumulative score that no frame within half a period outscores (a sequence starts afresh
wherever no predecessor adds to the score), without the weak beats before the music starts and after it ends. Since
every candidate predecessor lies at least half a period back, the frames of one half period are scored together as
one (frames, candidates) array. Where the loudest strokes fall a quarter or half beat from the bass drum's, the beats
move onto the bass drum's. Each beat is then placed between envelope frames, at the peak of a parabola through its
local score, and rounded to the sample; the grid is carried back to a beat at the very start when the music sounds
there.

Music is never refused for a weak beat (its low confidence says so); only silence, noise (no periodicity at all)
and speech (little periodicity at the beat and over a bar, and silent gaps between the sounds) are. A sparse
breakbeat has gaps and a weak beat too, but its pattern repeats every bar, which speech's syllables do not.
"""

import os
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from ..errors import NoSteadyBeat
from .audio import wav_blocks, wav_info
from .onset import Envelope, onset_strength
from .tempo import MAX_BPM, MIN_BPM, Tempo, estimate_tempo, periodicity

TIGHTNESS = 100.0  # weight of the log-interval deviation from the period in the transition cost
MIN_CONFIDENCE = 0.4  # below this periodicity, audio with silent gaps is speech: synthesized speech reaches 0.31
NOISE_CONFIDENCE = 0.12  # below this there is no beat at all: noise 0.02-0.06, read speech 0.04-0.19, real music 0.2-0.85
GAP_DB = 30.0  # a window this far below the loud ones (their 95th percentile) is a gap between sounds
SPEECH_GAPS = 0.05  # share of gaps between the first and last sound from which weakly periodic audio is speech, not music
# Periodicity over two, three or four beats from which gappy, weakly periodic audio is music: a drum-and-bass loop
# 0.44-0.46 and synthesized breakbeats 0.52-0.62 (beat 0.33-0.53), synthesized speech at most 0.24 (of 240), read speech 0.03-0.08.
BAR_PERIODICITY = 0.35
BAR = 4  # beats: audio shorter than one bar has no beat to track
F_WINDOW = 0.07  # seconds: a detected beat within this of a reference beat is a hit
BAR_OF_THREE = 0.25  # every third beat this much stronger than the rest (relative to the beats'): heard a bar of three at a time
BASS_LEAD = 1.5  # the bass drum's strokes this much stronger a fraction of a beat away ...
SYNCOPATION = 0.5  # ... where all the bands' onsets are at least this share of the beats': the beat is on the bass drum


@dataclass(frozen=True)
class Beats:
    """Beats found in audio: ``tempo_bpm``, ``times`` (beats,) in seconds, the onset ``envelope`` (frames,) with
    frame ``k`` at ``k / frame_rate`` seconds (for plotting), ``confidence`` in [0, 1] (the envelope's periodicity at
    the tempo), ``peaks`` (frames,), the waveform: the largest absolute sample of each frame's hop (None when unknown),
    and ``other_bpm``, the double, half or third (a bar of three) tempo the pulse may be heard at instead (0 when unknown)."""

    tempo_bpm: float
    times: np.ndarray
    envelope: np.ndarray
    frame_rate: float
    confidence: float
    peaks: np.ndarray | None = None
    other_bpm: float = 0.0

    @property
    def frames(self) -> np.ndarray:
        """The beats as envelope frame indices, shape (beats,)."""
        return np.round(self.times * self.frame_rate).astype(int)


def local_score(envelope: np.ndarray, period: float) -> np.ndarray:
    """The envelope (frames,) over its standard deviation, smoothed by a Gaussian of ``period / 32`` frames."""
    scaled = envelope / (envelope.std(ddof=1) + 1e-12) if len(envelope) > 1 else envelope.astype(float)
    half = int(round(period))
    kernel = np.exp(-0.5 * (np.arange(-half, half + 1) * 32.0 / period) ** 2)
    return np.convolve(scaled, kernel, mode="same")[: len(envelope)]


def dynamic_program(score: np.ndarray, period: float, tightness: float = TIGHTNESS) -> tuple[np.ndarray, np.ndarray]:
    """Cumulative scores (frames,) and backlinks (frames,) (-1: no earlier beat) of the best beat sequence ending
    at each frame of local ``score`` (frames,), for a beat ``period`` in frames."""
    count = len(score)
    nearest, farthest = max(1, int(round(period / 2))), max(2, int(round(2 * period)))
    lags = np.arange(nearest, farthest + 1)
    penalty = -tightness * np.log(lags / period) ** 2
    cumulative = np.full(farthest + count, -np.inf)  # frame i at farthest + i; -inf before the audio
    backlink = np.full(count, -1, dtype=np.int64)
    # the first beat must be on some sound: frames before the first strong one start a sequence afresh
    strong = np.flatnonzero(score >= 0.01 * score.max()) if count else np.zeros(0, int)
    first = int(strong[0]) if len(strong) else count
    for start in range(0, count, nearest):
        frames = np.arange(start, min(start + nearest, count))
        candidates = cumulative[farthest + frames[:, None] - lags[None, :]] + penalty
        best = candidates.argmax(axis=1)
        best_score = candidates[np.arange(len(frames)), best]
        follows = (best_score > 0.0) & (frames >= first)  # else a sequence starts afresh here: never worse
        cumulative[farthest + frames] = score[frames] + np.where(follows, best_score, 0.0)
        backlink[frames] = np.where(follows, frames - lags[best], -1)
    return cumulative[farthest:], backlink


def _dominant_peaks(cumulative: np.ndarray, half: int) -> np.ndarray:
    """The frames (peaks,) whose ``cumulative`` score is the largest within ``half`` frames on either side (the ends of
    the audio close the span), ascending; the first of equal ones."""
    before, after = np.full(len(cumulative), -np.inf), np.full(len(cumulative), -np.inf)
    for lag in range(1, min(half, len(cumulative) - 1) + 1):
        before[lag:] = np.maximum(before[lag:], cumulative[:-lag])
        after[:-lag] = np.maximum(after[:-lag], cumulative[lag:])
    return np.flatnonzero((cumulative > before) & (cumulative >= after))


def _backtrace(cumulative: np.ndarray, backlink: np.ndarray, period: float) -> np.ndarray:
    """Beat frames (beats,), ascending, traced back from the last frame whose ``cumulative`` score is the largest within
    half a ``period`` (frames) on either side and at least half the median of such frames.

    A beat's score outdoes those of the notes between it and the next beat, so the last beat is found whether the audio
    ends just after it or just before the next. Were every local maximum a candidate, the last could be a weak note
    between beats after the last one, and the beats traced back from it a fraction of a beat off for as long as a chain
    of such notes outscores joining the beats."""
    peaks = _dominant_peaks(cumulative, max(1, int(round(period / 2))))
    if len(peaks) == 0:
        return np.zeros(0, dtype=np.int64)
    last = peaks[np.flatnonzero(cumulative[peaks] >= 0.5 * np.median(cumulative[peaks]))[-1]]
    ends = peaks[(peaks <= last) & (peaks >= last - period)]  # chains ending in the last beat's span hold as many beats
    beats = [int(ends[np.argmax(cumulative[ends])])]
    while backlink[beats[-1]] >= 0:  # one step per beat
        beats.append(int(backlink[beats[-1]]))
    return np.array(beats[::-1], dtype=np.int64)


def _trim(beats: np.ndarray, score: np.ndarray) -> np.ndarray:
    """``beats`` without those before the first or after the last frame whose local score passes half the RMS of
    the beats' (Hann-smoothed) scores: beats placed in the silence before or after the music."""
    if len(beats) == 0:
        return beats
    smooth = np.convolve(score[beats], np.hanning(5)[1:-1] / 2.0, mode="same")
    strong = np.flatnonzero(score > 0.5 * np.sqrt(np.mean(smooth ** 2)))
    if len(strong) == 0:
        return beats[:0]
    return beats[(beats >= strong[0]) & (beats <= strong[-1])]


def gap_share(loudness: np.ndarray | None) -> float:
    """The share of the windows between the first and the last sound that are gaps: :data:`GAP_DB` below the loud
    windows' level (their 95th percentile). 0 for music, which sounds on; 0.1-0.5 for speech. ``loudness`` (frames,)
    in dB; 0 without it."""
    if loudness is None or len(loudness) == 0:
        return 0.0
    quiet = loudness < np.percentile(loudness, 95) - GAP_DB
    sounding = np.flatnonzero(~quiet)
    return float(quiet[sounding[0]: sounding[-1] + 1].mean()) if len(sounding) else 1.0


def bar_periodicity(tempo: Tempo) -> float:
    """The envelope's periodicity over a bar: the most of its periodicity at two, three and four beats of ``tempo``
    (those within its tempogram's lags)."""
    return max(periodicity(tempo.correlation, beats * tempo.period) for beats in (2, 3, 4))


def _refuse_without_beat(envelope: Envelope, tempo: Tempo, source: object, min_confidence: float) -> None:
    """Raise :class:`NoSteadyBeat` for noise (no periodicity) and for speech (weak periodicity at the beat and over a
    bar, and gaps)."""
    if tempo.confidence < NOISE_CONFIDENCE:
        raise NoSteadyBeat(source, f"periodicity {tempo.confidence:.2f} below {NOISE_CONFIDENCE:.2f}: noise or speech")
    if tempo.confidence >= min_confidence:  # a steady beat: its gaps need not be measured
        return
    gaps = gap_share(envelope.loudness)
    if gaps < SPEECH_GAPS:
        return
    over_a_bar = bar_periodicity(tempo)
    if over_a_bar < BAR_PERIODICITY:
        raise NoSteadyBeat(source, f"periodicity {tempo.confidence:.2f} below {min_confidence:.2f}, {over_a_bar:.2f} over a "
                                   f"bar, and {gaps:.0%} of it silent between sounds: speech")


def _refine(frames: np.ndarray, score: np.ndarray) -> np.ndarray:
    """Fractional beat positions (beats,) in frames: each beat frame moved to the peak of the parabola through its
    local ``score`` and its neighbours' (at most half a frame; not moved where the score is not a peak)."""
    inner = (frames > 0) & (frames < len(score) - 1)
    offsets = np.zeros(len(frames))
    left, middle, right = (score[np.clip(frames + step, 0, len(score) - 1)] for step in (-1, 0, 1))
    curvature = left - 2.0 * middle + right
    peak = inner & (curvature < 0)
    offsets[peak] = 0.5 * (left - right)[peak] / curvature[peak]
    return frames + np.clip(offsets, -0.5, 0.5)


def _from_the_start(positions: np.ndarray, period: float, loudness: np.ndarray | None) -> np.ndarray:
    """``positions`` (beats,) in frames with the beat one ``period`` before the first added where it falls at the very
    start (no earlier than a sixth of a period before frame 0, placed at 0) and the audio sounds there."""
    earlier = positions[0] - period if len(positions) else -np.inf
    sounding = loudness is None or loudness[0] > np.percentile(loudness, 95) - GAP_DB
    if -period / 6.0 <= earlier < period / 2.0 and sounding:
        return np.concatenate([[max(earlier, 0.0)], positions])
    return positions


def on_the_bass(frames: np.ndarray, score: np.ndarray, bass: np.ndarray, period: float) -> np.ndarray:
    """``frames`` (beats,) moved by a quarter or half ``period`` where the bass drum strikes: where the local ``bass``
    score (frames,) is :data:`BASS_LEAD` times as strong there as on the beats and the local ``score`` (frames,) of all
    bands at least :data:`SYNCOPATION` of the beats'. A syncopated drum's loudest stroke can fall a sixteenth after the
    beat (candombe, samba), nearly as strong as the beat's: the bass drum then marks the beat."""
    def mean_at(values, at):
        return float(values[np.clip(at, 0, len(values) - 1)].mean())

    best, lead = 0.0, BASS_LEAD
    here_bass, here = max(mean_at(bass, frames), 1e-12), mean_at(score, frames)
    for shift in (-0.25, 0.25, 0.5):
        moved = np.round(frames + shift * period).astype(np.int64)
        gain = mean_at(bass, moved) / here_bass
        if gain >= lead and mean_at(score, moved) >= SYNCOPATION * here:
            best, lead = shift, gain
    moved = np.round(frames + best * period).astype(np.int64)
    return moved[(moved >= 0) & (moved < len(score))]


def other_level(frames: np.ndarray, score: np.ndarray, bpm: float) -> float:
    """The tempo (BPM) the pulse of beats at ``frames`` (beats,) may be heard at instead: double ``bpm`` when the local
    ``score`` (frames,) halfway between beats is strong, relative to the beats', half when every other beat stands out, a
    third when every third does, by :data:`BAR_OF_THREE` or more and more than any beat of four does (a bar of three, a
    waltz's, which no half tempo divides); whichever is the strongest (the difference between the beats that stand out
    and the rest, relative to the beats') of those within :data:`~.tempo.MIN_BPM`-:data:`~.tempo.MAX_BPM`."""
    if len(frames) < 4:
        return 0.0
    on = score[frames]
    between = score[(frames[1:] + frames[:-1]) // 2]
    strength = max(float(on.mean()), 1e-12)

    def standing_out(every):  # the most the beats of one phase of ``every`` stand out from the others
        phases = np.arange(len(on)) % every
        return max(abs(float(on[phases == phase].mean() - on[phases != phase].mean())) for phase in range(every)) / strength

    candidates = [(2.0 * bpm, float(between.mean()) / strength), (0.5 * bpm, standing_out(2))]
    if standing_out(3) >= max(BAR_OF_THREE, standing_out(4)):  # else an even pulse, or bars of four with uneven accents
        candidates.append((bpm / 3.0, standing_out(3)))
    levels = [level for level in candidates if MIN_BPM <= level[0] <= MAX_BPM]
    return max(levels, key=lambda level: level[1])[0] if levels else 0.0


def beats_from_envelope(envelope: Envelope, source: object = "the audio", tightness: float = TIGHTNESS,
                        min_confidence: float = MIN_CONFIDENCE) -> Beats:
    """Track the beats in an onset ``envelope``; ``source`` names the audio in errors.

    Raises :class:`NoSteadyBeat` for silence, for noise and speech (see :func:`_refuse_without_beat`) and for audio
    shorter than one bar of four beats. A weak beat is tracked: its low confidence says how weak.
    """
    values = envelope.values
    if len(values) < 3 or not np.any(values > 0):
        raise NoSteadyBeat(source, "silence")
    tempo: Tempo = estimate_tempo(values, envelope.frame_rate)
    if len(values) < BAR * tempo.period:
        raise NoSteadyBeat(source, f"{envelope.seconds:.2f} s is shorter than one bar of {BAR} beats at "
                                   f"{tempo.bpm:.0f} BPM")
    _refuse_without_beat(envelope, tempo, source, min_confidence)
    score = local_score(values, tempo.period)
    cumulative, backlink = dynamic_program(score, tempo.period, tightness)
    frames = _trim(_backtrace(cumulative, backlink, tempo.period), score)
    if envelope.bass is not None and len(frames):
        frames = on_the_bass(frames, score, local_score(envelope.bass, tempo.period), tempo.period)
    if len(frames) < BAR:
        raise NoSteadyBeat(source, f"{len(frames)} beats, fewer than one bar of {BAR}")
    positions = _from_the_start(_refine(frames, score), tempo.period, envelope.loudness)
    times = np.round(positions * envelope.hop) / envelope.rate  # to the sample
    return Beats(tempo.bpm, times, values, envelope.frame_rate, tempo.confidence, envelope.peaks,
                 other_level(frames, score, tempo.bpm))


def track_beats(audio: np.ndarray | Iterable[np.ndarray], rate: float, source: object = "the audio",
                tightness: float = TIGHTNESS, min_confidence: float = MIN_CONFIDENCE) -> Beats:
    """The tempo and beats of mono ``audio`` at ``rate`` Hz: samples in [-1, 1], shape (samples,), or an iterable of
    such blocks (an hour in blocks needs only the envelope in memory). See :func:`beats_from_envelope`."""
    return beats_from_envelope(onset_strength(audio, rate), source, tightness, min_confidence)


def track_wav(path: str | os.PathLike, tightness: float = TIGHTNESS, min_confidence: float = MIN_CONFIDENCE) -> Beats:
    """The tempo and beats of the WAV file at ``path``, read in blocks; :class:`~core.errors.AudioError` when it
    cannot be read, :class:`~core.errors.NoSteadyBeat` when it has no beat."""
    return track_beats(wav_blocks(path), wav_info(path).rate, os.fspath(path), tightness, min_confidence)


def f_measure(detected: np.ndarray, reference: np.ndarray, window: float = F_WINDOW) -> float:
    """The beat-tracking F-measure of ``detected`` against ``reference`` beat times (seconds, any order): each
    reference beat matches at most one detected beat within ``window`` seconds (maximal one-to-one matching);
    F = 2 * matches / (detected + reference). 1.0 when both are empty."""
    detected, reference = np.sort(np.asarray(detected, float)), np.sort(np.asarray(reference, float))
    if len(detected) + len(reference) == 0:
        return 1.0
    matches = i = j = 0
    while i < len(detected) and j < len(reference):  # greedy left to right is a maximum matching on a line
        if abs(detected[i] - reference[j]) <= window:
            matches, i, j = matches + 1, i + 1, j + 1
        elif detected[i] < reference[j]:
            i += 1
        else:
            j += 1
    return 2.0 * matches / (len(detected) + len(reference))
