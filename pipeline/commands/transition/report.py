"""transition's report: the entry of one transition, its row in the summaries and its section of the page (the
distance map with the chosen point and the time-warp path, the ranked candidates, the result playing with its blend marked)."""

import base64
import html
import pathlib

import numpy as np

from ....core.measure import verdict as verdicts
from ... import entries
from ...contract import Row
from ...html import charts, parts, player

def _distance_picture(made):
    """The distance map as a PNG (rows: FROM's frames upwards, columns: TO's; dark: alike), square-root scaled for contrast;
    ``range``: the distances black and white stand for."""
    distances = np.maximum(np.asarray(made.distance, dtype=np.float64), 0.0)
    values = np.sqrt(distances)
    low, high = float(values.min()), float(values.max())
    gray = np.round(255.0 * (values - low) / max(high - low, 1e-12)).astype(np.uint8)
    return {"frames": [[int(v) for v in pair] for pair in made.distance_frames], "shape": list(gray.shape),
            "range": [round(low * low, 4), round(high * high, 4)],
            "png": base64.b64encode(charts.png(gray[::-1])).decode("ascii")}  # the first row at the bottom, as the chart's axis runs


def transition_entry(source, target, armature, outputs, made, seconds):
    """The report of one transition (``made``: a :class:`~..core.transition.make.Transition`).

    0-based indices in the written file's frames: ``blend_span`` the frames
    the blend itself made, ``window`` every frame the transition changed
    (the legs re-solved to keep the feet planted reach beyond the blend),
    ``warp_span`` the frames its time-warped pairs play (None without a
    time warp); ``from_frame``, ``to_frame`` are the clips' own numbers.
    """
    first, last = made.window
    entry = {
        "file": str(source), "to": str(target), "armature": armature, "status": "ok", "outputs": [str(output) for output in outputs],
        "frames": int(made.clip.num_frames), "seconds": round(seconds, 3),
        "transition": {
            "from_frame": int(made.frame_a), "to_frame": int(made.frame_b), "window": [int(first), int(last)],
            "blend_span": entries.span(made.blend_span), "warp_span": entries.span(made.warp_span),
            "method": made.method, "length_s": round(float(made.length), 3), "shortened": bool(made.shortened),
            "metrics": entries.metrics_json(made.metrics),
            "candidates": [{"from_frame": int(c.frame_a), "to_frame": int(c.frame_b), "cost": round(float(c.cost), 4),
                            "contact_match": bool(c.contact_match)} for c in made.candidates],
            "distance_map": _distance_picture(made),
            "path": made.path.astype(int).tolist() if made.path is not None else None,
        },
        "figure": player.figure_json(made.clip, _marks(made),
                                     [(0, first - 1, pathlib.Path(source).name), (first, made.clip.num_frames - 1, pathlib.Path(target).name)]),
    }
    return entries.judged(entry, verdicts.of_transition(entry["transition"]["metrics"], made.concerns()))


def _marks(made):
    """The player's marks: the blend, then the frames around it whose legs were re-solved to keep the feet planted."""
    blend = made.blend_span or made.window
    return [(*blend, f"blend {made.length:g} s"), (*made.window, "feet kept planted")]


def distance_svg(transition):
    """The distance map between FROM's and TO's frames, the chosen point circled, the time-warp path drawn on it when the
    blend had one, and the grey scale's distances."""
    picture = transition["distance_map"]
    (a0, a1), (b0, b1) = picture["frames"]
    chart = charts.Chart("distance map", (b0, b1 + 1), (a0, a1 + 1), "TO's frame", "FROM's frame", width=420, height=380)
    chart.parts.append(f'<image x="{chart.LEFT}" y="{chart.TOP}" width="{chart.plot_width}" height="{chart.plot_height}" '
                       f'preserveAspectRatio="none" style="image-rendering:pixelated" href="data:image/png;base64,{picture["png"]}"/>')
    keys = [(charts.SEAM, "the transition point", "line")]
    # The warp may run past the searched region the picture covers: only its part over the picture is drawn.
    path = [(a, b) for a, b in transition.get("path") or () if a0 <= a <= a1 and b0 <= b <= b1]
    if path:
        chart.polyline([b + 0.5 for _, b in path], [a + 0.5 for a, _ in path], "#2ec4ff", "path", width=3)
        keys.append(("#2ec4ff", "time-warp path (frames paired by the blend)", "line"))
    x, y = chart.x(transition["to_frame"] + 0.5), chart.y(transition["from_frame"] + 0.5)
    chart.parts.append(f'<circle class="chosen" cx="{x:.1f}" cy="{y:.1f}" r="6" fill="none" stroke="{charts.SEAM}" stroke-width="2"/>')
    scale = ""
    if "range" in picture:  # reports before the scale was kept have none
        scale = charts.colour_scale(*picture["range"], "pose distance (m², square-root grey scale)", square_root=True)
    return chart.svg() + charts.legend(keys) + scale


