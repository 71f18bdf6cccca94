"""Batch reports: one JSON file, an HTML page with inline SVG pictures, a summary table.

Plain Python: no Blender and no dependency beyond the standard library.
"""

import html
import json
import pathlib

_CURVE_POINTS = 400  # the detection curve is thinned to this many points in the report


def _seam(metrics):
    return {
        "visibility": round(metrics.visibility, 4),
        "max_step_m": round(metrics.max_position_step, 6),
        "max_velocity_jump_m_per_s": round(metrics.max_velocity_jump, 4),
        "velocity_jump_ratio": round(metrics.velocity_jump_ratio, 4),
    }


def loop_entry(path, armature, outputs, result, detection, start, end, seconds):
    """The report of one looped armature."""
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
        "seconds": round(seconds, 3),
        "joints": {
            "names": list(result.clip.bone_names),
            "step_before": [round(float(v), 6) for v in result.before.position_step],
            "step_after": [round(float(v), 6) for v in result.after.position_step],
            "jump_before": [round(float(v), 4) for v in result.before.velocity_jump],
            "jump_after": [round(float(v), 4) for v in result.after.velocity_jump],
        },
    }
    if detection is not None and detection.best is not None:
        stride = max(1, len(detection.lags) // _CURVE_POINTS)
        entry.update(
            grade=detection.best.grade,
            cycles=detection.best.cycles,
            score=round(detection.best.score, 4),
            detection={
                "period_frames": round(float(detection.period), 3) if detection.period else None,
                "lags": [int(v) for v in detection.lags[::stride]],
                "correlation": [round(float(v), 4) for v in detection.correlation[::stride]],
                "candidates": [
                    {"range": [c.frame_start, c.frame_end], "length": c.length, "cycles": c.cycles, "score": round(c.score, 4), "grade": c.grade}
                    for c in detection.candidates
                ],
            },
        )
    return entry


def error_entry(path, reason, seconds, armature=""):
    """The report of a file or armature that could not be looped."""
    return {"file": str(path), "armature": armature, "status": "error", "error": reason, "seconds": round(seconds, 3)}


def summary_table(entries):
    """A short text table of every entry."""
    rows = [("file", "armature", "range", "grade", "visibility", "velocity jump m/s", "result")]
    for entry in entries:
        name = pathlib.Path(entry["file"]).name
        if entry["status"] == "ok":
            before, after = entry["seam_before"], entry["seam_after"]
            rows.append((name, entry["armature"], "{}-{}".format(*entry["range"]), entry.get("grade", "-"),
                         f"{before['visibility']:.2f} -> {after['visibility']:.2f}",
                         f"{before['max_velocity_jump_m_per_s']:.2f} -> {after['max_velocity_jump_m_per_s']:.2f}", "ok"))
        else:
            rows.append((name, entry["armature"] or "-", "-", "-", "-", "-", "FAILED: " + entry["error"]))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[-1] for row in rows)


def _polyline(xs, ys, width, height, x_range, y_range):
    (x0, x1), (y0, y1) = x_range, y_range
    points = " ".join(
        f"{(x - x0) / max(x1 - x0, 1e-9) * width:.1f},{height - (y - y0) / max(y1 - y0, 1e-9) * height:.1f}" for x, y in zip(xs, ys)
    )
    return f'<polyline fill="none" stroke="#2a6fdb" stroke-width="1.5" points="{points}"/>'


def detection_svg(detection, width=520, height=140):
    """The autocorrelation over loop length with the candidates marked."""
    lags, values = detection["lags"], detection["correlation"]
    if len(lags) < 2:
        return ""
    x_range, y_range = (lags[0], lags[-1]), (min(min(values), 0.0), 1.0)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height + 20}" role="img" aria-label="autocorrelation">',
             f'<line x1="0" x2="{width}" y1="{height - (0 - y_range[0]) / (y_range[1] - y_range[0]) * height:.1f}" '
             f'y2="{height - (0 - y_range[0]) / (y_range[1] - y_range[0]) * height:.1f}" stroke="#bbb"/>',
             _polyline(lags, values, width, height, x_range, y_range)]
    colours = {"GOOD": "#2e9b44", "FAIR": "#d89b00", "POOR": "#c8372d"}
    for candidate in detection["candidates"]:
        x = (candidate["length"] - x_range[0]) / max(x_range[1] - x_range[0], 1e-9) * width
        parts.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="0" y2="{height}" stroke="{colours[candidate["grade"]]}" stroke-dasharray="4 3"/>')
        parts.append(f'<text x="{x + 3:.1f}" y="{height + 14}" font-size="11" fill="{colours[candidate["grade"]]}">{candidate["length"]} fr</text>')
    parts.append(f'<text x="{width - 4}" y="12" font-size="11" text-anchor="end" fill="#555">autocorrelation over loop length (frames), candidates dashed</text>')
    parts.append("</svg>")
    return "".join(parts)


