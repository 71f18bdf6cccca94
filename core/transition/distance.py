"""Distance maps between the frames of two clips, in blocks of matrix products.

``D[i, j] = ||a_i - b_j||^2`` for feature rows ``a_i`` of clip A and ``b_j``
of clip B (see :mod:`..motion.features`), windowed Kovar-style:
``W[i, j] = sum_k D[i + k, j + k]`` over ``window`` frames, so velocities
and timing count, not single poses. Each block is one float32 product of
features extended so that it yields ``||a||^2 + ||b||^2 - 2 a.b`` directly;
no array larger than a block (or the map the caller asks for) is made.
"""

import numpy as np

from ..errors import TransitionError

BLOCK = 512  # frames per side of a block: 1 MB of float32, so the windowed sums stay in cache


def _extended(fa, fb):
    """float32 ``(Fa, K + 2)``, ``(Fb, K + 2)`` whose products are the squared distances.

    The features are centred first (distances do not change), which keeps
    the squared norms small and float32 accurate; on their common mean
    rounded to whole units, so that whole-number features stay exact.
    """
    fa, fb = np.asarray(fa), np.asarray(fb)
    if fa.ndim != 2 or fb.ndim != 2 or fa.shape[1] != fb.shape[1]:
        raise ValueError(f"features must be (Fa, K) and (Fb, K) arrays, got {fa.shape} and {fb.shape}")
    mean = np.round((fa.sum(axis=0, dtype=float) + fb.sum(axis=0, dtype=float)) / (len(fa) + len(fb)))
    a, b = (fa - mean).astype(np.float32), (fb - mean).astype(np.float32)
    a_ext = np.empty((len(a), a.shape[1] + 2), dtype=np.float32)
    b_ext = np.empty((len(b), b.shape[1] + 2), dtype=np.float32)
    a_ext[:, :-2], b_ext[:, :-2] = -2.0 * a, b
    a_ext[:, -2], b_ext[:, -2] = np.einsum("ik,ik->i", a, a), 1.0
    a_ext[:, -1], b_ext[:, -1] = 1.0, np.einsum("ik,ik->i", b, b)
    return a_ext, b_ext


def _map_size(fa, fb, window):
    if window < 1 or int(window) != window:
        raise TransitionError(f"the matching window must be a whole number of frames >= 1, got {window}")
    if min(len(fa), len(fb)) < window:
        raise TransitionError(f"a clip of {min(len(fa), len(fb))} frames is shorter than the matching window of {window} frames")
    return len(fa) - window + 1, len(fb) - window + 1


def _block(a_ext, b_ext, rows, cols, window):
    """Windowed distances ``(r1 - r0, c1 - c0)`` float32 for map rows ``rows = (r0, r1)`` and columns ``cols``."""
    (r0, r1), (c0, c1) = rows, cols
    d = a_ext[r0:r1 + window - 1] @ b_ext[c0:c1 + window - 1].T
    np.maximum(d, 0.0, out=d)  # rounding can leave tiny negatives
    return _diagonal_sums(d, window)


def _diagonal_sums(d, window):
    """``s[i, j] = sum_k d[i + k, j + k]`` for k < window, ``(R - window + 1, C - window + 1)``.

    Sums over spans that double (1, 2, 4 ... frames) are added for the
    binary digits of ``window``: about 2 log2(window) passes, not window.
    """
    if window == 1:
        return d
    h, w = d.shape[0] - window + 1, d.shape[1] - window + 1
    total, offset, span, remaining = None, 0, 1, window
    while remaining:
        if remaining & 1:
            piece = d[offset:offset + h, offset:offset + w]
            total = piece.copy() if total is None else np.add(total, piece, out=total)
            offset += span
        remaining >>= 1
        if remaining:
            d = d[:-span, :-span] + d[span:, span:]  # now each entry sums 2 span frames
            span *= 2
    return total


