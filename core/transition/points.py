"""Transition points: where clip A can hand over to clip B, ranked by the windowed pose distance.

A candidate (i, j) blends A's frames i .. i + window - 1 with B's frames
j .. j + window - 1; its cost is their windowed feature distance (see
:mod:`.distance`) plus, when contacts count, a penalty for every frame of
the window whose planted feet differ (motions blend cleanly only where
their foot contacts match). The penalty per foot and frame is the mean distance
between the two clips' frames, so a pair whose stance differs costs as much
as a random one: matching pairs win wherever the region has them.
"""

from dataclasses import dataclass

import numpy as np

from ..errors import TransitionError
from ..motion import contacts as foot_contacts, features, kinematics, quat, root as root_motion
from ..motion.clip import Clip
from ..motion.footlock import leg_chains
from ..motion.kinematics import descendants
from . import align, distance

WINDOW_SECONDS = 0.3  # seconds of both clips a candidate's distance sums over
SEPARATION_SECONDS = 0.2  # candidates are local minima this far apart at least
REACH_SECONDS = 2.0  # "end_start": the last seconds of A, the first of B (about two gait periods)
REGIONS = ("end_start", "anywhere")


@dataclass
class Candidate:
    frame_a: int  # clip A's frame number where the blend window starts
    frame_b: int  # clip B's frame number where it starts
    cost: float  # ranking cost: distance plus the contact penalty
    distance: float  # windowed squared feature distance alone (length unit squared)
    contact_match: bool  # the same feet planted in both at the window's middle; None without feet


def _planted_feet(clip, pose, ankles):
    """Mask ``(F, legs)``: a leg's foot (its ankle or a bone below it) is planted, see :func:`..motion.contacts.detect_contacts`."""
    positions = pose[..., :3, 3]
    planted = np.zeros((clip.num_frames, len(ankles)), dtype=bool)
    for leg, ankle in enumerate(ankles):  # one vector pass per leg
        foot = np.flatnonzero(descendants(clip.parents, clip.bone_index(ankle)))
        planted[:, leg] = foot_contacts.detect_contacts(positions[:, foot], clip.dt).any(axis=1)
    return planted


def _index_range(clip, first, last, window, label):
    """Frame indices [first, last] of the window starts, checked against the clip (``label``: what the message calls it)."""
    frames = clip.frames
    latest = frames[-1] - (window - 1)
    if not (frames[0] <= first <= last <= latest):
        raise TransitionError(f"{label}: window starts {first:g}-{last:g} must lie within frames {frames[0]:g}-{latest:g} "
                        f"(the clip's frames less the {window}-frame matching window), first before last")
    return int(first - frames[0]), int(last - frames[0])


def window_regions(clip_a: Clip, clip_b: Clip, region: str | tuple, window: int, reach: float = REACH_SECONDS,
                   labels: tuple[str, str] = align.CLIP_LABELS) -> tuple[tuple[int, int], tuple[int, int]]:
    """Index ranges ((a0, a1), (b0, b1)) where ``window``-frame windows may start, inclusive, from a region (see transition_candidates).

    reach: seconds of each clip that "end_start" searches. labels: what messages call A and B.
    """
    if isinstance(region, str):
        if region not in REGIONS:
            raise TransitionError(f"unknown transition region '{region}': use one of {', '.join(REGIONS)} or ((a0, a1), (b0, b1)) frames")
        a_last, b_last = clip_a.num_frames - window, clip_b.num_frames - window
        for clip, label in zip((clip_a, clip_b), labels):
            if clip.num_frames < window:
                raise TransitionError(f"{label} has {clip.num_frames} frames, fewer than the {window} that the search for a "
                                      "transition point compares at once (the matching window)")
        if region == "anywhere":
            return (0, a_last), (0, b_last)
        frames = int(round(reach * clip_a.fps))
        return (max(a_last - frames, 0), a_last), (0, min(frames, b_last))
    try:
        (a0, a1), (b0, b1) = region
    except (TypeError, ValueError):
        raise TransitionError(f"a transition region must be 'end_start', 'anywhere' or ((a0, a1), (b0, b1)) frames, got {region!r}") from None
    return _index_range(clip_a, a0, a1, window, labels[0]), _index_range(clip_b, b0, b1, window, labels[1])


def _mean_distance(fa, fb):
    """Mean squared distance between every row of ``fa (Fa, K)`` and every row of ``fb (Fb, K)``, in O(F K)."""
    mean_a, mean_b = fa.mean(axis=0, dtype=float), fb.mean(axis=0, dtype=float)
    spread = ((fa - mean_a) ** 2).sum(axis=1).mean() + ((fb - mean_b) ** 2).sum(axis=1).mean()
    return float(spread + ((mean_a - mean_b) ** 2).sum())


