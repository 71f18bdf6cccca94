"""Synthesis from a motion graph: paths through it, rendered into one continuous clip.

A path is a list of the graph's edges (dicts as in ``graph.edges``, each
with its index as ``"index"``), followed one after the other: each starts at
the node where the previous one ended. Its last edge may be cut short
(``"frames"`` fewer than the graph's, ``"cut": True``; a transition keeps
its blend). Rendered, a path
lasts ``sum(edge["frames"]) / fps`` seconds: a clip edge plays its frames,
a transition its blend and the hold after it (see :mod:`.build`), whatever
blend length the transition engine then chooses up to the graph's.
"""

import dataclasses
import heapq
import math

import numpy as np

from ..compose.sequence import compose, Composition, Junction, MIN_PIECE_SECONDS, Piece, Segment
from ..errors import CompositionError, GraphError
from ..motion.clip import Clip
from ..transition.make import criteria_ratios
from .build import MotionGraph, same_rate, strongly_connected

MIN_DWELL_SECONDS = 1.0  # path_via plays at least this much of each target clip it reaches
COST_SECONDS = 1.0  # path_via weighs a transition as this many seconds per unit of cost (its distance over its threshold)
ATTEMPTS = 16  # walks synthesize draws at most, each without the transitions the ones before showed too visible (a path through
# the 13 shared Bandai clips, walk run walk in 20 s, takes 14: routes from a run into a walk pass clips whose blends show)


def out_edges(graph: MotionGraph) -> list[list[int]]:
    """Each node's outgoing edge indices, in edge order."""
    out = [[] for _ in graph.nodes]
    for index, edge in enumerate(graph.edges):
        out[edge["from"]].append(index)
    return out


def _step(graph, index, frames=None):
    edge = dict(graph.edges[index], index=index)
    if frames is not None and frames < edge["frames"]:
        edge.update(frames=int(frames), cut=True)
    return edge


def _frames_for(graph, seconds, what):
    if not (isinstance(seconds, (int, float)) and np.isfinite(seconds) and seconds > 0):
        raise GraphError(f"the {what} must be a positive number of seconds, got {seconds!r}")
    return int(round(seconds * graph.settings["fps"]))


def clip_edge(graph, out, node):
    """The index of the clip edge out of ``node``, or None at a clip's last node."""
    return next((index for index in out[node] if graph.edges[index]["kind"] == "clip"), None)


def _walk_on(graph, out, node, choice, remaining, following):
    """Edges from ``node`` (leaving by edge ``choice``), each next one ``following(node)``, lasting ``remaining`` frames (see
    :func:`random_walk`)."""
    path = []
    while remaining > 0:
        edge = graph.edges[choice]
        if edge["kind"] == "transition" and edge["frames"] > remaining and clip_edge(graph, out, node) is not None:
            choice = clip_edge(graph, out, node)  # the transition would play past the end: play on in this clip instead
            continue
        if edge["kind"] == "transition" and edge["frames"] > remaining:
            # At a clip's last node near the end: a transition cut after its blend, or none, whichever ends nearer the time asked.
            blend = edge.get("blend", graph.settings["blend_frames"])
            if 2 * remaining >= blend:
                path.append(_step(graph, choice, max(remaining, blend)))
            break
        path.append(_step(graph, choice, remaining))
        remaining -= path[-1]["frames"]
        node = edge["to"]
        if not out[node]:
            raise GraphError(f"node {node} of the motion graph has no edge out of it (the graph is not strongly connected): build it again")
        choice = following(node)
    return path


def random_walk(graph: MotionGraph, seconds: float, seed: int) -> list[dict]:
    """A random path lasting ``seconds`` (within half the graph's blend): the same seed, the same path.

    It starts on a clip edge from a node drawn at random, then at each node
    takes one of its edges at random, until the next one would play past
    ``seconds``: a clip edge is then cut to end on time; rather than a
    transition the clip plays on, but at a clip's last node, where only
    transitions leave, the walk takes one cut after its blend (or its
    hold's first frames) or stops, whichever ends nearer the time asked:
    within half a blend of it.
    """
    total = _frames_for(graph, seconds, "duration")
    out = out_edges(graph)
    starts = [node for node in range(len(graph.nodes)) if clip_edge(graph, out, node) is not None]
    if not starts:
        raise GraphError("the motion graph has no clip edges to walk")
    rng = np.random.default_rng(seed)
    node = starts[int(rng.integers(len(starts)))]
    return _walk_on(graph, out, node, clip_edge(graph, out, node), total, lambda at: out[at][int(rng.integers(len(out[at])))])


