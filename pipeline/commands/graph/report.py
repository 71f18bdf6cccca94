"""graph's report: the entry of one motion graph, its row in the summaries and its section of the page (the clips as
lanes to scale with the transitions between them, the distance statistics, the clips left out and why)."""

import html

from ....core.measure import verdict as verdicts
from ... import entries
from ...contract import Row
from ...html import charts, parts

#: Transition arcs the report draws at most (the cheapest); the graph file has them all.
GRAPH_ARCS = 400


def graph_entry(paths, graph_path, graph, seconds):
    """The report of one motion graph over the files ``paths``, written to ``graph_path``: its size, its distance statistics
    and what the page draws (each clip a lane, the cheapest transitions as arcs)."""
    nodes = {node["id"]: node for node in graph.nodes}
    transitions = sorted((edge for edge in graph.edges if edge["kind"] == "transition"), key=lambda edge: edge["cost"])
    kept = {node["clip"] for node in graph.nodes}
    left_out = graph.stats.get("left_out") or [{"clip": index, "name": clip["name"], "reason": "no transition both ways", "include": "-"}
                                                for index, clip in enumerate(graph.clips) if index not in kept]
    coverage = graph.stats.get("coverage") or {"clips_kept": len(kept), "clips": len(graph.clips),
                                               "frames_kept": graph.stats.get("frames_in_graph", 0),
                                               "frames": sum(int(clip["frames"]) for clip in graph.clips)}
    entry = {
        "file": str(paths[0]), "clips": [str(path) for path in paths], "armature": "", "status": "ok", "outputs": [str(graph_path)],
        "seconds": round(seconds, 3),
        "graph": {
            "nodes": len(graph.nodes), "edges": len(graph.edges), "transitions": len(transitions),
            "clips_kept": len(kept), "stats": entries.significant(graph.stats),
            "clips_left_out": [entry["name"] for entry in left_out],
            "left_out": [{"name": entry["name"], "reason": entry["reason"], "include": entry["include"]} for entry in left_out],
            "coverage": dict(coverage),
            "lanes": [{"name": clip["name"], "frames": int(clip["frames"]), "fps": entries.frame_rate(clip.get("fps", 30.0))} for clip in graph.clips],
            "arcs": [{"from": [nodes[edge["from"]]["clip"], nodes[edge["from"]]["frame"] - graph.clips[nodes[edge["from"]]["clip"]]["first_frame"]],
                      "to": [nodes[edge["to"]]["clip"], nodes[edge["to"]]["frame"] - graph.clips[nodes[edge["to"]]["clip"]]["first_frame"]],
                      "cost": round(float(edge["cost"]), 4)} for edge in transitions[:GRAPH_ARCS]],
        },
    }
    return entries.judged(entry, verdict(entry))


def _bundles(graph):
    """The drawn transitions bundled by the pair of clips they join: ``{(from clip, to clip): (the cheapest arc, how many)}``."""
    bundles = {}
    for arc in graph["arcs"]:  # cheapest first
        key = (arc["from"][0], arc["to"][0])
        cheapest, count = bundles.get(key, (arc, 0))
        bundles[key] = (cheapest, count + 1)
    return bundles


def graph_svg(graph, width=600, lane=20):
    """Each clip a lane on one time axis (seconds, to scale), named (the full name on hover); between each pair of clips
    the cheapest transition as an arc, its width growing with how many the pair has."""
    left, lanes = 230, graph["lanes"]
    labels = charts.distinct_labels([clip["name"] for clip in lanes])
    longest = max((clip["frames"] - 1) / clip.get("fps", 30.0) for clip in lanes) if lanes else 1.0
    chart = charts.Chart("motion graph lanes", (0.0, max(longest, 1e-3)), (0.0, 1.0), "time in the clip (s)", "", width=width,
                         height=lane * len(lanes) + 70)
    chart.LEFT, chart.plot_width = left, width - left - chart.RIGHT

    def point(clip, frame):
        return chart.x(frame / lanes[clip].get("fps", 30.0)), chart.TOP + 10 + lane * clip + lane / 2

    for index, (clip, label) in enumerate(zip(lanes, labels)):
        (x0, y), (x1, _) = point(index, 0), point(index, clip["frames"] - 1)
        name, short = html.escape(clip["name"]), html.escape(label)
        chart.parts.append(f'<text class="lane-name" x="{left - 6}" y="{y + 4:.1f}" font-size="11" text-anchor="end"><title>{name}: '
                           f'{clip["frames"]} frames</title>{short}</text>'
                           f'<line class="lane" x1="{x0:.1f}" y1="{y:.1f}" x2="{x1:.1f}" y2="{y:.1f}" stroke="{charts.LOOP}" stroke-width="5">'
                           f'<title>{name}: {clip["frames"]} frames</title></line>')
    for (source, target), (arc, count) in _bundles(graph).items():
        (xa, ya), (xb, yb) = point(*arc["from"]), point(*arc["to"])
        bend = 0.6 * lane if ya == yb else 0.0
        chart.parts.append(f'<path class="arc" d="M{xa:.1f},{ya:.1f} Q{(xa + xb) / 2:.1f},{(ya + yb) / 2 - bend - 8:.1f} {xb:.1f},{yb:.1f}" '
                           f'fill="none" stroke="{charts.SEAM}" stroke-width="{min(1.0 + count ** 0.5, 5.0):.1f}" opacity="0.7"><title>'
                           f'{html.escape(lanes[source]["name"])} &#8594; {html.escape(lanes[target]["name"])}: {count} transitions drawn, '
                           f'the cheapest cost {arc["cost"]:g}</title></path>')
    return chart.svg(y_axis=False) + charts.legend([(charts.LOOP, "a clip, to scale", "line"),
                                                    (charts.SEAM, "transitions between two clips (the cheapest; wider: more)", "line")])


