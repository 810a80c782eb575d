"""`posenc serve` is bounded: --max-tabs apps at most (the others get a message and no process), terminal
sizes clamped, and no process of its left once it is SIGKILLed.
The server is a real subprocess; tabs are websocket clients like the page's script."""

from __future__ import annotations

import asyncio
import os
import signal
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from test_serve import (
    TOKEN,
    Tab,
    app_processes,
    descendants,
    events,
    frame_size,
    live,
    ready_spare,
    shipped_topic_titles,
    start_server,
    stop_server,
    tab_app_ready,
    wait_until,
)

from tui.serve import MAX_SIZE
from tui.serve_apps import SPARE_SIZE

pytestmark = pytest.mark.slow

FULL = "the server is full"


def test_max_tabs_starts_no_process_past_the_cap(tmp_path: Path) -> None:
    titles = shipped_topic_titles()
    server, port = start_server(tmp_path, "--max-tabs", "2")
    most = 0

    async def six() -> list[str]:
        import aiohttp

        nonlocal most

        async def outcome(tab: Tab) -> str:
            while True:
                try:
                    text = await tab.wait_for(FULL, timeout=1)
                    return "full" if FULL in text else "?"
                except AssertionError:
                    if all(t in tab.text() for t in titles):
                        return "home"

        async def watch() -> None:
            nonlocal most
            while True:
                most = max(most, len(app_processes(server.pid)))
                await asyncio.sleep(0.05)

        watcher = asyncio.ensure_future(watch())
        async with aiohttp.ClientSession() as session:
            tabs = await asyncio.gather(*(Tab.open(session, port) for _ in range(6)))
            for nth in (1, 2):  # the budget below starts once both tabs' apps have listed the topics
                await asyncio.to_thread(tab_app_ready, tmp_path, nth)
            results = await asyncio.wait_for(asyncio.gather(*(outcome(tab) for tab in tabs)), 60)
            # while two tabs are open, the page itself says so too
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/?token={TOKEN}", timeout=10)
                page = (200, "")
            except urllib.error.HTTPError as error:
                page = (error.code, error.read().decode())
            assert page[0] == 503 and FULL in page[1], page
            watcher.cancel()
        return sorted(results)

    try:
        ready_spare(server, tmp_path)
        assert asyncio.run(six()) == ["full"] * 4 + ["home"] * 2
        assert len(events(tmp_path, "serve_tab")) == 2
        assert most <= 3, most  # two tabs' apps and the spare
    finally:
        assert stop_server(server) == 0
    stderr = server.stderr.read()
    assert len([line for line in stderr.splitlines() if "max-tabs" in line]) <= 2, stderr


def test_a_closed_tabs_slot_is_free_once_its_app_has_ended(tmp_path: Path) -> None:
    """--max-tabs 1: a tab closes and another opens at once (a page reload), three times. The new tab is
    not refused: it waits for the old tab's app to end, so there are never two tab apps, plus the spare."""
    titles = shipped_topic_titles()
    server, port = start_server(tmp_path, "--max-tabs", "1")
    most = 0

    async def reloads() -> list[str]:
        import aiohttp

        nonlocal most

        async def watch() -> None:
            nonlocal most
            while True:
                most = max(most, len(app_processes(server.pid)))
                await asyncio.sleep(0.01)

        watcher = asyncio.ensure_future(watch())
        seen = []
        async with aiohttp.ClientSession() as session:
            tab = await Tab.open(session, port)
            await tab.wait_for(*titles[:3])
            for nth in (2, 3, 4):
                await tab.ws.close()
                tab = await Tab.open(session, port)
                await asyncio.to_thread(tab_app_ready, tmp_path, nth)  # the budget below starts here
                seen.append(await tab.wait_for(*titles[:3], timeout=60))
            await tab.ws.close()
        watcher.cancel()
        return seen

    try:
        ready_spare(server, tmp_path)
        seen = asyncio.run(reloads())
    finally:
        assert stop_server(server) == 0
    assert not any(FULL in text for text in seen)
    assert len(events(tmp_path, "serve_tab")) == 4
    assert most <= 2, most  # one tab's app and the spare


def test_a_huge_terminal_is_clamped(tmp_path: Path) -> None:
    titles = shipped_topic_titles()
    server, port = start_server(tmp_path)

    async def huge() -> tuple[set, set]:
        import aiohttp

        async with aiohttp.ClientSession() as session:
            tab = await Tab.open(session, port, size=(20000, 20000))
            # the spare it takes has painted, but may still be loading the banks: the wait for the titles
            # starts once its app says they are listed
            await asyncio.to_thread(tab_app_ready, tmp_path)
            await tab.wait_for(*titles)
            await tab.settle()
            first = {frame_size(frame) for frame in tab.frames()}
            # a resize to the size it already has repaints nothing to wait for: go small, then huge again,
            # and wait for the whole-screen frame each size change paints
            await tab.resize(100, 30)
            await tab.wait_for_frame((100, 30))
            await tab.settle()
            await tab.resize(30000, 30000)
            await tab.wait_for_frame(MAX_SIZE)
            await tab.settle()
            return first, {frame_size(frame) for frame in tab.frames()}

    try:
        ready_spare(server, tmp_path)
        first, later = asyncio.run(huge())
    finally:
        assert stop_server(server) == 0
    # before the resize reaches it, the spare may still write at its own size (one column)
    assert {size for size in first if size[0] > SPARE_SIZE[0]} == {MAX_SIZE}, first
    # likewise a repaint at the small size may still be on its way when the huge resize is sent (on a busy
    # machine it came after the 0.5 s quiet spell); every frame wider than that is clamped
    assert {size for size in later if size != (100, 30)} == {MAX_SIZE}, later


def test_sigkill_leaves_no_process_behind(tmp_path: Path) -> None:
    """The kernel's parent-death signal ends every tab's app, the spare, and their demo hosts."""
    titles = shipped_topic_titles()
    server, port = start_server(tmp_path)

    async def run() -> tuple[set[int], set[int]]:
        import aiohttp

        async with aiohttp.ClientSession() as session:
            tabs = await asyncio.gather(Tab.open(session, port), Tab.open(session, port))
            await asyncio.gather(*(tab.wait_for(*titles[:3]) for tab in tabs))

            def everything() -> dict | None:  # two tabs' apps and the spare, each with its demo host
                tree = descendants(server.pid)
                hosts = [pid for pid, row in tree.items() if "tui.demo_host" in row[3]]
                return tree if len(hosts) == 3 and len(app_processes(server.pid)) == 3 else None

            tree = await asyncio.to_thread(wait_until, everything, "three apps with their demo hosts")
            tab_pids = {event["pid"] for event in events(tmp_path, "serve_tab")}
            assert len(tab_pids) == 2 and len(app_processes(server.pid) - tab_pids) == 1  # the spare
            server.send_signal(signal.SIGKILL)
            await asyncio.to_thread(server.wait, 30)
            return set(tree), {row[1] for row in tree.values()} - {os.getpgrp()}

    try:
        pids, pgids = asyncio.run(run())
        killed = time.monotonic()
        assert len(pids) >= 6
        while (left := live(pids, pgids)) and time.monotonic() < killed + 5:
            time.sleep(0.05)
        assert left == []
    finally:
        stop_server(server)
