"""The drill folders of `posenc serve`'s tabs: one per app process, and old ones cleared away.

Every app process (so every browser tab) gets `<data dir>/drills/tabs/<start>-<server pid>-<n>/`, so two tabs
never share a drill file (tui/appenv.py). A folder holds what was typed in that tab, so it is kept when the tab
closes (a reloaded page is a new tab). At start the server removes the tab folders nothing has touched for
`STALE_AFTER_DAYS` days whose server is gone: a folder of a server still running (this one or another on the
same data) is never removed, whatever its age. Standard library only.
"""

from __future__ import annotations

import itertools
import os
import re
import shutil
import time
from collections.abc import Callable
from pathlib import Path

__all__ = ["STALE_AFTER_DAYS", "remove_stale_tab_folders", "tab_folders", "tabs_root"]

STALE_AFTER_DAYS = 7
TAB_FOLDER = re.compile(r"[0-9]{8}-[0-9]{6}-(?P<pid>[0-9]{1,10})-[0-9]+")


def tabs_root(data_dir: str | None) -> Path:
    from quizbank.progress.paths import default_data_dir

    data = Path(data_dir).expanduser().absolute() if data_dir else default_data_dir()
    return data / "drills" / "tabs"


def tab_folders(root: Path) -> Callable[[], str]:
    """A function giving each app process a folder name of its own under `root` (created by the app)."""
    started = time.strftime("%Y%m%d-%H%M%S")
    counter = itertools.count(1)
    return lambda: str(root / f"{started}-{os.getpid()}-{next(counter)}")


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return pid > 0  # another user's process, or a number no process has
    return True


def _last_change(folder: Path) -> float:
    """The newest modification time of the folder and anything in it (links are not followed)."""
    newest = folder.lstat().st_mtime
    for parent, dirs, files in os.walk(folder):
        for name in dirs + files:
            try:
                newest = max(newest, os.lstat(os.path.join(parent, name)).st_mtime)
            except OSError:
                continue
    return newest


def remove_stale_tab_folders(root: Path, now: float | None = None) -> int:
    """Remove the tab folders under `root` whose server process is gone and in which nothing changed for
    STALE_AFTER_DAYS days; return how many. Anything else (other names, links, files) is left alone."""
    now = time.time() if now is None else now
    removed = 0
    try:
        entries = list(os.scandir(root))
    except OSError:
        return 0
    for entry in entries:
        match = TAB_FOLDER.fullmatch(entry.name)
        if match is None or not entry.is_dir(follow_symlinks=False):
            continue
        pid = int(match["pid"])
        if pid == os.getpid() or _process_alive(pid):
            continue
        try:
            if now - _last_change(Path(entry.path)) < STALE_AFTER_DAYS * 86400:
                continue
            shutil.rmtree(entry.path)
        except OSError:
            continue
        removed += 1
    return removed
