"""Batch reports: one JSON file, an HTML page an animator can read, a summary table.

No Blender: the standard library, and numpy through :mod:`..core.loop.preview`. The
page is drawn from the JSON entries alone: inline SVG charts and a stick
figure animated by a small inline script, no external resource.
"""

import base64
import dataclasses
import html
import json
import math
import pathlib
import struct
import zlib

import numpy as np

from ..core.engine import profiles
from ..core.loop import preview
from ..core.measure import grounding

_CURVE_POINTS = 400  # the detection curve is thinned to this many points in the report
_GRADE_COLOURS = {"GOOD": "#2e9b44", "FAIR": "#d89b00", "POOR": "#c8372d"}
_RAW, _LOOP, _SEAM = "#999", "#2a6fdb", "#e0529c"  # raw cut, loop and seam in every picture
LOOP_FINE = 1.0  # a made loop's seam visibility and velocity jump, over the clip's own, up to which the loop is fine, whatever its cut's grade


def _seam(metrics):
    return {
        "visibility": round(metrics.visibility, 4),
        "max_step_m": round(metrics.max_position_step, 6),
        "max_velocity_jump_m_per_s": round(metrics.max_velocity_jump, 4),
        "velocity_jump_ratio": round(metrics.velocity_jump_ratio, 4),
    }


def _rounded(values, digits):
    return [round(float(v), digits) for v in values]


def _worst_joint(result):
    motion = preview.seam_motion(result)
    if motion is None:
        return None
    return {
        "name": result.clip.bone_names[motion.joint],
        "times_s": _rounded(motion.times, 3),
        "raw_m_per_s": _rounded(motion.raw_speed, 3),
        "loop_m_per_s": _rounded(motion.loop_speed, 3),
        "seams_s": _rounded(motion.seams, 3),
        "close_up": {
            "times_s": _rounded(motion.close_up_times, 3),
            "raw_m_per_s2": _rounded(motion.raw_acceleration, 2),
            "loop_m_per_s2": _rounded(motion.loop_acceleration, 2),
            "typical_m_per_s2": round(motion.typical_acceleration, 2),
        },
    }


def _figure(result):
    figure = preview.stick_figure(result)
    if figure is None:
        return None
    root = preview.travel_root(result)
    return {
        "fps": result.clip.fps,
        "parents": [int(p) for p in figure.parents],
        "root": root if root is not None else 0,
        "frames": [int(f) for f in figure.frames],
        "seams": [int(f) for f in figure.seams],
        # Per frame, every joint's (along, across, up) in millimetres, flattened.
        "positions_mm": (figure.positions * 1000.0).round().astype(int).reshape(len(figure.frames), -1).tolist(),
    }


def loop_entry(path, armature, outputs, result, detection, start, end, seconds):
    """The report of one looped armature (a :class:`~.core.loop.LoopResult`, Find Loop's detection or None, range in frames)."""
    entry = {
        "file": str(path),
        "armature": armature,
        "status": "ok",
        "outputs": [str(output) for output in outputs],
        "range": [int(start), int(end)],
        "length": int(end - start),
        "root_mode": result.root_mode,
        "root_bone": result.clip.bone_names[result.root] if result.root >= 0 else "",
        "seam_before": _seam(result.before),
        "seam_after": _seam(result.after),
        "loop_fine": bool(result.after.visibility <= LOOP_FINE and result.after.velocity_jump_ratio <= LOOP_FINE),
        "grounding": {"floor_offset_m": round(result.body.floor_offset, 4), "pelvis_offset_m": round(result.body.pelvis_offset, 4)},
        "method": result.method,
        "seconds": round(seconds, 3),
        "joints": {
            "names": list(result.clip.bone_names),
            "step_before": _rounded(result.before.position_step, 6),
            "step_after": _rounded(result.after.position_step, 6),
            "jump_before": _rounded(result.before.velocity_jump, 4),
            "jump_after": _rounded(result.after.velocity_jump, 4),
            "visibility_before": _rounded(preview.joint_visibility(result.before), 3),
            "visibility_after": _rounded(preview.joint_visibility(result.after), 3),
        },
        "worst_joint": _worst_joint(result),
        "figure": _figure(result),
    }
    if result.tried:  # AUTO: every method made, with its loop's seam as played
        entry.update(method_chosen=result.method, methods_tried=[{"method": trial.method, **_seam(trial.seam)} for trial in result.tried])
    if detection is not None and detection.best is not None:
        stride = max(1, len(detection.lags) // _CURVE_POINTS)
        entry.update(
            grade=detection.best.grade,
            cycles=detection.best.cycles,
            score=round(detection.best.score, 4),
            detection={
                "period_frames": round(float(detection.period), 3) if detection.period else None,
                "lags": [int(v) for v in detection.lags[::stride]],
                "correlation": _rounded(detection.correlation[::stride], 4),
                "candidates": [
                    {"range": [c.frame_start, c.frame_end], "length": c.length, "cycles": c.cycles, "score": round(c.score, 4), "grade": c.grade}
                    for c in detection.candidates
                ],
                # The candidate the loop was made from, an index into candidates (None when the range was another).
                "chosen": next((i for i, c in enumerate(detection.candidates) if (c.frame_start, c.frame_end) == (int(start), int(end))), None),
            },
        )
    return entry


def _png(gray):
    """A greyscale PNG of ``gray`` ``(h, w)`` uint8 (zlib and struct: no image library needed)."""
    height, width = gray.shape

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(b"\x00" + row.tobytes() for row in np.ascontiguousarray(gray, dtype=np.uint8))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))


def _distance_picture(made):
    """The distance map as a PNG (rows: FROM's frames upwards, columns: TO's; dark: alike), square-root scaled for contrast."""
    values = np.sqrt(np.maximum(np.asarray(made.distance, dtype=np.float64), 0.0))
    low, high = float(values.min()), float(values.max())
    gray = np.round(255.0 * (values - low) / max(high - low, 1e-12)).astype(np.uint8)
    return {"frames": [[int(v) for v in pair] for pair in made.distance_frames], "shape": list(gray.shape),
            "png": base64.b64encode(_png(gray[::-1])).decode("ascii")}  # the first row at the bottom, as the chart's axis runs


def transition_entry(source, target, armature, outputs, made, seconds):
    """The report of one transition (``made``: a :class:`~..core.transition.make.Transition`).

    ``transition.window`` gives the 0-based indices, in the written file's
    frames, of the frames the blend changed; frames are the clips' own numbers.
    """
    first, last = made.window
    return {
        "file": str(source), "to": str(target), "armature": armature, "status": "ok", "outputs": [str(output) for output in outputs],
        "frames": int(made.clip.num_frames), "seconds": round(seconds, 3),
        "transition": {
            "from_frame": int(made.frame_a), "to_frame": int(made.frame_b), "window": [int(first), int(last)],
            "method": made.method, "length_s": round(float(made.length), 3),
            "metrics": _metrics(made.metrics),
            "candidates": [{"from_frame": int(c.frame_a), "to_frame": int(c.frame_b), "cost": round(float(c.cost), 4),
                            "contact_match": bool(c.contact_match)} for c in made.candidates],
            "distance_map": _distance_picture(made),
            "path": made.path.astype(int).tolist() if made.path is not None else None,
        },
    }


