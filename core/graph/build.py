"""Motion graphs (Kovar, Gleicher and Pighin 2002): where a library of clips can jump from one clip into another.

Frames: ``node["frame"]`` is a clip's own frame number (``clip.frames``);
inside this module, 0-based indices. Times are seconds, distances the
squared feature distances of :mod:`..motion.features` summed over a
window (the clips' length unit squared, metres for imported mocap).

Every window of :data:`WINDOW_SECONDS` in the library is compared with
every other (the transition engine's features: character-space joint
positions and velocities weighted by bone length, one heading axis for the
whole library). A pair of windows that is a local minimum of that map,
under the threshold, is a transition candidate ``(a, i, b, j)``; the map is
symmetric, so each gives two transitions: A at frame i into B, and B at
frame j into A. A transition out of A at frame ``i`` blends into B over
:data:`BLEND_SECONDS` from B's frame ``j``, then holds B for
:data:`HOLD_SECONDS`, and lands at ``j + blend + hold``: the edge plays
those frames, so any path leaves at least ``hold`` of plain clip between
two blends (blends that overlap would show). Nodes sit at transition frames; clip edges play a
clip from one node to the next. The graph keeps its largest strongly
connected component, so every node reaches every other and no walk gets
stuck at a clip's end.

Threshold rule (``threshold=None``), one threshold per pair of clips. The
transition engine judges a blend against the two clips it joins, never
against the library: a transition stays unseen when its accelerations stay
within the larger of the two clips' own (:mod:`..measure.transition`), and its
root speed and turning within the clips' own. A run moves more than a walk,
so its windows lie further from everything, and the blends into and out of
it hide more. The graph measures each clip the same way, by its own
distances: a clip's threshold is the :data:`THRESHOLD_PERCENTILE` percentile
of the distances between its windows and the library's (its best quarter
of matches, wherever it sits in the library), and a pair of clips takes the
larger of its two clips' thresholds, as the engine takes the larger of its
two clips' yardsticks; never less than the same percentile of the whole
library's distances (the library's rule before per-pair thresholds, so
nothing joined by it is dropped). All distances come from random window
pairs of the library (pairs from different clips, or from one clip at least
:data:`MIN_JUMP_SECONDS` apart; :data:`SAMPLE_WINDOWS` windows, every pair
of them); a clip none of whose windows was drawn takes the library's. A
given threshold is one threshold for every pair. ``tolerance`` multiplies
every pair's threshold. Transitions cost their distance over their pair's
threshold (0 to 1); clip edges cost nothing.

Coverage: what a clip needs to be in the graph, and what would bring in a
clip that is not (``stats["left_out"]``). Entering a clip and leaving it
again takes a margin, a blend and a hold in, and a blend out: a shorter
take can never be in the graph. Otherwise the scan also keeps candidates up
to :data:`EXPLAIN_TOLERANCE` times their pair's threshold; the smallest
tolerance that brings the clip into the largest strongly connected
component is what would include it (searched for the first
:data:`EXPLAINED` clips left out).
"""

import functools
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..errors import GraphError
from ..motion import features as pose_features, kinematics, quat, root as root_motion
from ..motion.clip import Clip
from ..transition import make, points
from . import prune as pruning, scan

WINDOW_SECONDS = points.WINDOW_SECONDS  # seconds of both clips a distance sums over (the transition engine's)
SEPARATION_SECONDS = points.SEPARATION_SECONDS  # candidates are local minima this far apart at least
BLEND_SECONDS = max(make.LENGTHS)  # a transition edge plays this long: the longest blend the engine tries, so render may let it choose
HOLD_SECONDS = 1.0  # of the clip a transition lands in, played after its blend before any other transition
MIN_JUMP_SECONDS = 0.5  # a jump within one clip skips or repeats at least this much (nearer windows match trivially)
THRESHOLD_PERCENTILE = 25.0  # the default threshold's percentile of the library's window distances
SAMPLE_WINDOWS = 2048  # windows drawn for the distance statistics (every pair of them compared)
HISTOGRAM_BINS = 32
PERCENTILES = (1, 5, 10, 25, 50, 75, 90, 99)
SPACING_SECONDS = 2.0  # a pair of clips keeps at most one transition candidate per this much of the shorter clip ...
MIN_PER_PAIR = 8  # ... and at least this many (the best)
MARGIN_SECONDS = 0.5  # transitions keep this far from a clip's start: takes start unevenly, and blends need history
EXPLAIN_TOLERANCE = 2.0  # candidates up to this times their pair's threshold are kept to say what would include a clip left out
FPS_TOLERANCE = 1e-4  # relative: frame rates this close are one rate (a BVH's frame time is printed to a few digits)
EXPLAINED = 12  # left-out clips whose including tolerance is searched (each search builds the graph's components ~7 times)


