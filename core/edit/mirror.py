"""Mirror a clip left to right: the take as it would have been performed mirrored.

Armature space is Blender's (Z up); the mirror plane is the armature's X = 0
(Blender's symmetry plane), so the world trajectory is mirrored too. Each
bone's motion moves onto its partner (``Arm.L`` onto ``Arm.R``, centre bones
onto themselves).

In armature space a bone's pose is a frame ``W_b`` (rotation with the rest
orientation in it) at a position ``p_b``. The mirrored pose puts the partner
at ``S p_b`` with the frame ``S W_b T_b``, where ``S = diag(-1, 1, 1)`` and
``T_b`` is an improper orthogonal 3x3 fitted once from the rest pose so that
the partner's rest offsets to its children map onto the bone's. The fit needs
no symmetric rest (real mocap rests rarely are: the Bandai one points left
bones along +X and right ones along -X); ``T`` of a partner is the transpose
of its bone's, so mirroring twice gives the original back to float precision.
In local channels this is a constant change of basis per bone, applied to
every frame at once.
"""

import re

import numpy as np

from ..errors import EditError
from ..measure.edit import EditResult, joint_positions
from ..motion import kinematics, quat
from ..motion.clip import Clip

#: The reflection across the armature's X = 0 plane.
MIRROR = np.diag([-1.0, 1.0, 1.0])
#: Relative size under which a fit's directions count as tied, left open by the rest offsets.
_TIE = 1e-9
#: A mirrored component counts as fed by an input component above this weight.
_COUPLING = 1e-6
_MINUS_MIRROR = np.array([0.0, 1.0, 0.0, 0.0])  # -S = diag(1, -1, -1): half a turn about X

_SUFFIX = re.compile(r"^(.*[._\- ])([LlRr])(\.\d+)?$")  # Arm.L, arm_l, Arm-R, Arm.L.001
_PREFIX = re.compile(r"^([LlRr])([._\- ].*)$")  # L_Arm, r.arm
_INFIX = re.compile(r"^(.*[._\- ])([LlRr])([._\- ].*)$")  # Toes_L_end (the FBX exporter's leaf bones), arm.L.twist
# A capital L or R before a capitalised word (CMU's LHipJoint, LThumb): a side only when the other side's bone exists, as
# LowerBack (no capital after the L) and a lone RFoot are centre bones.
_CAPITAL = re.compile(r"^([LR])([A-Z][a-z].*)$")
# Left/Right anywhere (LeftUpLeg, mixamorig:LeftArm); lower or upper case only as a word start (hand_left, LEFT_ARM).
_WORD = re.compile(r"Left|Right|(?<![A-Za-z])(?:left|right|LEFT|RIGHT)")
_OTHER_SIDE = {"L": "R", "R": "L", "l": "r", "r": "l", "Left": "Right", "Right": "Left",
               "left": "right", "right": "left", "LEFT": "RIGHT", "RIGHT": "LEFT"}


def _other_side(name, names):
    """The name with its side marker swapped, or None for a name without one (``names``: the skeleton's, for a capital L or R)."""
    match = _SUFFIX.match(name)
    if match:
        return match[1] + _OTHER_SIDE[match[2]] + (match[3] or "")
    match = _PREFIX.match(name)
    if match:
        return _OTHER_SIDE[match[1]] + match[2]
    match = _INFIX.match(name)
    if match:
        return match[1] + _OTHER_SIDE[match[2]] + match[3]
    match = _WORD.search(name)
    if match:
        return name[:match.start()] + _OTHER_SIDE[match[0]] + name[match.end():]
    match = _CAPITAL.match(name)
    if match and _OTHER_SIDE[match[1]] + match[2] in names:
        return _OTHER_SIDE[match[1]] + match[2]
    return None


