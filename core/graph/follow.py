"""Following a path drawn on the ground: a walk through a motion graph whose root follows the curve, feet kept planted.

Units: metres and seconds, armature space with Z up (Blender's); a path is
points ``(P, 2)`` on the ground (X, Y), optionally a travel speed per point
(metres per second). The character starts on the first point facing along
the path.

Two steps. **Planning** walks the graph (Kovar, Gleicher and Pighin's motion
graphs, searched as motion matching does): at each node every edge out of it
is scored by a trajectory term over the next :data:`HORIZON_SECONDS` (played
on in the clip it lands in where the edge is shorter): the distance it
travels against the path's speed, and its heading against the path's
heading a third, two thirds and all of the horizon ahead, the heading error carried from
edge to edge; plus its sideways travel and the transition's cost. The
cheapest edge is taken until the walk has covered the path. **Correction**:
the rendered walk's root trace is split into a centreline (the trace
averaged over :data:`GAIT_SECONDS`, a gait cycle) and the sway around it;
the centreline is laid along the path by arc length (the path's corners
rounded over :data:`ROUND_METRES`), the sway and the body's heading around
the centreline kept, so each frame moves rigidly and only as much as the
path differs from the walk. The feet are planted again where they were
planted in the walk (:func:`..motion.footlock.plant_legs`): a planted ankle
slides as much as in the clips, no more. Travel is never stretched: the
speed comes from the clips chosen, and the motion ends where its travel
reaches the path's end; or, asked to stand where the library has a
standing pose (a clip that stands, or stops), in one on the path's end,
the travel over the last :data:`STRETCH_METRES` stretched by at most
:data:`MAX_STRETCH` to stop there.
"""

import collections
import dataclasses
import heapq
import time
from dataclasses import dataclass, field

import numpy as np

from ..compose.sequence import Composition
from ..errors import GraphError
from ..measure import grounding
from ..motion import contacts, footlock, kinematics, quat, root as root_motion
from ..motion.clip import Clip
from ..transition.make import shows
from .build import MotionGraph, strongly_connected
from .synth import clip_edge, out_edges, render_checked, without_edges

HORIZON_SECONDS = 1.0  # how far ahead each edge is judged (played on in its clip past a short edge)
HORIZON_RANGE = (0.5, 3.0)  # seconds: the search's horizon may be asked within these
TRAJECTORY_SHARES = (1.0 / 3.0, 2.0 / 3.0, 1.0)  # where in the horizon the trajectory term compares travel and heading with the path's
HEADING_SCALE = 0.7  # radians of heading error that cost as much as a whole horizon's travel off the path's speed
TRANSITION_WEIGHT = 0.5  # a transition's cost (its distance over its threshold, 0 to 1) in the trajectory term's units
GAIT_SECONDS = 1.0  # the root trace is averaged over this long (about a gait cycle) to find the centreline it sways around
ROUND_METRES = 0.3  # the path's corners are rounded over this much of its length: a 90 degree corner cut by 7.5 cm
TURN_METRES = 0.8  # the body turns a corner over this much of the path: the planted feet absorb a turn spread over a step or two
SAMPLE_METRES = 0.01  # the path is resampled this finely
MIN_TRAVEL_SPEED = 0.3  # metres per second: a clip whose root travels slower (a bow, a wave) does not carry the character along
SPEED_REACH = (0.85, 1.15)  # speeds the clips can reach: from this share of the slowest travelling clip's to this of the fastest's
MAX_VISIBLE = 1.0  # a junction more visible than its clips' own motion (beyond rounding), or that shows by any other measure of
# the transition engine (root speed jump, heading rate, skating, the floor), is taken out of the graph and the path planned again
ATTEMPTS = 16  # plans tried, each without the transitions the ones before showed too visible (a figure eight on the shared Bandai
# walks, runs and turns takes 16: its junctions into and out of the turning clips show by 1.003-1.04 on the first 8)
STAND_SECONDS = 1.0  # a pose stands where its clip travels under MIN_TRAVEL_SPEED for this long after it; a standing end holds it so long
STOP_SEARCH_METRES = 8.0  # a standing end is searched from the walk's nodes this far before the path's end
STOP_TRANSITION_METRES = 0.1  # a way into a standing pose that stops this much further from the path's end is as good as one with a
# transition fewer
STRETCH_METRES = 5.0  # the travel before a stop is stretched or shrunk over this much of the path so the stop lands on the path's end,
MAX_STRETCH = 0.1  # by at most this share of it (the planted feet absorb a stride 10% longer or shorter)
AIMS = 3  # a standing end that misses the path's end is planned again this many times at most, aiming as far the other way
ENDS = ("stand", "walk")  # how the walk ends: in a standing pose where the library has one, or walking on to the path's end
MIN_PIECE_FRAMES = 31  # the rendered walk keeps at least this many frames (a piece's shortest second) before it is cut at the end


