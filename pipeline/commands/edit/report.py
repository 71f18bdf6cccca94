"""The editing commands' report: the entry of one edit, its row in the summaries and its section of the page (before and
after playing side by side, what changed over time, the edit's numbers in words and units)."""

import html
import pathlib

import numpy as np

from ....core.measure import edit as measure
from ....core.motion import figure, kinematics
from ... import entries
from ...contract import Row
from ...html import charts, parts, player

#: An edit's numbers in words, with their units (lengths in metres for mocap imported at its detected scale).
LABELS = {
    "fps": ("frame rate", "fps"), "source_fps": ("the input's frame rate", "fps"), "frames": ("frames", ""),
    "source_frames": ("the input's frames", ""), "duration": ("duration", "s"), "source_duration": ("the input's duration", "s"),
    "dropped_seconds": ("dropped at the end (less than a frame)", "s"), "speed": ("speed applied", "x"),
    "skating": ("toe skating", "m/s"), "source_skating": ("the input's toe skating", "m/s"), "inputs_skating": ("the inputs' toe skating", "m/s"),
    "lower_skating": ("the lower body's own toe skating", "m/s"), "worst_frame": ("sharpest frame (x the clip's typical)", ""),
    "source_worst_frame": ("the input's sharpest frame", ""), "inputs_worst_frame": ("the inputs' sharpest frame", ""),
    "join_visibility": ("the waist join's visibility", ""), "lower_join_visibility": ("the lower clip's own waist visibility", ""),
    "upper_follow": ("the upper body's drift from its own path", "m"), "time_rate": ("upper-body frames played per lower-body frame", ""),
    "bones": ("bones frozen", ""), "frozen_frames": ("frames held", ""), "blend_frames": ("frames easing in and out", ""),
    "covered_a": ("seconds of A played", "s"), "covered_b": ("seconds of B played", "s"), "duration_a": ("A's duration", "s"),
    "duration_b": ("B's duration", "s"), "position_error": ("largest joint error against an exact mirror", "m"),
    "pairs": ("left/right bone pairs swapped", ""), "floor_offset_m": ("the feet off the inputs' floor", "m"),
    "pelvis_offset_m": ("the pelvis off the inputs' heights", "m"), "contact_mismatch": ("the two clips' steps landing apart", "s"),
}
def _root_speed(clip):
    """Seconds ``(F-1,)`` and the travelling root's horizontal speed ``(F-1,)`` in m/s between frames."""
    positions = kinematics.clip_joint_positions(clip)[:, figure.view_root(clip), :2]
    speed = np.linalg.norm(np.diff(positions, axis=0), axis=-1) * clip.fps
    return (np.arange(len(speed)) + 0.5) / clip.fps, speed


def _sampled(count, samples):
    return np.unique(np.linspace(0, count - 1, min(samples, count)).round().astype(int)) if count else np.zeros(0, dtype=int)


def _speeds(source, result, samples=300):
    """What a change of timing did: the root's speed over time, before and after."""
    curves = {}
    for label, clip in (("before", source), ("after", result)):
        times, speed = _root_speed(clip)
        keep = _sampled(len(speed), samples)
        curves[label] = {"times_s": entries.rounded(times[keep], 3), "values": entries.rounded(speed[keep], 3)}
    return {"title": "the root's speed", "unit": "m/s", "curves": [dict(curves["before"], label="before"), dict(curves["after"], label="after")]}


def _angles(clip):
    """Each bone's turn from its rest pose ``(F, B)``, degrees."""
    return np.degrees(2.0 * np.arccos(np.clip(np.abs(clip.rotation[..., 0]), 0.0, 1.0)))


def _changed_bones(source, result, samples=300, most=3):
    """What an edit that kept the timing did: the turn from rest of the bones it changed most, before and after."""
    before, after = _angles(source), _angles(result)
    change = np.abs(after - before).max(axis=0)
    bones = [int(b) for b in np.argsort(change)[::-1][:most] if change[b] > 0.5]
    keep = _sampled(result.num_frames, samples)
    times = entries.rounded(keep / result.fps, 3)
    curves = [{"label": f"{result.bone_names[b]} {label}", "times_s": times, "values": entries.rounded(angles[keep, b], 2)}
              for b in bones for label, angles in (("before", before), ("after", after))]
    return {"title": "the turn from rest of the bones changed most", "unit": "degrees", "curves": curves}


