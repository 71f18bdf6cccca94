"""The pruned scan: a coarse pass bounds every tile of the windowed map from below, the exact scan runs only where a
candidate could still be kept.

The caller keeps a bounded set of candidates (the graph: the best few per
pair of clips, under a ceiling). Once a pair holds its share, a window pair
dearer than its dearest kept can never enter it, so a tile of the map whose
least distance is above that needs no exact scan. The bound: each window's
frames projected onto the features' first :data:`DIMS` principal axes, end
to end (an orthonormal projection never lengthens a difference), so one
product of ``window x DIMS + 2`` columns gives every windowed distance of
the projections at once, less float32's worst-case rounding of both scans
(per entry, from the window's squared norms); its least over each
:data:`TILE` x :data:`TILE` tile of window starts. Tiles run from the least
bound up, the kept candidates' limits refreshed as they come in. The
candidates kept are those of the exact scan over every block (the same
minima and the same choice) to float32's rounding of the costs. A tile's
product has another shape than a block's, and BLAS rounds a product's
entries by its shape, so the last bits may differ. On takes that do not
repeat each other that changes nothing (the shared clips give the graph of
a plain float64 map). Where windows repeat, their distances are float32's
rounding about 0, and which of those equal pairs is a local minimum or in
a pair's share is the rounding's choice: the benchmark's library, which
strings a few takes end to end again and again, keeps other windows of the
same cost to 1e-5 and a graph 0.1-2% another size.
"""

import itertools
from collections.abc import Callable

import numpy as np

from . import scan

TILE = 170  # window starts per tile side: 6 to a block (the exact scan of a tile adds a halo of 2 separations and a window)
DIMS = 4  # principal axes the coarse pass compares per frame (its product: window x DIMS + 2 columns)
REFRESH = 64  # tiles merged before the limits are worked out again
CHUNK = 4096  # tiles whose limits are looked up at once (each chunk with the latest)
BATCH = 32  # tiles per call of a local map (coarse blocks: a quarter of that): few ahead of the limits
CLUSTER_BATCH = 256  # tiles per task on a cluster (about 0.1 s of work): a task costs its scheduler and client a few ms
EPSILON = float(np.finfo(np.float32).eps)


def window_operands(right: np.ndarray, window: int, dims: int = DIMS) -> tuple[np.ndarray, np.ndarray]:
    """Operands ``(W, window dims + 2)`` float32 whose product at (i, j) bounds from below the windowed distance of window
    starts i and j as the exact scan computes it, for every window start W of the padded features ``right``.

    Each window is its frames projected onto the features' first ``dims``
    principal axes, end to end (the product is the windows' projected
    distance, no larger than their distance); less float32's worst-case
    rounding of both scans, per entry: a multiple of the window's squared
    norms. A window that reaches into padding is infinitely far.
    """
    width = right.shape[1] - 2
    features = right[:, :width]  # centred, padding rows zero
    # Any orthonormal axes make a bound; the principal ones make it tight (float32 products find them well enough).
    _, axes = np.linalg.eigh((features.T @ features).astype(float))
    points = features @ np.ascontiguousarray(axes[:, ::-1][:, :min(dims, width)], dtype=np.float32)
    starts = len(right) - window + 1
    windows = np.concatenate([points[t:t + starts] for t in range(window)], axis=1)
    padding = right[:, width + 1] >= scan.PAD_NORM / 2
    norms = np.where(padding, 0.0, right[:, width + 1])
    rounding = 2.0 * (width + windows.shape[1] + 4 + 2 * window) * EPSILON
    allowance = rounding * np.convolve(norms, np.ones(window), mode="valid")  # (starts,) the window's squared norms
    crossing = np.convolve(padding, np.ones(window), mode="valid") > 0
    lengths = np.where(crossing, scan.PAD_NORM, np.einsum("ik,ik->i", windows, windows) - allowance).astype(np.float32)
    ones = np.ones((starts, 1), dtype=np.float32)
    return (np.concatenate([-2.0 * windows, lengths[:, None], ones], axis=1),
            np.concatenate([windows, ones, lengths[:, None]], axis=1))


