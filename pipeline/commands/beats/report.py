"""beats's report: the entry of one song, its row in the summaries and its section of the page (the onset envelope with
the beats, the song playing with the beats flashing)."""

import base64
import html
import json
import os
import pathlib

import numpy as np

from ....core.measure import verdict as verdicts
from ....core.music import f_measure
from ... import entries
from ...contract import Row
from ...html import parts
from ...html.charts import Chart, legend, LOOP, RAW, SEAM

PLOT_POINTS = 1600  # envelope points kept for the chart: a longer envelope keeps each stretch's peak
DETAIL_SECONDS = 30.0  # a longer song's envelope is drawn over its first this many seconds (its beats stay apart), its tempo over all of it
EMBED_BYTES = 20 * 2 ** 20  # a song up to this size plays from the page itself; a larger one is linked beside it
MIME = {".wav": "audio/wav", ".wave": "audio/wav", ".ogg": "audio/ogg", ".oga": "audio/ogg", ".opus": "audio/ogg", ".flac": "audio/flac",
        ".mp3": "audio/mpeg", ".mp2": "audio/mpeg", ".m4a": "audio/mp4", ".aac": "audio/aac", ".ac3": "audio/ac3", ".eac3": "audio/eac3",
        ".wma": "audio/x-ms-wma", ".aif": "audio/aiff", ".aiff": "audio/aiff", ".mka": "audio/x-matroska"}
SCRIPT = (pathlib.Path(__file__).resolve().parents[2] / "html" / "beats.js").read_text(encoding="utf-8")


REFERENCE = "#2e9b44"  # the reference beats (annotations, another tracker's) beside the beats found


def _envelope(values, frame_rate, digits=2):
    """The onset envelope (or the waveform's peaks) for the chart over the song's first :data:`DETAIL_SECONDS` at most:
    ``{"step_s", "values", "seconds"}``, at most :data:`PLOT_POINTS` values (each the peak of the frames it stands for), to
    ``digits`` decimals."""
    values = np.asarray(values, float)[: int(np.ceil(DETAIL_SECONDS * frame_rate))]
    pool = max(1, int(np.ceil(len(values) / PLOT_POINTS)))
    padded = np.pad(values, (0, -len(values) % pool))
    return {"step_s": round(pool / frame_rate, 6), "values": entries.rounded(padded.reshape(-1, pool).max(axis=1), digits),
            "seconds": round(len(values) / frame_rate, 3)}


def judge(entry, confidence):
    """The verdict: GOOD for a steady beat found with a confidence of :data:`...core.measure.verdict.BEAT_CONFIDENCE_GOOD`
    or more, else CHECK."""
    return entries.judged(entry, verdicts.judge([], concerns=verdicts.weak_beat(confidence)))


def beats_entry(path, song, beats, targets, page_folder, reference=None):
    """The report of the beats of the song at ``path`` (``song``: :class:`~...bridge.audio.Audio`; ``beats``:
    :class:`~...core.music.beats.Beats`) written to ``targets``; ``page_folder``: where the report page goes; ``reference``:
    beat times (seconds) to compare with, or None."""
    duration = len(beats.envelope) / beats.frame_rate
    music = {"tempo_bpm": round(float(beats.tempo_bpm), 2), "other_bpm": round(float(beats.other_bpm), 2),
             "beats": entries.rounded(beats.times, 6),  # to the microsecond: the sample a beat falls on
             "confidence": round(float(beats.confidence), 3), "duration_s": round(duration, 3),
             "rate": int(song.rate) if float(song.rate).is_integer() else round(float(song.rate), 3)}
    entry = {"file": str(path), "armature": "", "status": "ok", "outputs": [str(target) for target in targets], "seconds": 0.0,
             "music": music, "envelope": _envelope(beats.envelope, beats.frame_rate), "reader": song.reader,
             "audio": {"path": str(pathlib.Path(path).resolve()), "href": _relative(path, page_folder)}}
    if beats.peaks is not None:
        entry["waveform"] = _envelope(beats.peaks, beats.frame_rate, 3)
    if reference is not None:
        entry["reference"] = {"beats": entries.rounded(reference, 3), "f_measure": round(f_measure(beats.times, np.asarray(reference)), 3)}
    return judge(entry, music["confidence"])