@dataclass
class MotionGraph:
    """A motion graph, JSON-ready (plain lists and dicts, see :mod:`..formats.graph_json`).

    clips: ``{"name", "frames", "fps", "first_frame"}`` per clip (frames: how
    many). nodes: ``{"id", "clip" (index), "frame" (frame number)}``. edges:
    ``{"from", "to", "kind": "clip" | "transition", "cost", "frames"}``: a clip
    edge plays its clip from the node's frame to the next node's (``frames``
    frames on); a transition blends into the other clip and holds it,
    ``frames`` frames in all (see the module). stats: the distance
    statistics and the build's counts and seconds. settings: window,
    separation, blend, hold and jump lengths in frames, the frame rate and
    the joints compared.
    """

    clips: list
    nodes: list
    edges: list
    stats: dict
    settings: dict = field(default_factory=dict)


def same_rate(a: float, b: float) -> bool:
    """Whether two frame rates are one (within :data:`FPS_TOLERANCE` of each other, relatively)."""
    return abs(a - b) <= FPS_TOLERANCE * max(a, b)


def _majority(keys):
    """Indices of the largest group of equal ``keys`` (ties: the group seen first)."""
    groups = {}
    for index, key in enumerate(keys):
        groups.setdefault(key, []).append(index)
    return max(groups.values(), key=len)


def _listed(names, most=4):
    shown = ", ".join(sorted(names)[:most])
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")


def odd_clips(clips: list[Clip]) -> dict[int, str]:
    """``{index: reason}`` of the clips a graph of the others cannot hold: those outside the library's majority skeleton (its
    bone names), then outside the majority's frame rate. The majority is the largest group (ties: the group seen first)."""
    odd = {}
    skeleton = _majority([frozenset(clip.bone_names) for clip in clips])
    bones = set(clips[skeleton[0]].bone_names)
    for index, clip in enumerate(clips):
        if index not in skeleton:
            missing, extra = bones - set(clip.bone_names), set(clip.bone_names) - bones
            differences = ([f"lacks {_listed(missing)}"] if missing else []) + ([f"has {_listed(extra)} besides"] if extra else [])
            odd[index] = (f"its skeleton differs from the one {len(skeleton)} of the {len(clips)} clips share (it "
                          f"{' and '.join(differences)}): a motion graph needs one skeleton")
    rates = []
    for index in skeleton:  # each clip's rate as the first clip of the same rate gave it
        rates.append(next((rate for rate in rates if same_rate(rate, clips[index].fps)), float(clips[index].fps)))
    rate_group = _majority(rates)
    rate = rates[rate_group[0]]
    for position, index in enumerate(skeleton):
        if position not in rate_group:
            odd[index] = (f"plays at {clips[index].fps:.4g} fps, {len(rate_group)} of the {len(clips)} clips at {rate:.4g}: "
                          "resample it to match")
    return dict(sorted(odd.items()))


def _check_library(clips, names, tolerance):
    """GraphError unless ``clips`` can make one graph, each named, and ``tolerance`` is a positive number."""
    if not clips:
        raise GraphError("a motion graph needs at least one clip")
    if len(names) != len(clips):
        raise GraphError(f"{len(clips)} clips but {len(names)} names")
    for index, reason in odd_clips(clips).items():
        raise GraphError(f"{names[index]}: {reason}")
    if not (isinstance(tolerance, (int, float)) and np.isfinite(tolerance) and tolerance > 0):
        raise GraphError(f"the tolerance must be a positive number, got {tolerance!r}")


def _frame_counts(fps, window_seconds, blend_seconds):
    """The graph's spans in frames at ``fps``: (window, separation, blend, hold, min_jump) (see the module's constants)."""
    window = max(1, int(round((WINDOW_SECONDS if window_seconds is None else window_seconds) * fps)))
    return (window, max(1, int(round(SEPARATION_SECONDS * fps))), max(3, int(round(blend_seconds * fps))), int(round(HOLD_SECONDS * fps)),
            int(round(MIN_JUMP_SECONDS * fps)))


def _travelling_velocities(pose, root, indices, axis, dt):
    """Joint velocities ``(F, J, 3)`` per second in each frame's character frame, the travel and turning included.

    Unlike the transition engine's features (velocities relative to the
    root), a forward and a backward walk differ here: a jump between them
    would reverse the travel, and should cost what it looks like.
    """
    positions = pose[:, indices][..., :3, 3]
    velocity = np.gradient(positions, axis=0) / np.float32(dt)
    heading = root_motion.heading(quat.from_matrix(pose[:, root, :3, :3]), axis)
    cos, sin = np.cos(heading)[:, None].astype(np.float32), np.sin(heading)[:, None].astype(np.float32)
    turned = np.array(velocity)
    turned[..., 0], turned[..., 1] = cos * velocity[..., 0] + sin * velocity[..., 1], cos * velocity[..., 1] - sin * velocity[..., 0]
    return turned


