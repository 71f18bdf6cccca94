"""The editing commands' report: the entry of one edit, its row in the summaries and its section of the page (before and
after playing side by side, what changed over time, the edit's numbers in words and units)."""

import html
import pathlib

import numpy as np

from ....core.measure import verdict as verdicts
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
    "pairs": ("left/right bone pairs swapped", ""),
}
# (the result's measure, the inputs' same measure, its name, unit, negligible) by which an edit is judged.
_JUDGED = (("worst_frame", "inputs_worst_frame", "sharpest frame", "", 0.0), ("worst_frame", "source_worst_frame", "sharpest frame", "", 0.0),
           ("join_visibility", "lower_join_visibility", "waist join visibility", "", 0.0),
           ("skating", "source_skating", "toe skating", "m/s", verdicts.NEGLIGIBLE_SKATING),
           ("skating", "inputs_skating", "toe skating", "m/s", verdicts.NEGLIGIBLE_SKATING),
           ("skating", "lower_skating", "toe skating", "m/s", verdicts.NEGLIGIBLE_SKATING))


def verdict(numbers, notes):
    """An edit's verdict: its sharpest frame, waist join and toe skating against its inputs' own, and the doubts the edit
    itself raised (its notes that begin 'CHECK:')."""
    concerns = tuple(note.removeprefix("CHECK: ") for note in notes if note.startswith("CHECK:"))
    return verdicts.judge([verdicts.Measure(name, numbers[result], numbers[own], unit, negligible)
                           for result, own, name, unit, negligible in _JUDGED if result in numbers and own in numbers], concerns=concerns)


def _root_speed(clip):
    """Seconds ``(F-1,)`` and the travelling root's horizontal speed ``(F-1,)`` in m/s between frames."""
    positions = kinematics.clip_joint_positions(clip)[:, figure.view_root(clip), :2]
    speed = np.linalg.norm(np.diff(positions, axis=0), axis=-1) * clip.fps
    return (np.arange(len(speed)) + 0.5) / clip.fps, speed


def _speeds(source, result, samples=300):
    curves = {}
    for label, clip in (("before", source), ("after", result)):
        times, speed = _root_speed(clip)
        keep = np.unique(np.linspace(0, len(speed) - 1, min(samples, len(speed))).round().astype(int)) if len(speed) else []
        curves[label] = {"times_s": entries.rounded(times[keep], 3), "m_per_s": entries.rounded(speed[keep], 3)}
    return curves


def edit_entry(path, other, armature, outputs, edited, seconds, source):
    """The report of one edit (``edited``: a :class:`~....core.measure.edit.EditResult` of the clip ``source``); ``other``:
    a pair's second file, or None."""
    numbers = {name: round(float(value), 4) for name, value in edited.numbers.items()}
    entry = {
        "file": str(path), "armature": armature, "status": "ok", "outputs": [str(output) for output in outputs],
        "frames": int(edited.clip.num_frames), "fps": round(float(edited.clip.fps), 6), "seconds": round(seconds, 3),
        "edit": {"name": edited.edit, "numbers": numbers, "notes": list(edited.notes)},
        "root_speed": _speeds(source, edited.clip) if source.num_frames > 1 and edited.clip.num_frames > 1 else None,
        "figure": player.figure_json(edited.clip, before=source),
    }
    if other is not None:
        entry["with"] = str(other)
    return entries.judged(entry, verdict(numbers, edited.notes))


def edit_sharpness(entry):
    """An edit entry's sharpest frame against its inputs' (``1.28 (input 1.76)``), or "-" for edits that do not measure one."""
    numbers = entry["edit"]["numbers"]
    for result, own, *_ in _JUDGED[:3]:
        if result in numbers and own in numbers:
            return f"sharpest frame {numbers[result]:.2f} (input {numbers[own]:.2f})"
    return "-"


def title(entry):
    return pathlib.Path(entry["file"]).name + (f" + {pathlib.Path(entry['with']).name}" if entry.get("with") else "")


def row(entry):
    notes = [note for note in entry["edit"]["notes"] if not note.startswith("CHECK:")]  # those are the verdict's reasons
    return Row(f"{entry['frames']} frames at {entry['fps']:g} fps", entry["edit"]["name"], edit_sharpness(entry), "; ".join(notes))


def speed_svg(curves):
    """The root's horizontal speed over time, before and after the edit."""
    longest = max(max(curve["times_s"], default=0.0) for curve in curves.values())
    top = max(max(curve["m_per_s"], default=0.0) for curve in curves.values()) * 1.08 or 1.0
    chart = charts.Chart("root speed before and after", (0.0, max(longest, 1e-3)), (0.0, top), "time (s)", "root speed (m/s)")
    chart.polyline(curves["before"]["times_s"], curves["before"]["m_per_s"], charts.RAW, "before")
    chart.polyline(curves["after"]["times_s"], curves["after"]["m_per_s"], charts.LOOP, "after", width=2.0)
    return chart.svg() + charts.legend([(charts.RAW, "before", "line"), (charts.LOOP, "after", "line")])


def section(entry):
    """The edit's section: facts, verdict, before and after playing side by side, the root's speed, the numbers in words."""
    edit = entry["edit"]
    rows = "".join(f"<tr><td>{html.escape(LABELS.get(name, (name.replace('_', ' '), ''))[0])}</td>"
                   f"<td>{value:g} {LABELS.get(name, ('', ''))[1]}</td></tr>" for name, value in edit["numbers"].items())
    notes = "".join(f"<li>{html.escape(note)}</li>" for note in edit["notes"])
    figures = []
    if entry.get("figure"):
        figures.append(parts.figure("Before and after, playing in step", player.player_html(entry["figure"], width=560)))
    if entry.get("root_speed"):
        figures.append(parts.figure("What changed: the root's speed over time", speed_svg(entry["root_speed"])))
    return (f'<p>{edit["name"].capitalize()}: {entry["frames"]} frames at {entry["fps"]:g} fps. {parts.outputs_html(entry)}</p>'
            f'{parts.verdict_html(entry)}<div class="figures">{"".join(figures)}</div>'
            f'<table class="summary numbers"><tbody>{rows}</tbody></table>{f"<ul>{notes}</ul>" if notes else ""}')
