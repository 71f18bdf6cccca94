"""compose's report (synth's too): the entry of one composition, its row in the summaries and its section of the page
(the timeline labelled by clip, the junctions with their verdicts, the performance playing with its clips named)."""

import html
import pathlib

import numpy as np

from ....core.measure import verdict as verdicts
from ....core.music import perform, sync
from ... import entries
from ...contract import Row
from ...html import charts, parts, player


def _junction(transition):
    metrics = entries.metrics_json(transition.metrics)
    return {"window": [int(transition.window[0]), int(transition.window[1])], "blend_span": entries.span(transition.blend_span),
            "warp_span": entries.span(transition.warp_span), "from_frame": int(transition.frame_a),
            "to_frame": int(transition.frame_b), "method": transition.method, "length_s": round(float(transition.length), 3),
            "metrics": metrics, "verdict": verdicts.of_transition(metrics).to_json()}


def _marks(number, transition):
    """A junction's marks in the player: its blend, then the frames around it whose legs were re-solved."""
    blend = transition["blend_span"] or transition["window"]
    return [(*blend, f"junction {number}: {transition['method'].lower()} {transition['length_s']:g} s"),
            (*transition["window"], f"junction {number}: feet kept planted")]


def verdict(entry):
    """A composition's verdict: its junctions' (and a loop's seam), the body's place against the clips' floor."""
    numbers = entry["composition"]["numbers"]
    return verdicts.of_composition([t["metrics"] for t in entry["transitions"]], numbers.get("seam_visibility"),
                                   numbers.get("floor_offset_m", 0.0), numbers.get("pelvis_offset_m", 0.0))


def _ms(values):
    return [round(float(value) * 1000.0, 1) for value in values]


