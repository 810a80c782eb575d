"""Freed tensor memory goes back to the system at once, so a demo's resident memory is its live data.

glibc serves a block of 128 KiB or more with a mapping of its own, returned to the system when freed; but
it raises that threshold to the size of each such block freed, and then serves blocks of that size from
the heap, which keeps them resident once freed. A demo's first run at a large size then peaked at up to
1.75x its live data (112 MiB, where its memory estimate, the live tensors, says 64 MiB), so the
estimates behind POSENC_MEMORY_BUDGET_MIB (`posenc_ref.demos`) did not bound what the process holds.
Fixing the threshold stops that. The processes that run demos for a user call `release_freed_memory()`
first: the app's demo process (`tui.demo_host`) and `posenc demo run`.
"""

from __future__ import annotations

import sys

__all__ = ["MMAP_THRESHOLD", "release_freed_memory"]

MMAP_THRESHOLD = 128 * 1024  # glibc's default start value, kept fixed
_M_MMAP_THRESHOLD = -3  # mallopt's parameter number (malloc.h)


def release_freed_memory() -> bool:
    """Fix glibc's mmap threshold at MMAP_THRESHOLD for this process (mallopt). Returns whether it applied:
    False off Linux, or where the C library has no such setting (musl accepts the call and ignores it)."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD))