def _metrics(metrics):
    return {name: round(float(value), 4) for name, value in dataclasses.asdict(metrics).items()}


def grounding_notes(metrics):
    """``["OFF THE FLOOR: ..."]`` when a transition's or loop's body leaves its clips' floor or height by more than
    :data:`~..core.grounding.TOLERANCE`, else ``[]`` (entries of earlier runs may not measure it)."""
    floor = metrics.get("floor_offset", metrics.get("floor_offset_m", 0.0))
    pelvis = metrics.get("pelvis_offset", metrics.get("pelvis_offset_m", 0.0))
    if not grounding.stands_off(floor, pelvis):
        return []
    return [f"OFF THE FLOOR: the feet leave the clips' floor by {floor:.2f} m, the pelvis their heights by {pelvis:.2f} m"]


def composition_entry(paths, armature, outputs, composed, source_of=None):
    """The report of one composition (``composed``: a :class:`~..core.compose.sequence.Composition` of the files ``paths``).

    ``segments`` name each clip's frames shown (its own frame numbers) and
    where they landed (``output_frames``: 0-based indices in the written
    file); each of ``transitions`` gives its ``window`` the same way.
    source_of(segment): the file a segment comes from (default: the
    ``paths`` entry of its piece, as composed in the order given).
    """
    source_of = source_of or (lambda segment: paths[segment.piece])
    return {
        "file": str(paths[0]), "clips": [str(path) for path in paths], "armature": armature, "status": "ok",
        "outputs": [str(output) for output in outputs], "frames": int(composed.clip.num_frames), "fps": round(float(composed.clip.fps), 6),
        "composition": {"loop": bool(composed.loop), "numbers": {name: round(float(value), 4) for name, value in composed.numbers.items()},
                        "notes": list(composed.notes), "warnings": list(composed.warnings)},
        "segments": [{"source": str(source_of(segment)), "range": [int(segment.source_first), int(segment.source_last)],
                      "output_frames": [int(segment.out_first), int(segment.out_last)]} for segment in composed.segments],
        "transitions": [{"window": [int(t.window[0]), int(t.window[1])], "from_frame": int(t.frame_a), "to_frame": int(t.frame_b),
                         "method": t.method, "length_s": round(float(t.length), 3), "metrics": _metrics(t.metrics)}
                        for t in composed.transitions],
    }


#: Transition arcs the report draws at most (the cheapest); the graph file has them all.
GRAPH_ARCS = 400


def graph_entry(paths, graph_path, graph, seconds):
    """The report of one motion graph over the files ``paths``, written to ``graph_path``: its size, its distance statistics
    and what the page draws (each clip a lane, the cheapest transitions as arcs)."""
    nodes = {node["id"]: node for node in graph.nodes}
    transitions = sorted((edge for edge in graph.edges if edge["kind"] == "transition"), key=lambda edge: edge["cost"])
    kept = {node["clip"] for node in graph.nodes}
    left_out = graph.stats.get("left_out") or [{"clip": index, "name": clip["name"], "reason": "no transition both ways", "include": "-"}
                                                for index, clip in enumerate(graph.clips) if index not in kept]
    coverage = graph.stats.get("coverage") or {"clips_kept": len(kept), "clips": len(graph.clips),
                                               "frames_kept": graph.stats.get("frames_in_graph", 0),
                                               "frames": sum(int(clip["frames"]) for clip in graph.clips)}
    return {
        "file": str(paths[0]), "clips": [str(path) for path in paths], "armature": "", "status": "ok", "outputs": [str(graph_path)],
        "seconds": round(seconds, 3),
        "graph": {
            "nodes": len(graph.nodes), "edges": len(graph.edges), "transitions": len(transitions),
            "clips_kept": len(kept), "stats": graph.stats,
            "clips_left_out": [entry["name"] for entry in left_out],
            "left_out": [{"name": entry["name"], "reason": entry["reason"], "include": entry["include"]} for entry in left_out],
            "coverage": dict(coverage),
            "lanes": [{"name": clip["name"], "frames": int(clip["frames"])} for clip in graph.clips],
            "arcs": [{"from": [nodes[edge["from"]]["clip"], nodes[edge["from"]]["frame"] - graph.clips[nodes[edge["from"]]["clip"]]["first_frame"]],
                      "to": [nodes[edge["to"]]["clip"], nodes[edge["to"]]["frame"] - graph.clips[nodes[edge["to"]]["clip"]]["first_frame"]],
                      "cost": round(float(edge["cost"]), 4)} for edge in transitions[:GRAPH_ARCS]],
        },
    }


def edit_entry(path, other, armature, outputs, edited, seconds):
    """The report of one edit (``edited``: a :class:`~..core.measure.edit.EditResult`); ``other``: a pair's second file, or None."""
    entry = {
        "file": str(path), "armature": armature, "status": "ok", "outputs": [str(output) for output in outputs],
        "frames": int(edited.clip.num_frames), "fps": round(float(edited.clip.fps), 6), "seconds": round(seconds, 3),
        "edit": {"name": edited.edit, "numbers": {name: round(float(value), 4) for name, value in edited.numbers.items()},
                 "notes": list(edited.notes)},
    }
    if other is not None:
        entry["with"] = str(other)
    return entry


def edit_sharpness(entry):
    """An edit entry's sharpest frame against its inputs' (``1.28 (inputs 1.76)``), or "-" for edits that do not measure one."""
    numbers = entry["edit"]["numbers"]
    for result, inputs in (("worst_frame", "inputs_worst_frame"), ("join_visibility", "lower_join_visibility"),
                           ("worst_frame", "source_worst_frame")):
        if result in numbers and inputs in numbers:
            return f"{numbers[result]:.2f} (input {numbers[inputs]:.2f})"
    return "-"


def error_entry(path, reason, seconds, armature=""):
    """The report of a file or armature that could not be looped."""
    return {"file": str(path), "armature": armature, "status": "error", "error": reason, "seconds": round(seconds, 3)}


def run_failure_entry(path, reason, command):
    """The report of a task that failed through no fault of its file (a worker died, the cluster could not run it, a bug):
    ``run_failure`` marks it, so a farm retries the task rather than take it as the file's verdict."""
    return dict(error_entry(path, reason, 0.0), command=command, run_failure=True)


def _ticks(low, high, count=6):
    """Round values inside ``low..high``, 1, 2 or 5 times a power of ten apart, as near ``count`` of them as that allows."""
    span = max(high - low, 1e-9)
    power = 10.0 ** math.floor(math.log10(span / max(count - 1, 1)))
    step = min((m * power for m in (1, 2, 5, 10)), key=lambda step: abs(span / step - (count - 1)))
    first = math.ceil(low / step - 1e-9)
    return [round(k * step, 10) for k in range(first, math.floor(high / step + 1e-9) + 1)]