def _targets(graph, target):
    """Clip indices (in the graph) a target names: the clip called exactly that, else every clip whose name holds it."""
    present = sorted({node["clip"] for node in graph.nodes})
    exact = [c for c in present if graph.clips[c]["name"] == target]
    if exact:
        return set(exact)
    found = {c for c in present if str(target).lower() in graph.clips[c]["name"].lower()}
    if not found:
        names = ", ".join(graph.clips[c]["name"] for c in present)
        raise GraphError(f"no clip in the motion graph is called or contains '{target}' (it holds {names})")
    return found


def _shortest(graph, out, source, goal_clips):
    """Edge indices of the quickest path of one edge or more from ``source`` to a node of a clip of ``goal_clips`` (Dijkstra on
    seconds played, a transition's cost counting as one second more; ties: fewer frames, then lower ids)."""
    fps = graph.settings["fps"]
    best, back = {source: (0.0, 0)}, {}
    heap = [(0.0, 0, source)]
    while heap:
        weight, frames, node = heapq.heappop(heap)
        if (weight, frames) > best[node]:
            continue
        if node != source and graph.nodes[node]["clip"] in goal_clips:
            path = []
            while node != source:
                path.append(back[node])
                node = graph.edges[back[node]]["from"]
            return path[::-1]
        for index in out[node]:
            edge = graph.edges[index]
            key = (weight + COST_SECONDS * edge["cost"] + edge["frames"] / fps, frames + edge["frames"])
            if edge["to"] not in best or key < best[edge["to"]]:
                best[edge["to"]], back[edge["to"]] = key, index
                heapq.heappush(heap, (*key, edge["to"]))
    return None


def _visit(graph, out, start, targets, goals, dwell, total=None):
    """The path from node ``start`` through the ``goals`` (clip index sets) in order, ``dwell`` frames of clip edges in each;
    with ``total``, the last plays until the path lasts that long (or its clip ends)."""
    node, path = start, []
    for k, goal in enumerate(goals):
        if k and graph.nodes[node]["clip"] not in goal:
            route = _shortest(graph, out, node, goal)
            if route is None:
                raise GraphError(f"'{targets[k]}' cannot be reached from '{targets[k - 1]}' in the motion graph")
            path += [_step(graph, index) for index in route]
            node = graph.edges[route[-1]]["to"]
        last, dwelt = k == len(goals) - 1, 0
        if last and total is not None:
            dwell = max(total - sum(edge["frames"] for edge in path), 0)
        while dwelt < dwell:
            index = clip_edge(graph, out, node)
            if index is None:
                break
            edge = _step(graph, index, dwell - dwelt if last else None)
            path.append(edge)
            dwelt += edge["frames"]
            node = edge["to"]
    return path


def _quickest_visit(graph, out, targets, goals, dwell):
    """:func:`_visit` from the first node of the first target's clip that makes the path shortest (ties: the lower clip)."""
    starts = {}
    for n, entry in enumerate(graph.nodes):
        if entry["clip"] in goals[0] and entry["clip"] not in starts and clip_edge(graph, out, n) is not None:
            starts[entry["clip"]] = n
    if not starts:
        raise GraphError(f"no clip matching '{targets[0]}' can be played in the motion graph")
    paths = [_visit(graph, out, starts[clip], targets, goals, dwell) for clip in sorted(starts)]
    return min(paths, key=lambda path: sum(edge["frames"] for edge in path))


