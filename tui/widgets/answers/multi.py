"""Multiple choice with several right answers: picks toggle; Space checks the set."""

from __future__ import annotations

from textual.content import Content

from quizbank.grading import Grade

from .base import answer_widget
from .choices import ChoiceAnswer

__all__ = ["MultiAnswer"]


@answer_widget("multi")
class MultiAnswer(ChoiceAnswer):
    HINT_KEY = "quiz.multi_hint"
    INSTANT = False
    MULTIPLE = True

    def prepare(self) -> None:
        super().prepare()
        self.selected: set[int] = set()  # bank indices

    def has_input(self) -> bool:
        return bool(self.selected)

    def grade_input(self) -> Grade | None:
        return self.grade_entered(self.selected)

    def choose(self, position: int) -> bool:
        self.highlight = position
        self.selected ^= {self.order[position]}
        return False

    def _choice(self, position: int) -> tuple[Content, Content | None, bool, bool]:
        return self._bank_choice(position, self.order[position] in self.selected)