def row(entry):
    """The transition's cells in the summaries: its frames, method and length, its numbers."""
    t, m = entry["transition"], entry["transition"]["metrics"]
    blend = t.get("blend_span") or t["window"]
    return Row(f"frames {t['from_frame']} -> {t['to_frame']}, blend {blend[0]}-{blend[1]}", f"{t['method'].lower()} {t['length_s']:g} s",
               f"visibility {m['visibility']:.2f}, root speed jump {m['root_speed_jump']:.2f} m/s (clips {m['clips_root_speed_jump']:.2f})")


def title(entry):
    return f"{pathlib.Path(entry['file']).name} -> {pathlib.Path(entry['to']).name}"


def section(entry):
    """The transition's section: facts, verdict, the result playing, the distance map and the candidates."""
    t, m = entry["transition"], entry["transition"]["metrics"]
    facts = (f"<p>From {html.escape(pathlib.Path(entry['file']).name)} frame {t['from_frame']} into "
             f"{html.escape(pathlib.Path(entry['to']).name)} frame {t['to_frame']}: {t['method'].lower()}, {t['length_s']:g} s; "
             f"{_spans(t)} of the {entry['frames']} written. Visibility {m['visibility']:.2f} (1 = as sharp as the clips' own runs this long); root speed jump "
             f"{m['root_speed_jump']:.2f} m/s (the clips' own largest {m['clips_root_speed_jump']:.2f} m/s); heading turn rate "
             f"{m['heading_rate']:.2f} rad/s (clips {m['clips_heading_rate']:.2f} rad/s); toe skating {m['skating']:.3f} m/s "
             f"(clips {m['clips_skating']:.3f} m/s); the feet leave the clips' floor by {m.get('floor_offset', 0.0):.3f} m and the "
             f"pelvis their heights by {m.get('pelvis_offset', 0.0):.3f} m. {parts.outputs_html(entry)}</p>")
    ranked = "".join(f"<li>{c['from_frame']} &rarr; {c['to_frame']}: cost {c['cost']:.3g}{'' if c['contact_match'] else ', feet differ'}</li>"
                     for c in t["candidates"])
    candidates = f"<p>Candidates, best first:</p><ol>{ranked}</ol>" if ranked else "<p>Transition frames given by hand.</p>"
    figures = [parts.figure("How alike each pair of frames is (dark: alike)", distance_svg(t)), f"<div>{candidates}</div>"]
    if entry.get("figure"):
        figures.insert(0, parts.figure("The transition playing (pink while the blend changes the motion)", player.player_html(entry["figure"])))
    return f'{facts}{parts.verdict_html(entry)}<div class="figures">{"".join(figures)}</div>'


def _spans(transition):
    """What the transition changed, in the written file's frames: the blend, every frame changed, the time warp's span."""
    window = f"{transition['window'][0]}-{transition['window'][1]}"
    if not transition.get("blend_span"):  # reports written before the blend's own span was kept
        return f"it changes frames {window}"
    blend, warp = transition["blend_span"], transition.get("warp_span")
    text = (f"the blend plays frames {blend[0]}-{blend[1]}; with the legs re-solved to keep the feet planted it changes frames "
            f"{window}")
    return text + (f"; its time warp plays frames {warp[0]}-{warp[1]}" if warp else "")
