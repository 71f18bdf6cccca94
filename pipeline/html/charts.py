"""The report's charts, drawn as inline SVG with no library: line charts on numbered axes, legends, colour scales and a
greyscale PNG encoder for pictures (a distance map) too dense for SVG."""

import html
import math
import os
import struct
import zlib

import numpy as np

RAW, LOOP, SEAM = "#999", "#2a6fdb", "#e0529c"  # the input, the result and what was changed (a seam, a blend) in every picture
#: One colour per clip in timelines and players: a clip keeps its colour wherever it plays.
CLIP_COLOURS = ("#2a6fdb", "#7a9a01", "#b55d00", "#8a4fb5", "#00838f", "#c2185b", "#5d4037", "#455a64")
VERDICT_COLOURS = {"GOOD": "#2e9b44", "CHECK": "#d89b00", "VISIBLE": "#c8372d", "FAILED": "#c8372d", "-": "#777"}

GRADE_COLOURS = {"GOOD": "#2e9b44", "FAIR": "#d89b00", "POOR": "#c8372d"}


def ticks(low, high, count=6):
    """Round values inside ``low..high``, 1, 2 or 5 times a power of ten apart, as near ``count`` of them as that allows."""
    span = max(high - low, 1e-9)
    power = 10.0 ** math.floor(math.log10(span / max(count - 1, 1)))
    step = min((m * power for m in (1, 2, 5, 10)), key=lambda step: abs(span / step - (count - 1)))
    first = math.ceil(low / step - 1e-9)
    return [round(k * step, 10) for k in range(first, math.floor(high / step + 1e-9) + 1)]


def number(value):
    return f"{value:g}"


class Chart:
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

    def polyline(self, xs, ys, colour, kind, width=1.5, dashed=False):
        points = " ".join(f"{self.x(x):.1f},{self.y(y):.1f}" for x, y in zip(xs, ys))
        dash = ' stroke-dasharray="5 3"' if dashed else ""
        self.parts.append(f'<polyline class="{kind}" fill="none" stroke="{colour}" stroke-width="{width}"{dash} points="{points}"/>')

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

    def svg(self, y_axis=True):
        """The chart as SVG; ``y_axis`` False for a chart whose height means nothing (a timeline)."""
        bottom = self.TOP + self.plot_height
        axes = [f'<rect x="{self.LEFT}" y="{self.TOP}" width="{self.plot_width}" height="{self.plot_height}" fill="none" stroke="#888"/>']
        for value in ticks(*self.x_range):
            px = self.x(value)
            axes.append(f'<line x1="{px:.1f}" x2="{px:.1f}" y1="{bottom}" y2="{bottom + 4}" stroke="#888"/>'
                        f'<text class="x-tick" x="{px:.1f}" y="{bottom + 15}" font-size="10" text-anchor="middle">{number(value)}</text>')
        for value in ticks(*self.y_range, count=5) if y_axis else ():
            py = self.y(value)
            axes.append(f'<line x1="{self.LEFT}" x2="{self.LEFT + self.plot_width}" y1="{py:.1f}" y2="{py:.1f}" stroke="#eee"/>'
                        f'<line x1="{self.LEFT - 4}" x2="{self.LEFT}" y1="{py:.1f}" y2="{py:.1f}" stroke="#888"/>'
                        f'<text class="y-tick" x="{self.LEFT - 6}" y="{py + 3:.1f}" font-size="10" text-anchor="end">{number(value)}</text>')
        axes.append(f'<text x="{self.LEFT + self.plot_width / 2:.1f}" y="{self.height - 4}" font-size="11" text-anchor="middle">'
                    f'{html.escape(self.x_title)}</text>')
        if y_axis:
            axes.append(f'<text x="11" y="{self.TOP + self.plot_height / 2:.1f}" font-size="11" text-anchor="middle" '
                        f'transform="rotate(-90 11 {self.TOP + self.plot_height / 2:.1f})">{html.escape(self.y_title)}</text>')
        return (f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{self.height}" role="img" '
                f'aria-label="{html.escape(self.label)}">{"".join(axes)}{"".join(self.parts)}</svg>')


