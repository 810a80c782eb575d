"""The garbage collector during start-up (`tui.collector`): `posenc` holds it off before Textual loads, and
the app lets it run again once Home lists the topics, the banks are in, or the app ends."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.apps import topics_listed
from support.pilot import pilot_test, wait_for

from tui import cli, collector


@pytest.fixture
def collector_state() -> Iterator[None]:
    """Whatever a test does, the collector is released and enabled again after it."""
    was_enabled = gc.isenabled()
    try:
        yield
    finally:
        collector.release()
        if was_enabled:
            gc.enable()


def test_hold_disables_and_release_enables_and_freezes(collector_state: None) -> None:
    gc.enable()
    frozen = gc.get_freeze_count()
    collector.hold()
    assert not gc.isenabled() and collector.holding()
    made = [[] for _ in range(100)]  # objects made while held are frozen by the release
    collector.release()
    assert gc.isenabled() and not collector.holding()
    assert gc.get_freeze_count() >= frozen + len(made)
    collector.release()  # twice: nothing more
    assert gc.isenabled()
    gc.unfreeze()


def test_release_never_enables_a_collector_it_did_not_disable(collector_state: None) -> None:
    gc.disable()  # someone else's pause (quizbank.loader.gc_paused)
    collector.hold()
    assert not collector.holding()
    collector.release()
    assert not gc.isenabled()


def test_the_app_entry_holds_the_collector_before_the_app_loads(
    collector_state: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tui.app

    seen: list[bool] = []

    def fake_run_app(**_kwargs: object) -> int:
        seen.append(collector.holding())
        return 0

    monkeypatch.setattr(tui.app, "run_app", fake_run_app)
    gc.enable()
    assert cli.main([]) == 0  # the fast path of the bare app
    assert cli.main(["--lang", "zh"]) == 0
    assert seen == [True, True]


def test_a_subcommand_leaves_the_collector_alone(
    collector_state: None, capsys: pytest.CaptureFixture
) -> None:
    gc.enable()
    assert cli.main(["demo", "list", "--json"]) == 0
    assert gc.isenabled() and not collector.holding()


@pilot_test
async def test_the_app_releases_the_collector_once_the_topics_are_listed(
    collector_state: None, slow_full_load: threading.Event, env: Path
) -> None:
    """With the cached preview: released when the topics are on screen, while the full load is still held."""
    from support.apps import fake_demo_runner

    from tui.app import PosencApp

    gc.enable()
    collector.hold()
    app = PosencApp([], str(env / "data"), demo_runner=fake_demo_runner, warm_torch=False, cursor_blink=False)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await topics_listed(pilot)
            await wait_for(lambda: not collector.holding(), timeout=10)
            assert gc.isenabled() and app.bankset is None  # before the full bank
            slow_full_load.set()
            await wait_for(lambda: app.bankset is not None, timeout=30)
    finally:
        slow_full_load.set()


@pilot_test
async def test_without_a_preview_the_full_bank_releases_the_collector(
    collector_state: None, env: Path
) -> None:
    from support.apps import fake_demo_runner

    from tui.app import PosencApp

    gc.enable()
    collector.hold()
    app = PosencApp([], str(env / "data"), demo_runner=fake_demo_runner, warm_torch=False, cursor_blink=False)
    async with app.run_test(size=(120, 40)):
        await wait_for(lambda: app.bankset is not None, timeout=60)
        await wait_for(lambda: not collector.holding(), timeout=10)
        assert gc.isenabled()