def _number(value):
    return f"{value:g}"


class _Chart:
    """An SVG line chart: a plot area with numbered axes, data mapped into it."""

    LEFT, RIGHT, TOP, BOTTOM = 46, 12, 22, 36  # pixels around the plot area

    def __init__(self, label, x_range, y_range, x_title, y_title, width=540, height=230):
        self.label, self.x_range, self.y_range = label, x_range, y_range
        self.x_title, self.y_title = x_title, y_title
        self.width, self.height = width, height
        self.plot_width, self.plot_height = width - self.LEFT - self.RIGHT, height - self.TOP - self.BOTTOM
        self.parts = []

    def x(self, value):
        low, high = self.x_range
        return self.LEFT + (value - low) / max(high - low, 1e-9) * self.plot_width

    def y(self, value):
        low, high = self.y_range
        return self.TOP + self.plot_height - (value - low) / max(high - low, 1e-9) * self.plot_height

    def polyline(self, xs, ys, colour, kind, width=1.5):
        points = " ".join(f"{self.x(x):.1f},{self.y(y):.1f}" for x, y in zip(xs, ys))
        self.parts.append(f'<polyline class="{kind}" fill="none" stroke="{colour}" stroke-width="{width}" points="{points}"/>')

    def marker(self, x, colour, label, kind, row=0, dashed=True, width=1.0):
        """A vertical line across the plot at data ``x`` with a label above the plot (row 0 or 1)."""
        px = self.x(x)
        dash = ' stroke-dasharray="4 3"' if dashed else ""
        self.parts.append(f'<line class="{kind}" x1="{px:.1f}" x2="{px:.1f}" y1="{self.TOP}" y2="{self.TOP + self.plot_height}" '
                          f'stroke="{colour}" stroke-width="{width}"{dash}/>')
        # Labels near either end of the plot grow inwards so they stay inside the picture.
        anchor = "end" if px > self.width - 40 else "start" if px < 40 else "middle"
        self.parts.append(f'<text class="{kind}-label" x="{px:.1f}" y="{self.TOP - 4 - 10 * row}" font-size="10" text-anchor="{anchor}" '
                          f'fill="{colour}">{html.escape(label)}</text>')

    def level(self, y, colour, label):
        """A horizontal dashed line across the plot at data ``y``, labelled at its right end."""
        py = self.y(y)
        self.parts.append(f'<line class="level" x1="{self.LEFT}" x2="{self.LEFT + self.plot_width}" y1="{py:.1f}" y2="{py:.1f}" '
                          f'stroke="{colour}" stroke-dasharray="4 3"/>'
                          f'<text class="level-label" x="{self.LEFT + self.plot_width - 3}" y="{py - 3:.1f}" font-size="10" '
                          f'text-anchor="end" fill="{colour}">{html.escape(label)}</text>')

    def svg(self):
        bottom = self.TOP + self.plot_height
        axes = [f'<rect x="{self.LEFT}" y="{self.TOP}" width="{self.plot_width}" height="{self.plot_height}" fill="none" stroke="#888"/>']
        for value in _ticks(*self.x_range):
            px = self.x(value)
            axes.append(f'<line x1="{px:.1f}" x2="{px:.1f}" y1="{bottom}" y2="{bottom + 4}" stroke="#888"/>'
                        f'<text class="x-tick" x="{px:.1f}" y="{bottom + 15}" font-size="10" text-anchor="middle">{_number(value)}</text>')
        for value in _ticks(*self.y_range, count=5):
            py = self.y(value)
            axes.append(f'<line x1="{self.LEFT}" x2="{self.LEFT + self.plot_width}" y1="{py:.1f}" y2="{py:.1f}" stroke="#eee"/>'
                        f'<line x1="{self.LEFT - 4}" x2="{self.LEFT}" y1="{py:.1f}" y2="{py:.1f}" stroke="#888"/>'
                        f'<text class="y-tick" x="{self.LEFT - 6}" y="{py + 3:.1f}" font-size="10" text-anchor="end">{_number(value)}</text>')
        axes.append(f'<text x="{self.LEFT + self.plot_width / 2:.1f}" y="{self.height - 4}" font-size="11" text-anchor="middle">'
                    f'{html.escape(self.x_title)}</text>'
                    f'<text x="11" y="{self.TOP + self.plot_height / 2:.1f}" font-size="11" text-anchor="middle" '
                    f'transform="rotate(-90 11 {self.TOP + self.plot_height / 2:.1f})">{html.escape(self.y_title)}</text>')
        return (f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{self.height}" role="img" '
                f'aria-label="{html.escape(self.label)}">{"".join(axes)}{"".join(self.parts)}</svg>')


def _legend(items):
    """A legend: (colour, text, style) with style "line", "dashed" or "bar"."""
    keys = []
    for colour, text, style in items:
        border = "dashed" if style == "dashed" else "solid"
        height = 8 if style == "bar" else 0
        fill = colour if style == "bar" else "none"
        keys.append(f'<li><span class="key" style="border-top:2px {border} {colour};height:{height}px;background:{fill}"></span>{html.escape(text)}</li>')
    return f'<ul class="legend">{"".join(keys)}</ul>'


def _label_rows(positions, gap=30):
    """Row 0 or 1 for labels at pixel ``positions``, so neighbours closer than ``gap`` alternate."""
    rows, last = [], [-math.inf, -math.inf]
    for x in positions:
        row = 0 if x - last[0] >= gap else 1
        rows.append(row)
        last[row] = x
    return rows


def detection_svg(detection):
    """Find Loop's picture: the autocorrelation over loop length, the candidates by grade, the chosen one solid."""
    lags, values = detection["lags"], detection["correlation"]
    if len(lags) < 2:
        return ""
    # A closed clip's own length (the whole clip) lies beyond the lags the correlation is computed for.
    longest = max([lags[-1]] + [candidate["length"] for candidate in detection["candidates"]])
    chart = _Chart("autocorrelation over loop length", (lags[0], longest), (min(min(values), 0.0), 1.0),
                   "loop length (frames)", "autocorrelation")
    candidates = sorted(enumerate(detection["candidates"]), key=lambda item: item[1]["length"])
    rows = _label_rows([chart.x(c["length"]) for _, c in candidates])
    chosen = detection.get("chosen")
    for (index, candidate), row in zip(candidates, rows):
        colour = _GRADE_COLOURS[candidate["grade"]]
        if index == chosen:
            chart.marker(candidate["length"], colour, f"chosen {candidate['length']}", "chosen", row, dashed=False, width=2.5)
        else:
            chart.marker(candidate["length"], colour, str(candidate["length"]), "candidate", row)
    chart.polyline(lags, values, _LOOP, "correlation")
    grades = [(colour, grade, "dashed") for grade, colour in _GRADE_COLOURS.items()]
    return chart.svg() + _legend(grades + [("#333", "chosen (solid)", "line")])


