"""Foot lock: take back the foot sliding that a loop fix adds near the seam.

Offsets that close a seam also move the legs while a foot is planted, so
the foot slides. Every contact (found on the raw clip: an ankle near its lowest
and slow) whose ankle path the stitch changed is planted: the ankle does not
slide horizontally, the change centred over the contact. Each leg is solved by two-bone IK (hip,
knee, ankle), the foot keeping its world orientation. Between contacts the correction
blends across the swing, where a changed path does not show. The loop is treated
as periodic with travel chained, so a contact across the wrap is one
contact and the loop stays closed. Lengths are the clip's unit, times seconds.
"""

import re

import numpy as np

from . import contacts, cycles, kinematics, quat, root as root_motion
from .clip import Clip

SOFT_REACH = 0.97  # share of the leg's length from which its reach saturates
NEARLY_STRAIGHT = np.radians(2.0)  # a knee bent less than this may be read bending either way
_ANKLE = re.compile(r"foot|ankle", re.IGNORECASE)
_NOT_ANKLE = re.compile(r"toe|ball|heel|end", re.IGNORECASE)


def leg_chains(clip: Clip) -> list[tuple[int, int, int]]:
    """(hip, knee, ankle) bone indices of each leg: an ankle-named bone, its parent and grandparent."""
    chains = []
    for ankle, name in enumerate(clip.bone_names):
        if _ANKLE.search(name) and not _NOT_ANKLE.search(name):
            knee = clip.parents[ankle]
            hip = clip.parents[knee] if knee >= 0 else -1
            if hip >= 0:
                chains.append((int(hip), int(knee), ankle))
    return chains


def _smooth(u):
    u = np.clip(u, 0.0, 1.0)
    return u * u * (3.0 - 2.0 * u)


def bridge_gaps(values: np.ndarray, known: np.ndarray) -> np.ndarray:
    """Fill the rows of ``values (T, k)`` not ``known`` by smoothstep between the known rows around them."""
    index = np.arange(len(values))
    if not known.any():
        return np.zeros_like(values)
    left = np.maximum.accumulate(np.where(known, index, -1))
    right = np.minimum.accumulate(np.where(known, index, len(values))[::-1])[::-1]
    left_value = values[np.clip(left, 0, None)]
    right_value = values[np.clip(right, None, len(values) - 1)]
    left_value[left < 0] = right_value[left < 0]
    right_value[right >= len(values)] = left_value[right >= len(values)]
    span = np.maximum(right - left, 1)
    weight = _smooth((index - left) / span)[:, None]
    filled = (1.0 - weight) * left_value + weight * right_value
    return np.where(known[:, None], values, filled)


def _soften(correction, span):
    """``correction (T, 3)`` through a light binomial filter as wide in time at any rate (1, 4, 6, 4, 1 at ``span`` 1, its
    spread ``span`` frames): it takes out the kinks where blends meet contacts, which the knee would otherwise amplify,
    and one a few frames wide at a high rate left the seam's velocity a jump (1.16x the clip's own at 240 fps, 0.95 at 120)."""
    kernel = np.ones(1)
    for _ in range(4 * span * span):
        kernel = np.convolve(kernel, [0.5, 0.5])
    return np.stack([np.convolve(correction[:, axis], kernel, mode="same") for axis in range(3)], axis=1)


def _ankle_corrections(raw_ankle, looped_ankle, planted, chain, tolerance, span=1):
    """Horizontal ankle corrections ``(P, 3)`` per loop frame (clamp frame excluded).

    raw_ankle, looped_ankle: ``(P + 1, 3)``; planted: ``(P,)`` contact mask;
    chain: the next cycle's rigid transform; span: :data:`.cycles.SPAN` in frames. A contact whose ankle path the
    stitch changed by more than ``tolerance`` is planted (no horizontal slide,
    the correction centred over the contact); the others keep their path.
    Between contacts the correction blends across the swing. Worked out on
    three chained cycles and read off the middle one, so it is periodic.
    """
    period = len(planted)
    cycles = 3
    turn = np.stack([np.linalg.matrix_power(chain, k) for k in range(cycles + 1)])
    index = np.arange(cycles * period + 1)
    frame, lap = index % period, index // period
    looped = np.einsum("tij,tj->ti", turn[lap, :3, :3], looped_ankle[frame]) + turn[lap, :3, 3]
    steps = raw_ankle[1:] - raw_ankle[:-1]
    raw_steps = np.einsum("tij,tj->ti", turn[lap[:-1], :3, :3], steps[frame[:-1]])
    correction = np.zeros((len(index), 3))
    known = np.zeros(len(index), dtype=bool)
    for start, stop in contacts.contact_segments(planted[frame]):
        if stop - start < 2:
            continue
        captured = looped[start, :2] + np.concatenate([np.zeros((1, 2)), np.cumsum(raw_steps[start:stop - 1, :2], axis=0)])
        known[start:stop] = True
        if np.abs(captured - looped[start:stop, :2]).max() < tolerance:
            continue  # the stitch left this contact alone
        planted_offset = looped[start, :2] - looped[start:stop, :2]
        correction[start:stop, :2] = planted_offset - 0.5 * (planted_offset[0] + planted_offset[-1])
    correction = bridge_gaps(correction, known)
    correction = _soften(correction, span)
    middle = slice(period, 2 * period)
    return np.einsum("ij,tj->ti", kinematics.affine_inverse(turn[1])[:3, :3], correction[middle])