def mirror_pairs(bone_names: tuple) -> dict[str, str]:
    """Each bone's name mapped to its partner's, itself for a centre bone.

    Side markers: ``.L/.R``, ``_L/_R``, ``-L/-R`` and ``.l/.r``... suffixes
    (a ``.001`` after them is kept), ``L_``/``R_`` prefixes, ``L``/``R`` between
    words (``Bip01 L Thigh``), ``Left``/``Right`` anywhere in the name
    (``LeftUpLeg``, ``mixamorig:LeftArm``, ``hand_left``), and a capital ``L``/``R``
    before a capitalised word when the other side's bone exists (CMU's ``LHipJoint``/``RHipJoint``).
    EditError if a bone with a side marker has no partner, or if there is no pair at all.
    """
    names = set(bone_names)
    pairs = {}
    for name in bone_names:
        partner = _other_side(name, names)
        if partner is not None and partner not in names:
            raise EditError(f"bone '{name}' has no partner '{partner}' to mirror onto")
        pairs[name] = name if partner is None else partner
    if all(name == partner for name, partner in pairs.items()):
        raise EditError("the skeleton has no left/right bone pairs to mirror "
                        "(names such as 'Arm.L'/'Arm.R', 'arm_l'/'arm_r' or 'LeftArm'/'RightArm')")
    return pairs


def _partner_indices(clip, pairs):
    """Partner index ``(B,)`` of every bone; EditError unless partners pair up and hang from partners."""
    names = clip.bone_names
    unknown = sorted((set(pairs) | set(pairs.values())) - set(names))
    if unknown:
        raise EditError(f"the mirror pairs name bone '{unknown[0]}', which the armature does not have")
    pairs = {**{other: name for name, other in pairs.items()}, **pairs}  # a pair given one way holds both ways
    partner = np.array([names.index(pairs.get(name, name)) for name in names])
    for bone, other in enumerate(partner):
        if partner[other] != bone:
            raise EditError(f"bone '{names[bone]}' mirrors onto '{names[other]}', which mirrors onto '{names[partner[other]]}'")
        parent, other_parent = clip.parents[bone], clip.parents[other]
        if (parent < 0) != (other_parent < 0) or (parent >= 0 and partner[parent] != other_parent):
            raise EditError(_unpaired_parents(names, partner, bone, other, parent, other_parent))
    return partner


def _unpaired_parents(names, partner, bone, other, parent, other_parent):
    """The message for partners ``bone`` and ``other`` whose parents (indices, -1 for none) are no pair: what is wrong and what fixes it."""
    hang = [f"'{names[index]}'" if index >= 0 else "no parent" for index in (parent, other_parent)]
    if parent >= 0 and other_parent >= 0:
        wrong = f"which are not left/right partners ({hang[0]} mirrors onto '{names[partner[parent]]}')"
    else:
        wrong = "and a mirror needs both to be roots or both to hang from partners"
    return (f"bones '{names[bone]}' and '{names[other]}' are partners but hang from {hang[0]} and {hang[1]}, {wrong}: "
            "name the sides of the bones above them ('Hip.L'/'Hip.R', 'Hip_l'/'Hip_r', 'LeftHip'/'RightHip', 'LHip'/'RHip')")


def _offset_pairs(relative, children, partner, bone):
    """The rest offsets ``u, v (n, 3)`` a bone's fit maps: each child's partner's offset in the partner's frame onto the child's in the bone's.

    A bone whose children all sit at its head (or that has none) maps its own Y axis (the tail's) instead.
    """
    u = np.array([relative[partner[child], :3, 3] for child in children[bone]]).reshape(-1, 3)
    v = np.array([relative[child, :3, 3] for child in children[bone]]).reshape(-1, 3)
    if not np.any(np.linalg.norm(u, axis=1) * np.linalg.norm(v, axis=1) > 0.0):
        axis = np.array([[0.0, 1.0, 0.0]])
        return axis, axis
    return u, v


def _turn(a, b):
    """The rotation matrix ``(3, 3)`` turning unit ``a`` onto unit ``b`` the shortest way (half a turn about some axis across ``b`` when opposite)."""
    if np.dot(a, b) > -0.5:
        return quat.to_matrix(quat.between(a, b))
    across = np.cross(b, np.eye(3)[np.argmin(np.abs(b))])
    return (2.0 * np.outer(across, across) / np.dot(across, across) - np.eye(3)) @ _turn(a, -b)


