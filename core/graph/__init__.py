"""Motion graphs: transitions found across a library of clips, and new motion synthesized by walking them.

:mod:`.scan` compares every window of the library with every other in
bounded blocks (:mod:`.prune`: only where a coarse bound leaves a kept
candidate possible), :mod:`.build` makes the graph, :mod:`.synth` walks it and
renders a walk through the composition core. The graph's file is read and
written by :mod:`..formats.graph_json`.
"""

from .build import build_graph, MotionGraph, odd_clips
from .synth import check_clips, path_via, random_walk, render, synthesize, without_edges

__all__ = ["MotionGraph", "build_graph", "check_clips", "odd_clips", "path_via", "random_walk", "render", "synthesize", "without_edges"]
