"""Writing Acclaim files: a skeleton as ASF text (numbers exact) and a clip's motion as AMC text (6 decimals of degrees and file units)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator

import numpy as np

from ...motion.clip import Clip
from .amc import AmcMotion
from .asf import ROTATIONS, AsfSkeleton
from .clip import motion_from_clip

_FRAMES_PER_CHUNK = 2048


def _number(value):
    return repr(float(value))  # the shortest text that reads back exactly


def asf_text(skeleton: AsfSkeleton) -> str:
    """ASF text of ``skeleton``: its units (angles written in degrees), root, bones in its order and hierarchy."""
    out = ["# ASF written by Loopsmith", f":version {skeleton.version}", f":name {skeleton.name or 'skeleton'}", ":units",
           f"  mass {_number(skeleton.mass)}", f"  length {_number(skeleton.length_unit)}", "  angle deg"]
    if skeleton.documentation:
        out += [":documentation"] + [f"  {line}" for line in skeleton.documentation]
    out += [":root", f"   order {' '.join(dof.upper() for dof in skeleton.dofs[0])}", f"   axis {skeleton.axis_orders[0]}",
            f"   position {' '.join(map(_number, skeleton.position))}", f"   orientation {' '.join(map(_number, np.degrees(skeleton.axes[0])))}",
            ":bonedata"]
    for bone in range(1, len(skeleton.names)):
        out += _bone_text(skeleton, bone)
    out += [":hierarchy", "  begin"]
    for parent, name in enumerate(skeleton.names):
        children = [skeleton.names[child] for child in np.flatnonzero(skeleton.parents == parent)]
        if children:
            out.append(f"    {name} {' '.join(children)}")
    return "\n".join(out + ["  end", ""])


def _bone_text(skeleton, bone):
    ident = skeleton.ids[bone] if len(skeleton.ids) > bone and skeleton.ids[bone] is not None else bone
    dofs = skeleton.dofs[bone]
    out = ["  begin", f"     id {ident}", f"     name {skeleton.names[bone]}", f"     direction {' '.join(map(_number, skeleton.directions[bone]))}",
           f"     length {_number(skeleton.lengths[bone])}",
           f"     axis {' '.join(map(_number, np.degrees(skeleton.axes[bone])))} {skeleton.axis_orders[bone]}"]
    if dofs:
        out.append(f"    dof {' '.join(dofs)}")
        limits = skeleton.limits[bone] * np.array([180.0 / np.pi if dof in ROTATIONS else 1.0 for dof in dofs])[:, None]
        pairs = [f"({_number(low)} {_number(high)})" for low, high in limits]
        out += [f"    limits {pairs[0]}"] + [f"           {pair}" for pair in pairs[1:]]
    return out + ["  end"]


def write_asf(path: str | os.PathLike, skeleton: AsfSkeleton) -> None:
    """Write :func:`asf_text` of ``skeleton`` to ``path``, flushed to disk."""
    _write(path, [asf_text(skeleton)])


def amc_chunks(motion: AmcMotion, skeleton: AsfSkeleton, asf_name: str | None = None,
               progress: Callable[[float], None] | None = None) -> Iterator[str]:
    """AMC text of ``motion`` (``skeleton``'s layout) as consecutive strings: the header, then a couple of thousand frames at a time.

    Every bone with dofs on every frame (``:FULLY-SPECIFIED``), in the
    skeleton's order; angles in degrees, translations in file units, 6
    decimals. asf_name: the skeleton file named in the first line.
    """
    yield f"#!OML:ASF {asf_name or os.path.basename(str(skeleton.path or 'skeleton.asf'))}\n:FULLY-SPECIFIED\n:DEGREES\n"
    columns = skeleton.columns
    written = [b for b, dofs in enumerate(skeleton.dofs) if dofs]
    frame = "%d\n" + "".join(f"{skeleton.names[b]} {' '.join(['%.6f'] * len(skeleton.dofs[b]))}\n" for b in written)
    order = np.concatenate([np.arange(columns[b], columns[b + 1]) for b in written]).astype(int) if written else np.zeros(0, dtype=int)
    angles = np.concatenate([[dof in ROTATIONS for dof in dofs] for dofs in skeleton.dofs]).astype(bool) if written else np.zeros(0, dtype=bool)
    factor = np.where(angles, 180.0 / np.pi, 1.0)[order]
    total = motion.frame_count
    for start in range(0, total, _FRAMES_PER_CHUNK):
        stop = min(start + _FRAMES_PER_CHUNK, total)
        rows = np.concatenate([motion.frames[start:stop, None].astype(float), motion.values[start:stop][:, order] * factor], axis=1)
        yield (frame * (stop - start)) % tuple(rows.ravel().tolist())
        if progress is not None:
            progress(stop / total)


def amc_text(clip: Clip, skeleton: AsfSkeleton, scale: float | None = None) -> str:
    """AMC text of ``clip``'s motion on ``skeleton`` (see :func:`write_amc`)."""
    return "".join(amc_chunks(motion_from_clip(clip, skeleton, scale), skeleton))


def write_amc(path: str | os.PathLike, clip: Clip, skeleton: AsfSkeleton, scale: float | None = None, asf_name: str | None = None,
              progress: Callable[[float], None] | None = None) -> None:
    """Write ``clip``'s motion on ``skeleton`` as an AMC at ``path``, a piece at a time, flushed to disk.

    scale: metres per file unit (the skeleton's by default). asf_name: the
    skeleton file named in the header. AcclaimError where the skeleton's dofs
    cannot hold the motion (see :func:`.clip.motion_from_clip`).
    """
    _write(path, amc_chunks(motion_from_clip(clip, skeleton, scale), skeleton, asf_name, progress))


def _write(path, pieces):
    """Write text pieces to ``path``, flushed to disk: a full disk raises OSError here rather than leaving a file that looks whole."""
    with open(path, "w", encoding="utf-8", newline="\n") as file:
        for piece in pieces:
            file.write(piece)
        file.flush()
        os.fsync(file.fileno())

