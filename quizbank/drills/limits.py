"""The limits of one grade that a user can set: the address space of the grading child, the time limit. No torch."""

from __future__ import annotations

import os

from quizbank.safetext import escape_unsafe

MEMORY_ENV = "POSENC_DRILL_MEMORY_MIB"  # the worker's address-space limit in MiB, default 4096 (0: none)
DEFAULT_MEMORY_MIB = 4096


def memory_limit_bytes() -> int:
    """The worker's RLIMIT_AS from $POSENC_DRILL_MEMORY_MIB (default 4096 MiB; 0: no limit).

    ValueError, a usage error, for anything but a whole number >= 0: a typo must not lift the limit."""
    raw = os.environ.get(MEMORY_ENV, "").strip()
    if not raw:
        return DEFAULT_MEMORY_MIB * 2**20
    if not raw.isdigit():
        shown = escape_unsafe(raw, one_line=True)[:40]
        raise ValueError(f"{MEMORY_ENV} must be a whole number of MiB (0 for no limit), not {shown!r}")
    return int(raw) * 2**20


TIMEOUT_LIMIT_S = 600.0  # the longest time limit one grade may have (`drill check --timeout`)


def check_timeout(timeout_s: float) -> float:
    """`timeout_s` when 0 < it <= 600 seconds; else ValueError, a usage error (inf, NaN, 1e20, 0, -1)."""
    if not 0 < timeout_s <= TIMEOUT_LIMIT_S:
        raise ValueError(f"--timeout must be more than 0 and at most {TIMEOUT_LIMIT_S:g} seconds")
    return timeout_s
