"""A path drawn in SVG read as points on the ground: commands absolute and relative, Beziers on their curve, Y turned, the
scale applied, and what it does not read refused in one line."""

import numpy as np
import pytest

from core.errors import GraphError
from core.formats import svg_path


def test_lines_moves_and_closing_absolute_and_relative():
    square = svg_path.path_points("M 10,20 L 30 20 l 0,10 H 10 z")
    assert np.allclose(square, [[10, 20], [30, 20], [30, 30], [10, 30], [10, 20]])
    assert np.allclose(svg_path.path_points("m1 2 3 4 5 6 v-1 h2"), [[1, 2], [4, 6], [9, 12], [9, 11], [11, 11]])


def test_beziers_are_sampled_on_their_curve():
    cubic = svg_path.path_points("M0 0 C 0 10 10 10 10 0")
    assert len(cubic) == 1 + svg_path.SAMPLES and np.allclose(cubic[-1], [10, 0])
    middle = cubic[svg_path.SAMPLES // 2]  # t = 0.5: (0 + 3 * 0 + 3 * 10 + 10) / 8, (0 + 30 + 30 + 0) / 8
    assert np.allclose(middle, [5.0, 7.5])
    quadratic = svg_path.path_points("M0 0 q 5 10 10 0")
    assert np.allclose(quadratic[svg_path.SAMPLES // 2], [5.0, 5.0]) and np.allclose(quadratic[-1], [10, 0])


def test_the_file_is_read_scaled_with_y_turned_up(tmp_path):
    drawing = tmp_path / "path.svg"
    drawing.write_text('<svg xmlns="http://www.w3.org/2000/svg"><g><path d="M0 0 H300 V-100"/></g></svg>')
    assert np.allclose(svg_path.read_svg_path(drawing, 0.01), [[0, 0], [3, 0], [3, 1]])


@pytest.mark.parametrize("content, said", [
    ('<svg xmlns="http://www.w3.org/2000/svg"><path d="M0 0 A 5 5 0 0 1 10 0"/></svg>', "uses 'A'"),
    ('<svg xmlns="http://www.w3.org/2000/svg"><path transform="scale(2)" d="M0 0 L1 1"/></svg>', "has a transform"),
    ('<svg xmlns="http://www.w3.org/2000/svg"><rect width="3"/></svg>', "no <path> element"),
    ('<svg xmlns="http://www.w3.org/2000/svg"><path d="M0 0 L1 x"/></svg>', "not a path command or a number"),
    ('<svg xmlns="http://www.w3.org/2000/svg"><path d=""/></svg>', "has no data"),
    ('<svg><path d="M0 0"', "not SVG"),
])
def test_what_it_does_not_read_is_one_line(tmp_path, content, said):
    drawing = tmp_path / "bad.svg"
    drawing.write_text(content)
    with pytest.raises(GraphError, match=said) as caught:
        svg_path.read_svg_path(drawing, 0.01)
    assert "\n" not in str(caught.value)
