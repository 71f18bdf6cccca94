"""Motion graphs (Kovar, Gleicher and Pighin 2002): where a library of clips can jump from one clip into another.

Frames: ``node["frame"]`` is a clip's own frame number (``clip.frames``);
inside this module, 0-based indices. Times are seconds, distances the
squared feature distances of :mod:`..transition.features` summed over a
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

Threshold rule (``threshold=None``): the :data:`THRESHOLD_PERCENTILE`
percentile of the windowed distances between random window pairs of the
library (pairs from different clips, or from one clip at least
:data:`MIN_JUMP_SECONDS` apart; :data:`SAMPLE_WINDOWS` windows, every pair
of them). Transitions cost their distance over the threshold (0 to 1);
clip edges cost nothing.
"""

import time
from dataclasses import dataclass, field

import numpy as np

from .. import kinematics, quat, root as root_motion
from ..errors import GraphError
from ..transition import features as pose_features, make, points
from . import scan

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


@dataclass
class MotionGraph:
    """A motion graph, JSON-ready (plain lists and dicts, see :mod:`.json_io`).

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


def _check_library(clips, names):
    if not clips:
        raise GraphError("a motion graph needs at least one clip")
    if len(names) != len(clips):
        raise GraphError(f"{len(clips)} clips but {len(names)} names")
    first = clips[0]
    for clip, name in zip(clips, names):
        if abs(clip.fps - first.fps) > 1e-4 * first.fps:
            raise GraphError(f"{name}: plays at {clip.fps:.4g} fps, {names[0]} at {first.fps:.4g}: resample it to match first")
        if set(clip.bone_names) != set(first.bone_names):
            raise GraphError(f"{name}: its bones differ from {names[0]}'s (a motion graph needs one skeleton)")


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


def library_features(clips, joints=None):
    """Pose features ``[(F_c, 6 J)]`` float32 of every clip, comparable with each other, and the joint names used.

    As :func:`..transition.features.stack_features`: character-space joint
    positions, then velocities times :data:`..transition.features.VELOCITY_TIME`,
    each joint scaled by the square root of its weight (the first clip's
    bone lengths), every clip's heading measured about one axis of its
    root; but velocities keep the travel (see :func:`_travelling_velocities`).
    joints: see :func:`..transition.features.joint_indices` (chosen on the first clip).
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


class _Layout:
    """Where each clip's frames sit in the padded features, and the rules a candidate pair must pass."""

    def __init__(self, lengths, starts, window, blend, hold, min_jump, fps):
        self.lengths, self.starts = np.asarray(lengths), np.asarray(starts)
        self.margin = int(round(MARGIN_SECONDS * fps))
        self.window, self.blend, self.hold, self.min_jump = window, blend, hold, min_jump
        seconds = (self.lengths - 1) / fps
        shorter = np.minimum(seconds[:, None], seconds[None, :])
        self.per_pair = np.maximum(MIN_PER_PAIR, np.ceil(shorter / SPACING_SECONDS)).astype(int)

    def locate(self, rows):
        """(clip ``(P,)``, index ``(P,)``) of padded rows; clip -1 for padding."""
        clip = np.searchsorted(self.starts, rows, side="right") - 1
        index = rows - self.starts[np.maximum(clip, 0)]
        inside = (clip >= 0) & (index < self.lengths[np.maximum(clip, 0)])
        return np.where(inside, clip, -1), index

    def leaves(self, clip, index):
        """Whether a transition can leave ``clip`` at ``index``: frames before it (a take's start is often uneven), its blend within the clip."""
        length = self.lengths[np.maximum(clip, 0)]
        return (clip >= 0) & (index >= self.margin) & (index + max(self.blend, self.window - 1) <= length - 1)

    def enters(self, clip, index):
        """Whether a transition can enter ``clip`` at ``index``: frames before it, its blend and hold within the clip."""
        length = self.lengths[np.maximum(clip, 0)]
        return (clip >= 0) & (index >= self.margin) & (index + max(self.blend + self.hold, self.window - 1) <= length - 1)

    def keep(self, i, j, costs):
        """The candidates worth keeping: i < j, usable one way at least, far enough apart in one clip, the best per clip pair."""
        upper = i < j
        i, j, costs = i[upper], j[upper], costs[upper]
        (clip_a, index_a), (clip_b, index_b) = self.locate(i), self.locate(j)
        fine = (self.leaves(clip_a, index_a) & self.enters(clip_b, index_b)) | (self.leaves(clip_b, index_b) & self.enters(clip_a, index_a))
        fine &= (clip_a != clip_b) | (np.abs(index_a - index_b) >= self.min_jump)
        i, j, costs, clip_a, clip_b = i[fine], j[fine], costs[fine], clip_a[fine], clip_b[fine]
        order = np.lexsort((j, i, costs, clip_b, clip_a))  # by pair, then cost (ties by position: reproducible)
        pair = clip_a[order] * len(self.lengths) + clip_b[order]
        first = np.r_[0, np.flatnonzero(np.diff(pair)) + 1]
        rank = np.arange(len(order)) - np.repeat(first, np.diff(np.r_[first, len(order)]))
        chosen = order[rank < self.per_pair[clip_a[order], clip_b[order]]]
        return i[chosen], j[chosen], costs[chosen]


