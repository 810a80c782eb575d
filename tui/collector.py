"""Python's cyclic garbage collector while the app starts.

Starting `posenc` builds about 60,000 long-lived objects (Textual, the first screen, the banks' preview), and
the collector scans them again and again while they are made: about 95 collections before Home lists its
topics, 20-30 ms of a start of about 350 ms, for some 3,400 unreachable objects, all made before the first
paint. `posenc` (`tui.cli`) therefore holds the collector off (`hold`) before it imports the app. The app lets
it run again (`release`) once Home lists the topics, the full bank is in, or PREVIEW_PAINT_WAIT_S after the
first paint (`tui.startup`), and `run_app` does on its way out. What start-up made is frozen then
(`gc.freeze`), as the first paint already does: it lives as long as the app, and a full collection over it
would cost about 40 ms.

Only this entry point holds it: an app made elsewhere (tests, `App.run_test`) starts with the collector as
it finds it, and `release` never enables a collector it did not disable. No Textual here: `tui.cli` imports
this module before Textual loads.
"""

from __future__ import annotations

import gc
import threading

__all__ = ["hold", "holding", "release"]

_lock = threading.Lock()
_held = False


def hold() -> None:
    """Disable the collector until `release`, if it runs now."""
    global _held
    with _lock:
        if not _held and gc.isenabled():
            gc.disable()
            _held = True


def holding() -> bool:
    """Whether `hold` disabled the collector and `release` has not enabled it yet."""
    return _held


def release() -> None:
    """Freeze what start-up made and enable the collector again, if `hold` disabled it (idempotent)."""
    global _held
    with _lock:
        if not _held:
            return
        _held = False
        gc.freeze()
        gc.enable()
