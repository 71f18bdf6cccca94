"""The report's player: an output's stick figure playing in the page, its marks and segments on a timeline.

The figure's data (:func:`figure_json`) goes inline as JSON; the timeline is
drawn here, so a page shows its marks without a script; ``player.js`` (a
file of this package, inlined once per page) plays it.
"""

import html
import json
import pathlib

import numpy as np

from ...core.motion import figure as figures
from .. import entries
from .charts import clip_colours, SEAM

SCRIPT = (pathlib.Path(__file__).with_name("player.js")).read_text(encoding="utf-8")


def _view(figure, title, root):
    # Per frame, every joint's (along, across, up) in millimetres, flattened.
    return {"title": title, "parents": [int(p) for p in figure.parents], "root": int(root),
            "positions_mm": (figure.positions * 1000.0).round().astype(int).reshape(len(figure.frames), -1).tolist()}


def figure_json(clip, marks=(), segments=(), before=None):
    """What the player plays of ``clip`` (a :class:`~...core.motion.clip.Clip`, the output as written): its stick figure
    over every frame, ``marks`` (``(first, last, label)``: 0-based output frames lit as they play: a seam, a blend) and
    ``segments`` (``(first, last, clip name)``: which clip plays where). ``before``: a clip of as many frames shown beside
    it, in step (an edit's input). A figure that plays with a song also carries ``audio`` (a relative path or a data: URI),
    ``audio_start`` (seconds into the song at the first frame) and ``beats`` (seconds on the output's clock): the caller
    adds them; the player then plays the song in step and lights its beat indicator on each beat."""
    keep = sorted({int(frame) for first, last, _ in marks for frame in (first, last)})
    shown = figures.stick_figure(clip, keep)
    views = [_view(shown, "after" if before is not None else "", figures.view_root(clip))]
    if before is not None:
        index = np.minimum(np.round(shown.frames * (before.num_frames - 1) / max(clip.num_frames - 1, 1)).astype(int), before.num_frames - 1)
        views.insert(0, _view(figures.stick_figure_at(before, index), "before", figures.view_root(before)))
    colours = clip_colours([name for *_, name in segments])
    return {"fps": entries.frame_rate(clip.fps), "frames": [int(f) for f in shown.frames], "last": int(clip.num_frames - 1), "views": views,
            "marks": [{"first": int(first), "last": int(last), "label": label} for first, last, label in marks],
            "segments": [{"first": int(first), "last": int(last), "label": name, "colour": colours[name]} for first, last, name in segments]}


def legacy_figure(figure):
    """A loop entry's figure as reports before the player's marks kept it (one view, ``seams``), in today's form."""
    if "views" in figure:
        return figure
    view = {"title": "", "parents": figure["parents"], "root": figure["root"], "positions_mm": figure["positions_mm"]}
    return {"fps": figure["fps"], "frames": figure["frames"], "last": figure["frames"][-1], "views": [view],
            "marks": [{"first": seam, "last": seam, "label": "seam"} for seam in figure["seams"]], "segments": []}


#: Width of a character of the timeline's 9 px sans-serif names, generously (digits and lower case are 4.5-5 px).
_CHARACTER_PX = 5.5


def _fitted(label, room):
    """``label`` cut (with an ellipsis) to fit ``room`` pixels of the timeline, or '' when not even a few characters fit."""
    fits = int(room // _CHARACTER_PX)
    if len(label) <= fits:
        return label
    return label[:fits - 1] + "\u2026" if fits >= 5 else ""


def _timeline(figure, width):
    last = max(figure["last"], 1)

    def x(frame):
        return frame / last * width

    parts = [f'<rect width="{width}" height="22" fill="#eee"/>']
    for segment in figure["segments"]:
        first, end = segment["first"], segment["last"]
        span = max(x(end + 1 if end < figure["last"] else end) - x(first), 1.0)
        parts.append(f'<rect class="segment" data-first="{first}" data-last="{end}" x="{x(first):.1f}" y="0" '
                     f'width="{max(x(end) - x(first), 1.0):.1f}" height="22" fill="{segment["colour"]}" opacity="0.35">'
                     f'<title>{html.escape(segment["label"])}: frames {first}-{end}</title></rect>')
        name = _fitted(segment["label"], span - 6)
        if name:  # a segment too narrow for its name keeps it in its tooltip (and the figure's label as it plays)
            parts.append(f'<text class="segment-name" x="{x(first) + 3:.1f}" y="20" font-size="9" fill="#333">{html.escape(name)}</text>')
    for mark in figure["marks"]:
        first, end = mark["first"], mark["last"]
        parts.append(f'<rect class="mark" data-first="{first}" data-last="{end}" x="{x(first):.1f}" y="0" '
                     f'width="{max(x(end) - x(first), 2.5):.1f}" height="12" fill="{SEAM}"><title>{html.escape(mark["label"])}: '
                     f'frames {first}-{end}</title></rect>')
    parts.append('<line class="cursor" y1="0" y2="22" stroke="#333" stroke-width="2"/>')
    return f'<svg class="timeline" xmlns="http://www.w3.org/2000/svg" width="{width}" height="22">{"".join(parts)}</svg>'


def _stage(title, width, height):
    heading = f'<text x="6" y="14" font-size="12" fill="#555">{html.escape(title)}</text>' if title else ""
    return (f'<svg class="figure" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}">'
            f'<rect width="{width}" height="{height}" fill="#fafafa"/>{heading}'
            f'<line x1="0" x2="{width}" y1="{height - 24}" y2="{height - 24}" stroke="#999"/>'
            f'<text class="mark-flag" x="{width / 2:.0f}" y="18" font-size="14" font-weight="bold" text-anchor="middle" fill="{SEAM}" '
            'visibility="hidden"></text>'
            f'<text class="segment-label" x="{width - 6}" y="{height - 6}" font-size="11" text-anchor="end" fill="#333"></text></svg>')


def player_html(figure, width=380, height=260):
    """The player of ``figure`` (:func:`figure_json`, or a loop figure of an earlier report): its views side by side, the
    timeline with its marks and segments, the controls (play, a frame back and forward, view, speed)."""
    figure = legacy_figure(figure)
    data = json.dumps(figure, separators=(",", ":")).replace("<", "\\u003c")
    count = len(figure["views"])
    each = width if count == 1 else max(240, width * 3 // 4)
    stages = "".join(_stage(view["title"], each, height) for view in figure["views"])
    return (f'<div class="player" data-mark-colour="{SEAM}" data-frame="0"><script type="application/json" class="figure-data">{data}</script>'
            f'<div class="stage">{stages}</div>{_timeline(figure, each * count)}'
            '<div class="controls"><button class="play" type="button">Pause</button> '
            '<button class="back" type="button" title="a frame back">&#9664;</button>'
            '<button class="forward" type="button" title="a frame forward">&#9654;</button> '
            '<span class="clock"></span> '
            '<label>view <select class="view"><option value="0">side</option><option value="1">front</option></select></label> '
            '<label>speed <select class="rate"><option value="1">1x</option><option value="0.5">0.5x</option>'
            f'<option value="0.25">0.25x</option></select></label>{_beat(figure)}</div></div>')


def _beat(figure):
    """The beat indicator of a figure that plays with a song (``beats``: seconds on the output's clock): lit at each beat."""
    if not figure.get("beats"):
        return ""
    return (' <svg class="beat-indicator" xmlns="http://www.w3.org/2000/svg" width="14" height="14"><title>lit on each beat of '
            'the song</title><circle class="beat" cx="7" cy="7" r="6" fill="#ddd"/></svg>')