def seam_svg(joints, width=520, row=14):
    """Per joint, the seam's position step and velocity jump, before (grey) and after (blue)."""
    names = joints["names"]
    scale_step = max(max(joints["step_before"]), 1e-9)
    scale_jump = max(max(joints["jump_before"]), 1e-9)
    label, half = 110, (width - 110) // 2 - 10
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{row * (len(names) + 2) + 4}" role="img" aria-label="seam per joint">',
             f'<text x="{label}" y="11" font-size="11">position step (max {scale_step * 1000:.1f} mm)</text>',
             f'<text x="{label + half + 10}" y="11" font-size="11">velocity jump (max {scale_jump:.2f} m/s)</text>']
    for i, name in enumerate(names):
        y = row * (i + 1)
        parts.append(f'<text x="0" y="{y + 10}" font-size="10">{html.escape(name[:16])}</text>')
        for offset, before, after, scale in ((label, joints["step_before"][i], joints["step_after"][i], scale_step),
                                             (label + half + 10, joints["jump_before"][i], joints["jump_after"][i], scale_jump)):
            parts.append(f'<rect x="{offset}" y="{y + 2}" width="{before / scale * half:.1f}" height="5" fill="#bbb"/>')
            parts.append(f'<rect x="{offset}" y="{y + 7}" width="{after / scale * half:.1f}" height="5" fill="#2a6fdb"/>')
    legend = row * (len(names) + 1) + 10
    parts.append(f'<rect x="{label}" y="{legend - 7}" width="10" height="5" fill="#bbb"/><text x="{label + 14}" y="{legend}" font-size="10">raw cut</text>')
    parts.append(f'<rect x="{label + 70}" y="{legend - 7}" width="10" height="5" fill="#2a6fdb"/><text x="{label + 84}" y="{legend}" font-size="10">after Make Loop</text>')
    parts.append("</svg>")
    return "".join(parts)


def html_report(entries, summary):
    rows = []
    for entry in entries:
        title = html.escape(f"{pathlib.Path(entry['file']).name} {entry['armature']}".strip())
        if entry["status"] != "ok":
            rows.append(f'<section><h2>{title}</h2><p class="error">Failed: {html.escape(entry["error"])}</p></section>')
            continue
        before, after = entry["seam_before"], entry["seam_after"]
        detection = entry.get("detection")
        picture = detection_svg(detection) if detection else "<p>Range given by hand.</p>"
        rows.append(
            f"<section><h2>{title}</h2>"
            f"<p>Loop {entry['range'][0]}-{entry['range'][1]} ({entry['length']} frames"
            f"{', ' + str(entry['cycles']) + ' cycles, ' + entry['grade'] if 'grade' in entry else ''}), root {entry['root_mode'].lower()}"
            f"{' on ' + html.escape(entry['root_bone']) if entry['root_bone'] else ''}: seam visibility {before['visibility']:.2f} &rarr; "
            f"{after['visibility']:.2f}, velocity jump {before['max_velocity_jump_m_per_s']:.2f} &rarr; {after['max_velocity_jump_m_per_s']:.2f} m/s, "
            f"step {before['max_step_m'] * 1000:.1f} &rarr; {after['max_step_m'] * 1000:.3f} mm. Output: "
            f"{', '.join('<code>' + html.escape(output) + '</code>' for output in entry['outputs'])}</p>"
            f"<h3>Find Loop</h3>{picture}<h3>Seam per joint</h3>{seam_svg(entry['joints'])}</section>"
        )
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>Loopsmith report</title>"
        "<style>body{font-family:sans-serif;margin:2em;max-width:60em}section{border-top:1px solid #ddd;padding-top:.5em}"
        ".error{color:#c8372d}pre{background:#f6f6f6;padding:1em;overflow:auto}</style></head><body>"
        f"<h1>Loopsmith report</h1><pre>{html.escape(summary)}</pre>{''.join(rows)}</body></html>"
    )


def write_reports(entries, json_path, seconds, options):
    """Write the JSON report and the HTML page beside it; returns the summary text."""
    json_path = pathlib.Path(json_path)
    json_path.parent.mkdir(parents=True, exist_ok=True)
    failed = sum(entry["status"] != "ok" for entry in entries)
    summary = summary_table(entries) + f"\n{len(entries) - failed} looped, {failed} failed in {seconds:.1f} s"
    settings = {key: (str(value) if isinstance(value, pathlib.PurePath) else [str(v) for v in value] if key == "inputs" else value)
                for key, value in options.items() if key not in ("worker_output",)}
    json_path.write_text(json.dumps({"entries": entries, "seconds": round(seconds, 3), "settings": settings}, indent=1))
    html_path = json_path.with_suffix(".html")
    html_path.write_text(html_report(entries, summary))
    return summary + f"\nreports: {json_path} and {html_path}"
