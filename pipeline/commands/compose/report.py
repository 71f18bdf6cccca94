"""compose's report (synth's too): the entry of one composition, its row in the summaries and its section of the page
(the timeline labelled by clip, the junctions with their verdicts, the performance playing with its clips named)."""

import html
import pathlib

from ....core.measure import verdict as verdicts
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


def composition_entry(paths, armature, outputs, composed, source_of=None):
    """The report of one composition (``composed``: a :class:`~....core.compose.sequence.Composition` of the files ``paths``).

    ``segments`` name each clip's frames shown (its own frame numbers) and
    where they landed (``output_frames``: 0-based indices in the written
    file); each of ``transitions`` gives the same way its ``blend_span`` (the
    frames its blend made), ``window`` (every frame it changed, the legs
    re-solved around the blend included) and ``warp_span`` (its time warp's
    frames, or None). source_of(segment): the file a segment comes
    from (default: the ``paths`` entry of its piece, as composed in the order given).
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
        "figure": player.figure_json(composed.clip, [mark for k, t in enumerate(transitions, 1) for mark in _marks(k, t)],
                                     [(*s["output_frames"], pathlib.Path(s["source"]).name) for s in segments]),
    }
    return entries.judged(entry, verdict(entry))


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
    how = f"{'loop' if entry['composition']['loop'] else 'composed'}, {len(entry['transitions'])} junctions"
    return Row(f"{entry['frames']} frames at {entry['fps']:g} fps", how, composition_visibility(entry))


def _junction_items(entry):
    return "".join(f"<li>blend {_frames(t.get('blend_span') or t['window'])}, changed {_frames(t['window'])}: {t['method'].lower()}, {t['length_s']:g} s, "
                   f"<b>{t['verdict']['word'] if 'verdict' in t else '-'}</b>: visibility {t['metrics']['visibility']:.2f}, root speed jump "
                   f"{t['metrics']['root_speed_jump']:.2f} m/s (clips {t['metrics']['clips_root_speed_jump']:.2f} m/s), off the floor "
                   f"{t['metrics'].get('floor_offset', 0.0):.3f} m</li>" for t in entry["transitions"])


def _frames(span):
    return f"frames {span[0]}-{span[1]}"


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
            f'<div class="figures"><div><p>Segments:</p><ol>{segments}</ol></div><div><p>Junctions:</p><ol>{_junction_items(entry)}</ol></div></div>'
            f'{f"<details><summary>Notes</summary><ul>{notes}</ul></details>" if notes else ""}')