def speed_svg(worst):
    """The worst joint's speed over two played cycles, raw cut and loop, the seams marked."""
    times = worst["times_s"]
    top = max(max(worst["raw_m_per_s"]), max(worst["loop_m_per_s"]), 1e-3) * 1.08
    # Each speed sits half a frame after its first frame: the cycles end half a frame after the last one.
    chart = _Chart(f"speed of {worst['name']}", (0.0, times[-1] + times[0]), (0.0, top), "time (s)", "speed (m/s)")
    for seam in worst["seams_s"]:
        chart.marker(seam, _SEAM, "seam", "seam")
    chart.polyline(times, worst["loop_m_per_s"], _LOOP, "loop", width=2.5)
    chart.polyline(times, worst["raw_m_per_s"], _RAW, "raw")
    return chart.svg() + _legend([(_RAW, "raw cut", "line"), (_LOOP, "loop", "line"), (_SEAM, "seam", "dashed")])


def acceleration_svg(worst):
    """The worst joint's acceleration close to the seam, raw cut and loop, against its typical acceleration."""
    close = worst["close_up"]
    times, raw, looped, typical = close["times_s"], close["raw_m_per_s2"], close["loop_m_per_s2"], close["typical_m_per_s2"]
    chart = _Chart(f"acceleration of {worst['name']} at the seam", (times[0], times[-1]), (0.0, max(max(raw), max(looped), typical) * 1.08),
                   "time (s)", "acceleration (m/s²)")
    chart.marker(worst["seams_s"][0], _SEAM, "seam", "seam")
    chart.level(typical, _SEAM, "typical")
    chart.polyline(times, looped, _LOOP, "loop", width=2.5)
    chart.polyline(times, raw, _RAW, "raw")
    return chart.svg() + _legend([(_RAW, "raw cut", "line"), (_LOOP, "loop", "line"),
                                  (_SEAM, "typical: its 95th percentile in the clip (visibility 1)", "dashed")])


def seam_svg(joints, width=560, row=14):
    """Per joint, the seam's velocity jump and visibility, raw cut (grey) and loop (blue), on numbered axes."""
    names = joints["names"]
    label, gap, top = 110, 24, 30
    half = (width - label - gap - 10) // 2
    height = top + row * len(names) + 8
    panels = []
    # Entries of earlier runs kept in the report may predate the per-joint visibility.
    shown = [(title, joints[key + "_before"], joints[key + "_after"], reference)
             for title, key, reference in (("velocity jump (m/s)", "jump", None), ("seam visibility (x typical)", "visibility", 1.0))
             if key + "_before" in joints]
    for offset, (title, before, after, reference) in zip((label, label + half + gap), shown):
        longest = max(max(before), max(after), reference or 0.0, 1e-6)
        scale = half / longest
        panels.append(f'<text x="{offset}" y="10" font-size="11">{title}</text>')
        for value in _ticks(0.0, longest, count=4):
            x = offset + value * scale
            panels.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top - 4}" y2="{height - 6}" stroke="#eee"/>'
                          f'<text class="x-tick" x="{x:.1f}" y="{top - 7}" font-size="9" text-anchor="middle">{_number(value)}</text>')
        if reference is not None:
            x = offset + reference * scale
            panels.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top - 4}" y2="{height - 6}" stroke="{_SEAM}" stroke-dasharray="3 2"/>')
        for i in range(len(names)):
            y = top + row * i
            panels.append(f'<rect class="before" x="{offset}" y="{y + 2}" width="{before[i] * scale:.1f}" height="5" fill="{_RAW}"/>'
                          f'<rect class="after" x="{offset}" y="{y + 7}" width="{after[i] * scale:.1f}" height="5" fill="{_LOOP}"/>')
    steps = [f'<text x="0" y="{top + row * i + 10}" font-size="10">{html.escape(name[:18])}'
             f'<title>{html.escape(name)}: step {joints["step_before"][i] * 1000:.1f} mm before, '
             f'{joints["step_after"][i] * 1000:.3f} mm after</title></text>'
             for i, name in enumerate(names)]
    return (f'<svg class="bars" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" aria-label="seam per joint">'
            f'{"".join(steps)}{"".join(panels)}</svg>'
            + _legend([(_RAW, "raw cut", "bar"), (_LOOP, "loop", "bar"),
                       (_SEAM, "visibility 1: as sharp as the clip's own 95th-percentile accelerations", "dashed")]))


_PLAYER_SCRIPT = """
(function () {
  var NS = "http://www.w3.org/2000/svg";
  function make(parent, name, attributes) {
    var element = document.createElementNS(NS, name);
    for (var key in attributes) element.setAttribute(key, attributes[key]);
    parent.appendChild(element);
    return element;
  }
  document.querySelectorAll(".player").forEach(function (player) {
    var data = JSON.parse(player.querySelector(".figure-data").textContent);
    var svg = player.querySelector("svg.figure"), width = +svg.getAttribute("width"), ground = +svg.getAttribute("height") - 24;
    var poses = data.positions_mm, frames = data.frames, last = frames[frames.length - 1];
    var tallest = 1;
    poses.forEach(function (pose) { for (var i = 2; i < pose.length; i += 3) tallest = Math.max(tallest, pose[i]); });
    var scale = (ground - 24) / tallest;  // pixels per millimetre
    var marks = make(svg, "g", {stroke: "#999"}), markLines = [];
    for (var k = 0; k < 40; k++) markLines.push(make(marks, "line", {y1: ground, y2: ground + 6}));
    var bones = make(svg, "g", {"stroke-width": 3, "stroke-linecap": "round"});
    var lines = data.parents.map(function (parent) { return parent < 0 ? null : make(bones, "line", {}); });
    var flag = player.querySelector(".seam-flag"), clock = player.querySelector(".clock"), cursor = player.querySelector(".cursor");
    var view = player.querySelector(".view"), rate = player.querySelector(".rate"), button = player.querySelector(".play");
    var timeline = player.querySelector(".timeline"), seamColour = flag.getAttribute("fill");
    var time = 0, previous = null, playing = true;
    function draw() {
      var frame = time * data.fps, i = 0;
      while (i + 1 < frames.length && frames[i + 1] <= frame) i++;
      var axis = +view.value, pose = poses[i], centre = pose[data.root * 3 + axis];
      function x(bone) { return width / 2 + (pose[bone * 3 + axis] - centre) * scale; }
      function y(bone) { return ground - pose[bone * 3 + 2] * scale; }
      lines.forEach(function (line, bone) {
        if (!line) return;
        var parent = data.parents[bone];
        line.setAttribute("x1", x(parent)); line.setAttribute("y1", y(parent));
        line.setAttribute("x2", x(bone)); line.setAttribute("y2", y(bone));
      });
      // Held for 0.3 s after the seam frame, so the eye catches it at full speed.
      var atSeam = data.seams.some(function (seam) { return frame >= seam && frame - seam < 0.3 * data.fps; });
      bones.setAttribute("stroke", atSeam ? seamColour : "#333");
      flag.setAttribute("visibility", atSeam ? "visible" : "hidden");
      // Ground marks every half metre scroll by as the character travels.
      var spacing = 500 * scale, shift = ((-centre * scale) % spacing + spacing) % spacing;
      markLines.forEach(function (mark, k) { mark.setAttribute("x1", shift + k * spacing); mark.setAttribute("x2", shift + k * spacing); });
      clock.textContent = "frame " + frames[i] + " of " + last + (frames[i] >= data.seams[0] ? " (cycle 2)" : " (cycle 1)");
      cursor.setAttribute("x1", frames[i] / last * width); cursor.setAttribute("x2", frames[i] / last * width);
    }
    function step(now) {
      if (previous !== null && playing) time = (time + (now - previous) / 1000 * rate.value) % (last / data.fps);
      previous = now;
      draw();
      requestAnimationFrame(step);
    }
    button.onclick = function () { playing = !playing; button.textContent = playing ? "Pause" : "Play"; };
    view.onchange = draw;
    timeline.onclick = function (event) { time = event.offsetX / width * last / data.fps; draw(); };
    draw();
    requestAnimationFrame(step);
  });
})();
"""


