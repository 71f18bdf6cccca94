"""Motion graphs: transitions found across a library of clips, and new motion synthesized by walking them.

:mod:`.scan` compares every window of the library with every other in
bounded blocks, :mod:`.build` makes the graph, :mod:`.json_io` saves and
loads it, :mod:`.synth` walks it and renders a walk through the composition core.
"""

from .build import MotionGraph, build_graph, odd_clips
from .json_io import graph_from_json, graph_from_text, graph_to_json, read_graph_file
from .synth import check_clips, path_via, random_walk, render, synthesize, without_edges

__all__ = ["MotionGraph", "build_graph", "check_clips", "graph_from_json", "graph_from_text", "graph_to_json", "odd_clips", "path_via", "random_walk",
           "read_graph_file", "render", "synthesize", "without_edges"]