def _pair_fit(u, v, prior):
    """Improper orthogonal T ``(3, 3)`` taking ``u (n, 3)`` onto ``v (n, 3)`` best (Kabsch with det -1).

    Offsets along one direction only (one child, or the tail) leave the turn
    about it open: then ``prior`` turned the least way that maps it.
    """
    left, sizes, right = np.linalg.svd(v.T @ u)
    if sizes[1] > _TIE * sizes[0]:
        return left @ np.diag([1.0, 1.0, -np.linalg.det(left @ right)]) @ right
    return _turn(prior @ right[0], left[:, 0]) @ prior


def _centre_fit(u, v, prior_normal):
    """Unit normal ``n (3,)`` of the reflection ``I - 2 n n^T`` taking ``u (n, 3)`` onto ``v (n, 3)`` best.

    A centre bone is its own partner, so its T must be symmetric: mirroring
    it twice is T squared. Maximizing ``sum v . T u`` is minimizing ``n^T K n``;
    where several directions tie (a single child) ``prior_normal (3,)`` picks among them.
    """
    outer = v.T @ u
    values, vectors = np.linalg.eigh(0.5 * (outer + outer.T))
    ties = vectors[:, values <= values[0] + _TIE * np.abs(values).max()]
    normal = ties @ (ties.T @ prior_normal)
    return normal / np.linalg.norm(normal) if np.linalg.norm(normal) > _TIE else vectors[:, 0]


def _bone_mirrors(clip, partner):
    """Per source bone b: T ``(B, 3, 3)``, and the local change of basis onto its partner as quaternions ``qa, qb (B, 4)``, matrix ``Q (B, 3, 3)`` and root offset ``c (B, 3)``.

    The partner's local channels are ``rotation' = qa * rotation * qb``,
    ``location' = Q location + c`` (c only for root bones: where the rest head
    is off the mirror plane), ``scale'_j = sum_k T_kj^2 scale_k``. In matrices
    ``-Q = R_partner^T (-P) R_b`` with R the rest rotations relative to the
    parents and P the parent's T^T (S for a root), and qb is -T: both proper.
    """
    bones = clip.num_bones
    relative = kinematics.rest_relative(clip.parents, clip.rest)
    relative_rotation = quat.from_matrix(relative[:, :3, :3])  # orthonormal, so bases invert exactly
    rest_frames = clip.rest[:, :3, :3] / np.linalg.norm(clip.rest[:, :3, :3], axis=1, keepdims=True)
    children = [np.flatnonzero(clip.parents == bone) for bone in range(bones)]
    t = np.empty((bones, 3, 3))
    qa, qb, offset = np.empty((bones, 4)), np.empty((bones, 4)), np.zeros((bones, 3))
    for bone in range(bones):  # parents first: a bone's basis needs its parent's T
        other = partner[bone]
        if other < bone:  # the pair was fitted from the partner: the exact inverse
            t[bone], qa[bone], qb[bone] = t[other].T, quat.inverse(qa[other]), quat.inverse(qb[other])
            offset[bone] = quat.rotate(qa[bone], offset[other])  # the inverse's -Q^T c, with Q^T = -matrix(qa^-1)
            continue
        u, v = _offset_pairs(relative, children, partner, bone)
        parent = clip.parents[bone]
        if other == bone:
            # The prior: the parent's mirror plane carried into the bone (the armature's for a root). The
            # rest frame's own X would not do: a folded rest like Bandai's points the spine along X.
            prior = rest_frames[bone][0] if parent < 0 else quat.rotate(quat.inverse(relative_rotation[bone]), qb[parent, 1:])
            normal = _centre_fit(u, v, prior)
            t[bone] = np.eye(3) - 2.0 * np.outer(normal, normal)
            qb[bone] = np.concatenate([[0.0], normal])  # -T: half a turn about the normal, exactly
        else:
            t[bone] = _pair_fit(u, v, rest_frames[bone].T @ MIRROR @ rest_frames[other])  # prior: the rest frames' plain mirror
            qb[bone] = quat.from_matrix(-t[bone])
        minus_p = _MINUS_MIRROR if parent < 0 else quat.inverse(qb[parent])
        qa[bone] = quat.multiply(quat.multiply(quat.inverse(relative_rotation[other]), minus_p), relative_rotation[bone])
        # Of the two signs, the one that keeps a symmetric rest's identity channels at +identity.
        if quat.dot(qa[bone], quat.inverse(qb[bone])) < 0.0:
            qa[bone] = -qa[bone]
        if parent < 0:
            offset[bone] = np.linalg.solve(relative[other], np.append(MIRROR @ relative[bone, :3, 3], 1.0))[:3]
    q_matrix = -quat.to_matrix(qa)  # orthogonal exactly, so a pair's bases invert each other
    return t, qa, qb, q_matrix, offset