def player_html(figure, width=380, height=260):
    """The loop's stick figure played twice: data inline as JSON, drawn and animated by the page's script."""
    data = json.dumps(figure, separators=(",", ":")).replace("<", "\\u003c")
    last = figure["frames"][-1]
    seams = "".join(f'<line x1="{seam / last * width:.1f}" x2="{seam / last * width:.1f}" y1="0" y2="16" stroke="{_SEAM}" stroke-width="3"/>'
                    f'<text x="{seam / last * width + 4:.1f}" y="12" font-size="10" fill="{_SEAM}">seam</text>' for seam in figure["seams"])
    return (f'<div class="player"><script type="application/json" class="figure-data">{data}</script>'
            f'<svg class="figure" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}">'
            f'<rect width="{width}" height="{height}" fill="#fafafa"/>'
            f'<line x1="0" x2="{width}" y1="{height - 24}" y2="{height - 24}" stroke="#999"/>'
            f'<text class="seam-flag" x="{width / 2:.0f}" y="18" font-size="15" font-weight="bold" text-anchor="middle" fill="{_SEAM}" '
            'visibility="hidden">seam</text>'
            f'<text class="clock" x="6" y="{height - 6}" font-size="11" fill="#555"></text></svg>'
            f'<svg class="timeline" xmlns="http://www.w3.org/2000/svg" width="{width}" height="16">'
            f'<rect width="{width}" height="16" fill="#eee"/>{seams}<line class="cursor" y1="0" y2="16" stroke="#333" stroke-width="2"/></svg>'
            '<div class="controls"><button class="play" type="button">Pause</button> '
            '<label>view <select class="view"><option value="0">side</option><option value="1">front</option></select></label> '
            '<label>speed <select class="rate"><option value="1">1x</option><option value="0.5">0.5x</option>'
            '<option value="0.25">0.25x</option></select></label>'
            '</div></div>')


def distance_svg(transition):
    """The distance map between FROM's and TO's frames, the chosen point circled and the time-warp path drawn on it."""
    picture = transition["distance_map"]
    (a0, a1), (b0, b1) = picture["frames"]
    chart = _Chart("distance map", (b0, b1 + 1), (a0, a1 + 1), "TO's frame", "FROM's frame", width=420, height=380)
    chart.parts.append(f'<image x="{chart.LEFT}" y="{chart.TOP}" width="{chart.plot_width}" height="{chart.plot_height}" '
                       f'preserveAspectRatio="none" style="image-rendering:pixelated" href="data:image/png;base64,{picture["png"]}"/>')
    if transition.get("path"):
        chart.polyline([b + 0.5 for _, b in transition["path"]], [a + 0.5 for a, _ in transition["path"]], _LOOP, "path", width=2)
    x, y = chart.x(transition["to_frame"] + 0.5), chart.y(transition["from_frame"] + 0.5)
    chart.parts.append(f'<circle class="chosen" cx="{x:.1f}" cy="{y:.1f}" r="6" fill="none" stroke="{_SEAM}" stroke-width="2"/>')
    return chart.svg() + _legend([(_SEAM, "the transition point", "line"), (_LOOP, "time-warp path", "line")])


def _transition_section(heading, entry):
    t, m = entry["transition"], entry["transition"]["metrics"]
    outputs = ", ".join(f"<code>{html.escape(output)}</code>" for output in entry["outputs"]) or "none"
    facts = (f"<p>From {html.escape(pathlib.Path(entry['file']).name)} frame {t['from_frame']} into "
             f"{html.escape(pathlib.Path(entry['to']).name)} frame {t['to_frame']}: {t['method'].lower()}, {t['length_s']:g} s; "
             f"the blend changes frames {t['window'][0]}-{t['window'][1]} of the {entry['frames']} written. Visibility "
             f"{m['visibility']:.2f} (1 = as sharp as the clips' own runs this long); root speed jump {m['root_speed_jump']:.2f} "
             f"(the clips' own largest {m['clips_root_speed_jump']:.2f}) m/s per frame step; heading rate {m['heading_rate']:.2f} "
             f"(clips {m['clips_heading_rate']:.2f}) rad/s; toe skating {m['skating']:.3f} (clips {m['clips_skating']:.3f}) m/s; "
             f"the feet leave the clips' floor by {m.get('floor_offset', 0.0):.3f} m and the pelvis their heights by "
             f"{m.get('pelvis_offset', 0.0):.3f} m (up to {grounding.TOLERANCE:g} m is on the floor). Output: {outputs}.</p>"
             + "".join(f'<p class="error">{html.escape(note)}</p>' for note in grounding_notes(m)))
    ranked = "".join(f"<li>{c['from_frame']} &rarr; {c['to_frame']}: cost {c['cost']:.3g}{'' if c['contact_match'] else ', feet differ'}</li>"
                     for c in t["candidates"])
    candidates = f"<p>Candidates, best first:</p><ol>{ranked}</ol>" if ranked else "<p>Transition frames given by hand.</p>"
    figure = f"<figure><figcaption>How alike each pair of frames is (dark: alike)</figcaption>{distance_svg(t)}</figure>"
    return f'<section>{heading}{facts}<div class="figures">{figure}<div>{candidates}</div></div></section>'


# Units of an edit's numbers, by a word in their names (lengths in metres for mocap imported at its detected scale).
_EDIT_UNITS = (("duration", "s"), ("covered", "s"), ("seconds", "s"), ("mismatch", "s"), ("skating", "m/s"), ("follow", "m"),
               ("error", "m"), ("fps", "fps"))


def _edit_unit(name):
    return next((unit for word, unit in _EDIT_UNITS if word in name), "")


