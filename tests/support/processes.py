"""Processes as /proc shows them, for the tests that check what a grade, a kill or a server leaves behind."""

from __future__ import annotations

import time
from pathlib import Path

__all__ = ["alive", "wait_gone"]


def alive(pid: int) -> bool:
    """True while `pid` runs: it exists and is neither a zombie nor dead."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[-1].split()[0] not in ("Z", "X")


def wait_gone(pids: list[int], seconds: float = 10.0) -> list[int]:
    """Wait until none of `pids` runs, for at most `seconds`; returns those still running (none: [])."""
    deadline = time.monotonic() + seconds
    while (left := [pid for pid in pids if alive(pid)]) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left
