"""Make Loop: cut a range out of a clip and close it into a seamless cycle."""

import functools
from dataclasses import dataclass

import numpy as np

from ..errors import LoopError
from ..measure import grounding, verdict
from ..measure.seam import (clip_baseline, floored, largest_step_ratio as _largest_step_ratio, largest_steps, motion_share, seam_metrics,
                            SeamMetrics)
from ..motion import contacts, footlock, kinematics, quat, root as root_motion
from ..motion.clip import Clip
from . import stitch, travel

LOOP_MODES = ("CLAMP", "WRAP")
#: How far a loop's closing frame may be from its first and still repeat it: clip units (metres) and radians.
REPEAT_TOLERANCE = 1e-4
#: AUTO: seams that show this close (:func:`_shows`) are a tie, the earlier method kept:
#: a tenth of the clip's own, what its own measures vary by (verdict.SAME), is no preference. The methods' seams on one
#: walk differ by 0.01-0.05 and change that much from one frame rate to the next: with ties at 0.01 (the smaller velocity
#: jump deciding), CMU's 05_01 at 24, 30, 60, 120 and 240 fps kept Spring, Spring, Softfade, Softfade, Crossfade.
AUTO_TIE = verdict.SAME - 1.0
#: AUTO ranks a loop longer than four times this (seconds, or three times its longest blend) on this much of each end.
ENDS_SECONDS = 3.0
#: AUTO passes over a loop whose feet slide at the seam more than this times the take's median contact ...
SEAM_SKATING_LIMIT = 1.5
#: ... for one whose feet do not, seen at most this much more (seam visibility): a difference no one sees.
SKATING_MARGIN = 0.05


@dataclass(frozen=True)
class MethodTrial:
    """A method AUTO made the loop with, and that loop's seam as played (chained by the travel, the raw cut's yardstick)."""

    method: str
    seam: SeamMetrics


@dataclass
class LoopResult:
    clip: Clip  # the loop, CLAMP: last frame equals the first; WRAP: that duplicate dropped
    root: int  # index of the travelling root, -1 if the root loops in place
    root_mode: str  # TRAVEL, LOOP or IN_PLACE, as resolved
    before: SeamMetrics  # the raw cut
    after: SeamMetrics
    clip_mode: str = "CLAMP"  # the loop mode the clip was written for
    raw: Clip = None  # the raw cut (range start..end inclusive) in the space the loop was made in, for before/after pictures
    params: stitch.StitchParameters = None  # what the loop was made with, AUTO resolved to the method kept
    body: grounding.Grounding = None  # where the loop's body stands against the raw cut's floor and heights
    tried: tuple = ()  # AUTO: a MethodTrial per method made, in stitch.AUTO_METHODS order; () for a method given
    feet_locked: bool = True  # whether the legs were re-solved to keep planted feet still (AUTO drops it when it makes a pop)
    raw_posed: np.ndarray | None = None  # the raw cut's joint positions, when make_loop posed them already (AUTO's ranking)

    @property
    def length(self) -> int:
        """Loop length in frames (the cycle period)."""
        frames = self.clip.num_frames
        return frames - 1 if self.clip_mode == "CLAMP" else frames

    @property
    def method(self) -> str:
        """The method the loop was made with ("" when unknown)."""
        return self.params.method if self.params is not None else ""

    @functools.cached_property
    def joints(self) -> np.ndarray:
        """The loop's joint positions ``(F, B, 3)`` (clip units, float64), posed once for every measure of its whole length."""
        return kinematics.clip_joint_positions(self.clip)

    @functools.cached_property
    def raw_joints(self) -> np.ndarray:
        """The raw cut's joint positions ``(F, B, 3)``, likewise."""
        return self.raw_posed if self.raw_posed is not None else kinematics.clip_joint_positions(self.raw)


def _stitch_channels(x, q, dt, params, pre_x=None, pre_q=None):
    if params.method == "CROSSFADE":
        return stitch.crossfade_vectors(x, dt, params, pre_x), stitch.crossfade_rotations(q, dt, params, pre_q)
    return stitch.stitch_vectors(x, dt, params), stitch.stitch_rotations(q, dt, params)


