"""Study and Stats screens, driven by the Pilot: rate, undo, quit, restart; snapshots at 100x30 (fixed clock)."""

from __future__ import annotations

import functools
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from support.apps import make_app as support_make_app
from support.apps import open_study
from support.export_bank import write_fixture_bank
from support.pilot import pilot_test, settle, wait_for
from textual.widgets import Button, Input

from tui.screens.stats import StatsScreen
from tui.screens.study import StudyScreen
from tui.widgets.question_view import QuestionView

NOW = datetime(2025, 3, 10, 12, 0, tzinfo=UTC)


def fixed_clock() -> datetime:
    return NOW


pytestmark = pytest.mark.usefixtures("env")  # data and user banks in tmp_path (conftest)


# the export fixture bank (topics fx-rope and fx-alibi), the real demos, seed 7
make_app = functools.partial(
    support_make_app, write_bank=write_fixture_bank, include_user=False, seed=7, demo_runner=None
)


async def wait_ready(pilot) -> None:
    app = pilot.app
    await wait_for(lambda: app.bankset is not None and app.store_ready, timeout=30)
    assert app.bankset is not None and app.store is not None, app.store_error
    await pilot.pause()

    await pilot.pause()


async def open_study_at_the_numeric_card(pilot) -> StudyScreen:
    """Study on the fixture topic with the numeric question first: the others are rated out of the way."""
    app = pilot.app
    await wait_ready(pilot)
    app.store.set_setting("new_per_day", 20)
    for qid in ("fx.mcq", "fx.multi", "fx.tf"):
        app.store.review(qid, 3, NOW)
        app.store.review(qid, 3, NOW.replace(minute=10))
    return await open_study(pilot, "fx-rope")


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
        screen = await open_study(pilot, "fx-rope")
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
        screen = await open_study(pilot, "fx-rope")
        assert store_state(restarted) == after_first
        assert current_id(screen) == "fx.multi"  # fx.mcq is in learning, due in 10 minutes
        assert (screen.plan.due, screen.plan.new) == (0, 5)
        assert restarted.store.introduced_on_day(NOW) == 1


