"""Quiz and Mock setup take their topics from Home's cursor, and say so over the topic list; the user
changes them there (Space). Mock setup starts with `s` even while its minutes field has focus."""

from __future__ import annotations

from pathlib import Path

from support.apps import make_app
from support.pilot import pilot_test, settle
from textual.widgets import Input, Label, SelectionList

from tui.screens.mock import MockInterviewScreen, MockSetupScreen
from tui.screens.quiz import QuizSetupScreen


def label(app, selector: str) -> str:
    return str(app.screen.query_one(selector, Label).render())


async def _home_cursor_on_a_topic(pilot) -> None:
    """Home's cursor on the first topic (the tree opens on 'all topics')."""
    await pilot.press("down")
    await settle(pilot)


@pilot_test
async def test_quiz_setup_shows_the_topic_from_home_and_lets_it_change(env: Path) -> None:
    app = make_app(env, open_store=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await _home_cursor_on_a_topic(pilot)
        kind, topic_id = app.screen._highlighted()
        assert kind == "topic"
        title = app.bankset.topic(topic_id).title.get("en")
        await pilot.press("z")
        await settle(pilot)
        assert isinstance(app.screen, QuizSetupScreen)
        topics = app.screen.query_one("#setup-topics", SelectionList)
        assert topics.selected == [topic_id]
        total = len(app.bankset.topics)
        line = label(app, "#setup-topics-label")
        assert line == f"Topics: {title}, the topic under Home's cursor (1 of {total}; Space toggles one)"
        topics.select_all()
        await settle(pilot)
        assert label(app, "#setup-topics-label") == f"Topics: all {total} (Space toggles one)"
        await pilot.press("l")
        await settle(pilot)
        assert label(app, "#setup-topics-label") == f"主题：全部 {total} 个（空格切换）"


@pilot_test
async def test_mock_setup_shows_the_topic_and_s_starts_from_the_minutes_field(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await _home_cursor_on_a_topic(pilot)
        _kind, topic_id = app.screen._highlighted()
        await pilot.press("m")
        await settle(pilot)
        assert isinstance(app.screen, MockSetupScreen)
        assert "the topic under Home's cursor (1 of" in label(app, "#mock-topics-label")
        app.screen.query_one("#mock-topics", SelectionList).select_all()
        await settle(pilot)
        assert label(app, "#mock-topics-label").startswith("Topics: all ")
        assert isinstance(app.focused, Input) and app.focused.id == "mock-minutes"
        await pilot.press("backspace", "backspace", "1", "0", "s")  # s: start, with the field focused
        await settle(pilot)
        assert isinstance(app.screen, MockInterviewScreen), [n.message for n in app._notifications]
        assert app.screen.plan.minutes == 10
