"""True or false: two fixed choices, "true" first."""

from __future__ import annotations

from typing import Any

from textual.content import Content

from quizbank.grading import Grade

from ...i18n import tr
from .base import answer_widget
from .choices import ChoiceAnswer

__all__ = ["TrueFalseAnswer"]


@answer_widget("truefalse")
class TrueFalseAnswer(ChoiceAnswer):
    HINT_KEY = "quiz.tf_hint"
    TRUE_FALSE_KEYS = True

    def prepare(self) -> None:
        super().prepare()
        self.value: bool | None = None

    def _choice_order(self) -> list[int]:
        return [0, 1]

    def compatible_with(self, question: Any) -> bool:
        return question.type == self.question.type

    def set_question(self, question: Any) -> None:
        self.question = question

    def has_input(self) -> bool:
        return self.value is not None

    def grade_input(self) -> Grade | None:
        return self.grade_entered(bool(self.value))

    def choose(self, position: int) -> bool:
        self.highlight = position
        self.value = position == 0
        return True

    def chosen_position(self) -> int | None:
        return None if self.value is None else (0 if self.value else 1)

    def _choice(self, position: int) -> tuple[Content, Content | None, bool, bool]:
        value = position == 0
        text = Content(tr("quiz.true" if value else "quiz.false", self.view.lang))
        return (
            text,
            None,
            value == bool(self.question.correct),
            self.value is not None and self.value == value,
        )
