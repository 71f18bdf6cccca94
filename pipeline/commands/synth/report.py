"""synth's report: a synthesis is a composition of the graph's clips (its entry, row and section are the composition's),
with the graph it walked and how (seed or clips visited)."""

import html
import pathlib

from ...contract import Row
from ..compose import report as composition


def synthesis_entry(paths, armature, outputs, composed, graph_path, seed, via, source_of, music=None):
    """The report of one synthesis over the graph file ``graph_path`` (see :func:`..compose.report.composition_entry`; music:
    the synthesis synced to a song)."""
    entry = composition.composition_entry(paths, armature, outputs, composed, source_of, music)
    entry["graph_file"], entry["seed"], entry["via"] = str(graph_path), seed, list(via)
    return entry


def row(entry):
    made = composition.row(entry)
    how = f"via {' '.join(entry['via'])}" if entry.get("via") else f"random walk, seed {entry.get('seed', 0)}"
    count = len(entry["transitions"])
    song = f", to {pathlib.Path(entry['music']['song']).name}" if entry.get("music") else ""
    return Row(made.made, f"{how}, {count} transition{'' if count == 1 else 's'}{song}", made.numbers)


def section(entry):
    walk = f"the quickest path through {', '.join(entry['via'])}" if entry.get("via") else f"a random walk (seed {entry.get('seed', 0)})"
    seeds = entry.get("music", {}).get("seeds")
    if seeds and seeds["chosen"] != seeds["asked"]:
        walk += f", of seeds {seeds['asked']}-{seeds['asked'] + len(seeds['speeds']) - 1} the one whose tempo fits the song's best"
    return (f"<p>Synthesized from <code>{html.escape(pathlib.Path(entry['graph_file']).name)}</code> by {html.escape(walk)}.</p>"
            + composition.section(entry))


title = composition.title
