"""Multiple choice with several right answers: picks toggle; Space checks the set."""

from __future__ import annotations

from textual.content import Content

from quizbank.grading import Grade, grade_choices

from .choices import ChoiceAnswer

__all__ = ["MultiAnswer"]


class MultiAnswer(ChoiceAnswer):
    HINT_KEY = "quiz.multi_hint"
    INSTANT = False

    def prepare(self) -> None:
        super().prepare()
        self.selected: set[int] = set()  # bank indices

    def has_input(self) -> bool:
        return bool(self.selected)

    def grade_input(self) -> Grade | None:
        return grade_choices(self.question, self.selected)

    def choose(self, position: int) -> bool:
        self.highlight = position
        self.selected ^= {self.order[position]}
        return False

    def _choice(self, position: int) -> tuple[Content, Content | None, bool, bool]:
        return self._bank_choice(position, self.order[position] in self.selected)