@dataclass
class Path:
    """A path on the ground resampled every :data:`SAMPLE_METRES`: positions ``(N, 2)``, arc length ``(N,)`` metres from the
    first point, heading ``(N,)`` radians (unwrapped, of the corners rounded over :data:`ROUND_METRES`, turned over
    :data:`TURN_METRES`), curvature ``(N,)``
    radians per metre (of the heading turned over :data:`TURN_METRES`), and the speed asked ``(N,)`` metres per second (NaN where none is asked)."""

    points: np.ndarray
    arc: np.ndarray
    heading: np.ndarray
    curvature: np.ndarray
    speed: np.ndarray

    @property
    def length(self) -> float:
        return float(self.arc[-1])

    def at(self, arc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Positions ``(n, 2)`` and headings ``(n,)`` at arc lengths ``(n,)``: past either end, on along the end's tangent."""
        inside = np.clip(arc, 0.0, self.length)
        position = np.stack([np.interp(inside, self.arc, self.points[:, axis]) for axis in (0, 1)], axis=1)
        heading = np.interp(inside, self.arc, self.heading)
        beyond = (arc - inside)[:, None]
        return position + beyond * np.stack([np.cos(heading), np.sin(heading)], axis=1), heading


@dataclass
class Followed:
    """A path followed: the composition rendered from the graph with its root corrected (``composition.clip`` is the
    motion), the path as followed, the root's trace ``(F, 2)``, its distance to the drawn path ``(F,)`` metres, its speed
    ``(F,)`` metres per second, numbers (plain floats, units in the names) and notes (sentences: corners the clips cannot
    turn, speeds out of their reach on part of the path, transitions left out)."""

    composition: Composition
    path: Path
    trace: np.ndarray
    deviation: np.ndarray
    speed: np.ndarray
    numbers: dict = field(default_factory=dict)
    notes: tuple = ()
    corners: list = field(default_factory=list)


def check_points(points: object, speeds: object = None) -> tuple[np.ndarray, np.ndarray | None]:
    """The path's points ``(P, 2)`` float and speeds ``(P,)`` (or None), checked: GraphError (one line) for an empty path,
    points that are not pairs of finite numbers (or triples off the ground plane, Z not 0), a path with no length, or
    speeds that are not one positive number per point."""
    try:
        array = np.asarray(points, dtype=float)
    except (TypeError, ValueError):
        raise GraphError("the path's points must be [x, y] pairs of numbers (metres)") from None
    if array.size == 0:
        raise GraphError("the path is empty: give at least two points")
    if array.ndim != 2 or array.shape[1] not in (2, 3) or not np.isfinite(array).all():
        raise GraphError("the path's points must be [x, y] pairs of finite numbers (metres)")
    if array.shape[1] == 3:
        off = np.flatnonzero(np.abs(array[:, 2]) > 1e-6)
        if len(off):
            raise GraphError(f"the path is off the ground plane: point {off[0]} has Z {array[off[0], 2]:g} (give Z 0 or [x, y] pairs)")
        array = array[:, :2]
    if len(array) < 2 or np.linalg.norm(np.diff(array, axis=0), axis=1).sum() < 10 * SAMPLE_METRES:
        raise GraphError(f"the path has no length: its points lie within {10 * SAMPLE_METRES:g} m of each other")
    if speeds is None:
        return array, None
    try:
        speed = np.asarray(speeds, dtype=float)
    except (TypeError, ValueError):
        raise GraphError("the path's speeds must be numbers (metres per second)") from None
    if speed.shape != (len(array),) or not (np.isfinite(speed).all() and (speed > 0).all()):
        raise GraphError(f"the path's speeds must be one positive number per point ({len(array)}), metres per second")
    return array, speed


def _box(values, width):
    """``values (n, k)`` averaged over ``width`` rows twice (a triangle), the ends reflected through their end row so a steady
    trend is kept there."""
    width = max(int(width), 1)
    if width < 2 or len(values) < 2:
        return values.copy()
    pad = min(width, len(values) - 1)
    for _ in range(2):
        padded = np.concatenate([2 * values[:1] - values[pad:0:-1], values, 2 * values[-1:] - values[-2:-pad - 2:-1]])
        total = np.concatenate([np.zeros((1, values.shape[1])), np.cumsum(padded, axis=0)])
        half = width // 2
        index = np.arange(len(values)) + pad
        low, high = np.maximum(index - half, 0), np.minimum(index - half + width, len(padded))
        values = (total[high] - total[low]) / (high - low)[:, None]
    return values


def make_path(points: np.ndarray, speeds: np.ndarray | None = None) -> Path:
    """The :class:`Path` of checked points ``(P, 2)`` and speeds (see :func:`check_points`)."""
    step = np.linalg.norm(np.diff(points, axis=0), axis=1)
    keep = np.r_[True, step > 1e-9]
    points, raw_arc = points[keep], np.r_[0.0, np.cumsum(step[step > 1e-9])]
    arc = np.r_[np.arange(0.0, raw_arc[-1], SAMPLE_METRES), raw_arc[-1]]
    dense = np.stack([np.interp(arc, raw_arc, points[:, axis]) for axis in (0, 1)], axis=1)
    rounded = _box(dense, round(ROUND_METRES / SAMPLE_METRES))
    along = np.r_[0.0, np.cumsum(np.linalg.norm(np.diff(rounded, axis=0), axis=1))]
    tangent = np.gradient(rounded, axis=0)
    heading = np.unwrap(np.arctan2(tangent[:, 1], tangent[:, 0]))
    heading = _box(heading[:, None], round(TURN_METRES / SAMPLE_METRES))[:, 0]  # the body turns over more than the root's corner
    curvature = np.gradient(heading) / np.maximum(np.gradient(along), 1e-9)
    speed = np.full(len(arc), np.nan) if speeds is None else np.interp(arc, raw_arc, speeds[keep])
    return Path(rounded, along, heading, curvature, speed)


@dataclass
class _Library:
    """Per frame of every graph clip laid end to end: forward and sideways travel (metres per frame, in the direction the
    character faces) and turn (radians per frame); each clip's first row, its travel speed (m/s), its sharpest turn (rad/s)."""

    forward: np.ndarray
    side: np.ndarray
    turn: np.ndarray
    starts: np.ndarray
    speeds: np.ndarray
    sharpest: np.ndarray
    root: int
    axis: int
    facing: float


def _library(clips):
    root = next((found for found in (root_motion.find_moving_root(clip) for clip in clips) if found is not None), None)
    if root is None:
        raise GraphError("no clip of the motion graph travels: following a path needs a walk or a run")
    tracks, axis = root_motion.root_tracks(clips, root)
    steps = [root_motion.floor_steps(position, heading, np.arange(len(heading), dtype=float)) for position, heading, _ in tracks]
    steps = [np.r_[s, s[-1:]] for s in steps]  # the last frame steps as the one before
    travel = np.concatenate([s[:, :2] for s in steps])
    # The facing: the direction the library mostly travels in the root's heading frame (its heading axis may point anywhere).
    facing = float(np.arctan2(travel[:, 1].sum(), travel[:, 0].sum()))
    c, s = np.cos(facing), np.sin(facing)
    forward, side = c * travel[:, 0] + s * travel[:, 1], c * travel[:, 1] - s * travel[:, 0]
    turn = np.concatenate([s[:, 2] for s in steps])
    lengths = np.array([len(s) for s in steps])
    starts = np.r_[0, np.cumsum(lengths)[:-1]]
    fps = float(clips[0].fps)
    speeds = np.array([np.median(forward[a:a + n]) * fps for a, n in zip(starts, lengths)])
    window = max(int(round(0.5 * fps)), 1)  # the sharpest turn held for half a second
    sharpest = np.array([np.abs(_box(turn[a:a + n, None], window)).max() * fps for a, n in zip(starts, lengths)])
    return _Library(forward, side, turn, starts, speeds, sharpest, root, axis, facing)


def allowed_clips(graph: MotionGraph, words: tuple | list) -> set[int]:
    """The graph's clip indices ``--clips`` allows (all without words); GraphError for a word no clip's name holds."""
    present = sorted({node["clip"] for node in graph.nodes})
    if not words:
        return set(present)
    allowed = set()
    for word in words:
        found = {c for c in present if word.lower() in graph.clips[c]["name"].lower()}
        if not found:
            names = ", ".join(graph.clips[c]["name"] for c in present)
            raise GraphError(f"no clip in the motion graph is called or contains '{word}' (it holds {names})")
        allowed |= found
    return allowed


def _reach(library, allowed, graph):
    """(travelling clips among ``allowed``, slowest and fastest speed they reach); GraphError when none travels."""
    travelling = sorted(c for c in allowed if library.speeds[c] >= MIN_TRAVEL_SPEED)
    if not travelling:
        names = ", ".join(graph.clips[c]["name"] for c in sorted(allowed))
        raise GraphError(f"no travelling clip to follow a path with: {names} each move under {MIN_TRAVEL_SPEED:g} m/s")
    speeds = library.speeds[travelling]
    return travelling, (SPEED_REACH[0] * speeds.min(), SPEED_REACH[1] * speeds.max())


def _asked_speed(path, speed, library, travelling, reach):
    """The speed ``(N,)`` asked along the path: per point, else ``speed``, else the median travelling clip's; GraphError for a
    speed out of the clips' reach (named with it)."""
    asked = path.speed.copy()
    if np.isnan(asked).all():
        asked[:] = speed if speed is not None else float(np.median(library.speeds[travelling]))
    low, high = reach
    outside = np.flatnonzero((asked < low - 1e-9) | (asked > high + 1e-9))
    if len(outside):
        raise GraphError(f"a speed of {asked[outside[0]]:g} m/s is out of the clips' reach: they travel at "
                         f"{low:.2f}-{high:.2f} m/s")
    return asked


def _edge_rows(graph, library, edge, horizon, ends=None):
    """(library rows the edge plays, then on in its clip up to ``horizon`` rows in all but not past its last node's frame
    ``ends[clip]`` (counted from its first) where given; how many the edge itself plays)."""
    nodes = graph.nodes
    played = int(edge["frames"])
    if edge["kind"] == "clip":
        clip = nodes[edge["from"]]["clip"]
        first = nodes[edge["from"]]["frame"] - graph.clips[clip]["first_frame"]
    else:  # a transition's blend and hold play the clip it lands in, up to the node it lands on
        clip = nodes[edge["to"]]["clip"]
        first = nodes[edge["to"]]["frame"] - graph.clips[clip]["first_frame"] - int(graph.edges[edge["index"]]["frames"])
    last = graph.clips[clip]["frames"] if ends is None else max(ends[clip] + 1, first + played)
    stop = min(first + max(played, horizon), last, graph.clips[clip]["frames"])
    return library.starts[clip] + np.arange(first, stop), played


class _Planner:
    """The trajectory term of every edge out of a node (see the module), and the walk it makes."""

    def __init__(self, graph, library, path, asked, horizon):
        self.graph, self.library, self.path, self.asked = graph, library, path, asked
        self.fps = float(graph.settings["fps"])
        self.horizon = max(int(round(horizon * self.fps)), 1)
        self.samples = np.array([max(int(round(share * self.horizon)), 1) for share in TRAJECTORY_SHARES])
        self.ends = {}  # per clip: its last node's frame, counted from its first; past it the walk must have left the clip
        for node in graph.nodes:
            clip = node["clip"]
            self.ends[clip] = max(self.ends.get(clip, 0), node["frame"] - graph.clips[clip]["first_frame"])

    def heading(self, arc):
        return np.interp(arc, self.path.arc, self.path.heading)

    def score(self, edge, arc, error):
        """(cost, arc and heading error after the edge) of playing ``edge`` from ``arc`` metres along with ``error`` radians."""
        rows, played = _edge_rows(self.graph, self.library, edge, self.horizon, self.ends)
        travel = arc + np.cumsum(self.library.forward[rows])
        turned = np.cumsum(self.library.turn[rows])
        wanted = float(np.interp(arc, self.path.arc, self.asked)) / self.fps  # metres per frame
        # Past the clip's last node the horizon stands still: a stretch running into a clip's end is judged by the travel it loses.
        at = self.samples - 1
        reached = np.minimum(at, len(rows) - 1)  # where the clip has ended by a sample, it stands where it ended
        off_speed = (travel[reached] - arc - wanted * (at + 1)) / (wanted * self.horizon)
        off_heading = (error + turned[reached] - (self.heading(travel[reached]) - self.heading(arc))) / HEADING_SCALE
        sideways = self.library.side[rows].mean() / wanted
        cost = np.mean(off_speed ** 2) + np.mean(off_heading ** 2) + sideways ** 2 + TRANSITION_WEIGHT * edge["cost"] * (edge["kind"] == "transition")
        end = min(played, len(rows)) - 1
        return float(cost), float(travel[end]), float(error + turned[end] - (self.heading(travel[end]) - self.heading(arc)))

    def walk(self, allowed, travelling):
        """The edges (as :mod:`.synth`'s paths) that cover the path: from the best start, the cheapest edge at each node."""
        graph, out = self.graph, out_edges(self.graph)
        edges = [dict(edge, index=index) for index, edge in enumerate(graph.edges)]
        core = _travelling_core(graph, travelling)
        starts = [e for e in edges if e["kind"] == "clip" and e["from"] in core and e["to"] in core]
        if not starts:
            raise GraphError("no travelling clip of the motion graph has a stretch to start the path on")
        self.start_nodes = sorted({e["from"] for e in starts})
        best = min(starts, key=lambda e: self.score(e, 0.0, 0.0)[0])
        path, arc, error, frames = [], 0.0, 0.0, 0
        choice = best
        limit = 10 * (self.path.length + 1.0) / MIN_TRAVEL_SPEED * self.fps  # frames: never reached by a walk that travels
        arcs = []  # the arc after each edge
        while arc < self.path.length:
            _, arc, error = self.score(choice, arc, error)
            path.append(choice)
            arcs.append(arc)
            frames += choice["frames"]
            if frames > limit:
                raise GraphError("the walk does not get along the path: its clips travel too little")
            node = choice["to"]
            # Along the path the walk stays among travelling clips' nodes it can always walk on from (a standing pose is for its end).
            options = ([edges[index] for index in out[node] if edges[index]["to"] in core]
                       or [edges[index] for index in out[node] if graph.nodes[edges[index]["to"]]["clip"] in allowed])
            if not options:
                raise GraphError(f"node {node} of the motion graph leads only to clips not allowed: allow more clips")
            choice = min(options, key=lambda e: self.score(e, arc, error)[0])
        return path, arcs

    def travel(self, route):
        """Metres the edges of ``route`` carry the character: a transition's blend half its source clip's travel (it slows down)."""
        total = 0.0
        for edge in route:
            rows, _ = _edge_rows(self.graph, self.library, edge, 0)
            total += self.library.forward[rows].sum()
            if edge["kind"] == "transition":  # the blend leaves the source clip's travel, fading, over the edge's blend
                source = self.graph.nodes[edge["from"]]
                first = self.library.starts[source["clip"]] + source["frame"] - self.graph.clips[source["clip"]]["first_frame"]
                blend = int(edge.get("blend", self.graph.settings["blend_frames"]))
                total += 0.5 * self.library.forward[first:first + blend].sum()
        return total

    def stop(self, path, arcs, standing, allowed, aim=0.0):
        """``path`` ended in a standing pose (then :data:`STAND_SECONDS` in its clip): of the ways from the walk's nodes over
        its last :data:`STOP_SEARCH_METRES` (on a path no longer, also from every node the walk may start at) into a standing
        node, the one that stops nearest the path's end (each transition counting :data:`STOP_TRANSITION_METRES` more), else
        the quickest from its end; None when none reaches one."""
        graph, out, length = self.graph, out_edges(self.graph), self.path.length + aim
        first = next((k for k, arc in enumerate(arcs) if arc >= length - STOP_SEARCH_METRES), len(path) - 1)
        queue = collections.deque((k, path[k]["to"], arcs[k], ()) for k in range(first, len(path)))
        if length <= STOP_SEARCH_METRES:  # a short path may also be walked from any start in the travelling clips straight into the stop
            queue.extendleft((-1, node, 0.0, ()) for node in self.start_nodes)
        seen, best = set(), None
        while queue:  # breadth first over (node, travel to the centimetre's 5): a few thousand states
            k, node, arc, route = queue.popleft()
            for index in out[node]:
                edge = dict(graph.edges[index], index=index)
                if graph.nodes[edge["to"]]["clip"] not in allowed:
                    continue
                after, ways = arc + self.travel([edge]), route + (edge,)
                if edge["to"] in standing:
                    miss = abs(after - length) + STOP_TRANSITION_METRES * sum(e["kind"] == "transition" for e in ways)
                    if best is None or miss < best[0]:
                        best = (miss, k, list(ways))
                elif after < length + MAX_STRETCH * STRETCH_METRES and (edge["to"], round(after / 0.05)) not in seen:
                    seen.add((edge["to"], round(after / 0.05)))
                    queue.append((k, edge["to"], after, ways))
        if best is None:
            route = _route_to(graph, out, path[-1]["to"], standing, allowed)
            if route is None:
                return None
            best = (None, len(path) - 1, route)
        _, k, route = best
        hold, node, frames = [], route[-1]["to"], 0
        while frames < STAND_SECONDS * self.fps:  # the standing clip played on from the node it is reached at
            index = clip_edge(graph, out, node)
            if index is None:
                break
            hold.append(dict(graph.edges[index], index=index))
            node, frames = graph.edges[index]["to"], frames + graph.edges[index]["frames"]
        return path[:k + 1] + [dict(edge, stand=True) for edge in route + hold]


def _travelling_core(graph, travelling):
    """The nodes ``set`` of the largest strongly connected part of the graph left with only the edges between nodes of
    ``travelling`` clips: from each, the walk can go on travelling for ever."""
    kept = [edge for edge in graph.edges if {graph.nodes[edge["from"]]["clip"], graph.nodes[edge["to"]]["clip"]} <= travelling]
    label = strongly_connected(len(graph.nodes), np.array([e["from"] for e in kept], dtype=int), np.array([e["to"] for e in kept], dtype=int))
    inside = np.array([node["clip"] in travelling for node in graph.nodes])
    if not inside.any():
        return set()
    largest = int(np.argmax(np.bincount(label[inside])))
    return set(np.flatnonzero(inside & (label == largest)).tolist())


def _route_to(graph, out, source, goals, allowed):
    """The edges (dicts with their index) of the quickest way in frames from node ``source`` to a node of ``goals``, through
    nodes of ``allowed`` clips; None when none is reached."""
    best, back, heap = {source: 0}, {}, [(0, source)]
    while heap:
        frames, node = heapq.heappop(heap)
        if frames > best[node]:
            continue
        if node in goals and node != source:
            route = []
            while node != source:
                route.append(dict(graph.edges[back[node]], index=back[node]))
                node = graph.edges[back[node]]["from"]
            return route[::-1]
        for index in out[node]:
            edge = graph.edges[index]
            after = frames + int(edge["frames"])
            if graph.nodes[edge["to"]]["clip"] in allowed and (edge["to"] not in best or after < best[edge["to"]]):
                best[edge["to"]], back[edge["to"]] = after, index
                heapq.heappush(heap, (after, edge["to"]))
    return None


def _standing_nodes(graph, library, allowed):
    """The graph's nodes (of ``allowed`` clips) where the motion stands: its clip's root travels under :data:`MIN_TRAVEL_SPEED`
    over the :data:`STAND_SECONDS` after it (an idle or standing clip, or a clip's stop)."""
    span = int(round(STAND_SECONDS * graph.settings["fps"]))
    found = set()
    for index, node in enumerate(graph.nodes):
        clip = node["clip"]
        first = node["frame"] - graph.clips[clip]["first_frame"]
        if clip in allowed and first + span <= graph.clips[clip]["frames"]:
            rows = slice(library.starts[clip] + first, library.starts[clip] + first + span)
            if np.hypot(library.forward[rows].sum(), library.side[rows].sum()) < MIN_TRAVEL_SPEED * STAND_SECONDS:
                found.add(index)
    return found


def _rotate(vectors, angle):
    """Horizontal vectors ``(n, 2)`` turned by ``angle (n,)`` radians counterclockwise."""
    c, s = np.cos(angle), np.sin(angle)
    return np.stack([c * vectors[:, 0] - s * vectors[:, 1], s * vectors[:, 0] + c * vectors[:, 1]], axis=1)


def _centreline(position, fps):
    """(the root's trace ``position (F, 3)`` averaged over :data:`GAIT_SECONDS` ``(F, 2)``, its arc length ``(F,)``)."""
    centre = _box(position[:, :2], int(round(GAIT_SECONDS * fps)))
    return centre, np.r_[0.0, np.cumsum(np.linalg.norm(np.diff(centre, axis=0), axis=1))]


def _corrected(clip, path, library, stops=False):
    """(the clip with its root laid along the path, the turn ``(F,)`` each frame was given, the centreline's arc ``(F,)``);
    ``stops``: the clip ends standing, its travel over the last :data:`STRETCH_METRES` stretched or shrunk (by at most
    :data:`MAX_STRETCH`) so it stops on the path's end."""
    pose, _ = root_motion.root_frames(clip, library.root)
    rotation, position = quat.from_matrix(pose[:, :3, :3]), pose[:, :3, 3]
    facing = root_motion.heading(rotation, library.axis)
    centre, arc = _centreline(position, clip.fps)
    along = _box(facing[:, None], int(round(GAIT_SECONDS * clip.fps)))[:, 0]
    if stops:
        gap = np.clip(path.length - arc[-1], -MAX_STRETCH * STRETCH_METRES, MAX_STRETCH * STRETCH_METRES)
        arc = arc + gap * np.clip((arc - arc[-1]) / STRETCH_METRES + 1.0, 0.0, 1.0)
    target, heading = path.at(arc)
    # The path's heading is the centreline's direction of travel: the root's heading axis sits ``facing`` off it.
    turn = heading - library.facing - along
    moved = target + _rotate(position[:, :2] - centre, turn)  # the sway around the centreline turns with it
    placed = root_motion.with_root_global(clip, library.root, np.c_[moved, position[:, 2]],
                                          quat.multiply(root_motion.z_rotation(turn), rotation))
    return placed, turn, arc


def _foot_contacts(original, chains, dt):
    """Per leg: the frames ``(n,)`` its foot is planted in ``original`` (the ankle near its lowest and slow, or a toe below it)
    and each one's anchor frame ``(n,)``, the middle of its contact; and the chain's pose and each bone's column in it."""
    toes = [[bone for bone in np.flatnonzero(original.parents == ankle)] for _, _, ankle in chains]
    pose, evaluated = root_motion.chain_forward_kinematics(original, [ankle for _, _, ankle in chains] + [t for found in toes for t in found])
    column = np.full(original.num_bones, -1)
    column[evaluated] = np.arange(len(evaluated))
    planted = []
    for (_, _, ankle), below in zip(chains, toes):
        # The ankle as the foot lock finds its contacts, the toes as the skating measure does: planted by either, the foot is.
        mask = contacts.detect_contacts(pose[:, column[[ankle]]][..., :3, 3], dt, 0.03, 0.3)[:, 0]
        if below:
            mask |= contacts.detect_contacts(pose[:, column[below]][..., :3, 3], dt).any(axis=1)
        segments = contacts.contact_segments(mask)
        segments = segments[segments[:, 1] - segments[:, 0] >= 2]
        lengths = segments[:, 1] - segments[:, 0]
        frames = np.repeat(segments[:, 0], lengths) + np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        planted.append((frames, np.repeat((segments[:, 0] + segments[:, 1] - 1) // 2, lengths)))
    return planted, pose, column


def _replanted(original, placed, turn):
    """``placed`` with each leg re-solved so a planted foot moves as it did in ``original``, turned rigidly with the frame in the
    middle of its contact (so a foot does not slide or swivel while the body turns along the path)."""
    chains = footlock.leg_chains(placed)
    if not chains:
        return placed
    planted, raw_pose, raw_column = _foot_contacts(original, chains, placed.dt)
    pose, evaluated = root_motion.chain_forward_kinematics(placed, [ankle for _, _, ankle in chains])
    column = np.full(placed.num_bones, -1)
    column[evaluated] = np.arange(len(evaluated))
    rotation = placed.rotation.copy()
    kernel = np.array([1.0, 4.0, 6.0, 4.0, 1.0]) / 16.0
    for leg, (frames, anchor) in zip(chains, planted):
        if not len(frames):
            continue
        raw, moved = raw_pose[:, raw_column[leg[2]], :3, 3], pose[:, column[leg[2]], :3, 3]
        wanted = np.zeros_like(moved)  # per frame: the ankle's horizontal correction, and the foot's turn back to its contact's
        wanted[frames, :2] = moved[anchor, :2] + _rotate(raw[frames, :2] - raw[anchor, :2], turn[anchor]) - moved[frames, :2]
        wanted[frames, 2] = turn[anchor] - turn[frames]
        known = np.zeros(len(moved), dtype=bool)
        known[frames] = True
        wanted = footlock.bridge_gaps(wanted, known)
        wanted = np.stack([np.convolve(wanted[:, axis], kernel, mode="same") for axis in range(3)], axis=1)
        correction = np.c_[wanted[:, :2], np.zeros(len(wanted))]
        footlock.solve_leg(placed, pose, column, leg, correction, rotation, foot_turn=wanted[:, 2])
    for bone in {bone for leg in chains for bone in leg}:
        rotation[:, bone] = quat.unroll(rotation[:, bone], placed.rotation[0, bone])
    return placed.with_channels(rotation=rotation)


def distance_to_polyline(positions: np.ndarray, points: np.ndarray, block: int = 512) -> np.ndarray:
    """Distance ``(n,)`` of each of ``positions (n, 2)`` to the polyline through ``points (P, 2)``, frames in blocks."""
    a, b = points[:-1], points[1:]
    span = b - a
    length2 = np.maximum(np.einsum("ij,ij->i", span, span), 1e-18)
    out = np.empty(len(positions))
    for first in range(0, len(positions), block):  # blocks bound the (block, P) arrays
        p = positions[first:first + block, None, :]
        u = np.clip(np.einsum("nij,ij->ni", p - a, span) / length2, 0.0, 1.0)
        out[first:first + block] = np.linalg.norm(p - (a + u[..., None] * span), axis=-1).min(axis=1)
    return out


def _corners(path, asked, library, travelling):
    """``[{"arc", "at", "turn_deg", "rate_deg_s", "sharpest_deg_s"}]``: stretches of the path that turn faster, at the speed
    asked, than the sharpest turn any travelling clip makes (each named once, at its sharpest point, with the whole corner's
    turn and the clips' sharpest)."""
    sharpest = float(library.sharpest[travelling].max())
    rate = np.abs(path.curvature) * asked
    over = rate > sharpest
    found = []
    for start, stop in contacts.contact_segments(over):  # a few stretches, not frames
        peak = start + int(np.argmax(rate[start:stop]))
        reach = np.searchsorted(path.arc, path.arc[peak] + np.array([-1.0, 1.0]) * (TURN_METRES + ROUND_METRES))
        before, after = max(min(reach[0], start - 1), 0), min(max(reach[1], stop), len(path.arc) - 1)  # the whole corner's turn
        turn = float(np.degrees(abs(path.heading[after] - path.heading[before])))
        found.append({"arc": float(path.arc[peak]), "at": [float(v) for v in path.points[peak]], "turn_deg": turn,
                      "rate_deg_s": float(np.degrees(rate[peak])), "sharpest_deg_s": float(np.degrees(sharpest))})
    return found


def _cut(composition, arc, length):
    """The composition cut where its centreline's ``arc (F,)`` reaches ``length`` (keeping at least :data:`MIN_PIECE_FRAMES`)."""
    last = int(min(np.searchsorted(arc, length), len(arc) - 1))
    last = max(last, min(MIN_PIECE_FRAMES, len(arc)) - 1)
    segments = [s for s in composition.segments if s.out_first <= last]
    if segments and segments[-1].out_last > last:
        end = segments[-1]
        segments[-1] = dataclasses.replace(end, out_last=last, source_last=end.source_first + last - end.out_first)
    transitions = [t for t in composition.transitions if t.window[1] <= last]
    clip = composition.clip.slice_frames(0, last + 1)
    return dataclasses.replace(composition, clip=clip, segments=segments, transitions=transitions,
                               numbers=dict(composition.numbers, duration_s=clip.duration))


def plan(graph: MotionGraph, clips: list[Clip], points: np.ndarray, speeds: np.ndarray | None = None, speed: float | None = None,
         words: tuple | list = (), horizon: float = HORIZON_SECONDS, end: str = "stand",
         aim: float = 0.0, library: _Library | None = None) -> tuple[MotionGraph, list[dict], Path, np.ndarray, list]:
    """(the graph the walk may use, the walk: :mod:`.synth`'s path of edges, those into and in a standing pose at its end
    marked ``"stand"``, the :class:`Path`, the speed asked along it ``(N,)`` m/s, the corners the clips cannot turn); see
    :func:`follow`. aim: metres past the path's end a standing end aims to stop at (its travel as rendered differs from the
    plan's); library: the clips' roots and tracks (:func:`_library`), when the caller has them."""
    points, speeds = check_points(points, speeds)
    library = _library(clips) if library is None else library
    allowed = allowed_clips(graph, words)
    dropped = {k for k, e in enumerate(graph.edges) if {graph.nodes[e["from"]]["clip"], graph.nodes[e["to"]]["clip"]} - allowed}
    if dropped:
        graph = without_edges(graph, dropped)
        allowed &= {node["clip"] for node in graph.nodes}
    travelling, reach = _reach(library, allowed, graph)
    if speed is not None and not (np.isfinite(speed) and speed > 0):
        raise GraphError(f"the speed must be a positive number of metres per second, got {speed!r}")
    if end not in ENDS:
        raise GraphError(f"the walk ends {' or '.join(ENDS)}, not {end!r}")
    if not HORIZON_RANGE[0] <= horizon <= HORIZON_RANGE[1]:
        raise GraphError(f"the search looks {HORIZON_RANGE[0]:g}-{HORIZON_RANGE[1]:g} s ahead, not {horizon!r}")
    path = make_path(points, speeds)
    asked = _asked_speed(path, speed, library, travelling, reach)
    planner = _Planner(graph, library, path, asked, horizon)
    walk, arcs = planner.walk(allowed, set(travelling))
    standing = _standing_nodes(graph, library, allowed) if end == "stand" else set()
    walk = (planner.stop(walk, arcs, standing, allowed, aim) if standing else None) or walk
    return graph, walk, path, asked, _corners(path, asked, library, travelling)


def _rendered(graph, clips, library, points, speeds, speed, words, attempts, horizon, end):
    """((composition, path, corners, planning seconds, whether it ends standing), transitions dropped): the plan rendered whose worst junction is least
    visible, planned again without the transitions that showed (or came too soon after the one before) up to ``attempts``
    times, or until the graph left cannot carry a plan."""
    best, dropped, aim, aimed, last_walk = None, 0, 0.0, 0, None
    for _ in range(attempts):
        planned = time.perf_counter()
        try:
            used, walk, path, asked, corners = plan(graph, clips, points, speeds, speed, words, horizon, end, aim, library)
        except GraphError:
            if best is None:
                raise
            break  # what is left of the graph cannot follow the path: keep the best plan so far
        planning = time.perf_counter() - planned
        composition, visible = render_checked(used, clips, walk, lambda metrics: metrics.visibility > MAX_VISIBLE + 1e-9 or shows(metrics))
        if composition is not None:
            worst = max((made.metrics.visibility for made in composition.transitions), default=0.0)
            stands = any(edge.get("stand") for edge in walk)
            miss = 0.0
            if stands:  # a stop the stretch cannot bring onto the path's end does not count as one
                arc = _centreline(root_motion.root_frames(composition.clip, library.root)[0][:, :3, 3], composition.clip.fps)[1]
                miss = arc[-1] - path.length
                stands = abs(miss) <= MAX_STRETCH * STRETCH_METRES
            # Within the target first, then the body at the clips' heights through every junction, not stopping short of the end,
            # ending standing, the least visible.
            off = sum(grounding.stands_off(made.metrics.floor_offset, made.metrics.pelvis_offset) for made in composition.transitions)
            rank = (worst > MAX_VISIBLE + 1e-9, off, miss < -MAX_STRETCH * STRETCH_METRES, not stands, worst)
            if best is None or rank < best[0]:
                best = (rank, (composition, path, corners, planning, stands))
            if not visible and (stands or not miss):
                break
            if not visible:  # a stop that missed the path's end: planned again aiming as far the other way, else walking to it
                same = [edge["index"] for edge in walk] == last_walk
                if aimed == AIMS or same:
                    end = "walk"
                aim, aimed, last_walk = aim - miss, aimed + 1, [edge["index"] for edge in walk]
        graph, dropped = without_edges(used, visible), dropped + len(visible)
    if best is None:
        raise GraphError(f"{attempts} plans each kept a transition that comes too soon after the one before: build the graph again")
    return best[1], dropped


def follow(graph: MotionGraph, clips: list[Clip], points: np.ndarray, speeds: np.ndarray | None = None, speed: float | None = None,
           words: tuple | list = (), attempts: int = ATTEMPTS, horizon: float = HORIZON_SECONDS, end: str = "stand") -> Followed:
    """Motion from the graph's clips (its own, in its order) whose root follows the path ``points (P, 2)`` metres (see the module).

    speeds: per point, metres per second; speed: one for the whole path
    (default: the median travelling clip's); words: only clips whose
    names hold one of them; horizon: seconds each edge is judged ahead
    (the search's effort, within :data:`HORIZON_RANGE`). A junction more visible than its clips' own
    motion (:data:`MAX_VISIBLE`), or that shows by another of the transition
    engine's measures, is taken out of the graph and the path
    planned again, up to ``attempts`` times. GraphError (one line) for an
    empty path, one off the ground or with no length, a library with no
    travelling clip, or a speed out of the clips' reach (named with it). A
    corner no clip turns that fast is followed as closely as the correction
    can and named in the notes.
    """
    started = time.perf_counter()
    points, speeds = check_points(points, speeds)
    library = _library(clips)
    (composition, path, corners, planning, stands), dropped = _rendered(graph, clips, library, points, speeds, speed, words, attempts,
                                                                        horizon, end)
    rendered = composition.clip
    placed, turn, arc = _corrected(rendered, path, library, stands)
    placed = _replanted(rendered, placed, turn)
    composition = dataclasses.replace(composition, clip=placed)
    if not stands:  # a standing end stops on the path's end; a walk is cut where it reaches it
        composition = _cut(composition, arc, path.length)
    composition = _grounded(composition, clips, [entry["name"] for entry in graph.clips])
    own = _clips_skating(composition, clips, [entry["name"] for entry in graph.clips])
    # The walk as the graph renders it, before its root is laid along the path: what the correction adds to its feet.
    as_rendered = _toe_skating(rendered.slice_frames(0, composition.clip.num_frames))
    return _measured(composition, path, points, corners, library, own, dropped, _ending(graph, library, words, end, stands, composition),
                     {"rendered_toe_skating_m_s": as_rendered, "planning_s": planning, "seconds": time.perf_counter() - started,
                      "ends_standing": float(stands)})


def _ending(graph, library, words, end, stands, composition):
    """A sentence on how the walk ends: in which standing pose, or why walking (None when walking was asked)."""
    if stands:
        return f"the walk ends standing, in {composition.segments[-1].name}"
    if end == "walk":
        return None
    if _standing_nodes(graph, library, allowed_clips(graph, words)):
        return "no standing pose of the library can be reached to stop on the path's end: the walk ends walking"
    return (f"the library has no standing pose (a clip that stands, or stops, for {STAND_SECONDS:g} s): the walk ends walking")


def _grounded(composition, clips, names):
    """The composition with the body's floor and pelvis offsets (``floor_offset_m``, ``pelvis_offset_m``) measured again on its
    corrected motion against the clips it plays: the verdict judges the motion written, not the one rendered."""
    played = [clips[names.index(name)] for name in dict.fromkeys(segment.name for segment in composition.segments)]
    body = grounding.numbers(grounding.of_clip(composition.clip, None, played))
    return dataclasses.replace(composition, numbers=dict(composition.numbers, **body))


def _toes(clip):
    """The clip's toe joints and their positions ``(F, T, 3)``."""
    toes = contacts.toe_joints(clip.bone_names)
    return toes, kinematics.clip_forward_kinematics(clip, toes, heads_only=True)[..., :3, 3]


def _toe_skating(clip, frames=slice(None), posed=None):
    """The toes' skating (m/s) over ``frames`` of ``clip``; posed: its :func:`_toes`, when already at hand."""
    toes, positions = posed or _toes(clip)
    return contacts.toe_skating(positions, toes, clip.dt, frames)


def _clips_skating(composition, clips, names):
    """The clips' own toe skating (m/s) over the frames the composition plays of them: each segment's frames at its source
    frames' in its clip; a transition's frames (its blend and the foot lock around it) play both clips it joins, at the mean of
    theirs (a walk slowing into a standing clip is not held to the standing clip's still feet)."""
    segments = composition.segments
    own, posed = [], {}
    for segment in segments:  # a few segments, often of the same clips: each clip posed once
        clip = clips[names.index(segment.name)]
        first = int(clip.frames[0])
        if segment.name not in posed:
            posed[segment.name] = _toes(clip)
        own.append(_toe_skating(clip, slice(max(segment.source_first - first, 0), segment.source_last - first + 1), posed[segment.name]))
    per_frame = np.zeros(composition.clip.num_frames)
    for value, segment in zip(own, segments):
        per_frame[segment.out_first:segment.out_last + 1] = value
    starts = np.array([segment.out_first for segment in segments])
    for made in composition.transitions:  # a few transitions
        first, last = made.window
        before = int(np.clip(np.searchsorted(starts, first, side="right") - 1, 0, len(own) - 2)) if len(own) > 1 else 0
        per_frame[first:last + 1] = 0.5 * (own[before] + own[min(before + 1, len(own) - 1)])
    return float(per_frame.mean()) if len(per_frame) else 0.0


def _measured(composition, path, points, corners, library, own, dropped, ending, more):
    """The :class:`Followed` of the corrected composition: its trace against the drawn ``points``, its feet against ``own``, the
    clips' toe skating (m/s); ``more``: numbers measured before."""
    clip = composition.clip
    pose, _ = root_motion.root_frames(clip, library.root)
    trace = pose[:, :2, 3]
    deviation = distance_to_polyline(trace, points)
    speed = np.r_[0.0, np.linalg.norm(np.diff(_box(trace, int(round(GAIT_SECONDS * clip.fps))), axis=0), axis=1)] * clip.fps
    speed[0] = speed[1] if len(speed) > 1 else 0.0
    facing = root_motion.heading(quat.from_matrix(pose[:, :3, :3]), library.axis) + library.facing
    end_heading = path.heading[-1]
    facing_error = float(np.degrees(np.abs(np.angle(np.exp(1j * (facing[-int(round(GAIT_SECONDS * clip.fps)):].mean() - end_heading))))))
    worst = max((t.metrics.visibility for t in composition.transitions), default=0.0)
    numbers = {
        "deviation_mean_m": float(deviation.mean()), "deviation_max_m": float(deviation.max()),
        "end_error_m": float(np.linalg.norm(trace[-1] - points[-1])), "end_facing_error_deg": facing_error,
        "path_length_m": path.length, "duration_s": float(clip.duration), "speed_mean_m_s": float(speed.mean()),
        "toe_skating_m_s": _toe_skating(clip), "clips_toe_skating_m_s": own, "worst_junction_visibility": float(worst),
        "transitions": len(composition.transitions), **more,
    }
    notes = [f"the corner at ({c['at'][0]:.2f}, {c['at'][1]:.2f}) m, {c['arc']:.1f} m along the path, turns {c['turn_deg']:.0f} degrees "
             f"at up to {c['rate_deg_s']:.0f} degrees/s; the clips turn at most {c['sharpest_deg_s']:.0f} degrees/s: followed by "
             "turning the walk" for c in corners]
    if ending:
        notes.append(ending)
    if dropped:
        notes.append(f"{dropped} transitions of the graph were more visible than their clips when rendered: planned without them")
    return Followed(composition, path, trace, deviation, speed, numbers, tuple(notes), corners)
