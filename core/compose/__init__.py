"""Composition: many clips into one continuous (loopable) performance, each junction a transition."""

from .sequence import ComposedTransition, Composition, Junction, Piece, Segment, compose, junction_candidates, junction_count

__all__ = ["ComposedTransition", "Composition", "Junction", "Piece", "Segment", "compose", "junction_candidates", "junction_count"]
