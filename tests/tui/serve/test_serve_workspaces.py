"""The tabs' drill folders (tui/serve_workspaces.py): one per app process, and at start the server removes
those of stopped servers that nothing touched for a week; a live server's folder stays, however old."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from test_serve import ready_spare, start_server, stop_server, wait_until

from tui.serve_workspaces import STALE_AFTER_DAYS, remove_stale_tab_folders, tab_folders

DAY = 86400.0
GONE_PID = 4_194_304 + 1  # above the largest pid Linux hands out: never a live process


def make_folder(root: Path, name: str, age_days: float, now: float) -> Path:
    """A tab folder with a drill file, everything last changed `age_days` ago."""
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "rope.py").write_text("x = 1\n")
    stamp = now - age_days * DAY
    for path in (folder / "rope.py", folder):
        os.utime(path, (stamp, stamp))
    return folder


def test_only_old_folders_of_stopped_servers_are_removed(tmp_path: Path) -> None:
    now = time.time()
    root = tmp_path / "tabs"
    old_gone = make_folder(root, f"20200101-000000-{GONE_PID}-1", STALE_AFTER_DAYS + 1, now)
    recent_gone = make_folder(root, f"20200101-000000-{GONE_PID}-2", STALE_AFTER_DAYS - 1, now)
    old_live = make_folder(root, f"20200101-000000-{os.getppid()}-1", STALE_AFTER_DAYS + 30, now)
    old_mine = make_folder(root, f"20200101-000000-{os.getpid()}-1", STALE_AFTER_DAYS + 30, now)
    not_a_tab = make_folder(root, "my-notes", STALE_AFTER_DAYS + 30, now)
    # an old folder whose file was edited yesterday is in use
    touched = make_folder(root, f"20200101-000000-{GONE_PID}-3", STALE_AFTER_DAYS + 30, now)
    os.utime(touched / "rope.py", (now - DAY, now - DAY))
    # a link named like a tab folder is not followed, nor removed
    target = make_folder(tmp_path, "elsewhere", STALE_AFTER_DAYS + 30, now)
    (root / f"20200101-000000-{GONE_PID}-4").symlink_to(target)

    assert remove_stale_tab_folders(root, now) == 1
    assert not old_gone.exists()
    assert all(p.exists() for p in (recent_gone, old_live, old_mine, not_a_tab, touched, target / "rope.py"))
    assert remove_stale_tab_folders(tmp_path / "missing", now) == 0


def test_each_app_gets_a_folder_of_its_own(tmp_path: Path) -> None:
    folder = tab_folders(tmp_path)
    names = [Path(folder()).name for _ in range(3)]
    assert len(set(names)) == 3 and all(f"-{os.getpid()}-" in name for name in names)
    assert [name.rsplit("-", 1)[1] for name in names] == ["1", "2", "3"]


@pytest.mark.slow
def test_the_server_clears_stale_tab_folders_at_start(tmp_path: Path) -> None:
    now = time.time()
    root = tmp_path / "data" / "drills" / "tabs"
    stale = make_folder(root, f"20200101-000000-{GONE_PID}-1", STALE_AFTER_DAYS + 1, now)
    recent = make_folder(root, f"20200101-000000-{GONE_PID}-2", 1, now)
    server, _ = start_server(tmp_path)
    try:
        wait_until(lambda: not stale.exists(), "the stale tab folder to be removed")
        ready_spare(server, tmp_path)
        assert recent.exists()
    finally:
        assert stop_server(server) == 0
    assert "removed 1 tab drill folder(s) of stopped servers, unused for 7 days" in server.stderr.read()
