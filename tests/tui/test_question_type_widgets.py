"""The UI half of the question-type registry (quizbank/question_types.py): every type has its answer widget
(`@answer_widget` in tui/widgets/answers) and its strings in both languages, and the widgets show the
registry's right answer. The logic half is tests/quizbank/test_question_types.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.apps import make_app, screen_text, write_fixture_bank
from support.pilot import pilot_test, settle

from quizbank.loader import load_banks
from quizbank.question_types import QUESTION_TYPES, answer_line, right_answer
from tui.i18n import STRINGS
from tui.screens.browse import BrowseScreen
from tui.widgets.answers import WIDGETS, AnswerWidget, answer_widget, answer_widget_for

MODES = ("quiz", "study", "reference")


@pytest.fixture(scope="module")
def questions(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One question of every type from the app's fixture bank, by type name."""
    folder = tmp_path_factory.mktemp("bank")
    bankset = load_banks([write_fixture_bank(folder)], include_shipped=False, include_user=False)
    return {question.type: question for question in bankset.questions.values()}


def test_every_type_has_its_widget_and_strings(questions: dict[str, Any]) -> None:
    """A type without a registered widget, a label in en and zh, or its widget's hints fails here (the
    fixture bank in tests/support/apps.py needs a question of the new type too)."""
    assert set(WIDGETS) == {kind.name for kind in QUESTION_TYPES}
    for kind in QUESTION_TYPES:
        widget = WIDGETS[kind.name]
        assert issubclass(widget, AnswerWidget), kind.name
        en, zh = STRINGS[kind.label_key]
        assert en.strip() and zh.strip() and en != zh, kind.name
        question = questions[kind.name]
        for mode in MODES:
            built = answer_widget_for(question, mode=mode, seed=1)
            assert type(built) is widget
            keys = {built.hint_key(instant) for instant in (True, False)}
            assert all(all(STRINGS.get(key, ("", ""))) for key in keys), (kind.name, mode, keys)


def test_a_widget_registers_once_for_a_known_type() -> None:
    with pytest.raises(KeyError, match="unknown question type 'essay'"):
        answer_widget("essay")
    with pytest.raises(ValueError, match="'numeric' already has its answer widget, NumericAnswer"):
        answer_widget("numeric")(type("Another", (AnswerWidget,), {}))
    assert WIDGETS["numeric"].__name__ == "NumericAnswer"


@pilot_test
async def test_the_revealed_answer_is_the_registrys(env: Path) -> None:
    """Browse shows the numeric and cloze answers as `right_answer` words them."""
    app = make_app(env)
    async with app.run_test(size=(110, 36)) as pilot:
        await settle(pilot)
        app.open_topic("fixture-alibi")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, BrowseScreen) and screen.question_id == "fx.numeric"
        numeric = screen.view.question
        assert answer_line(numeric, "en") == "0.00390625 ± 0.0001"
        assert "0.00390625 ± 0.0001" in screen_text(app)
        await pilot.press("n")
        await settle(pilot)
        assert screen.question_id == "fx.cloze"
        parts = right_answer(screen.view.question, "en")
        assert [p.line for p in parts] == ["[1] slope", "[2] logits"]
        text = screen_text(app)
        assert "[1] slope   accepts: m, the slope" in text
        assert "[2] logits   accepts: attention scores, scores" in text