def mirror(clip: Clip, pairs: dict[str, str] | None = None) -> EditResult:
    """The clip mirrored across the armature's X = 0 plane, left and right swapped.

    pairs: bone name -> partner name (:func:`mirror_pairs` of the clip's
    bones by default; a pair given one way holds both ways, bones left out
    are centre bones). Mirrored twice, a clip comes back to float precision.
    Only channels the clip animates are mirrored; the others (and each bone's
    rotation mode) stay as they were, and the animated masks move to the
    partners. Non-uniform scale is mirrored exactly where a bone's fit maps
    its axes onto its partner's (any symmetric rig), otherwise as each axis'
    share of the scales it mixes.

    numbers: ``position_error``, the largest distance over frames and joints
    between a mirrored joint and the exact mirror of its partner, in the
    clip's length unit (0 for a symmetric rest; a rest that is not leaves its
    asymmetry there, as the bones keep their own lengths); ``pairs``, the
    number of left/right pairs. EditError for bad pairs (see :func:`mirror_pairs`).
    """
    pairs = mirror_pairs(clip.bone_names) if pairs is None else pairs
    partner = _partner_indices(clip, pairs)
    t, qa, qb, q_matrix, offset = _bone_mirrors(clip, partner)

    # A mirrored component is animated when an animated input component feeds it.
    feeds_location = np.abs(q_matrix) > _COUPLING  # [b, out j, in k]
    feeds_scale = np.abs(t).transpose(0, 2, 1) > _COUPLING  # scale'_j mixes scale_k by T_kj^2
    animated_location = np.any(feeds_location & clip.animated_location[:, None, :], axis=2)[partner]
    animated_scale = np.any(feeds_scale & clip.animated_scale[:, None, :], axis=2)[partner]
    animated_rotation = clip.animated_rotation[partner]

    # Each bone's values go to its partner; partner is its own inverse, so indexing by it moves them.
    rotation = quat.multiply(quat.multiply(qa, clip.rotation), qb)[:, partner]
    location = (np.einsum("bjk,fbk->fbj", q_matrix, clip.location) + offset)[:, partner]
    scale = np.einsum("bkj,fbk->fbj", t * t, clip.scale)[:, partner]
    kept_location, kept_rotation, kept_scale = clip.location[:, partner], clip.rotation[:, partner], clip.scale[:, partner]
    mirrored = clip.with_channels(
        location=np.where(animated_location, location, kept_location),
        rotation=np.where(animated_rotation[:, None], rotation, kept_rotation),
        scale=np.where(animated_scale, scale, kept_scale),
        animated_location=animated_location,
        animated_rotation=animated_rotation,
        animated_scale=animated_scale,
    )
    error = np.linalg.norm(joint_positions(mirrored)[:, partner] - joint_positions(clip) @ MIRROR, axis=-1)
    pair_count = int(np.count_nonzero(partner > np.arange(clip.num_bones)))
    return EditResult(mirrored, "mirror", {"position_error": float(error.max()), "pairs": pair_count}, keeps_loop=True)
