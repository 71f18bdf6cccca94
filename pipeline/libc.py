"""The C library's calls the command line makes on Linux: a worker's death with its parent, and how much freed memory the
process keeps. Elsewhere (or on a C library without them) they are not made."""

import contextlib
import ctypes
import os
import sys

#: Freed memory glibc's malloc keeps for the next arrays rather than handing it back to the kernel (its mmap and trim
#: thresholds). A long take's passes allocate and free arrays of megabytes thousands of times, and memory taken again
#: from the kernel costs a page fault for every 4 kB: a 200,000-frame BVH's motion parsed in 2.6 s, 1.7 s with it kept
#: (system time 2.5 -> 0.7 s), the whole loop of it in 0.74-0.82x the time for 2-6% more peak memory.
KEPT_FREE_BYTES = 1 << 30
#: The largest mmap threshold some glibc releases accept (HEAP_MAX_SIZE / 2 on 64 bits): where a gigabyte is refused.
_MOST_SOME_GLIBC_TAKE = 32 << 20
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # mallopt's parameters (malloc.h)


def function(name: str):
    """The C library's function ``name`` (Linux), or None."""
    if not sys.platform.startswith("linux"):
        return None
    with contextlib.suppress(OSError, AttributeError):
        return getattr(ctypes.CDLL(None), name)
    return None


def _is_glibc() -> bool:
    try:
        return (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc")
    except (AttributeError, ValueError, OSError):  # no confstr (Windows), or no such name (macOS, musl)
        return False


def keep_freed_memory() -> None:
    """Let glibc's malloc keep up to :data:`KEPT_FREE_BYTES` of freed memory for reuse; no other C library is asked.

    Every array under the mmap threshold comes from the heap and goes back to it; the trim threshold is set only once
    the mmap threshold is taken (setting either stops glibc moving them itself, and a threshold left at its 128 kB start
    would map every larger array afresh)."""
    mallopt = function("mallopt") if _is_glibc() else None
    if mallopt is None:
        return
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    if mallopt(_M_MMAP_THRESHOLD, KEPT_FREE_BYTES) or mallopt(_M_MMAP_THRESHOLD, _MOST_SOME_GLIBC_TAKE):
        mallopt(_M_TRIM_THRESHOLD, KEPT_FREE_BYTES)
