"""Synthetic BVH skeletons with known sizes (a biped and a dog, in metres) and a writer of them in any unit and pose."""

import numpy as np

from core.formats import bvh

CM, INCH, DM = 100.0, 1.0 / 0.0254, 10.0  # file units per metre
SIX = ("Xposition", "Yposition", "Zposition", "Zrotation", "Xrotation", "Yrotation")
_TURN = ("Zrotation", "Xrotation", "Yrotation")
#: A 1.78 m biped standing Y up, in metres: (name, parent, offset); End Sites apart.
BIPED = [("Hips", None, (0, 0.95, 0)),
         ("LeftUpLeg", "Hips", (0.1, -0.05, 0)), ("LeftLeg", "LeftUpLeg", (0, -0.42, 0)), ("LeftFoot", "LeftLeg", (0, -0.42, 0)),
         ("LeftToe", "LeftFoot", (0, -0.06, 0.12)),
         ("RightUpLeg", "Hips", (-0.1, -0.05, 0)), ("RightLeg", "RightUpLeg", (0, -0.42, 0)), ("RightFoot", "RightLeg", (0, -0.42, 0)),
         ("RightToe", "RightFoot", (0, -0.06, 0.12)),
         ("Spine", "Hips", (0, 0.1, 0)), ("Chest", "Spine", (0, 0.25, 0)), ("Neck", "Chest", (0, 0.2, 0)), ("Head", "Neck", (0, 0.1, 0)),
         ("LeftArm", "Chest", (0.2, 0.15, 0)), ("LeftForeArm", "LeftArm", (0.28, 0, 0)), ("LeftHand", "LeftForeArm", (0.25, 0, 0)),
         ("RightArm", "Chest", (-0.2, 0.15, 0)), ("RightForeArm", "RightArm", (-0.28, 0, 0)), ("RightHand", "RightForeArm", (-0.25, 0, 0))]
BIPED_ENDS = {"LeftToe": (0, 0, 0.05), "RightToe": (0, 0, 0.05), "Head": (0, 0.18, 0), "LeftHand": (0.1, 0, 0), "RightHand": (-0.1, 0, 0)}
#: A dog standing Y up, facing +Z, in metres: four legs, a neck and head ahead of the body, a tail.
DOG = [("Pelvis", None, (0, 0.6, 0)),
       ("LeftThigh", "Pelvis", (0.1, 0, 0)), ("LeftShin", "LeftThigh", (0, -0.3, 0)), ("LeftHindFoot", "LeftShin", (0, -0.3, 0)),
       ("RightThigh", "Pelvis", (-0.1, 0, 0)), ("RightShin", "RightThigh", (0, -0.3, 0)), ("RightHindFoot", "RightShin", (0, -0.3, 0)),
       ("Spine", "Pelvis", (0, 0, 0.3)), ("Chest", "Spine", (0, 0, 0.3)),
       ("LeftUpperArm", "Chest", (0.1, -0.05, 0)), ("LeftForearm", "LeftUpperArm", (0, -0.28, 0)), ("LeftPaw", "LeftForearm", (0, -0.27, 0)),
       ("RightUpperArm", "Chest", (-0.1, -0.05, 0)), ("RightForearm", "RightUpperArm", (0, -0.28, 0)),
       ("RightPaw", "RightForearm", (0, -0.27, 0)),
       ("Neck", "Chest", (0, 0.1, 0.15)), ("Head", "Neck", (0, 0.1, 0.1)), ("Tail", "Pelvis", (0, 0, -0.1)), ("Tail1", "Tail", (0, -0.05, -0.2))]
DOG_ENDS = {"Head": (0, 0, 0.15), "Tail1": (0, -0.05, -0.2), "LeftHindFoot": (0, 0, 0.05), "RightHindFoot": (0, 0, 0.05)}