def library_features(clips: list[Clip], joints: str | list | None = None) -> tuple[list[np.ndarray], list[str]]:
    """Pose features ``[(F_c, 6 J)]`` float32 of every clip, comparable with each other, and the joint names used.

    As :func:`..motion.features.stack_features`: character-space joint
    positions, then velocities times :data:`..motion.features.VELOCITY_TIME`,
    each joint scaled by the square root of its weight (the first clip's
    bone lengths), every clip's heading measured about one axis of its
    root; but velocities keep the travel (see :func:`_travelling_velocities`).
    joints: see :func:`..motion.features.joint_indices` (chosen on the first clip).
    """
    poses = [kinematics.clip_forward_kinematics(clip, dtype=np.float32) for clip in clips]
    roots = [pose_features.character_root(clip, pose) for clip, pose in zip(clips, poses)]
    names = [clips[0].bone_names[index] for index in pose_features.joint_indices(clips[0], joints, roots[0])]
    scale = np.sqrt(pose_features.bone_weights(clips[0])[[clips[0].bone_index(name) for name in names]])[None, :, None].astype(np.float32)
    axis = root_motion.heading_axis(np.concatenate([quat.from_matrix(pose[:, root, :3, :3]) for pose, root in zip(poses, roots)]))
    library = []
    for clip, pose, root in zip(clips, poses, roots):
        indices = [clip.bone_index(name) for name in names]
        positions = pose_features.character_positions(pose, clip.parents, root, axis)[:, indices]
        velocities = _travelling_velocities(pose, root, indices, axis, clip.dt) * np.float32(pose_features.VELOCITY_TIME)
        library.append(np.concatenate([(positions * scale).reshape(clip.num_frames, -1), (velocities * scale).reshape(clip.num_frames, -1)], axis=1))
    return library, names


