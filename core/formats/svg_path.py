"""A path drawn in SVG (Inkscape, Illustrator, a browser) as points on the ground.

The first ``<path>`` element's ``d`` is read: moves, lines (``M L H V``),
cubic and quadratic Beziers (``C Q``, each sampled at :data:`SAMPLES`
points) and closing (``Z``), absolute or relative (lower case); a second
subpath continues the first. SVG's Y grows downwards, the ground's Y
forwards: points are ``(x, -y)`` times the scale (metres per SVG unit).
Arcs and the smooth shorthands (``A S T``), and ``transform`` attributes,
are refused, never guessed.
"""

import re
import xml.etree.ElementTree as ElementTree

import numpy as np

from ..errors import GraphError

SAMPLES = 16  # points per Bezier segment
MAX_BYTES = 16 << 20  # an SVG of a drawn path: far below this
_TOKEN = re.compile(r"[MmLlHhVvCcQqZzAaSsTt]|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_ARITY = {"M": 2, "L": 2, "H": 1, "V": 1, "C": 6, "Q": 4, "Z": 0}


def _bezier(controls):
    """Points ``(SAMPLES, 2)`` of the Bezier through ``controls (k, 2)`` (its start left out), by de Casteljau."""
    t = np.linspace(0.0, 1.0, SAMPLES + 1)[1:, None, None]
    points = np.broadcast_to(controls, (SAMPLES, *controls.shape)).copy()
    while points.shape[1] > 1:
        points = (1.0 - t) * points[:, :-1] + t * points[:, 1:]
    return points[:, 0]


def path_points(d: str) -> np.ndarray:
    """Points ``(P, 2)`` in SVG units (Y down) along the path data ``d``; GraphError (one line) for what it cannot read."""
    tokens = _TOKEN.findall(d)
    if not tokens:
        raise GraphError("the SVG path has no data (its d attribute is empty)")
    if re.sub(r"[\s,]", "", d) != "".join(tokens):
        raise GraphError("the SVG path's data holds something that is not a path command or a number")
    points, here, start, command, k = [], np.zeros(2), np.zeros(2), None, 0
    while k < len(tokens):
        if tokens[k].isalpha():
            command, k = tokens[k], k + 1
            if command.upper() not in _ARITY:
                raise GraphError(f"the SVG path uses '{command}' (arcs and smooth curves are not read): convert it to lines or Beziers")
        if command is None:
            raise GraphError("the SVG path's data does not start with a command")
        upper, arity = command.upper(), _ARITY[command.upper()]
        numbers = np.array(tokens[k:k + arity], dtype=float)
        if len(numbers) < arity or any(token.isalpha() for token in tokens[k:k + arity]):
            raise GraphError(f"the SVG path's '{command}' has too few numbers")
        k += arity
        base = here if command.islower() else np.zeros(2)
        if upper == "Z":
            here = start.copy()
            points.append(here)
            command = None if k >= len(tokens) or tokens[k].isalpha() else "L"
            continue
        if upper == "H":
            here = np.array([numbers[0] + (here[0] if command.islower() else 0.0), here[1]])
        elif upper == "V":
            here = np.array([here[0], numbers[0] + (here[1] if command.islower() else 0.0)])
        elif upper in ("C", "Q"):
            controls = numbers.reshape(-1, 2) + base
            points.extend(_bezier(np.vstack([here, controls])))
            here = controls[-1]
            continue
        else:
            here = numbers + base
        if upper == "M":
            start = here.copy()
            command = "l" if command == "m" else "L"  # numbers after a move are lines
        points.append(here)
    return np.array(points, dtype=float).reshape(-1, 2)


def read_svg_path(path, scale: float) -> np.ndarray:
    """Points ``(P, 2)`` on the ground, metres, of the first ``<path>`` in the SVG file ``path`` (see the module)."""
    with open(path, "rb") as handle:
        data = handle.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise GraphError(f"larger than {MAX_BYTES >> 20} MB, no drawn path")
    try:
        root = ElementTree.fromstring(data)
    except ElementTree.ParseError as error:
        raise GraphError(f"not SVG ({error})") from None
    element = next((e for e in root.iter() if e.tag.rsplit("}", 1)[-1] == "path"), None)
    if element is None:
        raise GraphError("no <path> element in it")
    for node in root.iter():
        if node.get("transform"):
            raise GraphError(f"its <{node.tag.rsplit('}', 1)[-1]}> has a transform: apply it to the path first (Inkscape: Object > Transform)")
    return path_points(element.get("d", "")) * np.array([scale, -scale])
