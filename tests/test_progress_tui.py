"""Study and Stats screens, driven by the Pilot: rate, undo, quit, restart; snapshots at 100x30 (fixed clock)."""

from __future__ import annotations

import asyncio
import functools
from datetime import UTC, datetime
from pathlib import Path

import pytest
from test_progress_export import write_fixture_bank
from textual.widgets import Button, Input

from tui.app import PosencApp
from tui.screens.stats import StatsScreen
from tui.screens.study import StudyScreen
from tui.widgets.question_view import QuestionView

NOW = datetime(2025, 3, 10, 12, 0, tzinfo=UTC)


def pilot_test(coro_fn):
    """Run an async Pilot test with asyncio.run (the project does not use pytest-asyncio)."""

    @functools.wraps(coro_fn)
    def run(tmp_path):
        asyncio.run(coro_fn(tmp_path))

    return run


def fixed_clock() -> datetime:
    return NOW


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path, monkeypatch):
    monkeypatch.setenv("POSENC_DATA_DIR", str(tmp_path / "never-used"))
    monkeypatch.setenv("POSENC_BANK_DIR", str(tmp_path / "no-user-banks"))


def make_app(tmp_path: Path, language: str = "en") -> PosencApp:
    bank = write_fixture_bank(tmp_path)
    return PosencApp(
        [str(bank)],
        str(tmp_path / "data"),
        include_shipped=False,
        include_user=False,
        language=language,
        seed=7,
        warm_torch=False,
        cursor_blink=False,
    )


async def wait_ready(pilot) -> None:
    app = pilot.app
    for _ in range(300):
        if app.bankset is not None and app.store_ready:
            break
        await pilot.pause(0.02)
    assert app.bankset is not None and app.store is not None, app.store_error
    await pilot.pause()


async def settle(pilot) -> None:
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.pause()


async def open_study(pilot, topic_id: str | None = "fx-rope") -> StudyScreen:
    await wait_ready(pilot)
    pilot.app.store.set_setting("enable_fuzzing", False)
    screen = StudyScreen(topic_id, clock=fixed_clock)
    await pilot.app.push_screen(screen)
    await settle(pilot)
    return screen


def current_id(screen: StudyScreen) -> str | None:
    view = screen.view
    return view.question_id if view is not None else None


def store_state(app) -> dict:
    store = app.store
    return {
        "cards": {qid: store.card_json(qid) for qid in sorted(store.cards())},
        "reviews": [(r.question_id, int(r.rating), r.reviewed_at.isoformat()) for r in store.review_rows()],
    }