def _edit_section(heading, entry):
    edit = entry["edit"]
    outputs = ", ".join(f"<code>{html.escape(output)}</code>" for output in entry["outputs"]) or "none"
    rows = "".join(f"<tr><td>{html.escape(name.replace('_', ' '))}</td><td>{value:g} {_edit_unit(name)}</td></tr>"
                   for name, value in edit["numbers"].items())
    notes = "".join(f"<li>{html.escape(note)}</li>" for note in edit["notes"])
    return (f'<section>{heading}<p>{edit["name"].capitalize()}: {entry["frames"]} frames at {entry["fps"]:g} fps. Output: {outputs}.</p>'
            f'<table class="summary numbers"><tbody>{rows}</tbody></table>{f"<ul>{notes}</ul>" if notes else ""}</section>')


def composition_svg(entry, width=540, row=22):
    """The composition's timeline: one bar per segment (its clip's name and frames), the transition windows over them."""
    total = max(entry["frames"] - 1, 1)

    def x(index):
        return 10 + (width - 20) * index / total

    colours = ("#2a6fdb", "#7a9a01", "#b55d00", "#8a4fb5", "#00838f")
    parts = []
    for number, segment in enumerate(entry["segments"]):
        first, last = segment["output_frames"]
        name = html.escape(pathlib.Path(segment["source"]).name)
        parts.append(f'<rect x="{x(first):.1f}" y="10" width="{max(x(last) - x(first), 1.0):.1f}" height="{row}" fill="{colours[number % len(colours)]}" '
                     f'opacity="0.75"><title>{name}: frames {segment["range"][0]}-{segment["range"][1]}</title></rect>')
    for transition in entry["transitions"]:
        first, last = transition["window"]
        parts.append(f'<rect x="{x(first):.1f}" y="6" width="{max(x(last) - x(first), 2.0):.1f}" height="{row + 8}" fill="none" stroke="{_SEAM}" '
                     f'stroke-width="2"><title>{transition["method"].lower()}, {transition["length_s"]:g} s, visibility '
                     f'{transition["metrics"]["visibility"]:.2f}</title></rect>')
    seconds = (entry["frames"] - 1) / entry["fps"]
    parts.append(f'<text x="10" y="{row + 30}" font-size="11">0 s</text><text x="{width - 10}" y="{row + 30}" font-size="11" '
                 f'text-anchor="end">{seconds:.1f} s</text>')
    return f'<svg width="{width}" height="{row + 36}" xmlns="http://www.w3.org/2000/svg">{"".join(parts)}</svg>'


def _composition_section(heading, entry):
    composition = entry["composition"]
    outputs = ", ".join(f"<code>{html.escape(output)}</code>" for output in entry["outputs"]) or "none"
    segments = "".join(f"<li>{html.escape(pathlib.Path(s['source']).name)} frames {s['range'][0]}-{s['range'][1]} &rarr; "
                       f"{s['output_frames'][0]}-{s['output_frames'][1]}</li>" for s in entry["segments"])
    transitions = "".join(f"<li>frames {t['window'][0]}-{t['window'][1]}: {t['method'].lower()}, {t['length_s']:g} s, visibility "
                          f"{t['metrics']['visibility']:.2f}, root speed jump {t['metrics']['root_speed_jump']:.2f} "
                          f"(clips {t['metrics']['clips_root_speed_jump']:.2f}), off the floor {t['metrics'].get('floor_offset', 0.0):.3f} m"
                          f"{''.join('; ' + note for note in grounding_notes(t['metrics']))}</li>" for t in entry["transitions"])
    rows = "".join(f"<tr><td>{html.escape(name.replace('_', ' '))}</td><td>{value:g}</td></tr>" for name, value in composition["numbers"].items())
    notes = "".join(f"<li>{html.escape(note)}</li>" for note in composition["notes"])
    return (f'<section>{heading}<p>{"A looping" if composition["loop"] else "A"} composition of {len(entry["segments"])} segments: '
            f'{entry["frames"]} frames at {entry["fps"]:g} fps. Output: {outputs}.</p>'
            f'<figure><figcaption>Segments in order, transition windows outlined</figcaption>{composition_svg(entry)}</figure>'
            f'<div class="figures"><div><p>Segments:</p><ol>{segments}</ol><p>Transitions:</p><ol>{transitions}</ol></div>'
            f'<table class="summary numbers"><tbody>{rows}</tbody></table></div>{f"<ul>{notes}</ul>" if notes else ""}</section>')


def composition_visibility(entry):
    """A composition's worst junction visibility (and its loop seam's), for the summary tables."""
    worst = max((t["metrics"]["visibility"] for t in entry["transitions"]), default=0.0)
    seam = entry["composition"]["numbers"].get("seam_visibility")
    return f"{worst:.2f}" + (f", seam {seam:.2f}" if seam is not None else "")


def graph_svg(graph, width=560, lane=18):
    """Each clip a lane across the figure (its frames in its own scale, named with its frame count), each drawn transition an
    arc from where it leaves to where it lands."""
    left = 170

    def point(clip, frame):
        return left + (width - left - 10) * frame / max(graph["lanes"][clip]["frames"] - 1, 1), 12 + lane * clip + lane / 2

    parts = []
    for index, clip in enumerate(graph["lanes"]):
        x0, y = point(index, 0)
        x1, _ = point(index, clip["frames"] - 1)
        parts.append(f'<text x="{left - 6}" y="{y + 4:.1f}" font-size="11" text-anchor="end"><title>{html.escape(clip["name"])}</title>'
                     f'{html.escape(clip["name"][:20])} ({clip["frames"]})</text>'
                     f'<line x1="{x0:.1f}" y1="{y:.1f}" x2="{x1:.1f}" y2="{y:.1f}" stroke="{_LOOP}" stroke-width="4"/>')
    for arc in graph["arcs"]:
        (xa, ya), (xb, yb) = point(*arc["from"]), point(*arc["to"])
        bend = 0.5 * lane if ya == yb else 0.0
        parts.append(f'<path d="M{xa:.1f},{ya:.1f} Q{(xa + xb) / 2:.1f},{(ya + yb) / 2 - bend - 8:.1f} {xb:.1f},{yb:.1f}" fill="none" '
                     f'stroke="{_SEAM}" stroke-width="0.8" opacity="0.6"><title>cost {arc["cost"]:g}</title></path>')
    height = 24 + lane * len(graph["lanes"])
    return f'<svg width="{width}" height="{height}" xmlns="http://www.w3.org/2000/svg">{"".join(parts)}</svg>'


def distance_histogram_svg(stats):
    """The library's frame-pair distances as a histogram, the threshold marked."""
    histogram = stats.get("histogram") or {}
    edges, counts = histogram.get("edges", []), histogram.get("counts", [])
    if not counts:
        return ""
    chart = _Chart("pose distances between frames of the library", (edges[0], edges[-1]), (0.0, max(counts) * 1.08), "distance", "frame pairs")
    for low, high, count in zip(edges, edges[1:], counts):
        chart.polyline([low, low, high, high], [0.0, count, count, 0.0], _LOOP, "line")
    chart.marker(stats["threshold"], _SEAM, "threshold", "threshold")
    return chart.svg()


