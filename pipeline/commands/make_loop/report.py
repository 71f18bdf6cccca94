"""make-loop's report: the entry of one looped armature, its row in the summaries and its section of the page (Find
Loop's detection curve, the worst joint's speed and acceleration across the seam, every joint's seam, the loop playing)."""

import html

from ....core.loop import preview
from ....core.loop.make import largest_step_ratio
from ....core.measure import verdict as verdicts
from ....core.measure.grounding import floor_height
from ... import entries
from ...contract import Row
from ...html import charts, parts, player

_CURVE_POINTS = 400  # the detection curve is thinned to this many points in the report


LOOP_FINE = 1.0  # a made loop's seam visibility and velocity jump, over the clip's own, up to which the loop is fine, whatever its cut's grade


def _seam(metrics):
    return {
        "visibility": round(metrics.visibility, 4),
        "max_step_m": round(metrics.max_position_step, 6),
        "max_velocity_jump_m_per_s": round(metrics.max_velocity_jump, 4),
        "velocity_jump_ratio": round(metrics.velocity_jump_ratio, 4),
    }


def _worst_joint(result):
    motion = preview.seam_motion(result)
    if motion is None:
        return None
    return {
        "name": result.clip.bone_names[motion.joint],
        "times_s": entries.rounded(motion.times, 3),
        "raw_m_per_s": entries.rounded(motion.raw_speed, 3),
        "loop_m_per_s": entries.rounded(motion.loop_speed, 3),
        "seams_s": entries.rounded(motion.seams, 3),
        "close_up": {
            "times_s": entries.rounded(motion.close_up_times, 3),
            "raw_m_per_s2": entries.rounded(motion.raw_acceleration, 2),
            "loop_m_per_s2": entries.rounded(motion.loop_acceleration, 2),
            "typical_m_per_s2": round(motion.typical_acceleration, 2),
        },
    }


def _figure(result):
    """The player's figure: the loop played twice, chained by its travelling root, each seam a mark, each cycle a segment."""
    figure = preview.stick_figure(result)
    if figure is None:
        return None
    root = preview.travel_root(result)
    length = int(figure.seams[0]) if len(figure.seams) else int(figure.frames[-1])
    view = {"title": "", "parents": [int(p) for p in figure.parents], "root": root if root is not None else 0,
            # Per frame, every joint's (along, across, up) in millimetres, flattened.
            "positions_mm": (figure.positions * 1000.0).round().astype(int).reshape(len(figure.frames), -1).tolist()}
    cycles = [(k * length, min((k + 1) * length, int(figure.frames[-1])), f"cycle {k + 1}") for k in range(preview.CYCLES)]
    return {"fps": entries.frame_rate(result.clip.fps), "frames": [int(f) for f in figure.frames], "last": int(figure.frames[-1]),
            "views": [view], "marks": [{"first": int(seam), "last": int(seam), "label": "seam"} for seam in figure.seams],
            "segments": [{"first": first, "last": last, "label": label, "colour": colour}
                         for (first, last, label), colour in zip(cycles, charts.CLIP_COLOURS)]}


def _repeats(entry):
    """Whether the motion of a loop entry's cut repeats (True when the range was given or the entry predates correlations)."""
    return entry.get("correlation", 1.0) >= verdicts.REPEATS


def _concerns(entry):
    """What a loop's user should look at beyond its seam's numbers: a cut where the motion does not repeat; a cut that barely
    repeats, whose loop is not fine; a take whose feet stand off the floor; a loop that barely moves against its take."""
    poor = () if entry.get("grade") != "POOR" or entry.get("loop_fine") or not _repeats(entry) else (
        "the motion barely repeats here (a POOR cut); try --range",)
    differs = tuple(f"{concern}; try --range" for concern in verdicts.repeat_concerns(entry.get("correlation")))
    return (differs + poor + verdicts.floor_concerns(entry.get("grounding", {}).get("take_floor_m", 0.0))
            + verdicts.motion_concerns(entry.get("motion_share", 1.0)))