def legend(items):
    """A legend: (colour, text, style) with style "line", "dashed" or "bar"."""
    keys = []
    for colour, text, style in items:
        border = "dashed" if style == "dashed" else "solid"
        height = 8 if style == "bar" else 0
        fill = colour if style == "bar" else "none"
        keys.append(f'<li><span class="key" style="border-top:2px {border} {colour};height:{height}px;background:{fill}"></span>{html.escape(text)}</li>')
    return f'<ul class="legend">{"".join(keys)}</ul>'


def label_rows(positions, gap=30):
    """Row 0 or 1 for labels at pixel ``positions``, so neighbours closer than ``gap`` alternate."""
    rows, last = [], [-math.inf, -math.inf]
    for x in positions:
        row = 0 if x - last[0] >= gap else 1
        rows.append(row)
        last[row] = x
    return rows


def png(gray):
    """A greyscale PNG of ``gray`` ``(h, w)`` uint8 (zlib and struct: no image library needed)."""
    height, width = gray.shape

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(b"\x00" + row.tobytes() for row in np.ascontiguousarray(gray, dtype=np.uint8))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))


def colour_scale(low, high, title, width=200, square_root=False):
    """A horizontal greyscale bar from ``low`` (black) to ``high`` (white), numbered, with a title, as SVG; ``square_root``:
    the grey runs with the square root of the values (ticks placed accordingly)."""
    ends = (math.sqrt(max(low, 0.0)), math.sqrt(max(high, 0.0))) if square_root else (low, high)
    span = max(ends[1] - ends[0], 1e-12)

    def x(value):
        return 10 + ((math.sqrt(max(value, 0.0)) if square_root else value) - ends[0]) / span * width

    marks = "".join(f'<line x1="{x(value):.1f}" x2="{x(value):.1f}" y1="26" y2="30" stroke="#888"/><text class="scale-tick" '
                    f'x="{x(value):.1f}" y="41" font-size="10" text-anchor="middle">{number(value)}</text>' for value in ticks(low, high, count=4))
    return (f'<svg class="colour-scale" xmlns="http://www.w3.org/2000/svg" width="{width + 20}" height="46" role="img" '
            f'aria-label="{html.escape(title)}"><defs><linearGradient id="grey-scale"><stop offset="0" stop-color="#000"/>'
            f'<stop offset="1" stop-color="#fff"/></linearGradient></defs><text x="10" y="10" font-size="11">{html.escape(title)}</text>'
            f'<rect x="10" y="14" width="{width}" height="12" fill="url(#grey-scale)" stroke="#888"/>{marks}</svg>')


def clip_colours(names):
    """``{name: colour}``: one colour per distinct clip name, in order of first appearance."""
    colours = {}
    for name in names:
        colours.setdefault(name, CLIP_COLOURS[len(colours) % len(CLIP_COLOURS)])
    return colours


def distinct_labels(names, longest=30):
    """Short labels for ``names`` that stay distinct: a name that fits is kept whole; longer ones lose what every name
    shares at its start and end (``dataset-1_walk_normal_001.bvh`` among its library: ``…walk_normal_001…``)."""
    if all(len(name) <= longest for name in names):
        return list(names)
    start = len(os.path.commonprefix(list(names))) if len(names) > 1 else 0
    end = len(os.path.commonprefix([name[::-1] for name in names])) if len(names) > 1 else 0
    labels = []
    for name in names:
        core = name[start:len(name) - end] or name
        core = core if len(core) <= longest else core[:longest // 2 - 1] + "\u2026" + core[-(longest // 2 - 1):]
        labels.append(("\u2026" if start else "") + core + ("\u2026" if end else ""))
    return labels if len(set(labels)) == len(labels) else list(names)
