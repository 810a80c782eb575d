"""A number (with a unit and a tolerance): one field; the answer read back after reveal."""

from __future__ import annotations

from typing import Any

from textual.containers import Horizontal
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Input, Label, Static

from quizbank.grading import Grade
from quizbank.question_types import right_answer

from ...i18n import tr
from .base import AnswerInput, AnswerWidget, answer_widget, fmt_number

__all__ = ["NumericAnswer"]


@answer_widget("numeric")
class NumericAnswer(AnswerWidget):
    HINT_KEY = "quiz.numeric_hint"

    def build(self) -> list[Widget]:
        if self.mode == "reference":
            return []
        return [
            Horizontal(
                AnswerInput(placeholder="0.0", classes="qv-number", compact=True),
                Label("", classes="qv-unit", markup=False),
                classes="qv-numeric",
            ),
            Static("", classes="qv-input-error error", markup=False),
        ]

    def _raw(self) -> str:
        fields = list(self.query(".qv-number").results(Input))
        return fields[0].value if fields else ""

    def has_input(self) -> bool:
        return bool(self._raw().strip())

    def grade_input(self) -> Grade | None:
        try:
            return self.grade_entered(self._raw())
        except ValueError as exc:
            error = self.query_one(".qv-input-error", Static)
            error.update(tr("quiz.not_number", self.view.lang, error=str(exc)))
            error.display = True
            return None

    def render_state(self) -> None:
        for label in self.query(".qv-unit").results(Label):
            label.update(self.question.unit_in(self.view.lang))

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        for error in self.query(".qv-input-error"):
            error.display = False

    def answer_parts(self, text: Content | None) -> list[Content]:
        # the value ± tolerance and unit (none for a generated template in Browse), then the bank's text
        right = [
            Content.styled(p.text, "bold $text-success") for p in right_answer(self.question, self.view.lang)
        ]
        return right + ([text] if text is not None else [])

    def feedback_parts(self, grade: Grade) -> list[Any]:
        # the expected value is in the Answer box below; here, what was read from the input
        unit = f" {self.question.unit_in(self.view.lang)}" if self.question.unit else ""
        shown = grade.response
        parsed = grade.details.get("value")
        if isinstance(parsed, float) and fmt_number(parsed) != shown:
            shown += f" = {fmt_number(parsed)}"
        return [(f"   {tr('quiz.your_answer', self.view.lang)}: {shown}{unit}", "")]