def matching_features(clip_a: Clip, clip_b: Clip, joints: str | list | None = None, poses: list | None = None,
                      weights: str | np.ndarray = "length", labels: tuple[str, str] = align.CLIP_LABELS) -> tuple[np.ndarray, np.ndarray]:
    """Pose features (fa ``(Fa, K)``, fb ``(Fb, K)``) float32 of two clips, comparable with each other.

    joints: see :func:`..motion.features.joint_indices`, chosen on A and found by
    name in B (TransitionError if B lacks one given by name; a named set
    keeps the joints both have), weighted alike: weights is
    "length" (A's bone lengths), "uniform" or one weight per joint; both
    clips' headings measured on one axis of their roots. poses: the clips'
    float32 armature-space matrices, when already computed. labels: what messages call A and B.
    """
    if poses is None:
        poses = [kinematics.clip_forward_kinematics(clip, dtype=np.float32) for clip in (clip_a, clip_b)]
    roots = [features.character_root(clip, pose) for clip, pose in zip((clip_a, clip_b), poses)]
    indices = features.joint_indices(clip_a, joints, roots[0])
    names = [clip_a.bone_names[index] for index in indices]
    if not isinstance(joints, (list, tuple)):  # a named set: A's still extras that B lacks (an importer's end bones) are not compared
        names = [name for name in names if name in clip_b.bone_names or not align.still(clip_a, clip_a.bone_index(name))]
    missing = [name for name in names if name not in clip_b.bone_names]
    if missing:
        raise TransitionError(f"{labels[1]} has no bone named {', '.join(repr(name) for name in missing[:5])} (bones are matched by name)")
    if isinstance(weights, str) and weights == "length":
        weights = features.bone_weights(clip_a)[[clip_a.bone_index(name) for name in names]]  # A's lengths for both, so they weigh alike
    # One heading axis for both, or their character frames could differ by a constant turn.
    axis = root_motion.heading_axis(np.concatenate([quat.from_matrix(pose[:, root, :3, :3]) for pose, root in zip(poses, roots)]))
    return tuple(features.pose_features(clip, names, weights, pose=pose, root=root, heading_axis=axis)
                 for clip, pose, root in zip((clip_a, clip_b), poses, roots))


def transition_candidates(clip_a: Clip, clip_b: Clip, region: str | tuple = "end_start", window_seconds: float = WINDOW_SECONDS,
                          limit: int = 8, contacts: bool = True, joints: str | list | None = None,
                          separation_seconds: float = SEPARATION_SECONDS, reach_seconds: float = REACH_SECONDS,
                          weights: str | np.ndarray = "length", poses: list | None = None,
                          labels: tuple[str, str] = align.CLIP_LABELS, features: tuple | None = None) -> list[Candidate]:
    """Where ``clip_a`` can hand over to ``clip_b``: up to ``limit`` candidates, lowest cost first.

    region: "end_start" (A's windows starting in its last ``reach_seconds``,
    B's in its first), "anywhere", or ``((a0, a1), (b0, b1))``: the clips'
    frame numbers where windows may start, inclusive. window_seconds: the
    stretch of both clips compared (see :mod:`.distance`). contacts: prefer
    pairs with the same feet planted (see the module's notes). joints: see
    :func:`matching_features`, as are weights and poses (the clips' float32
    armature-space matrices, when already computed) and features (their :func:`matching_features` with
    these joints and weights, when already computed). Candidates are local minima at least
    ``separation_seconds`` apart. TransitionError names what does not fit (frame
    rates, missing bones, a region outside a clip), calling the clips ``labels`` (A's, B's).
    """
    align.check_compatible(clip_a, clip_b, labels)
    window = max(1, int(round(window_seconds * clip_a.fps)))
    separation = max(1, int(round(separation_seconds * clip_a.fps)))
    (a0, a1), (b0, b1) = window_regions(clip_a, clip_b, region, window, reach_seconds, labels)

    if poses is None:
        poses = [kinematics.clip_forward_kinematics(clip, dtype=np.float32) for clip in (clip_a, clip_b)]
    fa, fb = matching_features(clip_a, clip_b, joints, poses, weights, labels) if features is None else features
    fa, fb = fa[a0:a1 + window], fb[b0:b1 + window]

    ankles = [clip_a.bone_names[ankle] for *_, ankle in leg_chains(clip_a)]
    planted = None
    if ankles:
        planted = [_planted_feet(clip, pose, ankles)[first:last + window]
                   for clip, pose, (first, last) in zip((clip_a, clip_b), poses, ((a0, a1), (b0, b1)))]
    ranked_a, ranked_b = fa, fb
    if contacts and planted is not None:
        # One column per foot: its squared difference is the penalty when the feet disagree.
        penalty = np.float32(np.sqrt(_mean_distance(fa, fb)))
        ranked_a, ranked_b = (np.concatenate([f, penalty * p.astype(np.float32)], axis=1) for f, p in zip((fa, fb), planted))
    pairs, costs = distance.best_pairs(ranked_a, ranked_b, limit, window, separation)

    steps = np.arange(window)
    candidates = []
    for (i, j), cost in zip(pairs, costs):  # the few candidates found
        pose_distance = float(((fa[i + steps] - fb[j + steps]) ** 2).sum(dtype=float))
        match = None if planted is None else bool(np.array_equal(planted[0][i + window // 2], planted[1][j + window // 2]))
        candidates.append(Candidate(int(clip_a.frames[a0 + i]), int(clip_b.frames[b0 + j]), float(cost), pose_distance, match))
    return candidates