def distance_histogram_svg(stats):
    """The library's frame-pair distances as a histogram, the threshold marked."""
    histogram = stats.get("histogram") or {}
    edges, counts = histogram.get("edges", []), histogram.get("counts", [])
    if not counts:
        return ""
    chart = charts.Chart("pose distances between frames of the library", (edges[0], edges[-1]), (0.0, max(counts) * 1.08),
                         "pose distance (m², summed over the window's joints)", "frame pairs")
    for low, high, count in zip(edges, edges[1:], counts):
        chart.polyline([low, low, high, high], [0.0, count, count, 0.0], charts.LOOP, "line")
    chart.marker(stats["threshold"], charts.SEAM, f"threshold {stats['threshold']:.3g}", "threshold")
    return chart.svg()


def graph_coverage(graph):
    """``'9/11 clips, 1,484/1,837 frames'``: how much of the library a graph entry's graph plays (older entries: clips only)."""
    coverage = graph.get("coverage")
    if not coverage:
        return f"{graph['clips_kept']}/{graph['clips_kept'] + len(graph['clips_left_out'])} clips"
    return f"{coverage['clips_kept']}/{coverage['clips']} clips, {coverage['frames_kept']:,}/{coverage['frames']:,} frames"


def graph_left_out(graph):
    """``[(name, reason, what would include it)]`` of a graph entry's clips left out (older entries: names alone)."""
    if "left_out" in graph:
        return [(entry["name"], entry["reason"], entry["include"]) for entry in graph["left_out"]]
    return [(name, "too short, or no transition both ways", "-") for name in graph["clips_left_out"]]


def verdict(entry):
    """A graph's verdict: GOOD when it plays every clip of the library, CHECK when it leaves some out."""
    return verdicts.judge([], concerns=tuple(f"{name} left out ({reason}; would include it: {include})"
                                            for name, reason, include in graph_left_out(entry["graph"])))


def row(entry):
    graph = entry["graph"]
    return Row(f"{graph['nodes']} nodes, {graph['edges']} edges", f"{graph['transitions']} transitions", f"covers {graph_coverage(graph)}")


def title(entry):
    return f"{len(entry['clips'])} clips"


def section(entry):
    """The graph's section: facts, verdict, clips left out and why, the lanes and arcs, the distance statistics."""
    graph = entry["graph"]
    stats = graph["stats"]
    left_out = "".join(f"<li><b>{html.escape(name)}</b>: {html.escape(reason)}. Would include it: {html.escape(include)}.</li>"
                       for name, reason, include in graph_left_out(graph))
    thresholds = stats.get("clip_thresholds") or []
    facts = (f"<p>Coverage: {graph_coverage(graph)} in the largest strongly connected part. {graph['nodes']} nodes, "
             f"{graph['edges']} edges of which {graph['transitions']} transitions; threshold {stats['threshold']:.3g} m²"
             f"{' (' + html.escape(str(stats['rule'])) + ')' if stats.get('rule') else ''}"
             f"{f', per clip {min(thresholds):.3g} to {max(thresholds):.3g} m²' if thresholds else ''}. "
             f"{parts.outputs_html(entry) if entry['outputs'] else 'Output: none (written over since).'}</p>"
             f"{f'<p>Left out:</p><ul class=left-out>{left_out}</ul>' if left_out else '<p>No clip left out.</p>'}")
    drawn = f" (of the {len(graph['arcs'])} cheapest)" if len(graph["arcs"]) < graph["transitions"] else ""
    return (f'{facts}{parts.verdict_html(entry)}<div class="figures">'
            f'{parts.figure(f"Clips as lanes to scale, transitions bundled by pair of clips{drawn}", graph_svg(graph))}'
            f'{parts.figure("Distance statistics", distance_histogram_svg(stats))}</div>')