def distance_map(fa: np.ndarray, fb: np.ndarray, window: int = 1, block: int = BLOCK) -> np.ndarray:
    """Windowed squared feature distances ``(Fa - window + 1, Fb - window + 1)`` float32.

    fa ``(Fa, K)``, fb ``(Fb, K)``: pose features; window: frames summed
    along the diagonal; block: frames per side of the blocks computed at a
    time (memory beyond the result: a few blocks; without a window, rows of
    the result are filled ``block`` at a time by the product itself).
    """
    n, m = _map_size(fa, fb, window)
    a_ext, b_ext = _extended(fa, fb)
    out = np.empty((n, m), dtype=np.float32)
    if window == 1:  # rows of the result are written by the product itself, no block copies
        for r0 in range(0, n, block):
            rows = out[r0:r0 + block]
            np.matmul(a_ext[r0:r0 + block], b_ext.T, out=rows)
            np.maximum(rows, 0.0, out=rows)
        return out
    for r0 in range(0, n, block):
        for c0 in range(0, m, block):
            rows, cols = (r0, min(r0 + block, n)), (c0, min(c0 + block, m))
            out[r0:rows[1], c0:cols[1]] = _block(a_ext, b_ext, rows, cols, window)
    return out


def _sliding_min(x, size):
    """``y[i] = min(x[i : i + size])`` along the first axis (size - 1 rows fewer), in log2(size) passes."""
    span = 1
    while 2 * span <= size:
        x = np.minimum(x[:-span], x[span:])
        span *= 2
    rest = size - span
    return np.minimum(x[:-rest], x[rest:]) if rest else x


def best_pairs(fa: np.ndarray, fb: np.ndarray, count: int = 8, window: int = 1, separation: int = 1,
               block: int = BLOCK) -> tuple[np.ndarray, np.ndarray]:
    """The ``count`` lowest local minima of the windowed distance map, computed block by block.

    A local minimum is no higher than any entry within ``separation`` frames
    in both directions (a ``(2 s + 1)^2`` square), so two of them are more
    than ``separation`` frames apart (ties too: the lower-ranked one is
    dropped). Never more than a few blocks are in memory, whatever the map's
    size. Returns (pairs ``(P, 2)`` int map indices (i, j), costs ``(P,)``
    float32), lowest cost first, ``P <= count``.
    """
    n, m = _map_size(fa, fb, window)
    a_ext, b_ext = _extended(fa, fb)
    s = int(separation)
    found_pairs, found_costs = [], []
    for r0 in range(0, n, block):
        for c0 in range(0, m, block):
            r1, c1 = min(r0 + block, n), min(c0 + block, m)
            # The block with a halo of s frames; +inf beyond the map's edges.
            halo = np.full((r1 - r0 + 2 * s, c1 - c0 + 2 * s), np.inf, dtype=np.float32)
            rows, cols = (max(r0 - s, 0), min(r1 + s, n)), (max(c0 - s, 0), min(c1 + s, m))
            halo[rows[0] - r0 + s:rows[1] - r0 + s, cols[0] - c0 + s:cols[1] - c0 + s] = _block(a_ext, b_ext, rows, cols, window)
            neighbourhood = _sliding_min(_sliding_min(halo, 2 * s + 1).T, 2 * s + 1).T
            inner = halo[s:s + r1 - r0, s:s + c1 - c0]
            i, j = np.nonzero(inner <= neighbourhood)
            costs = inner[i, j]
            # Minima within s of each other are ties, and one chosen minimum drops at most
            # (2 s + 1)^2 - 1 of them: this many per block keep the result exact.
            keep = np.argsort(costs, kind="stable")[:count * (2 * s + 1) ** 2]
            found_pairs.append(np.stack([i[keep] + r0, j[keep] + c0], axis=1))
            found_costs.append(costs[keep])
    pairs, costs = np.concatenate(found_pairs), np.concatenate(found_costs)
    order = np.lexsort((pairs[:, 1], pairs[:, 0], costs))
    chosen = []
    for index in order:  # over candidate minima, not frames: a handful
        if all(np.abs(pairs[index] - pairs[other]).max() > s for other in chosen):
            chosen.append(index)
            if len(chosen) == count:
                break
    return pairs[chosen].reshape(-1, 2), costs[chosen]