def verdict(entry):
    """The loop's :class:`~....core.measure.verdict.Verdict`: its seam as played (against the raw cut's too) and its body's
    place against the clip's."""
    after, grounding = entry["seam_after"], entry.get("grounding", {})
    return verdicts.of_seam(after["visibility"], after.get("velocity_jump_ratio", 0.0), grounding.get("floor_offset_m", 0.0),
                            grounding.get("pelvis_offset_m", 0.0), _concerns(entry), entry.get("largest_step_ratio", 0.0),
                            entry["seam_before"]["visibility"])


def loop_entry(path, armature, outputs, result, detection, start, end, seconds, motion_share=1.0):
    """The report of one looped armature (a :class:`~.core.loop.LoopResult`, Find Loop's detection or None, range in frames,
    how much the loop moves against its take: :func:`~.core.measure.seam.motion_share`)."""
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
        "grounding": {"floor_offset_m": round(result.body.floor_offset, 4), "pelvis_offset_m": round(result.body.pelvis_offset, 4),
                      "take_floor_m": round(floor_height(result.clip, result.joints), 4)},
        "method": result.method,
        "largest_step_ratio": round(largest_step_ratio(result), 3),
        "feet_locked": result.feet_locked,
        "motion_share": motion_share,
        "seconds": round(seconds, 3),
        "joints": {
            "names": list(result.clip.bone_names),
            "step_before": entries.rounded(result.before.position_step, 6),
            "step_after": entries.rounded(result.after.position_step, 6),
            "jump_before": entries.rounded(result.before.velocity_jump, 4),
            "jump_after": entries.rounded(result.after.velocity_jump, 4),
            "visibility_before": entries.rounded(preview.joint_visibility(result.before), 3),
            "visibility_after": entries.rounded(preview.joint_visibility(result.after), 3),
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
            correlation=round(detection.best.correlation, 4),
            detection={
                "period_frames": round(float(detection.period), 3) if detection.period else None,
                "lags": entries.rounded(detection.lags[::stride], 2),  # frames: a fraction of one at 24 fps (searched 1/30 s apart)
                "correlation": entries.rounded(detection.correlation[::stride], 4),
                "candidates": [
                    {"range": [c.frame_start, c.frame_end], "length": c.length, "cycles": c.cycles, "score": round(c.score, 4), "grade": c.grade}
                    for c in detection.candidates
                ],
                # The candidate the loop was made from, an index into candidates (None when the range was another).
                "chosen": next((i for i, c in enumerate(detection.candidates) if (c.frame_start, c.frame_end) == (int(start), int(end))), None),
            },
        )
    return entries.judged(entry, verdict(entry))


def detection_svg(detection):
    """Find Loop's picture: the autocorrelation over loop length, the candidates by grade, the chosen one solid."""
    lags, values = detection["lags"], detection["correlation"]
    if len(lags) < 2:
        return ""
    # A closed clip's own length (the whole clip) lies beyond the lags the correlation is computed for.
    longest = max([lags[-1]] + [candidate["length"] for candidate in detection["candidates"]])
    chart = charts.Chart("autocorrelation over loop length", (lags[0], longest), (min(min(values), 0.0), 1.0),
                   "loop length (frames)", "autocorrelation")
    candidates = sorted(enumerate(detection["candidates"]), key=lambda item: item[1]["length"])
    rows = charts.label_rows([chart.x(c["length"]) for _, c in candidates])
    chosen = detection.get("chosen")
    for (index, candidate), row in zip(candidates, rows):
        colour = charts.GRADE_COLOURS[candidate["grade"]]
        if index == chosen:
            chart.marker(candidate["length"], colour, f"chosen {candidate['length']}", "chosen", row, dashed=False, width=2.5)
        else:
            chart.marker(candidate["length"], colour, str(candidate["length"]), "candidate", row)
    chart.polyline(lags, values, charts.LOOP, "correlation")
    grades = [(colour, grade, "dashed") for grade, colour in charts.GRADE_COLOURS.items()]
    return chart.svg() + charts.legend(grades + [("#333", "chosen (solid)", "line")])