def _bending_sides(towards_hip, lower, thigh_turn):
    """Unit directions ``(n, 3)`` the knee bends to, square to the thigh: each frame's own, and where the leg is
    nearly straight (bent under :data:`NEARLY_STRAIGHT`) turned to the side the knee bends to over the frames (in the
    thigh's frame, ``thigh_turn (n, 3, 3)``, when given). A leg that passes through straight (its bend a fraction of a
    degree either side) would otherwise flip the knee to the other side for a frame: a jump of centimetres that reads
    as a pop at high frame rates, where a frame's own step is millimetres. A clearly bent knee keeps its own side: a
    transition's frames from two takes hold their thighs in frames that need not agree."""
    side = lower - np.sum(lower * towards_hip, axis=-1, keepdims=True) * towards_hip
    if thigh_turn is not None:
        local = np.einsum("tji,tj->ti", thigh_turn, side)  # the bend in the thigh's own frame, weighted by how bent
        straight = kinematics.lengths(side) < np.sin(NEARLY_STRAIGHT) * kinematics.lengths(lower)
        side = np.where((straight & (local @ local.sum(axis=0) < 0.0))[:, None], -side, side)
    return side / np.maximum(np.linalg.norm(side, axis=-1, keepdims=True), 1e-9)


def _solve_two_bone(hip, knee, ankle, target, thigh_turn=None):
    """Rotations ``(n, 4)`` of the thigh (about the hip) and of the shin (about the knee).

    Keeps the knee in its current bending plane, on the side it bends to over
    the frames when ``thigh_turn`` (the thigh's rotations ``(n, 3, 3)``) is given.
    Near full extension the reach saturates smoothly (soft IK), so a target just
    out of reach does not snap the knee straight; the ankle then falls a little
    short of it.
    """
    upper, lower = knee - hip, ankle - knee
    l1, l2 = kinematics.lengths(upper), kinematics.lengths(lower)
    longest = l1 + l2
    # The soft zone starts at the leg's current reach if that is already long,
    # so no correction means no change.
    soft = np.maximum(SOFT_REACH * longest, kinematics.lengths(ankle - hip))
    wanted = kinematics.lengths(target - hip)
    room = np.maximum(longest - soft, 1e-9)
    excess = np.maximum(wanted - soft, 0.0)
    reach = np.where(wanted > soft, soft + room * -np.expm1(-excess / room), wanted)
    reach = np.clip(reach, np.abs(l1 - l2) + 1e-6, longest - 1e-6)
    towards_hip = -upper / l1[:, None]
    side = _bending_sides(towards_hip, lower, thigh_turn)
    interior = np.arccos(np.clip((l1**2 + l2**2 - reach**2) / (2.0 * l1 * l2), -1.0, 1.0))
    new_lower = l2[:, None] * (np.cos(interior)[:, None] * towards_hip + np.sin(interior)[:, None] * side)
    shin = quat.between(lower, new_lower)
    # Aim the shortened or full reach along the direction to the target.
    thigh = quat.between(upper + new_lower, target - hip)
    return thigh, shin