def _longest_stay(graph, path):
    """(clip name, frames) of the clip the path plays longest (a transition's frames count in the clip it lands in)."""
    played = {}
    for edge in path:
        clip = graph.nodes[edge["to"] if edge["kind"] == "transition" else edge["from"]]["clip"]
        played[clip] = played.get(clip, 0) + edge["frames"]
    clip = max(played, key=played.get)
    return graph.clips[clip]["name"], played[clip]


def path_via(graph: MotionGraph, targets: list[str], seconds: float | None = None) -> list[dict]:
    """A path that plays the target clips in order, reaching each by the quickest path (see :func:`_shortest`).

    targets: clip names, or parts of names ("walk", "run", "bow": every clip
    whose name holds it counts). It starts in whichever clip of the first
    target makes the path shortest, and plays each target for at least
    :data:`MIN_DWELL_SECONDS` along its clip edges (a target clip ends sooner
    only at its last node). With ``seconds`` each target plays an equal
    share of it where the path then fits, the path lasts ``seconds`` as
    :func:`random_walk`'s do (the last target cut, or played on: where its
    clip ends, the quickest way into one of its clips again), and where an
    equal share does not fit the targets play :data:`MIN_DWELL_SECONDS`
    each (the last the rest). No choice is random.
    GraphError for a target no clip matches or cannot reach, or targets
    that take longer than ``seconds`` to visit: it names the seconds that
    are enough (the path without ``seconds`` lasts that long) and the clip
    the path plays longest.
    """
    if isinstance(targets, str) or not targets or not all(isinstance(t, str) and t.strip() for t in targets):
        raise GraphError(f"targets must be a list of clip names or parts of names, got {targets!r}")
    fps, slack = graph.settings["fps"], graph.settings["blend_frames"] // 2
    shortest_dwell = int(round(MIN_DWELL_SECONDS * fps))
    goals = [_targets(graph, target) for target in targets]
    out = out_edges(graph)
    quickest = _quickest_visit(graph, out, targets, goals, shortest_dwell)
    if seconds is None:
        return quickest
    total = _frames_for(graph, seconds, "duration")
    start = quickest[0]["from"]
    path = _visit(graph, out, start, targets, goals, max(shortest_dwell, total // len(targets)), total)
    if sum(edge["frames"] for edge in path) > total + slack:
        path = _visit(graph, out, start, targets, goals, shortest_dwell, total)
    played = sum(edge["frames"] for edge in path)
    if played > total + slack:
        needed = sum(edge["frames"] for edge in quickest)
        name, longest = _longest_stay(graph, quickest)
        raise GraphError(f"visiting {', '.join(targets)} takes at least {math.ceil(needed / fps * 10) / 10:.1f} s, more than the "
                         f"{seconds:g} s asked (the longest stretch: {longest / fps:.1f} s in '{name}')")
    if total > played:
        node = path[-1]["to"] if path else start
        within = _within(graph, out, goals[-1])
        path += _walk_on(graph, out, node, within(node), total - played, within)
    return path


def _within(graph, out, goal):
    """The edge to take at a node to stay in the ``goal`` clips: on along its clip, or the quickest way into one of them."""
    def following(node):
        index = clip_edge(graph, out, node)
        if index is not None and graph.nodes[node]["clip"] in goal:
            return index
        route = _shortest(graph, out, node, goal)
        return out[node][0] if route is None else route[0]
    return following


def _stays(graph, path):
    """The path as stays in one clip: [clip index, entry frame, exit frame] and the junctions (frame out, frame in) between them.

    A transition's blend and hold play the other clip from its frame in (see :mod:`.build`).
    """
    if not path:
        raise GraphError("the path is empty: nothing to render")
    first = graph.nodes[path[0]["from"]]
    stays, junctions = [[first["clip"], first["frame"], first["frame"]]], []
    for k, edge in enumerate(path):
        source, target = graph.nodes[edge["from"]], graph.nodes[edge["to"]]
        if source["clip"] != stays[-1][0] or source["frame"] != stays[-1][2]:
            raise GraphError(f"edge {k} of the path starts at node {edge['from']}, not where the previous edge ended")
        if edge["kind"] == "clip":
            stays[-1][2] = source["frame"] + edge["frames"]
        else:
            entry = target["frame"] - graph.edges[edge["index"]]["frames"]  # the frame of the other clip the blend starts from
            junctions.append((source["frame"], entry))
            stays.append([target["clip"], entry, entry + edge["frames"]])
    return stays, junctions


def check_clips(graph: MotionGraph, clips: list[Clip]) -> None:
    """GraphError naming the first of ``clips`` (the graph's, in its order) that is not the clip the graph was built on:
    other frames, another frame rate, other bones (where the graph records them) or none of the joints it compared."""
    if len(clips) != len(graph.clips):
        raise GraphError(f"the motion graph has {len(graph.clips)} clips, {len(clips)} given")
    joints = set(graph.settings.get("joints", ()))
    for clip, entry in zip(clips, graph.clips):
        name, bones = entry["name"], set(clip.bone_names)
        if clip.num_frames != entry["frames"] or int(clip.frames[0]) != entry["first_frame"]:
            raise GraphError(f"clip '{name}' has frames {clip.frames[0]:g}-{clip.frames[-1]:g}, the graph was built on "
                             f"{entry['first_frame']}-{entry['first_frame'] + entry['frames'] - 1}: build the graph again")
        if not same_rate(clip.fps, entry["fps"]):
            raise GraphError(f"clip '{name}' plays at {clip.fps:.4g} fps, the graph says {entry['fps']:.4g}: build the graph again")
        recorded = set(entry.get("bones", bones))
        if recorded != bones or not joints <= bones:
            differ = sorted((recorded ^ bones) | (joints - bones))
            raise GraphError(f"clip '{name}' has other bones than the graph records ({', '.join(differ[:4])}"
                             f"{' ...' if len(differ) > 4 else ''} differ): build the graph again")


def render(graph: MotionGraph, clips: list[Clip], path: list[dict], method: str = "AUTO", length: float | None = None) -> Composition:
    """The path played as one continuous clip: a :class:`..compose.sequence.Composition`.

    clips: the graph's clips, in its order. Each stay in a clip is a piece,
    each transition a junction at its frames. method: the transitions' method (see
    :func:`..transition.make.make_transition`). length: seconds, at most the
    graph's blend (a transition whose edge gives a shorter ``"blend"``, in
    frames, at most that); None: chosen by the engine up to the graph's.
    """
    check_clips(graph, clips)
    fps, blend = graph.settings["fps"], graph.settings["blend_frames"]
    if length is not None and length * fps > blend + 1e-6:
        raise GraphError(f"a blend of {length:g} s is longer than the graph's transitions allow ({blend / fps:g} s)")
    stays, points = _stays(graph, path)
    names = [graph.clips[clip]["name"] for clip, *_ in stays]
    if not points:
        clip_index, entry, exit_ = stays[0]
        source = clips[clip_index]
        first = int(source.frames[0])
        played = source.slice_frames(entry - first, exit_ - first + 1)
        return Composition(clip=played, segments=[Segment(0, names[0], entry, exit_, 0, played.num_frames - 1)], transitions=[],
                           numbers={"duration_s": float(played.duration)}, notes=(), loop=False)
    # Pieces keep their whole clip around the stay: context for the blends and the yardstick their metrics are measured against;
    # only the first piece's start and the last one's end are played as kept.
    last_stay = len(stays) - 1
    stays = _long_enough(stays, clips)
    pieces = [Piece(clips[clip_index], entry if k == 0 else None, exit_ if k == last_stay else None, names[k])
              for k, (clip_index, entry, exit_) in enumerate(stays)]
    # A transition with a shorter blend than the graph's (near a clip's end, see .build) blends at most that long when the length
    # is given; chosen, the engine tries its lengths where the clips hold them (a longer blend only overlaps the hold after it).
    blends = [edge.get("blend", blend) for edge in path if edge["kind"] == "transition"]
    junctions = [Junction(at=point, method=method, length=None if length is None else min(length, own / fps))
                 for point, own in zip(points, blends)]
    return compose(pieces, junctions)


def _long_enough(stays, clips):
    """The stays with the first one starting early enough and the last one ending late enough, within their clips, that each
    keeps the :data:`..compose.sequence.MIN_PIECE_SECONDS` a piece needs (a walk may open just before a transition, or end
    just after one)."""
    stays = [list(stay) for stay in stays]
    for k, move_start in ((0, True), (len(stays) - 1, False)):
        clip_index, entry, exit_ = stays[k]
        clip = clips[clip_index]
        needed = int(np.ceil(MIN_PIECE_SECONDS * clip.fps)) + 1
        first, last = int(clip.frames[0]), int(clip.frames[-1])
        # The first piece keeps its clip from its entry on, the last one up to its exit (the others are cut by their junctions).
        if move_start:
            stays[k][1] = max(first, min(entry, last - needed + 1))
        else:
            stays[k][2] = min(last, max(exit_, first + needed - 1))
    return stays


def render_checked(graph: MotionGraph, clips: list[Clip], path: list[dict], shows, method: str = "AUTO",
                   length: float | None = None) -> tuple[Composition | None, set[int]]:
    """(the path rendered, or None, and the indices of its transitions to take out of the graph): those whose metrics
    ``shows(metrics)`` finds visible, or the one that comes too soon after the one before to blend without overlapping it
    (the rendering fails there: None)."""
    used = [edge["index"] for edge in path if edge["kind"] == "transition"]
    try:
        composed = render(graph, clips, path, method, length)
    except CompositionError as error:
        if error.junction is None:
            raise
        return None, {used[error.junction]}
    return composed, {index for index, made in zip(used, composed.transitions) if shows(made.metrics)}


def without_edges(graph: MotionGraph, dropped: set[int]) -> MotionGraph:
    """The graph without the edges whose indices are in ``dropped``, pruned again to its largest strongly connected part."""
    edges = [edge for index, edge in enumerate(graph.edges) if index not in dropped]
    sources = np.array([edge["from"] for edge in edges], dtype=int)
    targets = np.array([edge["to"] for edge in edges], dtype=int)
    label = strongly_connected(len(graph.nodes), sources, targets)
    kept = label == int(np.argmax(np.bincount(label)))
    renumber = np.cumsum(kept) - 1
    nodes = [dict(node, id=int(renumber[index])) for index, node in enumerate(graph.nodes) if kept[index]]
    edges = [dict(edge, **{"from": int(renumber[edge["from"]]), "to": int(renumber[edge["to"]])})
             for edge in edges if kept[edge["from"]] and kept[edge["to"]]]
    return MotionGraph(graph.clips, nodes, edges, graph.stats, graph.settings)


def synthesize(graph: MotionGraph, clips: list[Clip], seconds: float, seed: int = 0, via: tuple | list = (), method: str = "AUTO",
               length: float | None = None, attempts: int = ATTEMPTS) -> Composition:
    """``seconds`` of new motion from the graph: a random walk (``seed``), or a path through the clips ``via`` names (no seed:
    see :func:`path_via`), rendered.

    The graph's costs are pose distances; how a transition looks is known
    once rendered. A transition that fails the transition engine's criteria
    (:func:`..transition.make.criteria_ratios`: visibility 1.2, root speed
    jump and heading rate within the clips' own, toe skating 1.5x, the body
    on their floor), or that comes too soon after the one before to blend
    without overlapping it, is taken
    out of the graph and the walk drawn again with the same seed, up to
    ``attempts`` walks; the composition's notes say how many were left out.
    Returns the :class:`..compose.sequence.Composition`; GraphError
    when every attempt keeps one.
    """
    dropped = 0
    for _ in range(attempts):
        path = path_via(graph, list(via), seconds) if via else random_walk(graph, seconds, seed)
        composed, visible = render_checked(graph, clips, path, lambda metrics: criteria_ratios(metrics).max() > 1.0, method, length)
        if composed is not None and not visible:
            note = ((f"{dropped} transitions of the graph showed, or came too soon after the one before, when rendered: walked without "
                     "them"),) if dropped else ()
            return dataclasses.replace(composed, notes=composed.notes + note)
        graph, dropped = without_edges(graph, visible), dropped + len(visible)
    raise GraphError(f"{attempts} walks each kept a transition that shows; build the graph with a lower --threshold")
