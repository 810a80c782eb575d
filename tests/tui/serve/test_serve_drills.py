"""Drills through `posenc serve`: off with --public (nothing the user writes runs), and one drill folder per
tab (two tabs on one drill keep their own text). Real servers; tabs are websocket clients."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest
from test_serve import Tab, descendants, ready_spare, shipped_topic_titles, start_server, stop_server

from quizbank.drills import DRILL_NAMES, get_drill
from tui.screens.drill_file import POLL_SECONDS

pytestmark = pytest.mark.slow

CTRL_R = "\x12"


async def open_drill_in_tab(tab: Tab, titles: list[str]) -> None:
    """Home, then `c`: the first drill; then `i`: its editor focused (the screen opens with focus outside it)."""
    await tab.wait_for(*titles[:3])
    await tab.press("c")
    await tab.wait_for("Coding drill", DRILL_NAMES[0], "Your file", "Enter/i")  # its keys are live
    await tab.press("i")


async def read_for(tab: Tab, seconds: float) -> None:
    """Keep reading the tab's frames for `seconds` (the drill editor's cursor blinks: it never goes quiet)."""
    try:
        await tab.wait_for("\0never on a screen\0", timeout=seconds)
    except AssertionError:
        pass


def write_marker_line(marker: Path) -> str:
    """A line that, run, creates `marker` (typed at the top of the drill file, then Enter)."""
    return f"import pathlib; pathlib.Path({json.dumps(str(marker))}).write_text('ran')\r"


def test_public_without_allow_code_runs_nothing(tmp_path: Path) -> None:
    """The same keys in two servers: on loopback (code on) Ctrl+R grades the file; with --public the Drill
    screen says why it does not, and for as long again no marker appears and no process but the apps and
    their demo hosts runs under the server."""
    titles = shipped_topic_titles()
    for directory in ("on", "off"):
        (tmp_path / directory).mkdir()
    loopback, loopback_port = start_server(tmp_path / "on")
    public, public_port = start_server(tmp_path / "off", "--public")
    # a folder the candidate may write in: as root it runs as a uid of its own (docs/drills.md)
    markers = tmp_path / "markers"
    markers.mkdir(mode=0o777)
    markers.chmod(0o777)
    ran, kept = markers / "marker-loopback", markers / "marker-public"

    async def grade(port: int, root: Path, marker: Path, expect: str) -> str:
        """Open the drill, put the marker line at the top of this tab's own drill file (on disk, as `e`
        and an external editor would: keys typed through the socket are not what is under test), then
        Ctrl+R."""
        import aiohttp

        async with aiohttp.ClientSession() as session:
            tab = await Tab.open(session, port)
            await open_drill_in_tab(tab, titles)
            deadline = time.monotonic() + 60
            while not (found := list((root / "data" / "drills" / "tabs").glob(f"*/{DRILL_NAMES[0]}.py"))):
                assert time.monotonic() < deadline, "the tab never wrote its drill file"
                await asyncio.sleep(0.1)
            path = found[0]
            path.write_text(write_marker_line(marker).rstrip("\r") + "\n" + path.read_text(encoding="utf-8"))
            await tab.wait_for("pathlib", timeout=60)  # the screen picked the edit up
            await tab.press(CTRL_R)
            return await tab.wait_for(expect, timeout=180)

    async def both() -> tuple[str, str, float]:
        started = time.monotonic()
        on, off = await asyncio.gather(
            grade(loopback_port, tmp_path / "on", ran, "cases pass"),
            grade(public_port, tmp_path / "off", kept, "Grading is off"),
        )
        return on, off, time.monotonic() - started

    try:
        ready_spare(loopback, tmp_path / "on")
        ready_spare(public, tmp_path / "off")
        graded, screen, took = asyncio.run(both())
        # the keys did run the line where code is on (unless the grader gave up on a slow start)
        assert ran.exists() or "timed out" in graded, graded[-2000:]
        assert "--allow-code" in screen and "run programs" in screen
        deadline = time.monotonic() + max(took, 5)
        while time.monotonic() < deadline:
            others = [row[3] for row in descendants(public.pid).values() if not _app_or_demo_host(row[3])]
            assert others == [] and not kept.exists(), others
            time.sleep(0.1)
        written = list((tmp_path / "off" / "data" / "drills" / "tabs").glob("*/*.py"))
        assert len(written) == 1 and str(kept) in written[0].read_text(encoding="utf-8")  # saved, not run
    finally:
        assert stop_server(loopback) == 0
        assert stop_server(public) == 0
    warning = public.stderr.read()
    assert "drills are off" in warning and "--public" in warning, warning


def _app_or_demo_host(cmdline: str) -> bool:
    return " -I -m tui" in cmdline or "tui.demo_host" in cmdline


def test_two_tabs_on_one_drill_keep_their_own_text(tmp_path: Path) -> None:
    titles = shipped_topic_titles()
    server, port = start_server(tmp_path)
    tabs_root = tmp_path / "data" / "drills" / "tabs"

    async def two() -> tuple[str, str]:
        import aiohttp

        async with aiohttp.ClientSession() as session:
            one, two = await asyncio.gather(Tab.open(session, port), Tab.open(session, port))
            await asyncio.gather(open_drill_in_tab(one, titles), open_drill_in_tab(two, titles))
            deadline = time.monotonic() + 60
            while len(found := sorted(tabs_root.glob(f"*/{DRILL_NAMES[0]}.py"))) < 2:
                assert time.monotonic() < deadline, found  # each tab writes its own file
                await asyncio.sleep(0.1)
            # an edit in each file (on disk, as `e` and an external editor would; keys typed through the
            # socket are not what is under test): each tab must pick up its own file's edit only
            for path, words in zip(found, ("written in file A", "written in file B")):
                path.write_text(f"# {words}\n" + path.read_text(encoding="utf-8"), encoding="utf-8")
            await asyncio.gather(
                one.wait_for("written in file", timeout=60), two.wait_for("written in file", timeout=60)
            )
            # three of the screens' file polls later, each tab still shows its own text only
            await asyncio.gather(read_for(one, 3 * POLL_SECONDS), read_for(two, 3 * POLL_SECONDS))
            return one.text(since_mark=False), two.text(since_mark=False)

    try:
        ready_spare(server, tmp_path)
        first, second = asyncio.run(two())
    finally:
        assert stop_server(server) == 0
    shown = [{w for w in ("file A", "file B") if f"written in {w}" in text} for text in (first, second)]
    assert sorted(map(sorted, shown)) == [["file A"], ["file B"]], shown  # one file each, not the same one
    assert not (tmp_path / "data" / "drills" / f"{DRILL_NAMES[0]}.py").exists()  # no shared file


def test_keys_typed_as_the_drill_screen_opens_reach_the_editor(tmp_path: Path) -> None:
    """A served tab at Home sends `c` (open the Drill screen), `i` (into the editor) and a line of text, each
    in its own websocket message and none waiting for a screen: the line is in the tab's drill file."""
    titles = shipped_topic_titles()
    server, port = start_server(tmp_path)
    line = "# typed through the socket at once"

    async def type_at_once() -> Path:
        import aiohttp

        async with aiohttp.ClientSession() as session:
            tab = await Tab.open(session, port)
            await tab.wait_for(*titles[:3])
            for keys in ("c", "i", line + "\r"):
                await tab.ws.send_json(["stdin", keys])
            await tab.wait_for("Coding drill", "typed through the socket", timeout=120)
            deadline = time.monotonic() + 60
            pattern = f"*/{DRILL_NAMES[0]}.py"
            while not (
                found := [
                    path
                    for path in (tmp_path / "data" / "drills" / "tabs").glob(pattern)
                    if path.read_text(encoding="utf-8").startswith(line + "\n")
                ]
            ):
                assert time.monotonic() < deadline, "the typed line never reached the drill file"
                await read_for(tab, 0.2)  # (the autosave comes half a second after the last key)
            return found[0]

    try:
        ready_spare(server, tmp_path)
        path = asyncio.run(type_at_once())
    finally:
        assert stop_server(server) == 0
    assert path.read_text(encoding="utf-8") == f"{line}\n{get_drill(DRILL_NAMES[0]).starter}"