def speed_svg(worst):
    """The worst joint's speed over two played cycles, raw cut and loop, the seams marked."""
    times = worst["times_s"]
    top = max(max(worst["raw_m_per_s"]), max(worst["loop_m_per_s"]), 1e-3) * 1.08
    # Each speed sits half a frame after its first frame: the cycles end half a frame after the last one.
    chart = charts.Chart(f"speed of {worst['name']}", (0.0, times[-1] + times[0]), (0.0, top), "time (s)", "speed (m/s)")
    for seam in worst["seams_s"]:
        chart.marker(seam, charts.SEAM, "seam", "seam")
    chart.polyline(times, worst["loop_m_per_s"], charts.LOOP, "loop", width=2.5)
    chart.polyline(times, worst["raw_m_per_s"], charts.RAW, "raw")
    return chart.svg() + charts.legend([(charts.RAW, "raw cut", "line"), (charts.LOOP, "loop", "line"), (charts.SEAM, "seam", "dashed")])


def acceleration_svg(worst):
    """The worst joint's acceleration close to the seam, raw cut and loop, against its typical acceleration."""
    close = worst["close_up"]
    times, raw, looped, typical = close["times_s"], close["raw_m_per_s2"], close["loop_m_per_s2"], close["typical_m_per_s2"]
    chart = charts.Chart(f"acceleration of {worst['name']} at the seam", (times[0], times[-1]), (0.0, max(max(raw), max(looped), typical) * 1.08),
                   "time (s)", "acceleration (m/s²)")
    chart.marker(worst["seams_s"][0], charts.SEAM, "seam", "seam")
    chart.level(typical, charts.SEAM, "typical")
    chart.polyline(times, looped, charts.LOOP, "loop", width=2.5)
    chart.polyline(times, raw, charts.RAW, "raw")
    return chart.svg() + charts.legend([(charts.RAW, "raw cut", "line"), (charts.LOOP, "loop", "line"),
                                  (charts.SEAM, "typical: its 95th percentile in the clip (visibility 1)", "dashed")])


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
        for value in charts.ticks(0.0, longest, count=4):
            x = offset + value * scale
            panels.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top - 4}" y2="{height - 6}" stroke="#eee"/>'
                          f'<text class="x-tick" x="{x:.1f}" y="{top - 7}" font-size="9" text-anchor="middle">{charts.number(value)}</text>')
        if reference is not None:
            x = offset + reference * scale
            panels.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top - 4}" y2="{height - 6}" stroke="{charts.SEAM}" stroke-dasharray="3 2"/>')
        for i in range(len(names)):
            y = top + row * i
            panels.append(f'<rect class="before" x="{offset}" y="{y + 2}" width="{before[i] * scale:.1f}" height="5" fill="{charts.RAW}"/>'
                          f'<rect class="after" x="{offset}" y="{y + 7}" width="{after[i] * scale:.1f}" height="5" fill="{charts.LOOP}"/>')
    steps = [f'<text x="0" y="{top + row * i + 10}" font-size="10">{html.escape(name[:18])}'
             f'<title>{html.escape(name)}: step {joints["step_before"][i] * 1000:.1f} mm before, '
             f'{joints["step_after"][i] * 1000:.3f} mm after</title></text>'
             for i, name in enumerate(names)]
    return (f'<svg class="bars" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" aria-label="seam per joint">'
            f'{"".join(steps)}{"".join(panels)}</svg>'
            + charts.legend([(charts.RAW, "raw cut", "bar"), (charts.LOOP, "loop", "bar"),
                       (charts.SEAM, "visibility 1: as sharp as the clip's own 95th-percentile accelerations", "dashed")]))


def _cycles(count):
    return f"{count} cycle{'' if count == 1 else 's'}"