def music_json(music):
    """The entry's ``music`` block of a performance synced to a song (a compose job's ``Music``): times in seconds on the
    output's clock (0 is its first frame), offsets in frames and milliseconds."""
    result, numbers, fps = music.sync, music.numbers, music.sync.fps
    before = perform.grid_offsets(np.array(numbers["keyposes_before"]), result.grid)
    after = perform.grid_offsets(np.array(numbers["keyposes_after"]), result.grid)
    step = max(1, len(result.stretch) // 400)
    block = {"song": str(music.song.path.resolve()), "audio": music.audio, "audio_start_s": round(music.audio_start, 4),
             "tempo_bpm": round(float(music.song.beats.tempo_bpm), 2), "confidence": round(float(music.song.beats.confidence), 3),
             "beats": [round(float(b), 4) for b in music.beats], "grid": [round(float(g), 4) for g in result.grid if -1e-9 <= g <= result.end + 1e-6],
             "ratio": result.ratio, "speed": round(result.speed, 4), "motion_bpm": round(result.motion_bpm, 2), "end_s": round(result.end, 4),
             "other_bpm": round(float(music.song.beats.other_bpm), 2),
             "parts": [{"clip": part.name, "first_s": round(part.first, 4), "ratio": part.ratio, "speed": round(part.speed, 4),
                        "motion_bpm": round(part.motion_bpm, 2), "danced_bpm": round(part.ratio * result.song_bpm, 2)}
                       for part in result.parts],
             "max_stretch": [float(b) for b in music.bounds], "stretch_range": [round(v, 4) for v in numbers["stretch_range"]],
             "stretch": [round(float(v), 4) for v in result.stretch[::step]], "stretch_step": step,
             "offsets_before_frames": [round(float(v) * fps, 2) for v in before], "offsets_after_frames": [round(float(v) * fps, 2) for v in after],
             "offsets_before_ms": _ms(before), "offsets_after_ms": _ms(after),
             **{key: numbers[key] for key in ("keyposes_before", "keyposes_after", "windows_after", "junctions", "out_of_reach")},
             "drift_ms": [round(float(v), 1) for v in numbers["drift_ms"]],
             **{key: round(float(numbers[key]), 4) for key in ("on_beat_before", "on_beat_after", "on_beat_chance", "mean_stretch", "skating_before",
                                                               "skating_after", "skating_after_per_input")},
             "visibility_before": [round(float(v), 3) for v in numbers["visibility_before"]],
             "visibility_after": [round(float(v), 3) for v in numbers["visibility_after"]]}
    after = result.end - music.song_end
    if after > 0.5 / fps:  # the song ended first: the motion played on its beat continued
        block["after_song_s"] = round(float(after), 3)
    block["verdict"] = verdicts.of_sync(block).to_json()
    block["waveform"] = _waveform(music.song.beats, music.audio_start, result.end)
    return block


WAVEFORM_POINTS = 560  # the song's waveform under the beats and keyposes: one peak per this share of the output


def _waveform(beats, start, seconds):
    """The song's waveform on the output's clock from 0 to ``seconds`` (the song from ``start``): ``{"step_s", "values"}``,
    each value the largest absolute sample of its stretch, at most :data:`WAVEFORM_POINTS`; None without the peaks."""
    if beats.peaks is None:
        return None
    first = int(round(start * beats.frame_rate))
    peaks = np.asarray(beats.peaks, float)[first: first + int(np.ceil(seconds * beats.frame_rate)) + 1]
    pool = max(1, int(np.ceil(len(peaks) / WAVEFORM_POINTS)))
    pooled = np.pad(peaks, (0, -len(peaks) % pool)).reshape(-1, pool).max(axis=1) if len(peaks) else peaks
    return {"step_s": round(pool / beats.frame_rate, 6), "values": [round(float(v), 3) for v in pooled]}


def _shown(span, shown):
    """The part ``[first, last]`` of ``span`` (frames as composed) inside ``shown`` ``(start, stop)``, or None outside it."""
    first, last = max(span[0], shown[0]), min(span[1], shown[1] - 1)
    return None if last < first else [first, last]


def _played(entry, music):
    """``entry``'s frames (segments, junctions) where the synced output plays them. A segment keeps only the frames of its
    clip the performance shows (its ends may fall before its first or after its last beat), a junction only what it shows
    of its spans; one it does not show at all goes, and the entry's notes say so."""
    result = music.sync
    shown = (int(np.ceil(result.input_frames[0] - 1e-6)), int(np.floor(result.input_frames[-1] + 1e-6)) + 1)

    def mapped(span):
        part = None if span is None else _shown(span, shown)
        return None if part is None else [int(v) for v in perform.output_frames(result, part)]

    segments, left_out = [], []
    for segment in entry["segments"]:
        part = _shown(segment["output_frames"], shown)
        if part is None:
            left_out.append(pathlib.Path(segment["source"]).name)
            continue
        (source_first, source_last), (first, last) = segment["range"], segment["output_frames"]
        rate = (source_last - source_first) / max(last - first, 1)  # a time-warped blend plays a few frames faster or slower
        kept = [int(round(source_first + (frame - first) * rate)) for frame in part]
        segments.append({**segment, "range": kept, "output_frames": mapped(part)})
    transitions = [{**t, **{key: mapped(t.get(key)) for key in ("window", "blend_span", "warp_span")}} for t in entry["transitions"]]
    entry["segments"], entry["transitions"] = segments, [t for t in transitions if t["window"] is not None]
    if left_out:
        entry["composition"]["notes"].append(f"the performance ends on a beat before {', '.join(left_out)} plays: "
                                             "its segment is left out")
    entry["frames"], entry["frames_before_sync"] = int(music.clip.num_frames), entry["frames"]


def composition_entry(paths, armature, outputs, composed, source_of=None, music=None):
    """The report of one composition (``composed``: a :class:`~....core.compose.sequence.Composition` of the files ``paths``).

    ``segments`` name each clip's frames shown (its own frame numbers) and
    where they landed (``output_frames``: 0-based indices in the written
    file); each of ``transitions`` gives the same way its ``blend_span`` (the
    frames its blend made), ``window`` (every frame it changed, the legs
    re-solved around the blend included) and ``warp_span`` (its time warp's
    frames, or None). source_of(segment): the file a segment comes
    from (default: the ``paths`` entry of its piece, as composed in the order given). music: the performance synced to a song
    (compose's job ``Music``): the frames are then the synced output's, and the entry has its ``music`` block (:func:`music_json`).
    """
    source_of = source_of or (lambda segment: paths[segment.piece])
    segments = [{"source": str(source_of(segment)), "range": [int(segment.source_first), int(segment.source_last)],
                 "output_frames": [int(segment.out_first), int(segment.out_last)]} for segment in composed.segments]
    transitions = [_junction(t) for t in composed.transitions]
    entry = {
        "file": str(paths[0]), "clips": [str(path) for path in paths], "armature": armature, "status": "ok",
        "outputs": [str(output) for output in outputs], "frames": int(composed.clip.num_frames), "fps": entries.frame_rate(composed.clip.fps),
        "composition": {"loop": bool(composed.loop), "numbers": {name: round(float(value), 4) for name, value in composed.numbers.items()},
                        "notes": list(composed.notes), "warnings": list(composed.warnings)},
        "segments": segments, "transitions": transitions,
    }
    if music is not None:
        _played(entry, music)
        entry["music"] = music_json(music)
    entry["figure"] = player.figure_json(composed.clip if music is None else music.clip,
                                         [mark for k, t in enumerate(transitions, 1) for mark in _marks(k, t)],
                                         [(*s["output_frames"], pathlib.Path(s["source"]).name) for s in segments])
    if music is not None:
        entry["figure"].update(audio=music.audio, audio_start=round(music.audio_start, 4), beats=entry["music"]["beats"])
    entry = entries.judged(entry, verdict(entry))
    return entries.worsened(entry, verdicts.of_sync(entry["music"])) if music is not None else entry


def composition_svg(entry, width=560, row=22):
    """The composition's timeline on a time axis: one bar per segment labelled with its clip (one colour per clip), the
    junctions' blends outlined over them."""
    fps, frames = entry["fps"], max(entry["frames"] - 1, 1)
    chart = charts.Chart("composition timeline", (0.0, frames / fps), (0.0, 1.0), "time in the output (s)", "", width=width, height=row + 70)
    names = [pathlib.Path(segment["source"]).name for segment in entry["segments"]]
    colours = charts.clip_colours(names)
    top, height = chart.TOP + 6, chart.plot_height - 12
    for name, segment in zip(names, entry["segments"]):
        first, last = (frame / fps for frame in segment["output_frames"])
        x0, x1 = chart.x(first), chart.x(last)
        chart.parts.append(f'<rect class="segment" x="{x0:.1f}" y="{top}" width="{max(x1 - x0, 1.0):.1f}" height="{height}" '
                           f'fill="{colours[name]}" opacity="0.75"><title>{html.escape(name)}: its frames {segment["range"][0]}-'
                           f'{segment["range"][1]}</title></rect>'
                           f'<text class="segment-name" x="{x0 + 3:.1f}" y="{top + height / 2 + 4:.1f}" font-size="10" fill="#fff">'
                           f'{html.escape(name[:max(int((x1 - x0) / 6), 0)])}</text>')
    for k, transition in enumerate(entry["transitions"], 1):
        first, last = (frame / fps for frame in transition["window"])
        chart.parts.append(f'<rect class="junction" x="{chart.x(first):.1f}" y="{top - 4}" width="{max(chart.x(last) - chart.x(first), 2.0):.1f}" '
                           f'height="{height + 8}" fill="none" stroke="{charts.SEAM}" stroke-width="2"><title>junction {k}: '
                           f'{transition["method"].lower()}, {transition["length_s"]:g} s, visibility {transition["metrics"]["visibility"]:.2f}'
                           f'</title></rect>')
    keys = [(colour, name, "bar") for name, colour in colours.items()] + [(charts.SEAM, "a junction's blend", "line")]
    return chart.svg(y_axis=False) + charts.legend(keys)


def composition_visibility(entry):
    """A composition's worst junction visibility (and its loop seam's)."""
    worst = max((t["metrics"]["visibility"] for t in entry["transitions"]), default=0.0)
    seam = entry["composition"]["numbers"].get("seam_visibility")
    return f"worst junction visibility {worst:.2f}" + (f", loop seam {seam:.2f}" if seam is not None else "")


def title(entry):
    """What a composition or synthesis is of: its clips in order, or the graph file it walked."""
    if entry.get("graph_file"):
        return f"{pathlib.Path(entry['graph_file']).name} ({len(entry['clips'])} clips)"
    return " + ".join(pathlib.Path(path).name for path in entry["clips"])


def row(entry):
    """The composition's cells in the summaries."""
    count = len(entry["transitions"])
    how = f"{'loop' if entry['composition']['loop'] else 'composed'}, {count} junction{'' if count == 1 else 's'}"
    numbers = composition_visibility(entry)
    music = entry.get("music")
    if music:
        how += f", to {pathlib.Path(music['song']).name}"
        numbers += (f"; keyposes on the beat {music['on_beat_before']:.0%} -> {music['on_beat_after']:.0%}, speed "
                    f"{music['stretch_range'][0]:.2f}-{music['stretch_range'][1]:.2f}x")
    return Row(f"{entry['frames']} frames at {entry['fps']:g} fps", how, numbers)


def _junction_items(entry):
    return "".join(f"<li>blend {_frames(t.get('blend_span') or t['window'])}, changed {_frames(t['window'])}: {t['method'].lower()}, {t['length_s']:g} s, "
                   f"<b>{t['verdict']['word'] if 'verdict' in t else '-'}</b>: visibility {t['metrics']['visibility']:.2f}, root speed jump "
                   f"{t['metrics']['root_speed_jump']:.2f} m/s (clips {t['metrics']['clips_root_speed_jump']:.2f} m/s), off the floor "
                   f"{t['metrics'].get('floor_offset', 0.0):.3f} m</li>" for t in entry["transitions"])


def _frames(span):
    return f"frames {span[0]}-{span[1]}"


BEAT, BEFORE, AFTER = "#bbb", "#e08a2c", "#2c6fe0"


def beats_svg(music, width=560):
    """The beats (grey lines) against the keyposes before the sync (played as captured, top row) and after (bottom row)."""
    end = max(music["end_s"], max(music["keyposes_before"], default=0.0), 1e-3)
    chart = charts.Chart("beats and keyposes", (0.0, end), (0.0, 2.0), "time in the output (s)", "", width=width, height=120)
    waveform = music.get("waveform")
    if waveform and waveform["values"]:  # the song under them, mirrored about the middle
        peaks = 0.95 * np.asarray(waveform["values"]) / max(max(waveform["values"]), 1e-9)
        times = np.arange(len(peaks)) * waveform["step_s"]
        outline = " ".join(f"{chart.x(t):.1f},{chart.y(1.0 + v):.1f}" for t, v in zip(np.concatenate([times, times[::-1]]),
                                                                                  np.concatenate([peaks, -peaks[::-1]])) if t <= end)
        chart.parts.append(f'<polygon class="waveform" points="{outline}" fill="#ddd" stroke="none"/>')
    for beat in music["beats"]:
        chart.parts.append(f'<line class="beat" x1="{chart.x(beat):.1f}" x2="{chart.x(beat):.1f}" y1="{chart.TOP}" '
                           f'y2="{chart.TOP + chart.plot_height}" stroke="{BEAT}"/>')
    for row, key, colour in ((1.5, "keyposes_before", BEFORE), (0.5, "keyposes_after", AFTER)):
        chart.parts.extend(f'<circle class="{key.replace("_", "-")}" cx="{chart.x(t):.1f}" cy="{chart.y(row):.1f}" r="3.5" fill="{colour}">'
                           f'<title>{t:.3f} s</title></circle>' for t in music[key] if t <= end)
    shown = [("#ddd", "the song's waveform", "bar")] if music.get("waveform") else []
    return chart.svg(y_axis=False) + charts.legend(shown + [(BEAT, "a beat", "line"), (BEFORE, "keypose before the sync (as captured)", "bar"),
                                                            (AFTER, "keypose after the sync", "bar")])


def offsets_svg(music, width=560, bins=20):
    """Histogram of the keyposes' offsets from the nearest beat (ms), before and after the sync."""
    half = 500.0 * (music["beats"][1] - music["beats"][0]) if len(music["beats"]) > 1 else 250.0
    edges = np.linspace(-half, half, bins + 1)
    counts = {key: np.histogram(np.clip(music[key], -half, half), edges)[0] for key in ("offsets_before_ms", "offsets_after_ms")}
    top = max(1, *(int(c.max()) for c in counts.values()))
    chart = charts.Chart("offsets from the beat", (-half, half), (0.0, top), "keypose minus the nearest beat (ms)", "keyposes", width=width, height=200)
    bar = chart.plot_width / bins / 2
    for shift, (key, colour) in enumerate((("offsets_before_ms", BEFORE), ("offsets_after_ms", AFTER))):
        for left, count in zip(edges[:-1], counts[key]):
            x, y = chart.x(left) + shift * bar, chart.y(count)
            chart.parts.append(f'<rect class="{key.replace("_", "-")}" x="{x:.1f}" y="{y:.1f}" width="{bar:.1f}" '
                               f'height="{chart.y(0) - y:.1f}" fill="{colour}"><title>{count}</title></rect>')
    return chart.svg() + charts.legend([(BEFORE, "before the sync", "bar"), (AFTER, "after the sync", "bar")])


def stretch_svg(music, fps, width=560):
    """The stretch (the motion's speed, 1 as captured) over the output's time, with the bounds."""
    values = music["stretch"]
    low, high = music["max_stretch"]
    chart = charts.Chart("stretch over time", (0.0, max(music["end_s"], 1e-3)), (min(low, 1.0) - 0.05, max(high, 1.0) + 0.05),
                         "time in the output (s)", "speed (1: as captured)", width=width, height=200)
    chart.polyline([k * music["stretch_step"] / fps for k in range(len(values))], values, AFTER, "stretch")
    chart.level(low, "#999", f"--max-stretch {low:g}")
    chart.level(high, "#999", f"{high:g}")
    return chart.svg()


def _tempi(music):
    """How many keyposes each clip puts on a beat, at what speed, from what tempo: one phrase (one clause per distinct clip)."""
    seen = {}
    for part in music.get("parts") or [{"clip": "", "ratio": music["ratio"], "speed": music["speed"], "motion_bpm": music["motion_bpm"]}]:
        seen.setdefault((part["clip"], part["ratio"], part["speed"]), part)
    return ", ".join(f'{"" if len(seen) == 1 else html.escape(part["clip"]) + ": "}{sync.ratio_text(part["ratio"])} keypose(s) per beat at '
                     f'{part["speed"]:.2f}x (the motion {part["motion_bpm"]:g} per minute{_danced(music, part)})' for part in seen.values())


def _danced(music, part):
    """Which level of the song's pulse a part dances to, when it is the half or double tempo rather than the beat's."""
    danced = part.get("danced_bpm")
    if danced is None or part["ratio"] not in (0.5, 2.0):
        return ""
    other = f"; the song's pulse is also heard at {music['other_bpm']:g} BPM" if music.get("other_bpm") else ""
    return f", dancing to the pulse at {danced:g} BPM, the beat's {music['tempo_bpm']:g}{other}"


def music_section(entry):
    """The sync's part of the section: the numbers, the beats against the keyposes, the offsets and the stretch."""
    music = entry["music"]
    visibility = ", ".join(f"junction {k + 1} {a:.2f} &rarr; {b:.2f}"
                           for k, a, b in zip(music.get("junctions", range(len(music["visibility_before"]))), music["visibility_before"],
                                              music["visibility_after"]))
    facts = (f'<p>Synced to <code>{html.escape(pathlib.Path(music["song"]).name)}</code> from {music["audio_start_s"]:g} s: '
             f'{music["tempo_bpm"]:g} BPM; {_tempi(music)}; '
             f'speed {music["stretch_range"][0]:.2f}-{music["stretch_range"][1]:.2f}x (allowed {music["max_stretch"][0]:g}-'
             f'{music["max_stretch"][1]:g}). Keyposes within a frame of a beat: {music["on_beat_before"]:.0%} before (chance '
             f'{music["on_beat_chance"]:.0%}), <b>{music["on_beat_after"]:.0%}</b> after: <b>{music["verdict"]["word"]}</b>. '
             f'Junction visibility (its sharpest frame against the clips it joins as they play) before &rarr; after the sync: '
             f'{visibility or "none played"}; toe skating {music["skating_before"]:.3f} &rarr; '
             f'{music["skating_after_per_input"]:.3f} m/s per input second.</p>')
    figures = [parts.figure("The beats against the keyposes, before and after the sync", beats_svg(music)),
               parts.figure("Offsets of the keyposes from the nearest beat", offsets_svg(music)),
               parts.figure("The stretch over time", stretch_svg(music, entry["fps"]))]
    return f'{facts}<div class="figures">{"".join(figures)}</div>'


def section(entry):
    """The composition's section: facts, verdict, the performance playing, its timeline, segments and junctions."""
    composition = entry["composition"]
    segments = "".join(f"<li>{html.escape(pathlib.Path(s['source']).name)} frames {s['range'][0]}-{s['range'][1]} &rarr; "
                       f"{s['output_frames'][0]}-{s['output_frames'][1]}</li>" for s in entry["segments"])
    notes = "".join(f"<li>{html.escape(note)}</li>" for note in composition["notes"])
    facts = (f'<p>{"A looping" if composition["loop"] else "A"} performance of {len(entry["segments"])} segments: {entry["frames"]} '
             f'frames at {entry["fps"]:g} fps ({(entry["frames"] - 1) / entry["fps"]:.1f} s). {parts.outputs_html(entry)}</p>')
    figures = [parts.figure("Segments in order, one colour per clip, the junctions' blends outlined", composition_svg(entry))]
    if entry.get("figure"):
        figures.insert(0, parts.figure("The performance playing (the clip's name below; pink while a junction blends)",
                                       player.player_html(entry["figure"])))
    return (f'{facts}{parts.verdict_html(entry)}<div class="figures">{"".join(figures)}</div>'
            f'{music_section(entry) if entry.get("music") else ""}'
            f'<div class="figures"><div><p>Segments:</p><ol>{segments}</ol></div><div><p>Junctions:</p><ol>{_junction_items(entry)}</ol></div></div>'
            f'{f"<details><summary>Notes</summary><ul>{notes}</ul></details>" if notes else ""}')