def lock_feet(raw: Clip, looped: Clip, travel_root: int | None = None, height_margin: float = 0.03, max_speed: float = 0.3,
              tolerance: float = 5e-4, filter_span: int | None = None) -> Clip:
    """``looped`` with its legs re-solved so planted feet slide as in ``raw``.

    raw, looped: the loop range before and after stitching, clamp convention,
    same frames. Contacts: ankle within height_margin of its lowest and
    slower than max_speed (per second), measured on ``raw``. A leg whose
    correction stays under ``tolerance`` is left as it is. filter_span: the
    spread in frames of the correction's binomial filter (1: 1, 4, 6, 4, 1);
    None: as wide in time as that at 30 fps, which a loop's seam needs at high
    rates (no longer than a cycle allows).
    """
    chains = leg_chains(looped)
    if not chains or looped.num_frames < 6:
        return looped
    period = looped.num_frames - 1
    # Only the legs and the bones above them: the rest of the skeleton never enters the solve.
    ankles = [ankle for _, _, ankle in chains]
    raw_pose, evaluated = root_motion.chain_forward_kinematics(raw, ankles)
    pose, _ = root_motion.chain_forward_kinematics(looped, ankles)
    column = np.full(looped.num_bones, -1)  # a bone's index in the two poses
    column[evaluated] = np.arange(len(evaluated))
    chain = cycles.chain(looped, travel_root)
    span = filter_span or min(cycles.span_frames(looped.dt), max(1, int(np.sqrt(period) / 2)))  # no longer than a cycle
    rotation = None  # copied when the first leg is re-solved
    solved = set()
    for hip, knee, ankle in chains:
        raw_ankle = raw_pose[:, column[ankle], :3, 3]
        planted = contacts.detect_contacts(raw_ankle[:period, None], looped.dt, height_margin, max_speed)[:, 0]
        correction = _ankle_corrections(raw_ankle, pose[:, column[ankle], :3, 3], planted, chain, tolerance, span)
        if np.abs(correction).max() < tolerance:
            continue
        if rotation is None:
            rotation = looped.rotation.copy()
        solved.update((hip, knee, ankle))
        solve_leg(looped, pose, column, (hip, knee, ankle), correction, rotation, slice(0, period))  # the clamp frame is set below
        rotation[period, [hip, knee, ankle]] = rotation[0, [hip, knee, ankle]]  # the wrap stays closed
    if not solved:
        return looped
    for bone in solved:
        rotation[:, bone] = quat.unroll(rotation[:, bone], looped.rotation[0, bone])
    return looped.with_channels(rotation=rotation)


def solve_leg(clip: Clip, pose: np.ndarray, column: np.ndarray, leg: tuple[int, int, int], correction: np.ndarray,
              rotation: np.ndarray, frames: slice = slice(None), foot_turn: np.ndarray | None = None) -> None:
    """Write into ``rotation`` (the clip's ``(F, B, 4)``, at ``frames``) the hip, knee and ankle rotations that move the ankle
    of ``leg`` (hip, knee, ankle) by ``correction`` (frames' ``(n, 3)``, armature space), the foot keeping its world orientation
    (turned by ``foot_turn`` ``(n,)`` radians about the up axis, when given).

    pose: armature-space matrices ``(F, k, 4, 4)`` of the leg's chain (:func:`..root.chain_forward_kinematics`), column: each
    bone's index in it (-1 for bones outside it).
    """
    hip, knee, ankle = leg
    relative = kinematics.rest_relative(clip.parents, clip.rest)
    g = pose[frames]
    g_hip, g_knee, g_ankle = (g[:, column[bone]] for bone in (hip, knee, ankle))
    thigh, shin = _solve_two_bone(g_hip[:, :3, 3], g_knee[:, :3, 3], g_ankle[:, :3, 3], g_ankle[:, :3, 3] + correction,
                                  g_hip[:, :3, :3])
    hip_rot = quat.multiply(thigh, quat.from_matrix(g_hip[:, :3, :3]))
    knee_rot = quat.multiply(quat.multiply(thigh, shin), quat.from_matrix(g_knee[:, :3, :3]))
    ankle_rot = quat.from_matrix(g_ankle[:, :3, :3])  # the foot keeps its world orientation
    if foot_turn is not None:
        ankle_rot = quat.multiply(root_motion.z_rotation(foot_turn), ankle_rot)
    parent_rot = quat.from_matrix(g[:, column[clip.parents[hip]], :3, :3] @ relative[hip][:3, :3])
    rotation[frames, hip] = quat.multiply(quat.inverse(parent_rot), hip_rot)
    knee_space = quat.multiply(hip_rot, quat.from_matrix(relative[knee][:3, :3]))
    rotation[frames, knee] = quat.multiply(quat.inverse(knee_space), knee_rot)
    ankle_space = quat.multiply(knee_rot, quat.from_matrix(relative[ankle][:3, :3]))
    rotation[frames, ankle] = quat.multiply(quat.inverse(ankle_space), ankle_rot)
