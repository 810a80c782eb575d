"""The one yes/no modal (`tui.screens.confirm.ConfirmScreen`) behind both questions the app asks: ending a mock
interview early (`q`) and showing a drill's model solution (`v`). `y`, or Enter on the focused yes button,
confirms; `n` and Esc go back and change nothing."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from support.apps import make_app, screen_text
from support.drills import open_drill
from support.pilot import pilot_test, settle, wait_for
from textual.widgets import Markdown

from quizbank.mock.planner import InterviewPlan, PlanItem
from tui.screens.confirm import ConfirmScreen
from tui.screens.mock import MockInterviewScreen, MockReportScreen

SIZE = (100, 30)
PLAN = InterviewPlan(
    minutes=10,
    seed=1,
    level="standard",
    topics=("fixture-rope",),
    items=(
        PlanItem("question", "fx.mcq", "fixture-rope", "concept", 3.0, None, 2, "mcq"),
        PlanItem("question", "fx.truefalse", "fixture-rope", "concept", 3.0, None, 2, "truefalse"),
    ),
)


@pytest.mark.parametrize("confirm_key", ["y", "enter"])
@pilot_test
async def test_ending_a_mock_interview_early_is_asked_by_the_confirm_screen(
    env: Path, confirm_key: str
) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = MockInterviewScreen(
            PLAN,
            clock=lambda: 1000.0,
            now=lambda: datetime(2026, 5, 4, tzinfo=UTC),
            session_id="confirm-test",
        )
        await app.push_screen(screen)
        await settle(pilot)
        for cancel in ("n", "escape"):
            await pilot.press("q")
            await settle(pilot)
            assert isinstance(app.screen, ConfirmScreen)
            text = screen_text(app)
            assert "End the interview?" in text and "Yes, end it" in text and "No, go on" in text
            await pilot.press(cancel)
            await settle(pilot)
            assert app.screen is screen and not screen.finished, cancel
        await pilot.press("q")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press(confirm_key)
        await wait_for(lambda: isinstance(app.screen, MockReportScreen), state=lambda: app.screen)
        assert screen.finished and app.screen.report["ended_early"] is True


@pytest.mark.parametrize("confirm_key", ["y", "enter"])
@pilot_test
async def test_showing_a_drill_solution_is_asked_by_the_confirm_screen(env: Path, confirm_key: str) -> None:
    app = make_app(env, language="zh")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = await open_drill(pilot, "rope-half")
        screen.attempted = True  # as after a graded attempt: the solution is behind the question only
        solution = screen.query_one("#drill-solution", Markdown)
        for cancel in ("n", "escape"):
            await pilot.press("v")
            await settle(pilot)
            assert isinstance(app.screen, ConfirmScreen)
            text = screen_text(app)
            assert "查看参考答案？" in text and "显示" in text and "暂不" in text
            await pilot.press(cancel)
            await settle(pilot)
            assert app.screen is screen and not screen.solution_shown and not solution.display, cancel
        await pilot.press("v")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press(confirm_key)
        await wait_for(lambda: app.screen is screen and solution.display, state=lambda: app.screen)
        assert screen.solution_shown
