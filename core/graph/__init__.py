"""Motion graphs: transitions found across a library of clips, and new motion synthesized by walking them.

:mod:`.scan` compares every window of the library with every other in
bounded blocks, :mod:`.build` makes the graph, :mod:`.json_io` saves and
loads it, :mod:`.synth` walks it and renders a walk through the composition core.
"""

from .build import MotionGraph, build_graph
from .json_io import graph_from_json, graph_to_json
from .synth import path_via, random_walk, render, synthesize, without_edges

__all__ = ["MotionGraph", "build_graph", "graph_from_json", "graph_to_json", "path_via", "random_walk", "render", "synthesize", "without_edges"]