@pilot_test
async def test_rate_undo_quit_restart_keeps_the_same_state(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_study(pilot)
        assert current_id(screen) == "fx.mcq"  # bank order for new cards
        assert not screen.query_one("#study-ratings").display
        await pilot.press("3")  # not revealed yet: the rating keys do nothing
        await settle(pilot)
        assert app.store.review_count() == 0

        await pilot.press("space")  # reveal without answering
        assert screen.revealed and screen.query_one("#study-ratings").display
        labels = [str(screen.query_one(f"#rate-{n}", Button).label) for n in (1, 2, 3, 4)]
        assert labels == ["1 Again · 1m", "2 Hard · 6m", "3 Good · 10m", "4 Easy · 8d"]
        await pilot.press("3")
        await settle(pilot)
        assert app.store.review_count() == 1 and current_id(screen) == "fx.multi"
        after_first = store_state(app)

        await pilot.press("space")
        await pilot.press("1")
        await settle(pilot)
        assert app.store.review_count() == 2
        assert screen.done_count == 2

        await pilot.press("u")  # undo the Again: fx.multi is new again and shown again, unrevealed
        await settle(pilot)
        assert store_state(app) == after_first
        assert app.store.card("fx.multi") is None
        assert current_id(screen) == "fx.multi" and not screen.revealed
        assert screen.done_count == 1
        await pilot.press("ctrl+q")

    restarted = make_app(tmp_path)
    async with restarted.run_test(size=(100, 30)) as pilot:
        screen = await open_study(pilot)
        assert store_state(restarted) == after_first
        assert current_id(screen) == "fx.multi"  # fx.mcq is in learning, due in 10 minutes
        assert (screen.plan.due, screen.plan.new) == (0, 5)
        assert restarted.store.introduced_on_day(NOW) == 1


@pilot_test
async def test_answer_in_input_enter_reveals_and_rating_keys_work(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        app.store.set_setting("new_per_day", 20)
        # Study only the numeric question: rate the others out of the way first.
        for qid in ("fx.mcq", "fx.multi", "fx.tf"):
            app.store.review(qid, 3, NOW)
            app.store.review(qid, 3, NOW.replace(minute=10))
        screen = await open_study(pilot)
        assert current_id(screen) == "fx.numeric"
        assert isinstance(app.focused, Input)
        await pilot.press(*"1/256")
        await pilot.press("enter")  # submits: reveals, and focus leaves the input
        await settle(pilot)
        assert screen.revealed and not isinstance(app.focused, Input)
        assert screen.suggested == 3  # right answer -> Good
        assert screen.query_one("#rate-3", Button).has_class("-suggested")
        attempts = app.store.attempts()
        assert [(a.question_id, a.correct, a.response) for a in attempts][-1][:2] == ("fx.numeric", True)
        await pilot.press("4")
        await settle(pilot)
        assert app.store.card_info("fx.numeric").reps == 1
        assert current_id(screen) == "fx.cloze"
        # A wrong cloze answer suggests Again.
        await pilot.press(*"V")
        await pilot.press("enter")  # to the next blank
        await pilot.press(*"V")
        await pilot.press("enter")
        await settle(pilot)
        assert screen.revealed and screen.suggested == 1


@pilot_test
async def test_language_switch_relabels_at_once(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_study(pilot)
        await pilot.press("space")
        assert str(screen.query_one("#rate-1", Button).label).startswith("1 Again")
        await pilot.press("l")
        await pilot.pause()
        assert app.language == "zh"
        assert str(screen.query_one("#rate-1", Button).label) == "1 重来 · 1m"
        view = screen.query_one(QuestionView)
        assert "RoPE" in str(view.query_one(".qv-prompt").render())
        await pilot.press("l")


@pilot_test
async def test_done_screen_shows_next_due(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        app.store.set_setting("new_per_day", 1)
        screen = await open_study(pilot, "fx-alibi")
        assert current_id(screen) == "fx.alibi-tf"
        await pilot.press("space", "4")  # Easy: due in days
        await settle(pilot)
        assert screen.view is None
        text = str(screen.query_one(".study-done").render())
        assert "Nothing left to study" in text and "Next card due in 8d" in text


@pilot_test
async def test_stats_screen_numbers_and_leech_jump(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        seed_history(app.store)
        screen = StatsScreen(clock=fixed_clock)
        await app.push_screen(screen)
        await settle(pilot)
        stats = screen.stats
        assert stats.streak_days == 3 and stats.reviewed_today == 1
        assert (stats.retention_recalled, stats.retention_reviews) == (1, 6)
        summary = str(screen.query_one("#stats-summary").render())
        assert "streak 3 days" in summary and "true retention 17% (1/6 in review, 30 days)" in summary
        leeches = screen.query_one("#stats-leeches")
        assert leeches.option_count == 1 and leeches.get_option_at_index(0).id == "fx.mcq"
        leeches.focus()
        await pilot.press("enter")
        await settle(pilot)
        assert type(app.screen).__name__ == "BrowseScreen"


def seed_history(store) -> None:
    """Same shape as tests/test_progress_stats.py: a leech with 5 lapses, a card in review, one in learning."""
    store.set_setting("enable_fuzzing", False)

    def at(day: int, hour: int, minute: int = 0) -> datetime:
        return datetime(2025, 3, day, hour, minute, tzinfo=UTC)

    store.review("fx.mcq", 3, at(1, 9))
    store.review("fx.mcq", 3, at(1, 9, 10))
    for day in range(2, 7):
        store.review("fx.mcq", 1, at(day, 9))
        store.review("fx.mcq", 3, at(day, 9, 10))
    store.review("fx.tf", 3, at(8, 9))
    store.review("fx.tf", 3, at(8, 9, 10))
    store.review("fx.tf", 3, at(10, 9))
    store.review("fx.alibi-tf", 1, at(9, 9))
    store.review("fx.alibi-tf", 3, at(9, 9, 1))
    store.record_attempt("fx.tf", True, "true", 1000, at(9, 10))


# ---------------------------------------------------------------------------------------------------- snapshots


def test_snapshot_study_revealed(snap_compare, tmp_path):
    app = make_app(tmp_path)

    async def run_before(pilot) -> None:
        await wait_ready(pilot)
        seed_history(app.store)
        await open_study(pilot)  # fx.mcq: a leech, due now, shown first
        await pilot.press("2")  # pick a wrong choice: reveals, suggests Again
        await settle(pilot)

    assert snap_compare(app, terminal_size=(100, 30), run_before=run_before)


def test_snapshot_stats(snap_compare, tmp_path):
    app = make_app(tmp_path)

    async def run_before(pilot) -> None:
        await wait_ready(pilot)
        seed_history(app.store)
        await app.push_screen(StatsScreen(clock=fixed_clock))
        await settle(pilot)

    assert snap_compare(app, terminal_size=(100, 30), run_before=run_before)