def distance_statistics(left, right, layout, sample=SAMPLE_WINDOWS, seed=0):
    """Windowed distances between random window pairs ``(P,)`` float64 (see the module's threshold rule).

    Windows are drawn uniformly from those wholly inside a clip (a fixed
    seed: the same library gives the same statistics); each pair's distance
    sums ``window`` products of shifted rows of the padded operands.
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
    return np.maximum(total[upper & apart], 0.0).astype(float)


def _statistics(values, threshold, rule):
    edges = np.linspace(0.0, np.percentile(values, 99), HISTOGRAM_BINS + 1) if len(values) else np.zeros(HISTOGRAM_BINS + 1)
    counts, _ = np.histogram(np.minimum(values, edges[-1]), bins=edges)  # the top bin also counts the last percent
    return {
        "threshold": float(threshold), "rule": rule, "sampled_pairs": int(len(values)),
        "percentiles": {str(p): float(np.percentile(values, p)) if len(values) else 0.0 for p in PERCENTILES},
        "histogram": {"edges": [float(e) for e in edges], "counts": [int(c) for c in counts]},
    }


def strongly_connected(count, sources, targets):
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


def _assemble(layout, clip_a, index_a, clip_b, index_b, costs, threshold):
    """Nodes ``(V, 2)`` (clip, index) and edges (from, to, kind 0 clip / 1 transition, cost, frames) arrays, before pruning."""
    played = layout.blend + layout.hold
    # Each candidate both ways it can be used: out of one window's clip at its frame, into the other's, landing after the blend and hold.
    out_clip, out_index = np.r_[clip_a, clip_b], np.r_[index_a, index_b]
    in_clip, in_index = np.r_[clip_b, clip_a], np.r_[index_b, index_a]
    usable = layout.leaves(out_clip, out_index) & layout.enters(in_clip, in_index)
    out_clip, out_index, in_clip, in_index = out_clip[usable], out_index[usable], in_clip[usable], in_index[usable] + played
    cost = np.r_[costs, costs][usable].astype(float) / threshold
    keys = np.unique(np.r_[out_clip * (1 << 32) + out_index, in_clip * (1 << 32) + in_index])  # sorted by clip, then frame
    nodes = np.stack([keys >> 32, keys & ((1 << 32) - 1)], axis=1)
    sources = np.searchsorted(keys, out_clip * (1 << 32) + out_index)
    targets = np.searchsorted(keys, in_clip * (1 << 32) + in_index)
    same_clip = np.flatnonzero(nodes[1:, 0] == nodes[:-1, 0])
    edges = {
        "from": np.r_[same_clip, sources], "to": np.r_[same_clip + 1, targets],
        "kind": np.r_[np.zeros(len(same_clip), dtype=int), np.ones(len(sources), dtype=int)],
        "cost": np.r_[np.zeros(len(same_clip)), cost],
        "frames": np.r_[nodes[same_clip + 1, 1] - nodes[same_clip, 1], np.full(len(sources), played)],
    }
    return nodes, edges


def build_graph(clips, names, threshold=None, window_seconds=None, joints=None, progress=None,
                blend_seconds=BLEND_SECONDS, percentile=THRESHOLD_PERCENTILE, workers=scan.WORKERS, map_blocks=None):
    """The motion graph of a library of clips (one skeleton, one frame rate): see the module.

    names: one per clip, what the graph calls them. threshold: the largest
    windowed distance a transition may have, or None for the module's rule
    (``percentile`` of the library's distances). window_seconds: the
    stretch compared (default :data:`WINDOW_SECONDS`). joints: see
    :func:`library_features`. progress(done, total): called after each
    block of the distance map. blend_seconds: each transition's blend.
    workers: threads scanning the map. map_blocks(function, shared, pairs):
    where the map's blocks run instead (e.g. a cluster): an iterator of
    ``function(shared, pair)`` in the pairs' order, see :func:`.scan.scan`;
    the graph does not depend on it. GraphError (one line) for a library
    that cannot make a graph.
    """
    started = time.perf_counter()
    _check_library(clips, names)
    fps = float(clips[0].fps)
    window = max(1, int(round((WINDOW_SECONDS if window_seconds is None else window_seconds) * fps)))
    separation = max(1, int(round(SEPARATION_SECONDS * fps)))
    blend = max(3, int(round(blend_seconds * fps)))
    hold = int(round(HOLD_SECONDS * fps))
    min_jump = int(round(MIN_JUMP_SECONDS * fps))
    needed = int(round(MARGIN_SECONDS * fps)) + max(blend + hold, window - 1) + 1
    if all(clip.num_frames < needed for clip in clips):
        raise GraphError(f"every clip is shorter than a transition needs ({needed} frames, {needed / fps:.2f} s)")
    library, joint_names = library_features(clips, joints)
    left, right, starts = scan.padded_features(library, window - 1 + separation)
    layout = _Layout([len(f) for f in library], starts, window, blend, hold, min_jump, fps)

    sampled = distance_statistics(left, right, layout)
    if threshold is None:
        if not len(sampled):
            raise GraphError("the library has no two windows to compare: give the threshold")
        threshold, rule = float(np.percentile(sampled, percentile)), f"percentile {percentile:g} of sampled window distances"
    elif not (np.isfinite(threshold) and threshold > 0):
        raise GraphError(f"the threshold must be a positive number, got {threshold!r}")
    else:
        rule = "given"
    i, j, costs = scan.scan(left, right, window, separation, threshold, layout.keep, progress, workers=workers, map_blocks=map_blocks)
    (clip_a, index_a), (clip_b, index_b) = layout.locate(i), layout.locate(j)
    nodes, edges = _assemble(layout, clip_a, index_a, clip_b, index_b, costs, threshold)

    label = strongly_connected(len(nodes), edges["from"], edges["to"])
    sizes = np.bincount(label) if len(label) else np.zeros(1, dtype=int)
    kept = label == int(np.argmax(sizes)) if len(label) else np.zeros(0, dtype=bool)
    renumber = np.cumsum(kept) - 1
    inside = kept[edges["from"]] & kept[edges["to"]] if len(label) else np.zeros(0, dtype=bool)
    firsts = [int(clip.frames[0]) for clip in clips]
    valid_windows = sum(max(n - window + 1, 0) for n in layout.lengths)
    stats = _statistics(sampled, threshold, rule)
    stats.update({
        "pairs_compared": int(valid_windows * (valid_windows - 1) // 2),
        "candidates": int(len(costs)),
        "transitions_before_pruning": int((edges["kind"] == 1).sum()),
        "transitions_after_pruning": int((inside & (edges["kind"] == 1)).sum()),
        "nodes_before_pruning": int(len(nodes)),
        "nodes_after_pruning": int(kept.sum()),
        "frames_in_graph": int(edges["frames"][inside & (edges["kind"] == 0)].sum()),
        "library_frames": int(layout.lengths.sum()),
        "seconds": time.perf_counter() - started,
    })
    if not kept.any():
        raise GraphError(f"no transition between the clips is under the threshold {threshold:.3g} ({rule}): give a higher --threshold")
    graph_nodes = [{"id": int(renumber[v]), "clip": int(nodes[v, 0]), "frame": int(nodes[v, 1]) + firsts[nodes[v, 0]]}
                   for v in np.flatnonzero(kept)]
    order = np.flatnonzero(inside)
    order = order[np.lexsort((edges["to"][order], edges["kind"][order], edges["from"][order]))]
    graph_edges = [{"from": int(renumber[edges["from"][e]]), "to": int(renumber[edges["to"][e]]),
                    "kind": "clip" if edges["kind"][e] == 0 else "transition",
                    "cost": float(edges["cost"][e]), "frames": int(edges["frames"][e])} for e in order]
    settings = {"fps": fps, "window_frames": window, "separation_frames": separation, "blend_frames": blend, "hold_frames": hold,
                "min_jump_frames": min_jump, "joints": joint_names}
    return MotionGraph(
        clips=[{"name": name, "frames": clip.num_frames, "fps": fps, "first_frame": first} for clip, name, first in zip(clips, names, firsts)],
        nodes=graph_nodes, edges=graph_edges, stats=stats, settings=settings)
