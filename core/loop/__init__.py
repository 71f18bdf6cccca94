"""Looping: find where a clip repeats (:mod:`.detect`), close the cut seamlessly (:mod:`.stitch`, the root's travel in
:mod:`.travel`), one call for both (:func:`.make.make_loop`), and the loop's preview curves (:mod:`.preview`)."""