@pilot_test
async def test_answer_in_input_enter_reveals_and_rating_keys_work(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_study_at_the_numeric_card(pilot)
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
async def test_a_replaced_cards_late_messages_never_touch_the_next_card(tmp_path):
    """Enter and a rating replayed at once can rate a card before its Revealed and Answered messages have
    bubbled up to the screen; arriving after the next card is mounted, they must not reveal that card's
    footer, demo or suggestion, and the late answer is recorded for its own question."""
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_study_at_the_numeric_card(pilot)
        assert current_id(screen) == "fx.numeric"
        old = screen.view
        await pilot.press(*"1/256", "enter")
        await settle(pilot)
        old_grade = old.grade
        assert old_grade is not None and old_grade.correct
        await pilot.press("3")
        await settle(pilot)
        assert current_id(screen) == "fx.cloze" and old is not screen.view
        attempts = [a.question_id for a in app.store.attempts()]
        screen.post_message(QuestionView.Revealed(old, "fx.numeric"))
        screen.post_message(QuestionView.Answered(old, "fx.numeric", old_grade))
        await settle(pilot)
        assert not screen.revealed and not screen.has_class("-revealed") and screen.suggested is None
        assert not screen.query_one("#study-demo").display
        assert not screen.query_one("#study-ratings").display
        assert [a.question_id for a in app.store.attempts()] == [*attempts, "fx.numeric"]


@pilot_test
async def test_language_switch_relabels_at_once(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_study(pilot, "fx-rope")
        await pilot.press("space")
        assert str(screen.query_one("#rate-1", Button).label).startswith("1 Again")
        await pilot.press("l")
        await pilot.pause()
        assert app.language == "zh"
        assert str(screen.query_one("#rate-1", Button).label) == "1 重来 · 1 分钟"
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


@pilot_test
async def test_stats_says_when_the_schedule_is_fitted_to_the_candidate(tmp_path):
    from quizbank.progress.scheduler import DEFAULT_PARAMETERS

    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        screen = StatsScreen(clock=fixed_clock)
        await app.push_screen(screen)
        await settle(pilot)
        assert "Schedule fitted" not in str(screen.query_one("#stats-summary").render())  # the defaults
        app.store.save_fitted(DEFAULT_PARAMETERS, 1048, {}, datetime(2026, 5, 4, 9, 40, tzinfo=UTC))
        await pilot.press("g")  # refresh
        await settle(pilot)
        summary = str(screen.query_one("#stats-summary").render())
        assert (
            "Schedule fitted to your 1,048 reviews on 2026-05-04 (FSRS-6; posenc progress optimize)"
            in summary
        )
        app.language = "zh"
        await settle(pilot)
        assert "复习计划已按你的 1,048 次复习拟合（2026-05-04" in str(
            screen.query_one("#stats-summary").render()
        )


@pilot_test
async def test_home_s_opens_study_on_the_highlighted_topic(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        await settle(pilot)
        tree = app.screen.query_one("#topic-tree")
        await pilot.press("down")  # All topics -> Fixture RoPE
        assert tree.cursor_node.data == ("topic", "fx-rope")
        await pilot.press("s")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, StudyScreen) and screen.topic_id == "fx-rope"
        assert (screen.plan.due, screen.plan.new) == (0, 6)
        await pilot.press("q")
        await settle(pilot)
        await pilot.press("up", "s")  # "All topics" studies everything
        await settle(pilot)
        assert app.screen.topic_id is None and app.screen.plan.new == 7


@pilot_test
async def test_ctrl_z_undoes_from_inside_a_text_input(tmp_path):
    """After rating, the next card may put the cursor in a text box, where `u` is a letter: Ctrl+Z undoes."""
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        for qid in ("fx.mcq", "fx.multi"):
            app.store.review(qid, 3, NOW)
            app.store.review(qid, 3, NOW.replace(minute=10))
        screen = await open_study(pilot, "fx-rope")
        assert current_id(screen) == "fx.tf"
        before = store_state(app)
        await pilot.press("space", "2")  # reveal, rate Hard
        await settle(pilot)
        assert current_id(screen) == "fx.numeric" and isinstance(app.focused, Input)
        await pilot.press("1")  # the user types: from here on `u` is a letter in the answer box
        await pilot.press("u")
        assert app.focused.value == "1u" and app.store.review_count() == 5
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert store_state(app) == before and app.store.card("fx.tf") is None
        assert current_id(screen) == "fx.tf" and not screen.revealed


@pilot_test
async def test_a_quiz_answer_since_the_last_review_suggests_a_rating(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        app.store.record_attempt("fx.mcq", False, "B", 4000, NOW - timedelta(hours=2))
        app.store.record_attempt(
            "fx.multi", True, "AB", 4000, NOW - timedelta(days=3)
        )  # too old for a new card
        screen = await open_study(pilot, "fx-rope")
        assert current_id(screen) == "fx.mcq"
        assert (screen.plan.quiz_correct, screen.plan.quiz_at) == (False, NOW - timedelta(hours=2))
        await pilot.press("space")  # just recall: the Quiz answer still suggests
        hint = str(screen.query_one("#study-hint").render())
        assert hint == "Suggested: 1 Again (wrong in a Quiz 2h ago)"
        assert screen.query_one("#rate-1", Button).has_class("-suggested")
        await pilot.press("3")  # the user's rating is what schedules
        await settle(pilot)
        assert [int(r.rating) for r in app.store.review_rows()] == [3]
        assert current_id(screen) == "fx.multi" and screen.plan.quiz_correct is None
        await pilot.press("space")
        assert str(screen.query_one("#study-hint").render()) == "Rate your recall: 1-4"


@pilot_test
async def test_settings_changed_from_the_cli_apply_when_study_opens(tmp_path):
    from quizbank.progress.store import open_store

    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        assert app.store.get_setting("new_per_day") == 20  # cached by the running app
        with open_store(tmp_path / "data") as other:  # `posenc progress config` in another terminal
            other.set_setting("new_per_day", 2)
            other.set_setting("desired_retention", 0.8)
        screen = StudyScreen(None, clock=fixed_clock)
        await app.push_screen(screen)
        await settle(pilot)
        assert (screen.plan.due, screen.plan.new, screen.plan.new_limit) == (0, 2, 2)
        assert app.store.scheduler.desired_retention == 0.8


@pilot_test
async def test_a_corrupt_store_is_moved_aside_and_the_user_told(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "progress.db").write_bytes(b"this is not a database " * 200)
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        aside = sorted(p.name for p in data.glob("progress.db.corrupt-*"))
        assert len(aside) == 1
        notice = app.store_notices[0]
        assert "could not be read (file is not a database)" in notice and aside[0] in notice
        assert [n.message for n in app._notifications] == [notice]
        screen = await open_study(pilot, "fx-rope")  # a fresh, working store
        await pilot.press("space", "3")
        await settle(pilot)
        assert app.store.review_count() == 1 and screen.done_count == 1
    assert (data / aside[0]).read_bytes() == b"this is not a database " * 200


@pilot_test
async def test_study_and_stats_explain_an_unusable_data_dir(tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    app = make_app(tmp_path)
    app.data_dir = str(blocker / "data")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(lambda: app.bankset is not None and app.store_ready, timeout=30)
        assert app.store is None
        expected = (
            f"cannot create data directory {blocker / 'data'}: Not a directory; "
            "choose another folder with --data-dir DIR or POSENC_DATA_DIR"
        )
        assert app.store_error == expected
        screen = StudyScreen(None, clock=fixed_clock)
        await app.push_screen(screen)
        await settle(pilot)
        assert (
            str(screen.query_one(".study-message").render()) == f"Study needs the progress store: {expected}"
        )
        await pilot.press("q")
        stats = StatsScreen(clock=fixed_clock)
        await app.push_screen(stats)
        await settle(pilot)
        assert str(stats.query_one("#stats-summary").render()) == f"Stats need the progress store: {expected}"


@pytest.mark.slow  # seven simulated days of reviews through the screens
@pilot_test
async def test_a_week_of_study_through_the_screen_gives_sensible_intervals_and_stats(tmp_path):
    """A new user studies every day for a week (3 new cards a day; fx.tf is forgotten whenever it comes back
    for review, the rest are recalled): intervals on the buttons grow, and the Stats screen adds up."""
    app = make_app(tmp_path)
    today = [NOW.replace(hour=8)]
    good_intervals: dict[str, list[str]] = {}
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        app.store.set_setting("enable_fuzzing", False)
        app.store.set_setting("new_per_day", 3)
        for day in range(7):
            screen = StudyScreen(None, clock=lambda: today[0])
            await app.push_screen(screen)
            await settle(pilot)
            for _ in range(40):
                if screen.view is None:
                    break
                while not screen.revealed:
                    await pilot.press("enter")  # reveals, from a text input too (cloze: blank by blank)
                qid = screen.view.question_id
                card = app.store.card(qid)
                in_review = card is not None and card.state == 2
                good = str(screen.query_one("#rate-3", Button).label)
                if in_review:
                    good_intervals.setdefault(qid, []).append(good.split(" · ")[1])
                await pilot.press("1" if qid == "fx.tf" and in_review else "3")
                await settle(pilot)
            assert screen.view is None, f"day {day}: still studying"
            await pilot.press("q")
            await settle(pilot)
            today[0] += timedelta(days=1)

        cards = app.store.cards()
        assert len(cards) == 7  # 3 + 3 + 1 new cards over the first three days
        intro = [app.store.introduced_on_day(NOW + timedelta(days=d)) for d in range(4)]
        assert intro == [3, 3, 1, 0]
        assert app.store.lapses().get("fx.tf", 0) >= 2
        shown_days = {
            qid: [float(label.removesuffix("d")) for label in labels]
            for qid, labels in good_intervals.items()
        }
        assert all(label.endswith("d") for labels in good_intervals.values() for label in labels), (
            good_intervals
        )
        for qid, days in shown_days.items():
            if qid != "fx.tf":  # Good keeps pushing a recalled card further out
                assert days == sorted(days), (qid, days)
        print("\nGood-button intervals by question:", good_intervals)
        forgotten = shown_days["fx.tf"]  # each lapse shortens what Good would give
        assert len(forgotten) >= 3 and forgotten[0] > forgotten[-1] >= 1
        recalled = [qid for qid in cards if qid != "fx.tf" and cards[qid].state == 2]
        assert recalled and all(2 <= (cards[q].due - cards[q].last_review).days <= 40 for q in recalled), {
            q: cards[q].due - cards[q].last_review for q in recalled
        }
        assert cards["fx.tf"].stability < min(cards[q].stability for q in recalled)

        stats_screen = StatsScreen(clock=lambda: today[0] - timedelta(days=1, hours=-12))
        await app.push_screen(stats_screen)
        await settle(pilot)
        stats = stats_screen.stats
        rows = app.store.review_rows()
        assert stats.streak_days == 7 and stats.reviews_in_window == len(rows)
        assert [d.count for d in stats.reviews_per_day[-7:]] == [
            sum(1 for r in rows if r.reviewed_at.date() == (NOW + timedelta(days=d)).date()) for d in range(7)
        ]
        lapses = sum(1 for r in rows if r.question_id == "fx.tf" and r.state_before == 2 and r.rating == 1)
        assert stats.retention_reviews - stats.retention_recalled == lapses
        assert sum(d.count for d in stats.due_forecast) == 7  # every card is due within two weeks
        assert "streak 7 days" in str(stats_screen.query_one("#stats-summary").render())


def seed_history(store) -> None:
    """Same shape as tests/quizbank/progress/test_progress_stats.py: a leech with 5 lapses, a card in review, one in learning."""
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
        await open_study(pilot, "fx-rope")  # fx.mcq: a leech, due now, shown first
        # pick the second (a wrong) choice with the arrows (Study's number keys only rate):
        # reveals, suggests Again
        await pilot.press("down", "down", "enter")
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


def _open_handles(path: Path) -> list[str]:
    """This process's open file descriptors on `path` (and its -wal / -shm), from /proc."""
    names = {str(path), f"{path}-wal", f"{path}-shm"}
    found = []
    for fd in Path("/proc/self/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target in names:
            found.append(target)
    return found


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")
@pilot_test
async def test_the_app_closes_its_progress_store_on_exit(tmp_path: Path) -> None:
    from quizbank.progress.store import DB_NAME

    app = make_app(tmp_path)
    db = (tmp_path / "data" / DB_NAME).resolve()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        store = app.store
        store.review("fx.mcq", 3)
        assert _open_handles(db)  # the store is open while the app runs
    assert store._conn is None and app.store is None
    assert _open_handles(db) == []
