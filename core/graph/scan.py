"""The library scan: every window pair's distance, in blocks, keeping only local minima under a threshold.

The clips' pose features are laid end to end with ``pad`` rows of zeros
between them (and at both ends) whose squared norm is :data:`PAD_NORM`: a
window that crosses from one clip into the next, or past either end, sums at
least that much, so one product over the whole library never matches
across a cut. The map of windowed distances ``W[i, j]`` (see
:mod:`..transition.distance`) is symmetric, so only blocks on or above the
diagonal are computed. Each block is one float32 product of the block's
frames with a halo of ``separation`` window starts on every side; in its
row-major buffer a diagonal step is a flat shift by one row plus one
column, so the window sums and the local-minimum test are contiguous
one-dimensional passes (the last columns of each row read the next row:
they are halo or ignored). Memory: a few block buffers per worker and the
candidates the caller keeps, whatever the library's size.
"""

import functools
import itertools
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor

import numpy as np

BLOCK = 1020  # window starts per block side: a multiple of 6 (0.2 s at 30 fps) so halos stay small; 4 MB float32 per buffer
PAD_NORM = 1e18  # squared norm of the padding rows: far above any pose distance, far below float32's range when summed
MERGE_EVERY = 1 << 16  # candidates gathered from blocks before the caller's rule thins them again
WORKERS = 2  # threads, each on whole blocks: numpy's passes run on one core each, the product on BLAS's threads

_local = threading.local()  # each thread's work buffers (see _buffers)


def padded_features(features: list[np.ndarray], pad: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The clips' features ``[(F_c, K)]`` laid end to end with ``pad`` padding rows around each, as product operands.

    Returns (left ``(N, K + 2)``, right ``(N, K + 2)`` float32 whose row
    products are the squared distances of the rows, starts ``(C,)`` row of
    each clip's first frame). Features are centred on their mean first (the
    distances do not change, float32 keeps more digits).
    """
    mean = np.concatenate(features).mean(axis=0, dtype=float)
    total = sum(len(f) for f in features) + pad * (len(features) + 1)
    width = features[0].shape[1]
    left = np.zeros((total, width + 2), dtype=np.float32)
    right = np.zeros((total, width + 2), dtype=np.float32)
    starts = np.zeros(len(features), dtype=int)
    row = pad
    for index, f in enumerate(features):
        centred = (f - mean).astype(np.float32)
        left[row:row + len(f), :width] = -2.0 * centred
        right[row:row + len(f), :width] = centred
        norms = np.einsum("ik,ik->i", centred, centred)
        left[row:row + len(f), width], right[row:row + len(f), width + 1] = norms, norms
        starts[index] = row
        row += len(f) + pad
    is_pad = np.ones(total, dtype=bool)
    for start, f in zip(starts, features):
        is_pad[start:start + len(f)] = False
    left[is_pad, width] = right[is_pad, width + 1] = PAD_NORM
    left[:, width + 1] = right[:, width] = 1.0
    return left, right, starts


def _buffers(size):
    """This thread's three float32 work buffers of at least ``size`` entries, kept from block to block (fresh arrays for
    every pass would cost a page fault per 4 kB of each)."""
    held = getattr(_local, "buffers", None)
    if held is None or len(held[0]) < size:
        held = _local.buffers = [np.empty(size, dtype=np.float32) for _ in range(3)]
    return held


def _free(buffers, *used):
    """The first of ``buffers`` that none of the arrays ``used`` is a view of."""
    return next(b for b in buffers if not any(u is b or u.base is b for u in used if u is not None))


def _window_sums(flat, stride, window, buffers):
    """``y[k] = sum_t flat[k + t (stride + 1)]`` for t < window: sums down the diagonals of a row-major ``(R, stride)`` array.

    Sums over spans that double (1, 2, 4 ... frames) are added for the
    binary digits of ``window`` (as in :mod:`..transition.distance`), each a
    contiguous pass into whichever of the three ``buffers`` (``flat`` a
    view of one of them) holds neither operand; ``y`` is
    ``(window - 1) (stride + 1)`` entries shorter.
    """
    step = stride + 1
    total, offset, span, remaining = None, 0, 1, window
    while remaining:
        if remaining & 1:
            piece = flat[offset * step:]
            if total is None:
                total = piece
            else:
                size = min(len(total), len(piece))
                total = np.add(total[:size], piece[:size], out=_free(buffers, total, flat)[:size])
            offset += span
        remaining >>= 1
        if remaining:
            size = len(flat) - span * step
            flat = np.add(flat[:size], flat[span * step:], out=_free(buffers, total, flat)[:size])  # each entry sums 2 span frames
            span *= 2
    return total


def _sliding_min(flat, shift, size, buffers, keep):
    """``y[k] = min(flat[k + t shift])`` for t < size (the last ``(size - 1) shift`` entries dropped), in log2(size) passes,
    each into one of ``buffers`` that holds neither its operand nor ``keep``."""
    span = 1
    while 2 * span <= size:
        length = len(flat) - span * shift
        flat = np.minimum(flat[:length], flat[span * shift:], out=_free(buffers, flat, keep)[:length])
        span *= 2
    rest = size - span
    if not rest:
        return flat
    length = len(flat) - rest * shift
    return np.minimum(flat[:length], flat[rest * shift:], out=_free(buffers, flat, keep)[:length])


def scan_block(left: np.ndarray, right: np.ndarray, rows: tuple[int, int], cols: tuple[int, int], window: int, separation: int,
               threshold: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Local minima under ``threshold`` of the windowed map over window starts ``rows = (r0, r1)`` x ``cols = (c0, c1)``.

    A local minimum is no higher than any entry within ``separation`` starts
    in both directions. The rows and columns of the product reach
    ``separation`` starts beyond the block on each side (the callers keep
    them inside the padded features). Returns (i ``(P,)``, j ``(P,)`` window
    starts, costs ``(P,)`` float32); minima are more than ``separation``
    apart, so P is at most the block's area over ``(separation + 1)^2``.
    Costs are clamped at 0: float32 sums of identical windows round to a
    few 1e-8 either side of it. Every pass writes into this thread's
    buffers (:func:`_buffers`): the product, the window sums and the
    neighbourhood minima take three of the product's size in all.
    """
    (r0, r1), (c0, c1) = rows, cols
    s = separation
    a = left[r0 - s:r1 + s + window - 1]
    b = right[c0 - s:c1 + s + window - 1]
    width = len(b)
    buffers = _buffers(len(a) * width)
    product = buffers[0][:len(a) * width]
    np.matmul(a, b.T, out=product.reshape(len(a), width))
    sums = _window_sums(product, width, window, buffers)
    neighbourhood = _sliding_min(_sliding_min(sums, 1, 2 * s + 1, buffers, sums), width, 2 * s + 1, buffers, sums)
    # Centres: entry (i + s, j + s) of the halo, for block rows i < r1 - r0 and columns j < c1 - c0.
    count = (r1 - r0 - 1) * width + (c1 - c0)
    centre = sums[s * width + s:s * width + s + count]
    found = np.flatnonzero(centre <= neighbourhood[:count])
    found = found[centre[found] <= threshold]  # a few per (separation + 1)^2 entries: cheaper than a pass over the block
    i, j = np.divmod(found, width)
    inside = j < c1 - c0  # the other columns wrapped into the next row
    # A distance is never negative: identical windows (the same take twice) sum to -1e-8 or so in float32.
    return i[inside] + r0, j[inside] + c0, np.maximum(centre[found[inside]], np.float32(0.0))


