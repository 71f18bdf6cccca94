"""What a BVH skeleton's body is: its legs, its head, and a biped's stature or an animal's leg length from its bones.

Sizes come from the lengths of the skeleton's links (a joint's OFFSET, or
its position channels where they replace it), which no rotation changes: a
crouching first frame, a jump, a lean or a rest pose that is no standing
pose leave them as they are, and a root that is not the pelvis (a reference
joint on the floor) is no part of them. Joints are found by name: feet
(foot, toe, ankle, paw, hoof; else a leg's last joint) and a head.
"""

import dataclasses
from dataclasses import dataclass

import numpy as np

from .layout import BvhInfo, forward_kinematics

_FOOT_WORDS, _HEAD_WORDS, _LEG_WORDS = ("foot", "toe", "ankle", "paw", "hoof"), ("head",), ("leg",)
#: Thigh and shank together, as a fraction of the stature (anthropometric tables: 0.245 + 0.246).
LEG_TO_STATURE = 0.49
#: Legs and the spine up to the head joint, as a fraction of the stature (rigs measured: 0.75 to 0.9).
TRUNK_TO_STATURE = 0.83
#: A biped's spine (the legs' top to its head) leans from the legs' up direction by less than this (degrees)
#: in the posed frames; a quadruped's runs along the ground.
_UPRIGHT_DEGREES = 45.0
_NO_LENGTH = 0.01  # legs shorter than this fraction of the longest link have no length to measure


@dataclass(frozen=True)
class Body:
    """A skeleton's body, in file units.

    legs: ``(top, foot)`` joint pairs, one per leg (see :func:`legs`);
    head: the head joint or None; biped: the head stands above the legs;
    size: a biped's estimated stature, or an animal's leg length (hip to
    foot); what: how ``size`` was measured, in words.
    """

    legs: tuple
    head: int | None
    biped: bool
    size: float
    what: str


def _named(info, words):
    return [joint for joint, name in enumerate(info.names) if any(word in name.lower() for word in words)]


def _ancestors(parents, joint):
    while parents[joint] >= 0:
        joint = parents[joint]
        yield joint


def _outermost(info, words):
    """Joints named with one of ``words`` that have no ancestor so named (the foot, not its toe)."""
    named = set(_named(info, words))
    return [joint for joint in sorted(named) if not named.intersection(_ancestors(info.parents, joint))]


def _innermost(info, words):
    """Joints named with one of ``words`` that have no descendant so named (the last segment of a leg)."""
    named = set(_named(info, words))
    return [joint for joint in sorted(named) if not any(info.parents[other] >= 0 and joint in _ancestors(info.parents, other)
                                                        for other in named)]


def legs(info: BvhInfo) -> list[tuple[int, int]]:
    """``(top, foot)`` per leg: each outermost joint named like a foot (not the root), and the first joint of its chain
    below the joint where the body branches (the foot's parent at least). A rig that names no foot (an animal's
    ``Leg_Rear_L_03``) has the last joints named like a leg for feet, two or more. Empty without either."""
    children = np.bincount(info.parents[info.parents >= 0], minlength=len(info.names))
    found = []
    feet = _outermost(info, _FOOT_WORDS)
    if not feet and len(_innermost(info, _LEG_WORDS)) >= 2:
        feet = _innermost(info, _LEG_WORDS)
    for foot in feet:
        if info.parents[foot] < 0:
            continue
        top = info.parents[foot]
        while info.parents[top] >= 0 and children[info.parents[top]] < 2:
            top = info.parents[top]
        found.append((int(top), foot))
    return found


def link_lengths(info: BvhInfo) -> np.ndarray:
    """``(J,)`` each joint's distance from its parent (file units): its OFFSET's length, or the median length of its
    position channels, which replace the OFFSET; 0 for a root."""
    placed = info.placed_lengths
    lengths = np.where(np.isnan(placed), np.linalg.norm(info.offsets, axis=1), placed)
    lengths[info.parents < 0] = 0.0
    return lengths


def _chain(info, low, high):
    """Joints from ``low`` up to, not including, ``high`` (an ancestor of ``low``; -1 for all the way up)."""
    chain = [low]
    for joint in _ancestors(info.parents, low):
        if joint == high:
            break
        chain.append(joint)
    return chain


def leg_direction(info: BvhInfo) -> np.ndarray | None:
    """``(3,)`` the median over the posed frames of the legs' summed vectors from top to foot (file axes), or None without legs."""
    found = legs(info)
    if not found:
        return None
    points = info.sampled_pose
    return np.median(sum(points[:, foot] - points[:, top] for top, foot in found), axis=0)


def _leans(up, spine):
    """Degrees between vectors ``up`` and ``spine`` (180 when either has no length)."""
    norms = np.linalg.norm(up) * np.linalg.norm(spine)
    return np.degrees(np.arccos(np.clip(spine @ up / norms, -1.0, 1.0))) if norms > 0.0 else 180.0


def _upright(info, head, found):
    """Whether ``head`` stands above the legs' tops (a biped) rather than ahead of them (an animal), in the posed frames
    or in the rest pose (every rotation zero): a biped may lie or kick in a whole take, a quadruped stands in both."""
    rest = forward_kinematics(dataclasses.replace(info, motion=_rest_rows(info)))
    for points in (info.sampled_pose, rest):
        up = -np.median(sum(points[:, foot] - points[:, top] for top, foot in found), axis=0)
        spine = np.median(points[:, head] - np.mean([points[:, top] for top, _ in found], axis=0), axis=0)
        if _leans(up, spine) < _UPRIGHT_DEGREES:
            return True
    return False


def _rest_rows(info):
    """One motion row ``(1, C)`` of ``info``'s rest: rotations zero, positions their median."""
    return info.position_medians[None].copy()


def body(info: BvhInfo) -> Body | None:
    """The :class:`Body` of ``info``, or None without legs (no joint named like a foot) or when they have no length."""
    found = legs(info)
    lengths = link_lengths(info)
    # A leg's links below its top; a first link of three or more is the hip's offset from a pelvis joint, not the thigh.
    chains = [_chain(info, foot, top) for top, foot in found]
    leg = float(np.mean([lengths[chain[:-1] if len(chain) >= 3 else chain].sum() for chain in chains])) if chains else 0.0
    if leg <= _NO_LENGTH * lengths.max():  # position channels of zero (a pose for another rig) collapse the legs
        return None
    heads = _outermost(info, _HEAD_WORDS)
    head = heads[0] if heads else None
    if head is None or not _upright(info, head, found):
        return Body(tuple(found), head, False, leg, "its legs' length")
    branch = info.parents[found[0][0]]
    ancestors = {branch, *_ancestors(info.parents, branch)}
    spine = lengths[[joint for joint in _chain(info, head, -1) if joint not in ancestors]].sum()
    stature = 0.5 * (leg / LEG_TO_STATURE + (leg + spine) / TRUNK_TO_STATURE)
    return Body(tuple(found), head, True, float(stature), "its legs' and spine's lengths")