def body_info(joints, ends, per_metre, turns=None, root_positions=None, frames=4):
    """A BvhInfo of ``joints`` (metres) in units of ``per_metre`` per metre; ``turns``: joint name -> (Z, X, Y) degrees
    (every frame, or ``(frames, 3)``), ``root_positions``: ``(frames, 3)`` metres (the root's OFFSET by default)."""
    names = [name for name, _, _ in joints]
    parents = np.array([names.index(parent) if parent else -1 for _, parent, _ in joints])
    offsets = np.array([offset for _, _, offset in joints], dtype=float) * per_metre
    channels = tuple(SIX if parent is None else _TURN for _, parent, _ in joints)
    motion = np.zeros((frames, sum(map(len, channels))))
    motion[:, :3] = offsets[0] if root_positions is None else np.asarray(root_positions) * per_metre
    column = 6
    for name, channel in zip(names[1:], channels[1:]):
        motion[:, column:column + 3] = (turns or {}).get(name, (0.0, 0.0, 0.0))
        column += len(channel)
    end_sites = {names.index(name): np.array(offset, dtype=float) * per_metre for name, offset in ends.items()}
    return bvh.parse_bvh(bvh.to_text(bvh.BvhInfo(tuple(names), parents, offsets, channels, end_sites, 1 / 30, motion)))


#: A deep crouch held through the whole take: thighs forward, knees bent, the back bent over.
CROUCH = {"LeftUpLeg": (0, -100, 0), "RightUpLeg": (0, -100, 0), "LeftLeg": (0, 120, 0), "RightLeg": (0, 120, 0),
          "Spine": (0, 40, 0), "Chest": (0, 30, 0)}


#: BIPED as another rig: hip joints of no length between the pelvis and the thighs, legs 20 degrees apart and 16 cm longer,
#: toes whose End Sites point down (a CMU-style conversion next to a game rig). Its pelvis stands at 1.11 m.
OTHER_RIG = [("Hips", None, (0, 1.11, 0)),
             ("LHipJoint", "Hips", (0, 0, 0)), ("LeftUpLeg", "LHipJoint", (0.1, -0.05, 0)), ("LeftLeg", "LeftUpLeg", (0.182, -0.5, 0)),
             ("LeftFoot", "LeftLeg", (0.182, -0.5, 0)), ("LeftToe", "LeftFoot", (0, -0.06, 0.12)),
             ("RHipJoint", "Hips", (0, 0, 0)), ("RightUpLeg", "RHipJoint", (-0.1, -0.05, 0)),
             ("RightLeg", "RightUpLeg", (-0.182, -0.5, 0)), ("RightFoot", "RightLeg", (-0.182, -0.5, 0)),
             ("RightToe", "RightFoot", (0, -0.06, 0.12))] + BIPED[9:]
OTHER_ENDS = dict(BIPED_ENDS, LeftToe=(0, -0.03, 0), RightToe=(0, -0.03, 0))


def walk(frames, fps, height):
    """``(turns, root_positions)`` for :func:`body_info`: a walk along +Z at 1.2 m/s, the pelvis at ``height`` metres,
    thighs, knees and arms swinging once a second."""
    phase = 2.0 * np.pi * np.arange(frames) / fps
    swing, bend = 25.0 * np.sin(phase), 20.0 + 20.0 * np.cos(phase)
    degrees = {"LeftUpLeg": swing, "RightUpLeg": -swing, "LeftLeg": bend, "RightLeg": 40.0 - bend, "LeftArm": -0.6 * swing,
               "RightArm": 0.6 * swing}
    turns = {name: np.stack([np.zeros(frames), value, np.zeros(frames)], axis=1) for name, value in degrees.items()}
    return turns, np.stack([np.zeros(frames), np.full(frames, height), 1.2 * np.arange(frames) / fps], axis=1)


#: Names as 3ds Max's Biped and Mixamo give them.
RENAMED = {"Hips": "mixamorig:Hips", "LeftUpLeg": "Bip01 L Thigh", "Spine": "mixamorig:Spine", "Head": "Bip01 Head",
           "LeftFoot": "Bip01 L Foot"}


def renamed_walk(frames=30):
    """A BvhInfo of BIPED walking (centimetres), its joints named as RENAMED says."""
    joints = [(RENAMED.get(name, name), RENAMED.get(parent, parent) if parent else None, offset) for name, parent, offset in BIPED]
    turns, root = walk(frames, 30, 0.95)
    return body_info(joints, {RENAMED.get(name, name): end for name, end in BIPED_ENDS.items()}, CM,
                     {RENAMED.get(name, name): value for name, value in turns.items()}, root, frames=frames)