def block_ranges(first: int, stop: int, block: int = BLOCK) -> list[tuple[int, int]]:
    """``[(start, stop)]`` of the blocks covering window starts ``first .. stop - 1``."""
    return [(start, min(start + block, stop)) for start in range(first, stop, block)]


def block_pairs(length: int, window: int, separation: int, block: int = BLOCK) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """``[(rows, cols)]`` of the blocks on or above the diagonal of the windowed map of ``length`` padded feature rows, row by row."""
    ranges = block_ranges(separation, length - window + 1 - separation, block)
    return [(rows, cols) for index, rows in enumerate(ranges) for cols in ranges[index:]]


def scan_pair(shared: tuple, pair: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One block's minima as the caller keeps them: ``keep(*scan_block(...))``; shared = (left, right, window, separation,
    threshold, keep), pair = (rows, cols). A module-level function of picklable arguments, so a cluster can run it."""
    left, right, window, separation, threshold, keep = shared
    return keep(*scan_block(left, right, *pair, window, separation, threshold))


def threaded_map(function: Callable, shared: tuple, items: Iterable, workers: int = WORKERS) -> Iterator:
    """``function(shared, item)`` for each item, in the items' order, on ``workers`` threads, a few in flight at a time (memory)."""
    items = iter(items)
    with ThreadPoolExecutor(max(1, workers)) as pool:
        while chunk := list(itertools.islice(items, 8 * max(1, workers))):
            yield from pool.map(functools.partial(function, shared), chunk)


def scan(left: np.ndarray, right: np.ndarray, window: int, separation: int, threshold: float, keep: Callable,
         progress: Callable | None = None, block: int = BLOCK, workers: int = WORKERS,
         map_blocks: Callable | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every block on or above the diagonal of the library's windowed map: its local minima under ``threshold``.

    Window starts run over ``separation .. N - window - separation`` of the
    padded features (see :func:`padded_features`). keep(i, j, costs) ->
    (i, j, costs): applied to each block's minima, and to all kept so far
    (in block order) whenever they pass :data:`MERGE_EVERY`: what it keeps
    bounds the memory. progress(done, total): called
    after each block, from the calling thread. map_blocks(function, shared,
    pairs): an iterator of ``function(shared, pair)`` in the pairs' order
    (default :func:`threaded_map` on ``workers`` threads; a cluster's map
    sends ``shared`` once). Returns (i, j, costs) as ``keep`` last left
    them; pairs below the diagonal of diagonal blocks are there too
    (``keep`` drops them).
    """
    pairs = block_pairs(len(left), window, separation, block)
    total = len(pairs)
    kept, pending = [], 0
    if map_blocks is None:
        map_blocks = functools.partial(threaded_map, workers=workers)
    # Merged in block order, so the outcome never depends on timing or on where the blocks ran.
    for done, found in enumerate(map_blocks(scan_pair, (left, right, window, separation, threshold, keep), pairs), 1):
        kept.append(found)
        pending += len(found[2])
        if pending > MERGE_EVERY:
            kept, pending = [keep(*(np.concatenate(parts) for parts in zip(*kept)))], 0
        if progress is not None:
            progress(done, total)
    if not kept:
        return np.empty(0, dtype=int), np.empty(0, dtype=int), np.empty(0, dtype=np.float32)
    return keep(*(np.concatenate(parts) for parts in zip(*kept)))
