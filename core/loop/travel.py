"""A travelling root looped so that the next cycle, moved by the travel alone, joins smoothly (heading and travel in
character space); positions in the clip's unit, angles radians, times seconds."""

from collections.abc import Callable

import numpy as np

from ..errors import LoopError
from ..motion import cycles, quat
from ..motion.root import heading, z_rotation


def _without_net_turn(h, p):
    """Heading ``(n,)`` radians and horizontal path ``(n, 2)`` with the turn between the ends spread out evenly.

    Each step of the path turns with the heading, so the body keeps its
    course relative to where it faces; the loop then ends facing as it began.
    """
    turn = (h[-1] - h[0]) * np.linspace(0.0, 1.0, len(h))
    angle = -0.5 * (turn[1:] + turn[:-1])  # each step turns by the correction halfway along it
    step = np.diff(p, axis=0)
    c, s = np.cos(angle), np.sin(angle)
    turned = np.stack([c * step[:, 0] - s * step[:, 1], s * step[:, 0] + c * step[:, 1]], axis=1)
    return h - turn, p[0] + np.concatenate([np.zeros((1, 2)), np.cumsum(turned, axis=0)])


def loop_travel(position: np.ndarray, rotation: np.ndarray, dt: float, stitch_height: Callable[[np.ndarray], np.ndarray],
                stitch_pose: Callable[[np.ndarray], np.ndarray], velocity_shapes: tuple[np.ndarray, np.ndarray],
                ratio: float) -> tuple[np.ndarray, np.ndarray]:
    """Loop a travelling root so the next cycle, moved by the travel alone, joins smoothly.

    position ``(n, 3)``, rotation ``(n, 4)``: the root in armature space.
    stitch_height(z (n, 1)) and stitch_pose(q (n, 4)) loop the height and the
    rotation relative to the heading. The travel keeps its displacement; the
    heading's net turn is spread over the loop, path included, so the loop ends
    facing as it began: Blender's Cycles modifier repeats the travel with an
    offset but cannot turn it. The velocity and turn-rate mismatch, measured
    in character space at each end, is removed with ``velocity_shapes`` = the
    (start, end) shapes ``(n,)`` that are 0 at both ends of the clip.
    """
    h = heading(rotation)
    relative = quat.multiply(z_rotation(-h), rotation)
    # Whole turns a clip spins (a dance) are no seam: only the rest of its net turn is taken out. h is only used
    # through its sines and its ends' differences, so the whole turns can leave it anywhere between the ends.
    h = h - 2.0 * np.pi * np.round((h[-1] - h[0]) / (2.0 * np.pi)) * (np.arange(len(h)) >= len(h) // 2)
    h, p = _without_net_turn(h, position[:, :2])
    w_start, w_end = velocity_shapes
    m = cycles.span_frames(dt, len(h))  # the seam is measured and closed over this many frames
    # Normalized so that each shape lowers the seam mismatch by one unit.
    k_start, k_end = -cycles.seam_mismatch(w_start, m), -cycles.seam_mismatch(w_end, m)
    if min(k_start, k_end) <= 1e-12:
        raise LoopError("the root blend time is too short for this frame rate")
    shape_start, shape_end = ratio * w_start / k_start, (1.0 - ratio) * w_end / k_end

    # Heading is a scalar, so its turn-rate mismatch is removed exactly.
    h_new = h + cycles.seam_mismatch(h, m) * (shape_start + shape_end)

    # Travel: the same mismatch measured in each end's character frame.
    def to_character(angle, vector):
        c, s = np.cos(angle), np.sin(angle)
        return np.array([c * vector[0] + s * vector[1], -s * vector[0] + c * vector[1]])

    def to_world(angle, vector):
        return to_character(-angle, vector)

    mismatch = (to_character(h_new[-1], (p[-1] - p[-1 - m]) + 0.5 * (p[-1] - 2.0 * p[-1 - m] + p[-1 - 2 * m]))
                - to_character(h_new[0], (p[m] - p[0]) - 0.5 * (p[2 * m] - 2.0 * p[m] + p[0]))) / m
    horizontal = p + np.outer(shape_start, to_world(h_new[0], mismatch)) + np.outer(shape_end, to_world(h_new[-1], mismatch))
    new_position = np.concatenate([horizontal, stitch_height(position[:, 2:])], axis=1)
    new_rotation = quat.multiply(z_rotation(h_new), stitch_pose(relative))
    return new_position, quat.unroll(new_rotation)
