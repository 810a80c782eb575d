"""Keys typed while a screen replaces its content are held and replayed on the new content, in order.

Keys are posted to the app the way a terminal delivers them (one Key event each, 50 ms apart, without
waiting for the app between them), so a key can arrive while a rating is being saved or the next card
is being mounted.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from support.apps import make_app, open_study
from support.pilot import pilot_test, post_keys, settle, wait_for
from textual.widgets import Input

from tui.screens.study import StudyScreen

NOW = datetime(2025, 3, 10, 12, 0, tzinfo=UTC)


SIZE = (100, 30)


@pytest.mark.slow
@pilot_test
async def test_twenty_cards_rated_50_ms_apart_give_twenty_reviews(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_study(pilot, None)
        assert screen.view is not None
        # Enter shows the answer on every card type (a focused cloze or numeric field included),
        # 1 rates Again (the card comes back, so the queue never runs dry)
        await post_keys(app, ["enter", "1"] * 20, 0.05)
        await wait_for(
            lambda: len(app.store.review_rows()) >= 20 and not screen.holding_keys,
            settled=lambda: (
                None
                if screen.holding_keys or screen.busy or any(not w.is_finished for w in app.workers)
                else (len(app.store.review_rows()), screen.view)
            ),
            state=lambda: (
                f"{len(app.store.review_rows())} reviews, in flight {app.key_queue.in_flight},"
                f" queued {app.key_queue.queued()},"
                f" holding {screen.holds_keys}, busy {screen.busy},"
                f" focused {app.focused}, view {screen.view}"
            ),
        )
        await settle(pilot)
        reviews = app.store.review_rows()
        assert len(reviews) == 20
        assert all(int(r.rating) == 1 for r in reviews)
        assert screen.done_count == 20
        assert screen.view is not None and not screen.view.revealed  # the 21st card, waiting
        for field in screen.view.query(Input):  # no rating key landed in a field
            assert field.value == ""


@pilot_test
async def test_keys_typed_as_study_opens_act_on_the_first_card(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: app.bankset is not None and app.store is not None)
        app.store.set_setting("enable_fuzzing", False)
        screen = StudyScreen(None, clock=lambda: NOW)
        app.push_screen(screen)  # not awaited: the keys below arrive while it loads its first card
        await post_keys(app, ["enter", "3"], 0.0)
        await wait_for(lambda: len(app.store.review_rows()) == 1 and not screen.holding_keys)
        await settle(pilot)
        assert int(app.store.review_rows()[0].rating) == 3


@pilot_test
async def test_quiz_keys_after_next_reach_the_next_question(env: Path) -> None:
    from support.apps import start_quiz

    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await start_quiz(pilot, ["fx.numeric", "fx.cloze"])
        field = screen.view.query_one(".qv-number", Input)
        await post_keys(app, [*"0.5", "enter", "n", *"slope", "enter", *"logits"], 0.0)
        await wait_for(lambda: screen.session.current_id == "fx.cloze" and not screen.holding_keys)
        await settle(pilot)
        assert field.value == "0.5"
        blanks = screen.view.query(".qv-blank").results(Input)
        assert [b.value for b in blanks] == ["slope", "logits"]


@pilot_test
async def test_demo_lab_tab_ctrl_u_and_digits_at_typing_speed_edit_the_first_field(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await post_keys(app, ["d", "tab", "ctrl+u", "1", "2"], 0.03)  # `d` on Home opens the lab
        await wait_for(
            lambda: app.screen.__class__.__name__ == "DemoLabScreen" and not app.screen.holding_keys
        )
        await settle(pilot)
        screen = app.screen
        first = screen.query(".param-input").results(Input)
        field = next(iter(first))
        assert app.focused is field
        assert field.value == "12"
        assert not screen.errors
