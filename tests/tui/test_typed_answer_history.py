"""Answers typed to open questions are kept with their verdicts (Quiz, Study, Mock) and Browse shows the
question's history under its note: each try, where it was typed, the key points covered and the change."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from support.apps import make_app, screen_text, start_quiz
from support.pilot import pilot_test, post_keys, settle, wait_for
from textual.widgets import TextArea

from quizbank.judge import judge_answer
from quizbank.mock.planner import InterviewPlan, PlanItem
from quizbank.progress.records import PointMark
from quizbank.progress.scheduler import Rating
from tui.screens.browse import BrowseScreen
from tui.screens.mock import MockInterviewScreen
from tui.screens.study import StudyScreen

SIZE = (100, 30)
NOW = datetime(2025, 3, 10, 12, 0, tzinfo=UTC)
ANSWER = "Escaping keeps brackets literal."  # fx.literal's one key point: "Escaping keeps [b]brackets[/b]."


@pilot_test
async def test_quiz_keeps_the_typed_answer_with_its_verdict(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await start_quiz(pilot, ["fx.literal"])
        await post_keys(app, [*ANSWER, "ctrl+r"])
        await settle(pilot)
        assert screen.view.revealed
        await pilot.press("y")
        await settle(pilot)
        (typed,) = app.store.typed_answers("fx.literal")
        (judged,) = judge_answer(app.bankset.questions["fx.literal"].key_points, ANSWER)
    assert (typed.source, typed.answer, typed.covered) == ("quiz", ANSWER, 1)
    assert judged.rule.startswith("own words ")
    assert typed.points == (PointMark("covered", "covered", ANSWER, judged.rule),)


@pilot_test
async def test_study_keeps_the_typed_answer_when_the_card_is_rated(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: app.bankset is not None and app.store is not None)
        for qid in ("fx.mcq", "fx.multi", "fx.truefalse"):  # studied: fx.literal is the first new card
            app.store.review(qid, Rating.Easy, NOW - timedelta(minutes=1))
        screen = StudyScreen("fixture-rope", clock=lambda: NOW)
        await app.push_screen(screen)
        await settle(pilot)
        assert screen.view.question.id == "fx.literal"
        await post_keys(app, ["n", "o", "ctrl+r"])  # covers nothing
        await wait_for(lambda: screen.revealed)
        await settle(pilot)
        assert app.store.typed_answers() == []  # kept with the rating, not before
        await pilot.press("1")
        await wait_for(lambda: len(app.store.typed_answers()) == 1)
        (typed,) = app.store.typed_answers("fx.literal")
    assert (typed.source, typed.answer, typed.answered_at, typed.covered) == ("study", "no", NOW, 0)
    assert [(p.verdict, p.mark) for p in typed.points] == [("not_found", "not_found")]


@pilot_test
async def test_mock_keeps_the_typed_answer_at_the_reveal(env: Path) -> None:
    app = make_app(env)
    started = datetime(2026, 5, 4, 9, 30, tzinfo=UTC)
    plan = InterviewPlan(
        minutes=10, seed=1, level="standard", topics=("fixture-rope",),
        items=(PlanItem("question", "fx.literal", "fixture-rope", "concept", 4.0, None, 2, "open"),),
    )  # fmt: skip
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = MockInterviewScreen(plan, clock=lambda: 1000.0, now=lambda: started, session_id="s-typed")
        await app.push_screen(screen)
        await settle(pilot)
        screen.current.query_one("#mock-answer", TextArea).insert(ANSWER)
        await pilot.press("ctrl+r")
        await wait_for(lambda: len(app.store.typed_answers()) == 1)
        (typed,) = app.store.typed_answers("fx.literal")
    assert (typed.source, typed.answer, typed.answered_at, typed.covered) == ("mock", ANSWER, started, 1)


@pytest.mark.parametrize(
    ("lang", "lines"),
    [
        (
            "en",
            [
                "Your typed answers (2), oldest first",
                "Quiz  0/1 key points ·",
                "Study  1/1 key points ✓ (+1)",
            ],
        ),
        ("zh", ["你输入过的答案（2 次），从早到晚", "测验  要点 0/1 ·", "学习  要点 1/1 ✓ (+1)"]),
    ],
)
@pilot_test
async def test_browse_shows_how_the_explanation_changed(env: Path, lang: str, lines: list[str]) -> None:
    app = make_app(env, language=lang)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: app.bankset is not None and app.store is not None)
        app.store.record_typed_answer(
            "fx.literal", "brackets?", [PointMark("not_found", "not_found")], "quiz", NOW
        )
        app.store.record_typed_answer(
            "fx.literal", ANSWER, [PointMark("covered", "covered")], "study", NOW + timedelta(days=2)
        )
        await app.push_screen(BrowseScreen("fixture-rope", "fx.literal"))
        await settle(pilot)
        text = screen_text(app)
        for line in lines:
            assert line in text
        assert "2025-03-10 12:00 UTC" in text and "brackets?" in text and ANSWER in text
        await pilot.press("n")  # the next question has no typed answer: no history
        await settle(pilot)
        assert lines[0] not in screen_text(app)
