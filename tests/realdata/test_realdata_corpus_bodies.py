"""Units, up axes and transitions across the corpus of real files (tests/CORPUS.md), numpy only: every biped reads as an
adult whatever its unit, one subject's takes read alike, and a transition between two exporters' rigs stays on the floor."""

import functools

import numpy as np
import pytest

from core.formats import bvh, bvh_clip
from core.formats.bvh import body
from core.transition import make
from helpers import CORPUS, NO_CORPUS

pytestmark = pytest.mark.skipif(NO_CORPUS is not None, reason=str(NO_CORPUS))

#: The Xia style takes: one subject in several styles.
XIA = ("dme_xia_angry_13_000.bvh", "dme_xia_depressed_13_000.bvh", "dme_xia_neutral_01_000.bvh", "dme_xia_old_13_000.bvh",
       "dme_xia_sexy_01_000.bvh", "dme_xia_strutting_01_000.bvh")


@functools.lru_cache(maxsize=None)
def _read(name):
    return bvh.read_bvh(CORPUS / name)


def test_every_biped_reads_as_an_adult_and_every_file_has_an_up_axis():
    statures = {}
    for path in sorted(CORPUS.glob("*.bvh")):
        info = _read(path.name)
        up = bvh.up_axis(info)  # never "no clear up axis"
        choice = bvh.guess_scale(info, up)
        found = body.body(info)
        if found is not None and found.biped:
            statures[path.name] = found.size * choice.scale
    assert len(statures) >= 25, sorted(statures)
    assert all(1.4 <= height <= 2.1 for height in statures.values()), statures


def test_one_subjects_takes_read_alike_whatever_they_do():
    # The Xia takes share one skeleton: an old man's stoop or a strut read 1.32-1.45 m by their posed extent.
    heights = {name: bvh.standing_height(_read(name)) * bvh.guess_scale(_read(name)).scale for name in XIA}
    assert np.ptp(list(heights.values())) < 1e-9 and 1.5 <= heights[XIA[0]] <= 1.7, heights


def test_pymo_to_xia_stays_on_the_floor():
    # Xia's rig has hip joints between pelvis and thighs that PyMO's lacks: the legs pointed up, the feet 1.41 m off.
    clips = []
    for name in ("pymo_AV_8Walk.bvh", "dme_xia_neutral_01_000.bvh"):
        info = _read(name)
        up = bvh.up_axis(info)
        clips.append(bvh_clip.clip_from_bvh(info, bvh.guess_scale(info, up).scale, up))
    made = make.make_transition(*clips, method="INERTIALIZE", length=0.3)  # the point chosen: 1.41 m off the floor before
    assert made.metrics.floor_offset < 0.05 and made.metrics.grounded and made.metrics.visibility < 1.2, made.metrics.summary()