def graph_coverage(graph):
    """``'9/11 clips, 1,484/1,837 frames'``: how much of the library a graph entry's graph plays (older entries: clips only)."""
    coverage = graph.get("coverage")
    if not coverage:
        return f"{graph['clips_kept']}/{graph['clips_kept'] + len(graph['clips_left_out'])} clips"
    return f"{coverage['clips_kept']}/{coverage['clips']} clips, {coverage['frames_kept']:,}/{coverage['frames']:,} frames"


def graph_left_out(graph):
    """``[(name, reason, what would include it)]`` of a graph entry's clips left out (older entries: names alone)."""
    if "left_out" in graph:
        return [(entry["name"], entry["reason"], entry["include"]) for entry in graph["left_out"]]
    return [(name, "too short, or no transition both ways", "-") for name in graph["clips_left_out"]]


def _graph_section(heading, entry):
    graph = entry["graph"]
    stats = graph["stats"]
    left_out = "".join(f"<li><b>{html.escape(name)}</b>: {html.escape(reason)}. Would include it: {html.escape(include)}.</li>"
                       for name, reason, include in graph_left_out(graph))
    thresholds = stats.get("clip_thresholds") or []
    facts = (f"<p>Coverage: {graph_coverage(graph)} in the largest strongly connected part. {graph['nodes']} nodes, "
             f"{graph['edges']} edges of which {graph['transitions']} transitions; threshold {stats['threshold']:.3g}"
             f"{' (' + html.escape(str(stats['rule'])) + ')' if stats.get('rule') else ''}"
             f"{f', per clip {min(thresholds):.3g} to {max(thresholds):.3g}' if thresholds else ''}. "
             f"Output: <code>{html.escape(', '.join(entry['outputs']) or 'none (written over since)')}</code>.</p>"
             f"{f'<p>Left out:</p><ul class=left-out>{left_out}</ul>' if left_out else '<p>No clip left out.</p>'}")
    drawn = f" (the {len(graph['arcs'])} cheapest drawn)" if len(graph["arcs"]) < graph["transitions"] else ""
    return (f'<section>{heading}{facts}<div class="figures"><figure><figcaption>Clips as lanes, transitions as arcs{drawn}</figcaption>'
            f'{graph_svg(graph)}</figure><figure><figcaption>Distance statistics</figcaption>{distance_histogram_svg(stats)}</figure></div></section>')


def _cycles(count):
    return f"{count} cycle{'' if count == 1 else 's'}"


def cut_grade(entry, given="-"):
    """A loop entry's grade (Find Loop's, of the raw cut; ``given`` when the range was); a POOR cut whose loop is fine says both."""
    grade = entry.get("grade", given)
    return "POOR cut, loop fine" if grade == "POOR" and entry.get("loop_fine") else grade


def loop_grade(entry, given="-"):
    """A loop entry's grade and method as the summaries show them: ``'FAIR / softfade (auto)'``."""
    if not entry.get("method"):  # written before entries named their method
        return cut_grade(entry, given)
    return f"{cut_grade(entry, given)} / {entry['method'].lower()}{' (auto)' if 'method_chosen' in entry else ''}"


def _method_facts(entry):
    """The sentence on a loop's method: the one given, or each one AUTO made with its seam as played."""
    if "methods_tried" not in entry:
        return f" Method: {entry['method'].lower()}." if entry.get("method") else ""
    tried = "; ".join(f"{t['method'].lower()} {t['visibility']:.2f}, {t['max_velocity_jump_m_per_s']:.2f} m/s" for t in entry["methods_tried"])
    return (f" Method: {entry['method_chosen'].lower()}, the least visible of those made, short of one whose feet slide at the seam "
            f"(seam visibility as played, velocity jump: {tried}).")


def clips_title(entry):
    """What a composition, synthesis or graph entry is of: its clips in order, or the graph file it walked."""
    if entry.get("graph_file"):
        return f"{pathlib.Path(entry['graph_file']).name} ({len(entry['clips'])} clips)"
    names = [pathlib.Path(path).name for path in entry["clips"]]
    return " + ".join(names) if "graph" not in entry else f"{len(names)} clips"


def composition_warnings(entry):
    """The notes of a composition worth a look (its warnings: a junction that stays visible; the body off the floor), or 'ok'."""
    warnings = entry["composition"].get("warnings", [])  # reports written before warnings were kept apart have none
    return "; ".join(warnings + grounding_notes(entry["composition"]["numbers"])) or "ok"


def _title(entry):
    if entry.get("clips"):
        return html.escape(clips_title(entry)), html.escape(entry["armature"])
    name = pathlib.Path(entry["file"]).name + (f" \u2192 {pathlib.Path(entry['to']).name}" if entry.get("to") else "")
    name += f" + {pathlib.Path(entry['with']).name}" if entry.get("with") else ""
    return html.escape(name), html.escape(entry["armature"])


