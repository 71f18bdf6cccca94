"""Transitions between clips: matching poses, aligning, blending and measuring them."""
