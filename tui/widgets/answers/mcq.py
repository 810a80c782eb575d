"""Multiple choice with one right answer: a pick answers (at once when the view is instant)."""

from __future__ import annotations

from textual.content import Content

from quizbank.grading import Grade

from .base import answer_widget
from .choices import ChoiceAnswer

__all__ = ["McqAnswer"]


@answer_widget("mcq")
class McqAnswer(ChoiceAnswer):
    def prepare(self) -> None:
        super().prepare()
        self.selected: set[int] = set()  # bank indices

    def has_input(self) -> bool:
        return bool(self.selected)

    def grade_input(self) -> Grade | None:
        return self.grade_entered(self.selected)

    def choose(self, position: int) -> bool:
        self.highlight = position
        self.selected = {self.order[position]}
        return True

    def chosen_position(self) -> int | None:
        return self.order.index(next(iter(self.selected))) if self.selected else None

    def _choice(self, position: int) -> tuple[Content, Content | None, bool, bool]:
        return self._bank_choice(position, self.order[position] in self.selected)