def _summary_table(entries):
    """Every entry in one table row, a failure's reason in full."""
    head = ("file", "armature", "loop (frames)", "grade / method", "seam visibility", "velocity jump (m/s)", "step (mm)", "seconds")
    rows = []
    for index, entry in enumerate(entries):
        name, armature = _title(entry)
        cells = [f'<a class="name" href="#entry-{index}">{name}</a>', f'<span class="name">{armature or "-"}</span>']
        if entry["status"] == "ok" and "edit" in entry:
            cells += [f"{entry['frames']} at {entry['fps']:g} fps", entry["edit"]["name"], edit_sharpness(entry), "-", "-", f"{entry['seconds']:.2f}"]
            rows.append("<tr>" + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>")
        elif entry["status"] == "ok" and "graph" in entry:
            graph = entry["graph"]
            cells += [f"{graph['nodes']} nodes, {graph['edges']} edges", "graph", f"covers {graph_coverage(graph)}", "-", "-",
                      f"{entry['seconds']:.2f}"]
            rows.append("<tr>" + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>")
        elif entry["status"] == "ok" and "composition" in entry:
            cells += [f"{entry['frames']} at {entry['fps']:g} fps", "loop" if entry["composition"]["loop"] else "composed",
                      composition_visibility(entry), "-", "-", f"{entry['seconds']:.2f}"]
            rows.append("<tr>" + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>")
        elif entry["status"] == "ok" and "transition" in entry:
            t = entry["transition"]
            cells += [f"{t['from_frame']} &rarr; {t['to_frame']} (changes {t['window'][0]}-{t['window'][1]})", t["method"].lower(),
                      f"{t['metrics']['visibility']:.2f}", f"root {t['metrics']['root_speed_jump']:.2f}", "-", f"{entry['seconds']:.2f}"]
            rows.append("<tr>" + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>")
        elif entry["status"] == "ok":
            before, after = entry["seam_before"], entry["seam_after"]
            cells += [f"{entry['range'][0]}-{entry['range'][1]} ({entry['length']})", loop_grade(entry, "by hand"),
                      f"{before['visibility']:.2f} &rarr; {after['visibility']:.2f}",
                      f"{before['max_velocity_jump_m_per_s']:.2f} &rarr; {after['max_velocity_jump_m_per_s']:.2f}",
                      f"{before['max_step_m'] * 1000:.1f} &rarr; {after['max_step_m'] * 1000:.2f}", f"{entry['seconds']:.2f}"]
            rows.append("<tr>" + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>")
        else:
            rows.append(f'<tr class="failed">{"".join(f"<td>{cell}</td>" for cell in cells)}'
                        f'<td colspan="{len(head) - 2}" class="error">Failed: {html.escape(entry["error"])}</td></tr>')
    header = "".join(f"<th>{html.escape(title)}</th>" for title in head)
    return f'<table class="summary"><thead><tr>{header}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


def _engine_facts(entry):
    """What root motion, the engine profile and a WRAP loop's closing frame did, as a paragraph ('' when none applied)."""
    facts = []
    if "engine" in entry:
        facts.append(f"Written for {html.escape(profiles.PROFILES[entry['engine']].label)}, its root named "
                     f"'{html.escape(entry['engine_root'])}' in the files.")
    root = entry.get("root_motion")
    if root and root["mode"] == "IN_PLACE":
        facts.append(f"The travel is removed: '{html.escape(root['root'])}' stays at the origin.")
    elif root:
        facts.append(f"Root motion ({root['mode'].lower()}): '{html.escape(root['root'])}'{' (added)' if root['added'] else ''} carries "
                     f"{root['root_share']:.0%} of the travel of '{html.escape(root['pelvis'])}', which stays within "
                     f"{root['pelvis_offset']:.3f} m of it.")
    if "engine_note" in entry:
        facts.append(html.escape(entry["engine_note"]).capitalize() + ".")
    if "loop_end" in entry:
        facts.append(html.escape(entry["loop_end"]) + ".")
    return f"<p>{' '.join(facts)}</p>" if facts else ""


def _entry_section(index, entry):
    name, armature = _title(entry)
    heading = f'<h2 id="entry-{index}">{name} <small>{armature}</small></h2>'
    if entry["status"] != "ok":
        return f'<section>{heading}<p class="error">Failed: {html.escape(entry["error"])}</p></section>'
    heading += _engine_facts(entry)
    if "transition" in entry:
        return _transition_section(heading, entry)
    if "edit" in entry:
        return _edit_section(heading, entry)
    if "composition" in entry:
        return _composition_section(heading, entry)
    if "graph" in entry:
        return _graph_section(heading, entry)
    before, after = entry["seam_before"], entry["seam_after"]
    found = f", {_cycles(entry['cycles'])}, {cut_grade(entry)}" if "grade" in entry else ", range given"
    root = f"root {entry['root_mode'].lower()}" + (f" on {html.escape(entry['root_bone'])}" if entry["root_bone"] else "")
    outputs = ", ".join(f"<code>{html.escape(output)}</code>" for output in entry["outputs"]) or "none"
    facts = (f"<p>Loop {entry['range'][0]}-{entry['range'][1]}: {entry['length']} frames{found}; {root}. "
             f"Seam visibility {before['visibility']:.2f} &rarr; {after['visibility']:.2f}, velocity jump "
             f"{before['max_velocity_jump_m_per_s']:.2f} &rarr; {after['max_velocity_jump_m_per_s']:.2f} m/s, position step "
             f"{before['max_step_m'] * 1000:.1f} &rarr; {after['max_step_m'] * 1000:.3f} mm.{_method_facts(entry)} Output: {outputs}.</p>")
    figures = []
    detection = entry.get("detection")
    if detection:
        period = f", period {detection['period_frames']:g} frames" if detection.get("period_frames") else ""
        figures.append(f"<figure><figcaption>Find Loop: how well the motion repeats after each loop length{period}</figcaption>"
                       f"{detection_svg(detection)}</figure>")
    worst, joints = entry.get("worst_joint"), entry["joints"]
    if worst:
        joint = joints["names"].index(worst["name"])
        figures.append(f"<figure><figcaption>Worst joint at the seam, <b>{html.escape(worst['name'])}</b> (visibility "
                       f"{joints['visibility_before'][joint]:.2f} &rarr; {joints['visibility_after'][joint]:.2f}): its speed over two "
                       f"cycles played one after the other</figcaption>{speed_svg(worst)}</figure>"
                       f"<figure><figcaption>Its acceleration {preview.CLOSE_UP:g} s either side of the seam: what the seam visibility "
                       f"measures</figcaption>{acceleration_svg(worst)}</figure>")
    if entry.get("figure"):
        figures.append(f"<figure><figcaption>The loop playing twice (the figure turns pink at the seam)</figcaption>"
                       f"{player_html(entry['figure'])}</figure>")
    if "worst_joint" in entry and not worst:
        figures.append("<p>No seam previews: a Wrap loop whose root travels lacks the frame that places the next cycle.</p>")
    figures.append(f"<figure><figcaption>Seam per joint (hover a name for its position step)</figcaption>{seam_svg(joints)}</figure>")
    return f'<section>{heading}{facts}<div class="figures">{"".join(figures)}</div></section>'


_STYLE = (
    "body{font-family:sans-serif;margin:1.5em auto;max-width:1160px;padding:0 1em;color:#222}"
    "section{border-top:1px solid #ddd;padding-top:.5em;margin-top:1.5em}h2 small{color:#777;font-weight:normal}"
    ".error{color:#c8372d}table.summary{border-collapse:collapse;width:100%;font-size:13px}"
    ".summary th,.summary td{border-bottom:1px solid #e4e4e4;padding:3px 6px;text-align:left;vertical-align:top}"
    ".summary .name{overflow-wrap:anywhere}"
    ".summary tr.failed td{background:#fdf1f0}table.numbers{width:auto;min-width:360px}.figures{display:flex;flex-wrap:wrap;gap:8px 28px;align-items:flex-start}"
    "figure{margin:0}figcaption{font-size:13px;margin:.6em 0 .3em;max-width:540px}"
    "ul.legend{list-style:none;padding:0;margin:2px 0 0 46px;font-size:12px}ul.legend li{display:inline-block;margin-right:14px}"
    ".key{display:inline-block;width:18px;margin-right:5px;vertical-align:middle}"
    ".controls{font-size:12px;margin-top:4px}.timeline{cursor:pointer;display:block}"
    "details pre{background:#f6f6f6;padding:1em;overflow:auto}"
)


def html_report(entries, summary):
    """The report page: a table of every entry, then each entry's numbers, pictures and stick figure; ``summary`` is the text table."""
    failed = sum(entry["status"] != "ok" for entry in entries)
    sections = "".join(_entry_section(index, entry) for index, entry in enumerate(entries))
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>Loopsmith report</title><style>{_STYLE}</style></head><body>"
        f"<h1>Loopsmith report</h1><p>{len(entries) - failed} done, {failed} failed.</p>{_summary_table(entries)}"
        f"<details><summary>Text summary</summary><pre>{html.escape(summary)}</pre></details>"
        f"{sections}<script>{_PLAYER_SCRIPT}</script></body></html>"
    )