def _relative(path, folder):
    """``path`` relative to ``folder`` as a URL path (forward slashes), or its absolute file:// URL on another drive."""
    try:
        return pathlib.Path(os.path.relpath(pathlib.Path(path).resolve(), folder)).as_posix()
    except ValueError:
        return pathlib.Path(path).resolve().as_uri()


def row(entry):
    music = entry["music"]
    against = f", F {entry['reference']['f_measure']:.2f} against the reference" if entry.get("reference") else ""
    return Row(f"{len(music['beats'])} beats over {music['duration_s']:.1f} s", f"{music['tempo_bpm']:.1f} BPM",
               f"confidence {music['confidence']:.2f}{against}")


def _playhead(chart):
    """The line the script moves with the song across ``chart`` (hidden past its end)."""
    ys = (chart.TOP, chart.TOP + chart.plot_height)
    return (f'<line class="playhead" x1="{chart.LEFT}" x2="{chart.LEFT}" y1="{ys[0]}" y2="{ys[1]}" stroke="#222" '
            f'stroke-width="1.5" visibility="hidden" data-left="{chart.LEFT}" data-width="{chart.plot_width}" '
            f'data-seconds="{chart.x_range[1]:g}"/>')


def _chart(entry):
    """The onset envelope over time (the song's first :data:`DETAIL_SECONDS` at most) with the beats marked, and a playhead."""
    music, envelope = entry["music"], entry["envelope"]
    values = envelope["values"]
    seconds = envelope.get("seconds", music["duration_s"])
    times = [k * envelope["step_s"] for k in range(len(values))]
    top = max(max(values, default=0.0), 1e-3) * 1.05
    chart = Chart("onset envelope with the beats", (0.0, max(seconds, 1e-3)), (0.0, top), "time (s)", "onset strength (dB)", width=720)
    _beat_marks(chart, music["beats"], seconds, SEAM, "beat-marks")
    if entry.get("reference"):
        _beat_marks(chart, entry["reference"]["beats"], seconds, REFERENCE, "reference-marks", dashed=True)
    chart.polyline(times, values, LOOP, "envelope", width=1.0)
    chart.parts.append(_playhead(chart))
    return chart.svg()


def _beat_marks(chart, times, seconds, colour, kind, dashed=False):
    """Vertical lines across ``chart`` at ``times`` up to ``seconds``."""
    ys = (chart.TOP, chart.TOP + chart.plot_height)
    marks = " ".join(f"M{chart.x(t):.1f} {ys[0]}V{ys[1]}" for t in times if t <= seconds)
    dash = ' stroke-dasharray="4 3"' if dashed else ""
    chart.parts.append(f'<path class="{kind}" d="{marks}" stroke="{colour}" stroke-width="1" stroke-opacity="0.7"{dash} fill="none"/>')


def _waveform_chart(entry):
    """The waveform (each stretch's peak, mirrored) over the envelope's span with the beats found and the reference's."""
    waveform, music = entry["waveform"], entry["music"]
    peaks = np.asarray(waveform["values"], float)
    times = np.arange(len(peaks)) * waveform["step_s"]
    seconds = max(waveform["seconds"], 1e-3)
    chart = Chart("waveform with the beats", (0.0, seconds), (-1.0, 1.0), "time (s)", "amplitude", width=720, height=170)
    outline = " ".join(f"{chart.x(t):.1f},{chart.y(v):.1f}" for t, v in zip(np.concatenate([times, times[::-1]]),
                                                                          np.concatenate([peaks, -peaks[::-1]])))
    chart.parts.append(f'<polygon class="waveform" points="{outline}" fill="{RAW}" fill-opacity="0.6" stroke="none"/>')
    _beat_marks(chart, music["beats"], seconds, SEAM, "beat-marks")
    if entry.get("reference"):
        _beat_marks(chart, entry["reference"]["beats"], seconds, REFERENCE, "reference-marks", dashed=True)
    chart.parts.append(_playhead(chart))
    return chart.svg()


