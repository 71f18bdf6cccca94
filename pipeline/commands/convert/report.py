"""convert's report: the entry of one conversion, its row in the summaries and its section of the page (the input
playing, each output and how far its joints lie from the input's once read back)."""

import html
import pathlib

from ....core.measure import verdict as verdicts
from ... import entries
from ...contract import Row
from ...html import parts, player

#: Metres a joint of an output read back may lie from the input's and still be the same motion: rounding in the files
#: (6 decimals of a BVH or AMC, single precision in FBX and glTF) stays far below it.
TOLERANCE = 1e-4


def convert_entry(path, armature, targets, clip):
    """The report of converting the file at ``path`` (its ``clip``, as read) into ``targets``; judged by :func:`judge`."""
    return {"file": str(path), "armature": armature, "status": "ok", "outputs": [str(target) for target in targets],
            "frames": int(clip.num_frames), "fps": entries.frame_rate(clip.fps), "seconds": 0.0,
            "formats": [pathlib.Path(target).suffix.lstrip(".").lower() for target in targets],
            "figure": player.figure_json(clip)}


def judge(entry, differences):
    """Add each output's read-back ``differences`` (output path -> what :func:`.job._difference` found) and the verdict:
    GOOD while every output's joints lie within :data:`TOLERANCE` of the input's on every frame it holds."""
    measures, concerns = [], []
    for output, found in differences.items():
        name = pathlib.Path(output).name
        if "problem" in found:
            concerns.append(f"{name}: {found['problem']}")
            continue
        measures.append(verdicts.Measure(f"{name}: largest joint difference read back", found["joints_m"], TOLERANCE, "m"))
        if found["frames"] != entry["frames"]:
            concerns.append(f"{name} holds {found['frames']} frames, the input {entry['frames']}")
    entry["read_back"] = {output: {key: round(value, 9) if isinstance(value, float) else value for key, value in found.items()}
                          for output, found in differences.items()}
    return entries.judged(entry, verdicts.judge(measures, concerns=tuple(concerns)))


def _largest(entry):
    found = [value["joints_m"] for value in entry.get("read_back", {}).values() if "joints_m" in value]
    return max(found) if found else None


def _frames(entry):
    """``'120 frames at 30 fps'``; a single pose is ``'1 frame (a pose) at 24 fps'``."""
    count = "1 frame (a pose)" if entry["frames"] == 1 else f"{entry['frames']} frames"
    return f"{count} at {entry['fps']:g} fps"


def row(entry):
    largest = _largest(entry)
    numbers = "-" if largest is None else f"joints within {largest:.2g} m of the input"
    return Row(_frames(entry), "to " + ", ".join(entry.get("formats", [])), numbers)


def section(entry):
    """The conversion's section: facts, verdict, the input playing, each output's difference read back."""
    cells = []
    for output, found in entry.get("read_back", {}).items():
        measured = html.escape(found["problem"]) if "problem" in found else \
            f"{found['joints_m']:.3g} m over {found['bones']} joints, {found['frames']} frames"
        cells.append(f"<tr><td><code>{html.escape(output)}</code></td><td>{measured}</td></tr>")
    skeleton = f" Skeleton: <code>{html.escape(entry['asf_output'])}</code>." if entry.get("asf_output") else ""
    figures = [parts.figure("The motion converted", player.player_html(entry["figure"], width=560))] if entry.get("figure") else []
    return (f"<p>Converted {_frames(entry)}. {parts.outputs_html(entry)}{skeleton}</p>"
            f'{parts.verdict_html(entry)}<div class="figures">{"".join(figures)}</div>'
            f'<table class="summary numbers"><thead><tr><th>output</th><th>largest joint difference read back</th></tr></thead>'
            f'<tbody>{"".join(cells)}</tbody></table>')
