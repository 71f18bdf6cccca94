"""follow's report: a composition of the graph's clips (its entry, timeline and player are the composition's) with the
path it follows: the path and the root's trace from above, the deviation coloured along it, deviation and speed over time."""

import html
import pathlib

import numpy as np

from ...contract import Row
from ...html import charts, parts
from ..compose import report as composition

TRACE_POINTS = 400  # the trace and its curves are kept at most this many points in the entry
DEVIATION_SCALE_M = 0.15  # the deviation's colour runs from green at 0 to red at this and beyond


def follow_entry(paths, armature, outputs, followed, options, source_of):
    """The report of one path followed (``followed``: a :class:`....core.graph.follow.Followed`), over the graph ``options.graph``
    and the path file ``options.path``: the composition's entry and its ``follow`` block."""
    entry = composition.composition_entry(paths, armature, outputs, followed.composition, source_of)
    step = max(1, len(followed.trace) // TRACE_POINTS)
    fps = followed.composition.clip.fps
    entry["graph_file"], entry["path_file"] = str(options.graph), str(options.path)
    entry["follow"] = {
        "numbers": {key: round(float(value), 4) for key, value in followed.numbers.items()},
        "notes": list(followed.notes), "corners": followed.corners, "speed_asked_m_s": options.speed, "clips_allowed": list(options.clips),
        "end_asked": options.end, "horizon_s": options.horizon,
        "points": [[round(float(x), 4), round(float(y), 4)] for x, y in options.points],
        "trace_step": step, "trace": [[round(float(x), 4), round(float(y), 4)] for x, y in followed.trace[::step]],
        "times_s": [round(k / fps, 3) for k in range(0, len(followed.trace), step)],
        "deviation_m": [round(float(v), 4) for v in followed.deviation[::step]],
        "speed_m_s": [round(float(v), 3) for v in followed.speed[::step]],
    }
    return entry


def _colour(deviation):
    """Green at 0, yellow half way, red at :data:`DEVIATION_SCALE_M` and beyond."""
    share = min(max(deviation / DEVIATION_SCALE_M, 0.0), 1.0)
    red, green = (int(255 * min(1.0, 2 * share)), int(200 * min(1.0, 2 * (1 - share))))
    return f"#{red:02x}{green:02x}30"


def from_above_svg(block, width=420):
    """The drawn path (grey) and the root's trace coloured by its distance to the path, from above, metres on both axes."""
    points, trace = np.array(block["points"]), np.array(block["trace"])
    both = np.concatenate([points, trace])
    low, high = both.min(axis=0) - 0.3, both.max(axis=0) + 0.3
    span = float(max(high - low))
    chart = charts.Chart("the path and the root's trace from above", (low[0], low[0] + span), (low[1], low[1] + span), "X (m)", "Y (m)",
                         width=width, height=width - charts.Chart.LEFT - charts.Chart.RIGHT + charts.Chart.TOP + charts.Chart.BOTTOM)
    chart.polyline(points[:, 0], points[:, 1], "#999", "path", width=6)
    for k in range(len(trace) - 1):  # a few hundred segments, one colour each
        (x0, y0), (x1, y1) = trace[k], trace[k + 1]
        chart.parts.append(f'<line class="trace" x1="{chart.x(x0):.1f}" y1="{chart.y(y0):.1f}" x2="{chart.x(x1):.1f}" y2="{chart.y(y1):.1f}" '
                           f'stroke="{_colour(block["deviation_m"][k])}" stroke-width="2"/>')
    for corner in block["corners"]:
        x, y = corner["at"]
        chart.parts.append(f'<circle class="corner" cx="{chart.x(x):.1f}" cy="{chart.y(y):.1f}" r="6" fill="none" stroke="{charts.SEAM}">'
                           f'<title>turns {corner["turn_deg"]:.0f} degrees at up to {corner["rate_deg_s"]:.0f} degrees/s; the clips '
                           f'turn at most {corner["sharpest_deg_s"]:.0f}</title></circle>')
    keys = [("#999", "the path drawn", "line"), (_colour(0.0), "the root: on the path", "line"),
            (_colour(DEVIATION_SCALE_M), f"the root: {DEVIATION_SCALE_M * 100:.0f} cm off or more", "line")]
    return chart.svg() + charts.legend(keys)


def over_time_svg(block, width=560):
    """The root's distance to the path (cm) and its speed (m/s, averaged over a gait cycle) against time."""
    times = block["times_s"]
    top = max(max(block["deviation_m"], default=0.0) * 100, max(block["speed_m_s"], default=0.0), 1.0) * 1.1
    chart = charts.Chart("deviation and speed over time", (0.0, max(times[-1], 1e-3)), (0.0, top), "time (s)", "cm, m/s", width=width)
    chart.polyline(times, [v * 100 for v in block["deviation_m"]], "#c0392b", "deviation")
    chart.polyline(times, block["speed_m_s"], "#2c7fb8", "speed")
    keys = [("#c0392b", "distance to the path (cm)", "line"), ("#2c7fb8", "speed (m/s)", "line")]
    return chart.svg() + charts.legend(keys)


def row(entry):
    made = composition.row(entry)
    numbers = entry["follow"]["numbers"]
    count = len(entry["transitions"])
    return Row(made.made, f"along {pathlib.Path(entry['path_file']).name}, {count} transition{'' if count == 1 else 's'}",
               f"{numbers['path_length_m']:.1f} m, off the path {numbers['deviation_mean_m'] * 100:.1f} cm mean, "
               f"{numbers['deviation_max_m'] * 100:.1f} cm max; {made.numbers}",
               "; ".join(entry["follow"]["notes"]))


def section(entry):
    block, numbers = entry["follow"], entry["follow"]["numbers"]
    facts = (f"<p>Follows <code>{html.escape(pathlib.Path(entry['path_file']).name)}</code> ({numbers['path_length_m']:.2f} m) with clips "
             f"of <code>{html.escape(pathlib.Path(entry['graph_file']).name)}</code>: the root {numbers['deviation_mean_m'] * 100:.1f} cm off "
             f"the path on average, {numbers['deviation_max_m'] * 100:.1f} cm at most; it ends "
             f"{'standing' if numbers.get('ends_standing') else 'walking'} {numbers['end_error_m'] * 100:.1f} cm from "
             f"the path's end, facing {numbers['end_facing_error_deg']:.1f} degrees off it; toe skating {numbers['toe_skating_m_s']:.3f} m/s "
             f"(the clips' own {numbers['clips_toe_skating_m_s']:.3f}); planned in {numbers['planning_s']:.2f} s.</p>")
    notes = "".join(f"<li>{html.escape(note)}</li>" for note in block["notes"])
    figures = [parts.figure("The path and the root's trace from above, coloured by its distance to the path", from_above_svg(block)),
               parts.figure("The root's distance to the path and its speed", over_time_svg(block))]
    return (facts + (f"<ul>{notes}</ul>" if notes else "") + f'<div class="figures">{"".join(figures)}</div>'
            + composition.section(entry))


title = composition.title