def _tempo_chart(entry):
    """The local tempo (60 over each beat's interval, BPM) over the whole song, the song's tempo as a level, and a playhead."""
    music = entry["music"]
    beats = np.asarray(music["beats"], float)
    local = 60.0 / np.diff(beats)
    low, high = min(local.min(), music["tempo_bpm"]) * 0.9, max(local.max(), music["tempo_bpm"]) * 1.1
    chart = Chart("tempo over the song", (0.0, max(music["duration_s"], 1e-3)), (low, high), "time (s)", "tempo (BPM)", width=720,
                  height=170)
    chart.polyline(0.5 * (beats[1:] + beats[:-1]), local, LOOP, "tempo", width=1.0)
    chart.level(music["tempo_bpm"], SEAM, f"{music['tempo_bpm']:.1f} BPM")
    chart.parts.append(_playhead(chart))
    return chart.svg()


def _audio_source(entry):
    """The ``src`` of the song's ``<audio>``: the file itself as a data: URI when it is at most :data:`EMBED_BYTES`, else
    its path relative to the page; and a note on which."""
    audio = entry.get("audio") or {}
    path = pathlib.Path(audio.get("path") or entry["file"])
    mime = MIME.get(path.suffix.lower(), "audio/wav")
    try:
        if path.stat().st_size <= EMBED_BYTES:
            return f"data:{mime};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}", "embedded in this page"
    except OSError:
        return audio.get("href") or path.as_uri(), "linked (it could not be read when this page was written)"
    return audio.get("href") or path.as_uri(), f"linked beside the page (over {EMBED_BYTES // 2 ** 20} MB)"


def _waveform(entry):
    return f'<div class="waveform-chart">{_waveform_chart(entry)}</div>' if entry.get("waveform") else ""


def _legend(entry):
    shown = [(RAW, "waveform", "bar")] if entry.get("waveform") else []
    shown += [(LOOP, "onset envelope", "line"), (SEAM, "beats found", "line")]
    return shown + ([(REFERENCE, "reference beats", "dashed")] if entry.get("reference") else [])


def section(entry):
    """The song's section: facts, verdict, the envelope with the beats, the song playing with the beats flashing."""
    music = entry["music"]
    source, how = _audio_source(entry)
    beats = music["beats"]
    first = f", the first at {beats[0]:.3f} s" if beats else ""
    reference = entry.get("reference")
    against = (f" Against the reference's {len(reference['beats'])} beats: F {reference['f_measure']:.2f} at +-70 ms."
               if reference else "")
    other = f" (the pulse may be heard at {music['other_bpm']:.1f} BPM too)" if music.get("other_bpm") else ""
    facts = (f"<p>{music['tempo_bpm']:.1f} BPM{other}: {len(beats)} beats over {music['duration_s']:.1f} s{first} "
             f"(confidence {music['confidence']:.2f}; {music['rate']:g} Hz).{against} {parts.outputs_html(entry)}</p>")
    data = json.dumps(beats, separators=(",", ":"))
    long = entry["envelope"].get("seconds", music["duration_s"]) < music["duration_s"] - 1e-3 and len(beats) >= 3
    tempo = f'<div class="tempo-chart">{_tempo_chart(entry)}</div>' if long else ""
    player = (f'<div class="beats-player"><script type="application/json" class="beat-times">{data}</script>'
              f'<div style="display:flex;align-items:center;gap:10px"><audio class="song" controls preload="auto" '
              f'src="{html.escape(source)}"></audio><span class="beat-flash" title="flashes on every beat" style="display:inline-block;'
              f'width:28px;height:28px;border-radius:50%;background:#ddd;transition:background 60ms"></span>'
              f'<span class="beat-count" style="font-size:12px;color:#555"></span></div>'
              f'{_waveform(entry)}<div class="beat-chart">{_chart(entry)}</div>'
              f'{legend(_legend(entry))}{tempo}</div>')
    shown = entry["envelope"].get("seconds", music["duration_s"])
    below = "; the tempo below covers the whole song" if tempo else ""
    span = f"its first {shown:g} s ({sum(t <= shown for t in beats)} of the {len(beats)} beats marked{below})" \
        if shown < music["duration_s"] - 1e-3 else f"time, the {len(beats)} beats marked"
    figure = parts.figure(f"The waveform and the onset envelope (spectral flux, dB) over {span}; the song ({how}) plays with the "
                          "beats flashing and the playhead moving.", player)
    return f'{facts}{parts.verdict_html(entry)}<div class="figures">{figure}</div><script>{SCRIPT}</script>'