def cut_grade(entry, given="-"):
    """A loop entry's grade (Find Loop's, of the raw cut; ``given`` when the range was); a POOR cut of a motion that repeats
    whose loop is fine says both."""
    grade = entry.get("grade", given)
    return "POOR cut, loop fine" if grade == "POOR" and entry.get("loop_fine") and _repeats(entry) else grade


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
    feet = "locked" if entry.get("feet_locked", True) else "not locked (the lock made it worse)"
    return (f" Method: {entry['method_chosen'].lower()}, the least visible of those made whose own verdict is best, a seam "
            f"within 0.1 of it a tie the simpler method wins (none that pops, "
            f"leaves the floor or shows more than the raw cut stands before one that does not), short of one whose feet slide at "
            f"the seam; feet {feet} (seam visibility as played, velocity jump: {tried}).")


def row(entry):
    """The loop's cells in the summaries: its range, grade and method, its seam before and after."""
    before, after = entry["seam_before"], entry["seam_after"]
    return Row(f"frames {entry['range'][0]}-{entry['range'][1]} ({entry['length']})", loop_grade(entry, "range given"),
               f"seam visibility {before['visibility']:.2f} -> {after['visibility']:.2f}, velocity jump "
               f"{before['max_velocity_jump_m_per_s']:.2f} -> {after['max_velocity_jump_m_per_s']:.2f} m/s")


def _facts(entry):
    before, after = entry["seam_before"], entry["seam_after"]
    found = f", {_cycles(entry['cycles'])}, {cut_grade(entry)}" if "grade" in entry else ", range given"
    root = f"root {entry['root_mode'].lower()}" + (f" on {html.escape(entry['root_bone'])}" if entry["root_bone"] else "")
    return (f"<p>Loop {entry['range'][0]}-{entry['range'][1]}: {entry['length']} frames{found}; {root}. "
            f"Seam visibility {before['visibility']:.2f} &rarr; {after['visibility']:.2f} (1 = as sharp as the clip's own motion), "
            f"velocity jump {before['max_velocity_jump_m_per_s']:.2f} &rarr; {after['max_velocity_jump_m_per_s']:.2f} m/s, position step "
            f"{before['max_step_m'] * 1000:.1f} &rarr; {after['max_step_m'] * 1000:.3f} mm.{_method_facts(entry)} {parts.outputs_html(entry)}</p>")


def section(entry):
    """The loop's section: facts, verdict, the loop playing, Find Loop's curve, the worst joint and every joint's seam."""
    figures = []
    if entry.get("figure"):
        figures.append(parts.figure("The loop playing twice (the figure turns pink at each seam)", player.player_html(entry["figure"])))
    detection = entry.get("detection")
    if detection:
        period = f", period {detection['period_frames']:g} frames" if detection.get("period_frames") else ""
        figures.append(parts.figure(f"Find Loop: how well the motion repeats after each loop length{period}", detection_svg(detection)))
    worst, joints = entry.get("worst_joint"), entry["joints"]
    if worst:
        joint = joints["names"].index(worst["name"])
        figures.append(parts.figure(f"Worst joint at the seam, <b>{html.escape(worst['name'])}</b> (visibility "
                                    f"{joints['visibility_before'][joint]:.2f} &rarr; {joints['visibility_after'][joint]:.2f}): its speed "
                                    "over two cycles played one after the other", speed_svg(worst)))
        figures.append(parts.figure(f"Its acceleration {preview.CLOSE_UP:g} s either side of the seam: what the seam visibility measures",
                                    acceleration_svg(worst)))
    if "worst_joint" in entry and not worst:
        figures.append("<p>No seam previews: a Wrap loop whose root travels lacks the frame that places the next cycle.</p>")
    figures.append(parts.figure("Seam per joint (hover a name for its position step)", seam_svg(joints)))
    return f'{_facts(entry)}{parts.verdict_html(entry)}<div class="figures">{"".join(figures)}</div>'
