"""A typed number never ends the app: a fraction past the largest float (1 with 309 zeros, over 1) is one
clear line under the numeric answer and in Predict, and the screen stays."""

from __future__ import annotations

from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st
from support.apps import make_app, screen_text, start_quiz
from support.pilot import pilot_test, settle, wait_for
from textual.widgets import Input, Static

from tui.screens.demo_lab import DemoLabScreen
from tui.screens.predict import PredictScreen

SIZE = (120, 40)
HUGE = "1" + "0" * 309 + "/1"


@pilot_test
async def test_the_numeric_answer_survives_a_number_past_the_largest_float(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await start_quiz(pilot, ["fx.numeric", "fx.mcq"])
        field = screen.view.query_one(".qv-number", Input)
        field.value = HUGE
        field.focus()
        await pilot.press("enter")
        await settle(pilot)
        assert app.is_running and app.screen is screen
        assert "fx.numeric" not in screen.session.grades and screen.session.current_id == "fx.numeric"
        error = screen.view.query_one(".qv-input-error", Static)
        assert error.display
        assert "too large a number: type e.g. 0.5" in screen_text(app)
        field.value = "1/256"  # and the box still answers
        await pilot.press("enter")
        await wait_for(lambda: "fx.numeric" in screen.session.grades)
        assert screen.session.grades["fx.numeric"].correct is True


@pilot_test
async def test_predict_survives_a_number_past_the_largest_float(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await app.push_screen(DemoLabScreen("alibi-slopes"))
        await settle(pilot)
        await pilot.press("p")
        await settle(pilot)
        predict = app.screen
        assert isinstance(predict, PredictScreen)
        field = predict.query_one("#predict-input", Input)
        field.value = HUGE
        field.focus()
        await pilot.press("enter")
        await settle(pilot)
        assert app.is_running and app.screen is predict
        assert predict.predicted is None and not field.disabled
        assert "Not a number: write e.g. 0.5" in screen_text(app)


@settings(max_examples=300, deadline=None)
@given(st.text() | st.builds(lambda n: "9" * n, st.integers(4000, 5000)))
@example("²")
def test_the_quiz_count_is_a_number_all_or_error(text: str) -> None:
    from tui.screens.quiz.setup import parse_count

    count = parse_count(text)
    assert count is None or count == "error" or (isinstance(count, int) and count >= 1)