def _resolve_root(clip, root_mode, root_bone):
    """(the moving root's index or None, the resolved root mode)."""
    if root_mode not in root_motion.ROOT_MODES:
        raise LoopError(f"unknown root mode '{root_mode}'")
    if root_bone:
        root = clip.bone_index(root_bone)
        moving = root_motion.location_travel(clip)[root] >= root_motion.MIN_TRAVEL
    else:
        root = root_motion.find_moving_root(clip)
        moving = root is not None
    if root_mode == "AUTO":
        root_mode = "TRAVEL" if moving else "LOOP"
    if root_mode in ("TRAVEL", "IN_PLACE") and not moving:
        raise LoopError(f"no bone travels (horizontally by {root_motion.MIN_TRAVEL:g} m or more) for root mode {root_mode}")
    return (root if moving else None), root_mode


def make_loop(clip: Clip, frame_start: float, frame_end: float, params: stitch.StitchParameters | None = None, root_mode: str = "AUTO",
              root_bone: str = "", loop_mode: str = "CLAMP", root_blend: float = 0.5, lock_feet: bool = True) -> LoopResult:
    """Close the frames ``frame_start..frame_end`` (inclusive) of ``clip`` into a loop.

    params: :class:`~.stitch.StitchParameters`, method AUTO by default: the
    loop is made with each of :data:`~.stitch.AUTO_METHODS` that fits the
    range, and the one whose seam shows least as played is kept (see
    :func:`kept_trial`; every one is in the result's ``tried``). root_mode:
    TRAVEL keeps the root's displacement and removes only its velocity
    mismatch in character space (root_blend seconds at each end); LOOP loops
    the root like any bone; IN_PLACE removes the steady horizontal travel
    first; AUTO picks TRAVEL for clips that move. root_bone: a bone name, or
    "" to find the moving root. loop_mode: CLAMP keeps the last frame equal
    to the first (Blender's convention), WRAP drops it for engines that wrap
    last-to-first. lock_feet: re-solve the legs so planted feet slide no
    more than in the raw clip (see :mod:`..motion.footlock`).
    """
    params = params or stitch.StitchParameters()
    if loop_mode not in LOOP_MODES:
        raise LoopError(f"unknown loop mode '{loop_mode}'")
    frames = clip.frames
    if frame_end <= frame_start:
        raise LoopError(f"loop range {frame_start:g}-{frame_end:g} is reversed or empty: the end must come after the start")
    if not (frames[0] <= frame_start < frame_end <= frames[-1]):
        raise LoopError(f"loop range {frame_start:g}-{frame_end:g} is not inside the clip's frames {frames[0]:g}-{frames[-1]:g}")
    first, last = int(frame_start - frames[0]), int(frame_end - frames[0])
    segment = clip.slice_frames(first, last + 1)
    params.check(segment.num_frames, clip.dt)
    moving_root, mode = _resolve_root(segment, root_mode, root_bone)
    root = moving_root if mode != "LOOP" else None
    travel_root = root if mode == "TRAVEL" else None
    reference = clip_baseline(segment)

    if mode == "IN_PLACE":
        global_root, _ = root_motion.root_frames(segment, root)
        segment = root_motion.with_root_global(segment, root, root_motion.remove_travel(global_root[:, :3, 3]), quat.from_matrix(global_root[:, :3, :3]))
    # The raw cut in the loop's own space: travel removed in place; otherwise chained by
    # its travel, so "before" measures the cut in the motion and not the walk back to the start.
    before = seam_metrics(segment, moving_root if mode != "IN_PLACE" else None, reference)

    candidates = params.candidates()
    trial = _ends(segment, params, root_blend) if len(candidates) > 1 else segment
    ranked_whole = trial is segment
    # AUTO weighs pops against the raw cut's steps: posed once, for the groundings and the report's measures too
    raw_joints = kinematics.clip_joint_positions(segment) if len(candidates) > 1 else None
    raw = segment if raw_joints is None else raw_joints
    # AUTO makes each method with the feet locked and without: the lock can make a pop the loop without it does not have.
    locks = (True, False) if params.method == "AUTO" and lock_feet else (lock_feet,)
    made, failure = [], None
    for candidate in candidates:  # one, or each AUTO method: a vectorized pass each
        try:
            candidate.check(segment.num_frames, clip.dt)
        except LoopError as error:  # AUTO: this method's own default timings do not fit the range; the next may
            failure = error
            continue
        free = _close(clip, trial, first, candidate, travel_root, root_blend, False)
        for lock in locks:
            looped = footlock.lock_feet(trial, free, travel_root) if lock and candidate.method != "NONE" else free
            made.append((candidate, looped, seam_metrics(looped, travel_root, reference),
                         grounding.of_clip(looped, None, (raw if ranked_whole else trial,)), lock))
    if not made:
        raise failure
    kept = _kept(made, clip if ranked_whole else trial, raw_joints, travel_root, before, None if ranked_whole else trial.num_frames // 2)
    chosen, looped, after, body, feet_locked = made[kept]
    if not ranked_whole:  # ranked on the ends: the kept method makes the whole loop
        looped = _close(clip, segment, first, chosen, travel_root, root_blend, feet_locked)
        after, body = seam_metrics(looped, travel_root, reference), grounding.of_clip(looped, None, (raw,))
    tried = tuple(MethodTrial(candidate.method, after if k == kept else seam) for k, (candidate, _, seam, _, lock) in enumerate(made)
                  if lock == feet_locked) if params.method == "AUTO" else ()
    if loop_mode == "WRAP":
        looped = looped.slice_frames(0, looped.num_frames - 1)
    return LoopResult(looped, root if root is not None else -1, mode, before, after, loop_mode, segment, chosen, body, tried,
                      feet_locked, raw_joints)


def _kept(made, take, raw_joints, travel_root, before, join=None):
    """Index of the loop AUTO keeps among ``made`` (method, loop, seam, body, feet locked): of those whose own verdict is
    the best any has (one that pops against the raw cut, whose joint positions are ``raw_joints``, leaves the floor or
    shows more than the raw cut's seam ``before`` never stands before one that does not), the one :func:`kept_trial`
    keeps. join: where a long loop's ends (see :func:`_ends`) meet, a step that is no frame's."""
    if len(made) == 1:
        return 0
    own = floored(largest_steps(raw_joints))
    pops = [(_largest_steps(looped, join) / np.maximum(own, 1e-9)).max() for _, looped, *_ in made]
    words = [verdict.WORDS.index(verdict.of_seam(seam.visibility, seam.velocity_jump_ratio, body.floor_offset, body.pelvis_offset,
                                                 step_ratio=pop, raw_visibility=before.visibility).word)
             for (_, _, seam, body, _), pop in zip(made, pops)]
    passing = [k for k, word in enumerate(words) if word == min(words)]
    skates = _skating_beyond_the_take(take, [made[k][1] for k in passing], travel_root) if len(passing) > 1 else None
    return passing[kept_trial([made[k][2] for k in passing], skates, [made[k][3].off for k in passing])]


def _largest_steps(clip, join):
    """Each joint's largest move between two of the ``clip``'s frames ``(B,)``, the step into frame ``join`` left out: as
    played, a CLAMP loop's largest step is one inside its cycle, its last frame being the next cycle's first."""
    steps = kinematics.lengths(np.diff(kinematics.clip_forward_kinematics(clip, dtype=np.float32, heads_only=True)[..., :3, 3], axis=0))
    return (np.delete(steps, join - 1, axis=0) if join else steps).max(axis=0)


def concerns(result: LoopResult, take: Clip) -> tuple[str, ...]:
    """What the verdict on a loop of ``take`` says beyond its seam: feet off the floor, a loop that barely moves."""
    return verdict.floor_concerns(grounding.floor_height(result.clip, result.joints)) + verdict.motion_concerns(loop_motion_share(result, take))


def loop_motion_share(result: LoopResult, take: Clip) -> float:
    """:func:`..measure.seam.motion_share` of the loop against ``take``, the loop's joints posed once."""
    return motion_share(result.clip, take, result.joints)


def largest_step_ratio(result: LoopResult) -> float:
    """:func:`..measure.seam.largest_step_ratio` of a CLAMP loop against its raw cut, as it travels."""
    travel_root = result.root if result.root_mode == "TRAVEL" and result.root >= 0 else None
    return _largest_step_ratio(result.clip, result.raw, travel_root, (result.joints, result.raw_joints))


def _ends(segment, params, root_blend):
    """The loop's first and last frames alone, when it is long: every method changes only frames near the seam, so AUTO
    ranks them there (a long take costs about one method's time); the whole ``segment`` when it is short."""
    reach = int(round(max(ENDS_SECONDS, 3.0 * max(params.blend_start, params.blend_end, root_blend)) * segment.fps))
    if segment.num_frames <= 4 * reach:
        return segment
    ends = segment.take_frames(np.r_[0:reach, segment.num_frames - reach:segment.num_frames])
    return ends.with_channels(frames=segment.frames[0] + np.arange(ends.num_frames, dtype=float))


def _skating_beyond_the_take(clip, loops, travel_root):
    """Per loop: whether its feet slide at the seam more than :data:`SEAM_SKATING_LIMIT` times the take's contacts do and,
    unless every loop's do, more than verdict.SAME times the least any loop's do (a slide within a tenth of another's is no
    difference: the Bandai walk's Cubic slid 0.057 m against Spring's 0.052 at 30 fps, its limit 0.055, and gave way)."""
    seams = [contacts.seam_skating(looped, travel_root) for looped in loops]
    if max(seams) <= 1e-3:  # none slides past the least limit the take could set: its own contacts (all of it posed) need not be measured
        return [False] * len(loops)
    limit = SEAM_SKATING_LIMIT * contacts.median_skating(clip) + 1e-3  # once: on a long take it poses every frame's feet
    beyond = [seam > limit for seam in seams]
    return [over and (all(beyond) or seam > verdict.SAME * min(seams)) for over, seam in zip(beyond, seams)]


def kept_trial(seams: list[SeamMetrics], skates: list[bool] | None = None, off: list[bool] | None = None) -> int:
    """Index of the loop AUTO keeps among ``seams`` (:class:`SeamMetrics`, simplest method first).

    off: per loop, whether its body leaves the cut's floor or heights (see
    :mod:`..measure.grounding`); one that does gives way to any that does not and
    plays no more visibly than an ordinary frame (or within
    :data:`SKATING_MARGIN` of the least visible, when none does). skates:
    per loop, whether its feet slide at the seam beyond the take's own; of
    those left, within SKATING_MARGIN of the least visible (never past an
    ordinary frame for it), those that do not are kept first. Then the
    one that shows least (:func:`_shows`); of those within :data:`AUTO_TIE`
    of it, the first: a near tie is no preference, and its winner changes
    with the frame rate.
    """
    kept = list(range(len(seams)))
    for blemished, ordinary in ((off, True), (skates, False)):
        kept = _unblemished(seams, kept, blemished, ordinary) if blemished else kept
    least = min(_shows(seams[index]) for index in kept)
    return next(index for index in kept if _shows(seams[index]) <= least + AUTO_TIE)


def _shows(seam):
    """How much a seam shows: its visibility, or its velocity jump over the clip's own where that is larger and beyond 1 (a
    jump no larger than the clip's own frames' is no more than they show: the Xia walk's Cubic jumped 0.55-0.74, its
    Softfade 0.34-0.44, at one frame rate or another a difference past any tie)."""
    return max(seam.visibility, seam.velocity_jump_ratio if seam.velocity_jump_ratio > 1.0 else 0.0)


def _unblemished(seams, kept, blemished, ordinary):
    """The loops of ``kept`` without a ``blemished`` mark that are as good to the eye as the least visible: within
    :data:`SKATING_MARGIN` of it, never past an ordinary frame when it is not (``ordinary``: any up to an ordinary frame
    counts); ``kept`` when there are none."""
    least = min(seams[index].visibility for index in kept)
    reach = least + SKATING_MARGIN if least > 1.0 else max(min(least + SKATING_MARGIN, 1.0), 1.0 if ordinary else 0.0)
    return [index for index in kept if not blemished[index] and seams[index].visibility <= reach] or kept


def methods_text(result: LoopResult) -> str:
    """The methods AUTO tried, each with its seam visibility as played, the kept one first: 'Crossfade 0.69 (Cubic 1.06, ...)'; '' for a method given."""
    if not result.tried:
        return ""
    label = {trial.method: stitch.METHOD_INFO[trial.method][0] for trial in result.tried}
    others = ", ".join(f"{label[trial.method]} {trial.seam.visibility:.2f}" for trial in result.tried if trial.method != result.method)
    return f"{label[result.method]} {result.after.visibility:.2f}" + (f" ({others})" if others else "")


def _close(clip, segment, first, params, travel_root, root_blend, lock_feet):
    """The raw cut ``segment`` (frames ``first``.. of ``clip``) closed by one method: the CLAMP loop clip."""
    dt = clip.dt
    preroll = slice(max(0, first - segment.num_frames), first)
    use_preroll = params.crossfade_preroll and first > 0
    location, rotation = _stitch_channels(
        segment.location, segment.rotation, dt, params, clip.location[preroll] if use_preroll else None, clip.rotation[preroll] if use_preroll else None
    )
    scale = stitch.stitch_vectors(segment.scale, dt, params) if params.method != "CROSSFADE" else stitch.crossfade_vectors(segment.scale, dt, params)
    looped = segment.with_channels(location=location, rotation=rotation, scale=scale)

    if travel_root is not None and params.method != "NONE":
        global_root, _ = root_motion.root_frames(segment, travel_root)
        stitch.check_time("root_blend", root_blend, segment.num_frames, dt)
        w_start, w_end = stitch.velocity_shapes(segment.num_frames, dt, root_blend, root_blend)
        position, orientation = travel.loop_travel(
            global_root[:, :3, 3],
            quat.from_matrix(global_root[:, :3, :3]),
            dt,
            lambda z: _stitch_channels(z, quat.identity((len(z),)), dt, params)[0],
            lambda q: _stitch_channels(np.zeros((len(q), 3)), q, dt, params)[1],
            (w_start, w_end),
            params.effective_ratio(),
        )
        # The root's children were stitched against its old channels; only the root itself is replaced
        # (in place: the stitched arrays are this function's own).
        looped.location[:, travel_root] = segment.location[:, travel_root]
        looped.rotation[:, travel_root] = segment.rotation[:, travel_root]
        looped = root_motion.with_root_global(looped, travel_root, position, orientation)

    if lock_feet and params.method != "NONE":
        looped = footlock.lock_feet(segment, looped, travel_root)
    return looped


def non_repeating_bones(clip: Clip, tolerance: float = REPEAT_TOLERANCE) -> list[str]:
    """Names of the bones whose last frame does not repeat the first (location, rotation or scale): an exact loop has none.

    A WRAP file may drop a loop's closing frame only when this is empty: a
    travelling root's last sample is the travel of one cycle. tolerance: clip
    units for location and scale, radians for rotation.
    """
    moved = np.linalg.norm(clip.location[-1] - clip.location[0], axis=-1) > tolerance
    relative = quat.multiply(quat.inverse(clip.rotation[0]), clip.rotation[-1])
    turned = np.linalg.norm(quat.to_rotation_vector(relative), axis=-1) > tolerance
    scaled = np.abs(clip.scale[-1] - clip.scale[0]).max(axis=-1) > tolerance
    return [name for name, differs in zip(clip.bone_names, moved | turned | scaled) if differs]
