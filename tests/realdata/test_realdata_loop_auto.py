"""Best Measured on long loops: ranked on the loop's ends, it keeps the method the whole loops rank first (core only)."""

import pytest

from core.formats import bvh, bvh_clip
from core.loop import make as loop, stitch



@pytest.mark.parametrize("last", [900, 1901])
def test_a_long_loop_ranked_on_its_ends_keeps_what_the_whole_loops_rank_first(mocap_dir, last):
    info = bvh.read_bvh(mocap_dir / "dataset-1_dance-short_normal_001.bvh")
    up = bvh.up_axis(info)
    clip = bvh_clip.clip_from_bvh(info, bvh.suggest_scale(info, up)[0], up)
    chosen = loop.make_loop(clip, 1, last)
    assert loop._ends(clip.slice_frames(0, last), chosen.params, 0.5).num_frames < last  # ranked on the ends
    whole = {method: loop.make_loop(clip, 1, last, stitch.StitchParameters(method=method), lock_feet=chosen.feet_locked)
             for method in stitch.AUTO_METHODS}  # with the feet locked or not as the loop kept
    least = min(made.after.visibility for made in whole.values())
    assert chosen.after.visibility <= least + loop.SKATING_MARGIN, {m: round(made.after.visibility, 3) for m, made in whole.items()}
    kept = whole[chosen.method]
    assert chosen.after.visibility == kept.after.visibility and (chosen.clip.rotation == kept.clip.rotation).all()  # made whole
    assert next(t.seam for t in chosen.tried if t.method == chosen.method) is chosen.after