def _by_pair_and_cost(pair: np.ndarray, costs: np.ndarray, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """The order of candidates by clip pair, then cost, ties by position (i, then j): reproducible. The order
    ``np.lexsort((j, i, costs, pair))`` gives, sorted on two 64-bit keys instead of four: each pair above its float32
    cost's bits (made to sort as the floats do, -0 as 0), each i above its j. The merges of a big graph sort every
    candidate kept so far, in half the time. pair, i, j: non-negative integers under 2**32."""
    bits = (costs + np.float32(0.0)).view(np.uint32)
    ordered = np.where(bits >> 31, ~bits, bits | np.uint32(1 << 31)).astype(np.uint64)
    upper = np.uint64(32)
    return np.lexsort(((i.astype(np.uint64) << upper) | j.astype(np.uint64), (pair.astype(np.uint64) << upper) | ordered))


class _Layout:
    """Where each clip's frames sit in the padded features, and the rules a candidate pair must pass."""

    def __init__(self, lengths, starts, window, blend, hold, min_jump, fps):
        self.lengths, self.starts = np.asarray(lengths), np.asarray(starts)
        self.margin = int(round(MARGIN_SECONDS * fps))
        self.window, self.blend, self.hold, self.min_jump = window, blend, hold, min_jump
        # The blends a transition may take, longest first: the graph's, and the engine's shorter lengths where it leaves no room.
        self.blends = tuple(sorted({blend} | {max(3, int(round(s * fps))) for s in make.LENGTHS if int(round(s * fps)) < blend}, reverse=True))
        seconds = (self.lengths - 1) / fps
        shorter = np.minimum(seconds[:, None], seconds[None, :])
        self.per_pair = np.maximum(MIN_PER_PAIR, np.ceil(shorter / SPACING_SECONDS)).astype(int)
        self.ceiling = np.full(shorter.shape, np.inf, dtype=np.float32)  # (C, C) the largest distance kept per clip pair

    @functools.cached_property
    def _row_rules(self):
        """Per padded row (the last standing for every row past the clips): its clip (-1 in padding), and whether a
        transition of the shortest blend can leave it and enter it (see :meth:`leaves`, :meth:`enters`). :meth:`keep` runs
        on every tile's candidates: looking rows up costs a fraction of locating them."""
        rows = np.arange(int(self.starts[-1] + self.lengths[-1]) + 1)
        clip, index = self.locate(rows)
        short = self.blends[-1]
        return clip.astype(np.int32), self.leaves(clip, index, short), self.enters(clip, index, short)

    def locate(self, rows):
        """(clip ``(P,)``, index ``(P,)``) of padded rows; clip -1 for padding."""
        clip = np.searchsorted(self.starts, rows, side="right") - 1
        index = rows - self.starts[np.maximum(clip, 0)]
        inside = (clip >= 0) & (index < self.lengths[np.maximum(clip, 0)])
        return np.where(inside, clip, -1), index

    def leaves(self, clip, index, blend=None):
        """Whether a transition of ``blend`` frames (default the graph's) can leave ``clip`` at ``index``: frames before it
        (a take's start is often uneven), its blend within the clip."""
        length = self.lengths[np.maximum(clip, 0)]
        blend = self.blend if blend is None else blend
        return (clip >= 0) & (index >= self.margin) & (index + max(blend, self.window - 1) <= length - 1)

    def enters(self, clip, index, blend=None):
        """Whether a transition of ``blend`` frames can enter ``clip`` at ``index``: frames before it, its blend and hold within the clip."""
        length = self.lengths[np.maximum(clip, 0)]
        blend = self.blend if blend is None else blend
        return (clip >= 0) & (index >= self.margin) & (index + max(blend + self.hold, self.window - 1) <= length - 1)

    def blend_of(self, out_clip, out_index, in_clip, in_index):
        """Each transition's blend ``(P,)``: the longest of :attr:`blends` that fits both clips, 0 where none does."""
        chosen = np.zeros(len(out_clip), dtype=int)
        for blend in reversed(self.blends):  # longest last: it wins where it fits
            fits = self.leaves(out_clip, out_index, blend) & self.enters(in_clip, in_index, blend)
            chosen[fits] = blend
        return chosen

    def keep(self, i, j, costs):
        """The candidates worth keeping: i < j, usable one way at least, far enough apart in one clip, under their pair's
        ceiling, the best per clip pair."""
        clip_row, leaves, enters = self._row_rules
        row_a, row_b = np.minimum(i, len(clip_row) - 1), np.minimum(j, len(clip_row) - 1)
        clip_a, clip_b = clip_row[row_a], clip_row[row_b]
        fine = (i < j) & ((leaves[row_a] & enters[row_b]) | (leaves[row_b] & enters[row_a]))
        fine &= (clip_a != clip_b) | (np.abs(i - j) >= self.min_jump)  # rows of one clip are as far apart as its frames
        fine &= costs <= self.ceiling[np.maximum(clip_a, 0), np.maximum(clip_b, 0)]
        i, j, costs, pair = i[fine], j[fine], costs[fine], (clip_a * len(self.lengths) + clip_b)[fine]
        order = _by_pair_and_cost(pair, costs, i, j)
        pair = pair[order]
        rank = np.arange(len(pair)) - np.searchsorted(pair, pair)  # place within its pair: the pairs are in order
        chosen = order[rank < self.per_pair.ravel()[pair]]
        return i[chosen], j[chosen], costs[chosen]


    def clip_of(self, rows):
        """Clip index ``(P,)`` whose frames or trailing padding hold each padded row; -1 before the first clip."""
        return np.searchsorted(self.starts, rows, side="right") - 1

    def limits(self, i, j, costs):
        """``(C, C)`` symmetric: the dearest cost :meth:`keep` could still keep for each pair of clips, given that it kept
        ``(i, j, costs)``: its ceiling while the pair holds fewer than its share, its dearest kept once it holds it."""
        count = len(self.lengths)
        pair = self.clip_of(i) * count + self.clip_of(j)
        dearest = np.full(count * count, -np.inf, dtype=np.float32)
        np.maximum.at(dearest, pair, costs)
        dearest = dearest.reshape(count, count)
        held = np.bincount(pair, minlength=count * count).reshape(count, count)
        held = held + held.T - np.diag(np.diag(held))  # kept pairs have clip_of(i) <= clip_of(j): fold in the other half
        return np.where(held >= self.per_pair, np.maximum(dearest, dearest.T), self.ceiling)


def distance_statistics(left: np.ndarray, right: np.ndarray, layout: _Layout, sample: int = SAMPLE_WINDOWS, seed: int = 0,
                        with_clips: bool = False) -> np.ndarray | tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Windowed distances between random window pairs ``(P,)`` float64 (see the module's threshold rule).

    Windows are drawn uniformly from those wholly inside a clip (a fixed
    seed: the same library gives the same statistics); each pair's distance
    sums ``window`` products of shifted rows of the padded operands.
    with_clips: also return the clip of each pair's two windows, ``(P,)`` each.
    """
    valid = np.concatenate([start + np.arange(length - layout.window + 1) for start, length in zip(layout.starts, layout.lengths)])
    rng = np.random.default_rng(seed)
    chosen = np.sort(rng.choice(valid, size=min(sample, len(valid)), replace=False))
    total = np.zeros((len(chosen), len(chosen)), dtype=np.float32)
    for offset in range(layout.window):
        total += left[chosen + offset] @ right[chosen + offset].T
    clip, index = layout.locate(chosen)
    upper = np.triu(np.ones(total.shape, dtype=bool), 1)
    apart = (clip[:, None] != clip[None, :]) | (np.abs(index[:, None] - index[None, :]) >= layout.min_jump)
    values = np.maximum(total[upper & apart], 0.0).astype(float)
    if not with_clips:
        return values
    rows, cols = np.nonzero(upper & apart)
    clip = clip.astype(np.int32)
    return values, clip[rows], clip[cols]


def clip_thresholds(values: np.ndarray, clip_a: np.ndarray, clip_b: np.ndarray, count: int, percentile: float, floor: float) -> np.ndarray:
    """Each clip's threshold ``(count,)``: ``percentile`` of the sampled distances with one window in it, at least ``floor``.

    A pair of windows of one clip counts once; a clip with no sampled
    window takes ``floor`` (see the module's threshold rule).
    """
    labels = np.r_[clip_a, clip_b[clip_b != clip_a]]
    values = np.r_[values, values[clip_b != clip_a]].astype(np.float32)
    order = np.argsort(labels, kind="stable")
    labels, values = labels[order], values[order]
    bounds = np.searchsorted(labels, np.arange(count + 1))
    own = [np.percentile(values[a:b], percentile) if b > a else floor for a, b in zip(bounds, bounds[1:])]
    return np.maximum(np.array(own, dtype=float), floor)


def _statistics(values, threshold, rule):
    edges = np.linspace(0.0, np.percentile(values, 99), HISTOGRAM_BINS + 1) if len(values) else np.zeros(HISTOGRAM_BINS + 1)
    counts, _ = np.histogram(np.minimum(values, edges[-1]), bins=edges)  # the top bin also counts the last percent
    return {
        "threshold": float(threshold), "rule": rule, "sampled_pairs": int(len(values)),
        "percentiles": {str(p): float(np.percentile(values, p)) if len(values) else 0.0 for p in PERCENTILES},
        "histogram": {"edges": [float(e) for e in edges], "counts": [int(c) for c in counts]},
    }


def strongly_connected(count: int, sources: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Component label ``(count,)`` of each node of the directed graph ``sources[k] -> targets[k]`` (iterative Tarjan)."""
    order = np.argsort(sources, kind="stable")
    heads = np.searchsorted(sources[order], np.arange(count + 1))
    successors = targets[order].tolist()
    heads = heads.tolist()
    index, low = [-1] * count, [0] * count
    on_stack = [False] * count
    label = [-1] * count
    stack, counter, components = [], 0, 0
    for root in range(count):
        if index[root] >= 0:
            continue
        work = [(root, heads[root])]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = True
        while work:
            node, edge = work[-1]
            if edge < heads[node + 1]:
                work[-1] = (node, edge + 1)
                nxt = successors[edge]
                if index[nxt] < 0:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack[nxt] = True
                    work.append((nxt, heads[nxt]))
                elif on_stack[nxt]:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                while True:
                    member = stack.pop()
                    on_stack[member] = False
                    label[member] = components
                    if member == node:
                        break
                components += 1
    return np.array(label, dtype=int)


def _assemble(layout, clip_a, index_a, clip_b, index_b, costs):
    """Nodes ``(V, 2)`` (clip, index) and edges (from, to, kind 0 clip / 1 transition, cost, frames) arrays, before pruning.

    costs: each candidate's distance over its pair's threshold (never below 0).
    """
    # Each candidate both ways it can be used: out of one window's clip at its frame, into the other's, landing after the blend and hold.
    out_clip, out_index = np.r_[clip_a, clip_b], np.r_[index_a, index_b]
    in_clip, in_index = np.r_[clip_b, clip_a], np.r_[index_b, index_a]
    blends = layout.blend_of(out_clip, out_index, in_clip, in_index)
    usable = blends > 0
    blends = blends[usable]
    played = blends + layout.hold
    out_clip, out_index, in_clip, in_index = out_clip[usable], out_index[usable], in_clip[usable], in_index[usable] + played
    cost = np.maximum(np.r_[costs, costs][usable].astype(float), 0.0)
    keys = np.unique(np.r_[out_clip * (1 << 32) + out_index, in_clip * (1 << 32) + in_index])  # sorted by clip, then frame
    nodes = np.stack([keys >> 32, keys & ((1 << 32) - 1)], axis=1)
    sources = np.searchsorted(keys, out_clip * (1 << 32) + out_index)
    targets = np.searchsorted(keys, in_clip * (1 << 32) + in_index)
    same_clip = np.flatnonzero(nodes[1:, 0] == nodes[:-1, 0])
    edges = {
        "from": np.r_[same_clip, sources], "to": np.r_[same_clip + 1, targets],
        "kind": np.r_[np.zeros(len(same_clip), dtype=int), np.ones(len(sources), dtype=int)],
        "cost": np.r_[np.zeros(len(same_clip)), cost],
        "frames": np.r_[nodes[same_clip + 1, 1] - nodes[same_clip, 1], played],
        "blend": np.r_[np.zeros(len(same_clip), dtype=int), blends],
    }
    return nodes, edges


def _largest_component(nodes, edges):
    """Mask ``(V,)`` of the nodes in the largest strongly connected component (all False without nodes)."""
    if not len(nodes):
        return np.zeros(0, dtype=bool)
    label = strongly_connected(len(nodes), edges["from"], edges["to"])
    return label == int(np.argmax(np.bincount(label)))


def _frames_played(layout, nodes, edges, inside):
    """Frames ``(C,)`` of each clip that the edges marked ``inside`` play: clip edges from node to node, transitions their
    blend and hold in the clip they land in."""
    masks = [np.zeros(length, dtype=bool) for length in layout.lengths]
    for e in np.flatnonzero(inside):
        transition = edges["kind"][e] == 1
        clip, first = nodes[edges["to"][e]] if transition else nodes[edges["from"][e]]
        first = first - edges["frames"][e] if transition else first
        masks[clip][first:first + edges["frames"][e]] = True
    return np.array([mask.sum() for mask in masks], dtype=int)


def _needed_frames(layout):
    """Frames a clip needs to be entered and left again: margin, blend and hold in, a blend (or window) out."""
    return layout.margin + layout.blends[-1] + layout.hold + max(layout.blends[-1], layout.window - 1) + 1


def _left_out(layout, names, kept_clips, candidates, fps, tolerance=1.0):
    """``[{"clip", "name", "reason", "include"}]`` for each clip outside the graph (see the module's coverage).

    candidates: (clip_a, index_a, clip_b, index_b, ratios) of every kept
    candidate, ratios up to :data:`EXPLAIN_TOLERANCE`.
    """
    clip_a, index_a, clip_b, index_b, ratios = candidates
    needed = _needed_frames(layout)
    blend_s, hold_s, margin_s = round(layout.blends[-1] / fps, 2), round(layout.hold / fps, 2), round(layout.margin / fps, 2)
    levels = np.round(np.arange(1.0, EXPLAIN_TOLERANCE + 1e-9, 0.01), 2)[1:]
    cache = {}

    def joined(level):
        if level not in cache:
            chosen = ratios <= level
            nodes, edges = _assemble(layout, clip_a[chosen], index_a[chosen], clip_b[chosen], index_b[chosen], ratios[chosen])
            kept = _largest_component(nodes, edges)
            cache[level] = set(nodes[kept, 0].tolist())
        return cache[level]

    out_of, into = np.r_[clip_a, clip_b], np.r_[clip_b, clip_a]
    usable = (layout.blend_of(out_of, np.r_[index_a, index_b], into, np.r_[index_b, index_a]) > 0) & (np.r_[ratios, ratios] <= 1.0)
    kept_mask = np.isin(np.arange(len(names)), list(kept_clips))
    left, searched = [], 0
    for clip in (c for c in range(len(names)) if c not in kept_clips):
        entry = {"clip": clip, "name": names[clip]}
        length = int(layout.lengths[clip])
        if length < needed:
            entry["reason"] = (f"too short: {length} frames, and entering a clip and leaving it again takes {needed} "
                               f"({margin_s:g} s margin, {blend_s:g} s blend and {hold_s:g} s hold in, {blend_s:g} s blend out)")
            entry["include"] = f"a take of at least {needed} frames ({needed / fps:.1f} s)"
            left.append(entry)
            continue
        ways_in = bool((usable & (into == clip) & kept_mask[out_of]).any())
        ways_out = bool((usable & (out_of == clip) & kept_mask[into]).any())
        if not ways_in and not ways_out:
            entry["reason"] = "no transition to or from the graph's clips under its pair's threshold"
        elif not ways_in:
            entry["reason"] = "no transition into it from the graph's clips under its pair's threshold"
        elif not ways_out:
            entry["reason"] = "no transition out of it into the graph's clips under its pair's threshold"
        else:
            entry["reason"] = ("no way through it and back: no transition leaves it after one lands (a blend and hold later), "
                               "or its ways lead only through clips outside the graph")
        if searched < EXPLAINED:
            searched += 1
            low, high = 0, len(levels) - 1
            if clip in joined(levels[high]):
                while low < high:  # the smallest tolerance level whose largest component holds the clip
                    middle = (low + high) // 2
                    low, high = (low, middle) if clip in joined(levels[middle]) else (middle + 1, high)
                factor = math.ceil(levels[low] * tolerance * 100 - 1e-6) / 100
                entry["include"] = f"--tolerance {factor:.2f} (every pair's threshold {levels[low]:.2f} times this build's)"
            else:
                entry["include"] = (f"a take that bridges it to the others: even {EXPLAIN_TOLERANCE:g} times the thresholds "
                                    "does not join it both ways")
        else:
            entry["include"] = f"a higher --tolerance (not searched: only the first {EXPLAINED} clips left out are)"
        left.append(entry)
    return left


def _thresholds(sampled, sampled_a, sampled_b, count, threshold, percentile):
    """(the library's threshold, each of ``count`` clips' own ``(C,)``, the rule in words): given, or the module's rule.

    A library whose windows are identical by the ``percentile`` or more (still poses) has no transition worth finding.
    """
    if len(sampled) and np.percentile(sampled, percentile) <= 0:
        raise GraphError(f"no transitions found: {percentile:g}% of the library's window pairs or more are identical (still poses?); "
                         "a motion graph joins clips that move")
    if threshold is None:
        if not len(sampled):
            raise GraphError("the library has no two windows to compare: give the threshold")
        threshold = float(np.percentile(sampled, percentile))
        own = clip_thresholds(sampled, sampled_a, sampled_b, count, percentile, threshold)
        return threshold, own, (f"per clip pair: the larger of its clips' percentile {percentile:g} of their sampled window distances, "
                                f"at least the library's")
    if not (np.isfinite(threshold) and threshold > 0):
        raise GraphError(f"the threshold must be a positive number, got {threshold!r}")
    return float(threshold), np.full(count, float(threshold)), "given"


def _json_lists(nodes, edges, kept, inside, firsts, blend):
    """The graph's ``nodes`` and ``edges`` as JSON-ready dicts: the ``kept`` nodes renumbered, the edges ``inside`` them sorted."""
    renumber = np.cumsum(kept) - 1
    graph_nodes = [{"id": int(renumber[v]), "clip": int(nodes[v, 0]), "frame": int(nodes[v, 1]) + firsts[nodes[v, 0]]}
                   for v in np.flatnonzero(kept)]
    order = np.flatnonzero(inside)
    order = order[np.lexsort((edges["to"][order], edges["kind"][order], edges["from"][order]))]
    graph_edges = [{"from": int(renumber[edges["from"][e]]), "to": int(renumber[edges["to"][e]]),
                    "kind": "clip" if edges["kind"][e] == 0 else "transition",
                    "cost": float(edges["cost"][e]), "frames": int(edges["frames"][e]),
                    **({"blend": int(edges["blend"][e])} if edges["kind"][e] == 1 and edges["blend"][e] != blend else {})} for e in order]
    return graph_nodes, graph_edges


def _candidates(left, right, layout, separation, progress, workers, map_blocks, prune):
    """(i, j, costs) the scan keeps over the library's padded features: every block, or only the tiles where a candidate
    could be kept (``prune``: the same candidates, to float32's rounding of equal windows: see :mod:`.prune`)."""
    ceiling = float(layout.ceiling.max())
    if not prune:
        return scan.scan(left, right, layout.window, separation, ceiling, layout.keep, progress, workers=workers, map_blocks=map_blocks)
    return pruning.pruned_scan(left, right, layout.window, separation, ceiling, layout.keep, layout.limits, layout.clip_of,
                               map_blocks or functools.partial(scan.threaded_map, workers=workers),
                               scan.block_pairs(len(left), layout.window, separation), progress,
                               batch=None if map_blocks is None else pruning.CLUSTER_BATCH)


def build_graph(clips: list[Clip], names: list[str], threshold: float | None = None, window_seconds: float | None = None,
                joints: str | list | None = None, progress: Callable | None = None, blend_seconds: float = BLEND_SECONDS,
                percentile: float = THRESHOLD_PERCENTILE, workers: int = scan.WORKERS, map_blocks: Callable | None = None,
                tolerance: float = 1.0, prune: bool = True) -> MotionGraph:
    """The motion graph of a library of clips (one skeleton, one frame rate): see the module.

    names: one per clip, what the graph calls them. threshold: the largest
    windowed distance a transition may have, or None for the module's rule
    (per pair of clips, from ``percentile`` of their distances). tolerance:
    every pair's threshold times this. window_seconds: the
    stretch compared (default :data:`WINDOW_SECONDS`). joints: see
    :func:`library_features`. progress(done, total): called after each
    block of the distance map. blend_seconds: each transition's blend.
    workers: threads scanning the map. map_blocks(function, shared, pairs):
    where the map's blocks run instead (e.g. a cluster): an iterator of
    ``function(shared, pair)`` in the pairs' order, see :func:`.scan.scan`,
    each call a task of :data:`.prune.CLUSTER_BATCH` tiles; the graph does
    not depend on it. prune: scan exactly only the tiles of
    the map where a kept candidate could lie (:mod:`.prune`; the graph of
    the scan of every block, which False runs, but where windows repeat and
    float32 rounding chooses among equal ones). GraphError (one line)
    for a library that cannot make a graph.
    """
    started = time.perf_counter()
    _check_library(clips, names, tolerance)
    fps = float(clips[0].fps)
    window, separation, blend, hold, min_jump = _frame_counts(fps, window_seconds, blend_seconds)
    layout = _Layout([clip.num_frames for clip in clips], np.zeros(len(clips), dtype=int), window, blend, hold, min_jump, fps)
    needed = _needed_frames(layout)
    if all(clip.num_frames < needed for clip in clips):
        raise GraphError(f"every clip is shorter than entering and leaving it takes ({needed} frames, {needed / fps:.2f} s)")
    library, joint_names = library_features(clips, joints)
    left, right, starts = scan.padded_features(library, window - 1 + separation)
    layout = _Layout([len(f) for f in library], starts, window, blend, hold, min_jump, fps)

    sampled, sampled_a, sampled_b = distance_statistics(left, right, layout, with_clips=True)
    threshold, own, rule = _thresholds(sampled, sampled_a, sampled_b, len(clips), threshold, percentile)
    if tolerance != 1.0:
        rule += f", times {tolerance:g}"
    pair = np.maximum(own[:, None], own[None, :]) * tolerance  # (C, C) each pair's threshold
    layout.ceiling = (pair * EXPLAIN_TOLERANCE).astype(np.float32)
    i, j, costs = _candidates(left, right, layout, separation, progress, workers, map_blocks, prune)
    (clip_a, index_a), (clip_b, index_b) = layout.locate(i), layout.locate(j)
    ratios = np.maximum(costs.astype(float), 0.0) / pair[clip_a, clip_b]
    under = ratios <= 1.0
    nodes, edges = _assemble(layout, clip_a[under], index_a[under], clip_b[under], index_b[under], ratios[under])

    kept = _largest_component(nodes, edges)
    inside = kept[edges["from"]] & kept[edges["to"]] if len(nodes) else np.zeros(0, dtype=bool)
    firsts = [int(clip.frames[0]) for clip in clips]
    valid_windows = sum(max(n - window + 1, 0) for n in layout.lengths)
    kept_clips = sorted(set(nodes[kept, 0].tolist())) if len(nodes) else []
    played = _frames_played(layout, nodes, edges, inside)
    left_out = _left_out(layout, list(names), set(kept_clips), (clip_a, index_a, clip_b, index_b, ratios), fps, tolerance)
    stats = _statistics(sampled, threshold, rule)
    stats.update({
        "clip_thresholds": [round(float(value) * tolerance, 6) for value in own],
        "tolerance": float(tolerance),
        "pairs_compared": int(valid_windows * (valid_windows - 1) // 2),
        "candidates": int(under.sum()),
        "transitions_before_pruning": int((edges["kind"] == 1).sum()),
        "transitions_after_pruning": int((inside & (edges["kind"] == 1)).sum()),
        "nodes_before_pruning": int(len(nodes)),
        "nodes_after_pruning": int(kept.sum()),
        "frames_in_graph": int(edges["frames"][inside & (edges["kind"] == 0)].sum()),
        "library_frames": int(layout.lengths.sum()),
        "coverage": {"clips_kept": len(kept_clips), "clips": len(clips), "frames_kept": int(played.sum()), "frames": int(layout.lengths.sum())},
        "left_out": left_out,
        "seconds": time.perf_counter() - started,
    })
    if not (inside & (edges["kind"] == 1)).any():
        raise GraphError(f"no transitions found both ways under the threshold {threshold:.3g} ({rule}): give a higher --tolerance")
    graph_nodes, graph_edges = _json_lists(nodes, edges, kept, inside, firsts, blend)
    settings = {"fps": fps, "window_frames": window, "separation_frames": separation, "blend_frames": blend, "hold_frames": hold,
                "min_jump_frames": min_jump, "joints": joint_names}
    return MotionGraph(
        clips=[{"name": name, "frames": clip.num_frames, "fps": fps, "first_frame": first, "bones": list(clip.bone_names)}
               for clip, name, first in zip(clips, names, firsts)],
        nodes=graph_nodes, edges=graph_edges, stats=stats, settings=settings)