def tile_minima(shared: tuple, pair: tuple) -> np.ndarray:
    """The least lower bound in each tile of a block: ``(ceil(R / tile), ceil(C / tile))`` float32 for rows ``(r0, r1)``
    and columns ``(c0, c1)`` of window starts; shared = (left, right, tile) from :func:`window_operands`."""
    left, right, tile = shared
    (r0, r1), (c0, c1) = pair
    whole = (r1 - r0) // tile * tile  # rows in whole tiles: a reshaped minimum, far quicker than reduceat down the rows
    buffers = scan._buffers((r1 - r0) * (c1 - c0))
    grid = np.matmul(left[r0:r1], right[c0:c1].T, out=buffers[0][:(r1 - r0) * (c1 - c0)].reshape(r1 - r0, c1 - c0))
    rows = grid[:whole].reshape(whole // tile, tile, c1 - c0).min(axis=1)
    if whole < r1 - r0:
        rows = np.concatenate([rows, grid[whole:].min(axis=0, keepdims=True)])
    return np.minimum.reduceat(rows, np.arange(0, c1 - c0, tile), axis=1)


def _tiles(blocks, minima, first, tile):
    """Every tile (row index, column index, least bound) on or above the diagonal, from each block's tile minima."""
    rows, cols, least = [], [], []
    for ((r0, _), (c0, _)), grid in zip(blocks, minima):
        row, col = np.meshgrid((r0 - first) // tile + np.arange(grid.shape[0]), (c0 - first) // tile + np.arange(grid.shape[1]),
                               indexing="ij")
        upper = col >= row
        rows.append(row[upper].astype(np.int32))
        cols.append(col[upper].astype(np.int32))
        least.append(grid[upper])
    return np.concatenate(rows), np.concatenate(cols), np.concatenate(least)


def run_batch(shared: tuple, batch: list) -> list:
    """``[function(shared_of_function, item)]`` for a batch of items; shared = (function, its shared). Tiles and coarse blocks
    go to a cluster a batch per task: one task per tile would cost the scheduler more than the tile."""
    function, inner = shared
    return [function(inner, item) for item in batch]


def _batched(map_blocks, function, shared, items, size):
    """``function(shared, item)`` for each of ``items`` through ``map_blocks``, ``size`` items per call, in order."""
    batches = iter(lambda: list(itertools.islice(items, size)), [])
    for results in map_blocks(run_batch, (function, shared), batches):
        yield from results


def _spans(clip_of, first, stop, count, tile):
    """(first clip, last clip) of each tile row's window starts, ``(count,)`` each; -1 where a tile has padding only."""
    starts = first + np.arange(count) * tile
    return clip_of(starts), clip_of(np.minimum(starts + tile, stop) - 1)


def _chunk_limits(bound, spans, row, col):
    """The dearest cost a candidate of each tile could be kept at: the largest of ``bound`` over the clip pairs it spans
    (infinite for a tile across more than two clips)."""
    (low, high) = spans
    limit = np.full(len(row), -np.inf, dtype=np.float32)
    for a in (low[row], high[row]):
        for b in (low[col], high[col]):
            limit = np.maximum(limit, np.where((a >= 0) & (b >= 0), bound[np.maximum(a, 0), np.maximum(b, 0)], -np.inf))
    wide = (high[row] - low[row] > 1) | (high[col] - low[col] > 1)
    return np.where(wide, np.inf, limit)


def pruned_scan(left: np.ndarray, right: np.ndarray, window: int, separation: int, threshold: float, keep: Callable,
                limits: Callable, clip_of: Callable, map_blocks: Callable, blocks: list, progress: Callable | None = None,
                tile: int | None = None, batch: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`.scan.scan`'s candidates, the exact scan run only on the tiles where ``keep`` could keep one.

    blocks: the exact scan's ``[(rows, cols)]`` (their sides multiples of
    ``tile``, default :data:`TILE`, but the last). limits(i, j, costs) -> ``(C, C)``: given the
    candidates kept so far, the dearest cost a candidate of each pair of
    clips could be kept at (symmetric). clip_of(starts) -> clip index of
    window starts (-1 in padding before the first clip). map_blocks and
    progress as for :func:`.scan.scan` (progress counts each block twice:
    in the coarse pass, then as the share of the tiles looked at). batch: tiles per call of ``map_blocks``
    (default :data:`BATCH`; coarse blocks a quarter of that): the outcome does not depend on it.
    """
    tile, batch = TILE if tile is None else tile, BATCH if batch is None else batch
    first, stop = blocks[0][0][0], blocks[-1][1][1]
    if any((r0 - first) % tile or (c0 - first) % tile for (r0, _), (c0, _) in blocks):
        raise ValueError(f"the blocks must start on the grid of {tile}-start tiles")
    total = 2 * len(blocks)  # progress in blocks: the coarse pass, then the tiles (as a share of the blocks)
    minima = []
    for grid in _batched(map_blocks, tile_minima, (*window_operands(right, window), tile), iter(blocks), max(1, batch // 4)):
        minima.append(grid)
        if progress is not None:
            progress(len(minima), total)
    row, col, least = _tiles(blocks, minima, first, tile)
    count = (stop - first + tile - 1) // tile
    order = np.lexsort((col, row, least))  # the least bound first: the cheapest candidates fill each pair's share soonest
    row, col, least = row[order], col[order], least[order]
    del order
    spans = _spans(clip_of, first, stop, count, tile)
    empty = (np.empty(0, dtype=int), np.empty(0, dtype=int), np.empty(0, dtype=np.float32))
    state = {"kept": empty, "bound": limits(*empty), "seen": 0}

    def wanted():
        begin, size = 0, REFRESH
        while begin < len(least):
            part = slice(begin, begin + size)
            limit = _chunk_limits(state["bound"], spans, row[part], col[part])
            for k in begin + np.flatnonzero(least[part] <= limit):
                state["seen"] = k + 1
                r0, c0 = first + int(row[k]) * tile, first + int(col[k]) * tile
                yield (r0, min(r0 + tile, stop)), (c0, min(c0 + tile, stop))
            begin, size = begin + size, min(2 * size, CHUNK)  # small chunks first: the limits fall fastest at the start
        state["seen"] = len(least)

    found, pending = [], 0
    for found_tile in _batched(map_blocks, scan.scan_pair, (left, right, window, separation, threshold, keep), wanted(), batch):
        found.append(found_tile)
        pending += len(found_tile[2])
        # Merged in tile order; keep's choice is the same whatever the order. Less often as more are kept (each merge sorts them all).
        if len(found) >= REFRESH and pending >= len(state["kept"][2]) // 8:
            state["kept"] = keep(*(np.concatenate(parts) for parts in zip(state["kept"], *found)))
            state["bound"], found, pending = limits(*state["kept"]), [], 0
        if progress is not None:
            progress(len(blocks) + len(blocks) * state["seen"] // max(len(least), 1), total)
    if progress is not None:
        progress(total, total)
    return keep(*(np.concatenate(parts) for parts in zip(state["kept"], *found)))
