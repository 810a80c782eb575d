"""Screenshots of the Quiz screens (question, multi-select feedback, summary, setup), at 100x30 and 80x24,
in English and Chinese. Fixture bank, fake demo runner, fixed seed, no store.

Update with `pytest tests/tui/test_quiz_snapshots.py --snapshot-update` after an intended change.
"""

from __future__ import annotations

from typing import Any

import pytest
from support.apps import start_quiz
from support.pilot import settle

from quizbank.grading import Grade
from quizbank.quiz_session import QuizConfig, QuizSession
from tui.screens.quiz import QuizSummaryScreen

SIZES = [(100, 30), (80, 24)]
LANGS = ["en", "zh"]
CASES = [(size, lang) for size in SIZES for lang in LANGS]
IDS = [f"{w}x{h}-{lang}" for (w, h), lang in CASES]


@pytest.mark.parametrize(("size", "lang"), CASES, ids=IDS)
def test_question_with_a_choice_made(
    snap_compare: Any, app_factory: Any, size: tuple[int, int], lang: str
) -> None:
    """A single-choice question with a choice made and not yet confirmed."""

    async def run_before(pilot: Any) -> None:
        await start_quiz(pilot, ["fx.mcq", "fx.multi"])
        await pilot.press("2")
        await settle(pilot)

    assert snap_compare(app_factory(lang), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize(("size", "lang"), CASES, ids=IDS)
def test_multi_feedback(snap_compare: Any, app_factory: Any, size: tuple[int, int], lang: str) -> None:
    """Multi-select feedback: a right pick, a missed option and a wrong pick, each marked and named."""

    async def run_before(pilot: Any) -> None:
        screen = await start_quiz(pilot, ["fx.multi", "fx.mcq"])
        view = screen.view
        right = [view.order.index(i) + 1 for i, c in enumerate(view.question.choices) if c.correct]
        wrong = [view.order.index(i) + 1 for i, c in enumerate(view.question.choices) if not c.correct]
        await pilot.press(str(right[0]), str(wrong[0]), "space")
        await settle(pilot)

    assert snap_compare(app_factory(lang), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize(("size", "lang"), CASES, ids=IDS)
def test_summary(snap_compare: Any, app_factory: Any, size: tuple[int, int], lang: str) -> None:
    """2 of 6 answered (1 right), 1 skipped, 3 never reached, 83 s from start to end."""

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        ids = ["fx.mcq", "fx.multi", "fx.truefalse", "fx.numeric", "fx.cloze", "fx.literal"]
        session = QuizSession(QuizConfig(seed=1), ids)
        session.record("fx.mcq", Grade(True, "1"))
        session.advance()
        session.record("fx.multi", Grade(False, "1,3"))
        session.advance()
        session.end()
        session.started_at, session.ended_at = 1000.0, 1083.0
        await pilot.app.push_screen(QuizSummaryScreen(session))
        await settle(pilot)

    assert snap_compare(app_factory(lang), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize(("size", "lang"), CASES, ids=IDS)
def test_setup(snap_compare: Any, app_factory: Any, size: tuple[int, int], lang: str) -> None:
    """Quiz setup with its type and status filters; focus on the first type check box."""

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        pilot.app.open_quiz_setup()
        await settle(pilot)
        pilot.app.screen.query_one("#type-multi").value = False
        pilot.app.screen.query_one("#type-mcq").focus()
        await settle(pilot)

    assert snap_compare(app_factory(lang), terminal_size=size, run_before=run_before)