def _what_changed(source, result):
    if source.num_frames < 2 or result.num_frames < 2:
        return None
    if source.num_frames == result.num_frames and source.bone_names == result.bone_names:
        return _changed_bones(source, result)
    return _speeds(source, result)


def edit_entry(path, other, armature, outputs, edited, seconds, source):
    """The report of one edit (``edited``: a :class:`~....core.measure.edit.EditResult` of the clip ``source``); ``other``:
    a pair's second file, or None."""
    numbers = {name: round(float(value), 4) for name, value in edited.numbers.items()}
    entry = {
        "file": str(path), "armature": armature, "status": "ok", "outputs": [str(output) for output in outputs],
        "frames": int(edited.clip.num_frames), "fps": entries.frame_rate(edited.clip.fps), "seconds": round(seconds, 3),
        "edit": {"name": edited.edit, "numbers": numbers, "notes": list(edited.notes)},
        "changed": _what_changed(source, edited.clip),
        "figure": player.figure_json(edited.clip, marks=edited.windows, before=source),
    }
    if other is not None:
        entry["with"] = str(other)
    return entries.judged(entry, edited.verdict)


def edit_sharpness(entry):
    """An edit entry's sharpest frame against its inputs' (``sharpest frame 1.28 (input 1.76)``); for edits that do not
    measure one, their first numbers in words (``frame rate 60 fps, the input's frame rate 30 fps``)."""
    numbers = entry["edit"]["numbers"]
    for result, own, *_ in measure.JUDGED[:3]:
        if result in numbers and own in numbers:
            return f"sharpest frame {numbers[result]:.2f} (input {numbers[own]:.2f})"
    shown = [(LABELS.get(name, (name.replace("_", " "), "")), value) for name, value in list(numbers.items())[:2]]
    return ", ".join(f"{label} {value:g}{f' {unit}' if unit else ''}" for (label, unit), value in shown) or "-"


def title(entry):
    return pathlib.Path(entry["file"]).name + (f" + {pathlib.Path(entry['with']).name}" if entry.get("with") else "")


def row(entry):
    return Row(f"{entry['frames']} frames at {entry['fps']:g} fps", entry["edit"]["name"], edit_sharpness(entry), "; ".join(entry["edit"]["notes"]))


def changed_svg(changed):
    """What the edit changed over time: each curve before (dashed) and after (solid), one colour per bone."""
    curves = changed["curves"]
    longest = max((max(curve["times_s"], default=0.0) for curve in curves), default=0.0)
    values = [value for curve in curves for value in curve["values"]] or [0.0]
    low, high = min(min(values), 0.0), max(values) * 1.08 or 1.0
    chart = charts.Chart(changed["title"], (0.0, max(longest, 1e-3)), (low, high), "time (s)", f"{changed['title'].split(' of ')[0]} ({changed['unit']})")
    keys = []
    for k, curve in enumerate(curves):
        colour = charts.CLIP_COLOURS[(k // 2) % len(charts.CLIP_COLOURS)] if len(curves) > 2 else (charts.RAW if k == 0 else charts.LOOP)
        after = curve["label"].endswith("after")
        chart.polyline(curve["times_s"], curve["values"], colour, "after" if after else "before", width=2.0 if after else 1.2, dashed=not after)
        keys.append((colour, curve["label"], "line" if after else "dashed"))
    return chart.svg() + charts.legend(keys)


def section(entry):
    """The edit's section: facts, verdict, before and after playing side by side, the root's speed, the numbers in words."""
    edit = entry["edit"]
    rows = "".join(f"<tr><td>{html.escape(LABELS.get(name, (name.replace('_', ' '), ''))[0])}</td>"
                   f"<td>{value:g} {LABELS.get(name, ('', ''))[1]}</td></tr>" for name, value in edit["numbers"].items())
    notes = "".join(f"<li>{html.escape(note)}</li>" for note in edit["notes"])
    figures = []
    if entry.get("figure"):
        figures.append(parts.figure("Before and after, playing in step", player.player_html(entry["figure"], width=560)))
    if entry.get("changed") and entry["changed"]["curves"]:
        figures.append(parts.figure(f"What changed: {entry['changed']['title']} over time", changed_svg(entry["changed"])))
    return (f'<p>{edit["name"].capitalize()}: {entry["frames"]} frames at {entry["fps"]:g} fps. {parts.outputs_html(entry)}</p>'
            f'{parts.verdict_html(entry)}<div class="figures">{"".join(figures)}</div>'
            f'<table class="summary numbers"><tbody>{rows}</tbody></table>{f"<ul>{notes}</ul>" if notes else ""}')
