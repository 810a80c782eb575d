"""Fill in the blanks: one field per `{{n}}`, shown filled in the prompt as the user types."""

from __future__ import annotations

from typing import Any

from textual.containers import Horizontal
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Input, Label

from quizbank.grading import Grade
from quizbank.question_types import blank_answer, right_answer

from ...i18n import tr
from .base import AnswerInput, AnswerWidget, answer_widget

__all__ = ["ClozeAnswer"]


@answer_widget("cloze")
class ClozeAnswer(AnswerWidget):
    HINT_KEY = "quiz.cloze_hint"

    def build(self) -> list[Widget]:
        if self.mode == "reference":
            return []
        fields: list[Widget] = []
        for n in range(1, len(self.question.blanks) + 1):
            fields.append(Label(f"[{n}]", classes="qv-blank-label", markup=False))
            fields.append(AnswerInput(classes="qv-blank", id=f"blank-{n}", compact=True))
        return [Horizontal(*fields, classes="qv-blanks")]

    def _fields(self) -> list[Input]:
        return list(self.query(".qv-blank").results(Input))

    def has_input(self) -> bool:
        return any(field.value.strip() for field in self._fields())

    def grade_input(self) -> Grade | None:
        return self.grade_entered([field.value for field in self._fields()])

    def compatible_with(self, question: Any) -> bool:
        return question.type == self.question.type and len(question.blanks) == len(self.question.blanks)

    def prompt_blank(self) -> Any:
        return self._blank_content

    def next_field(self, field: Input) -> Input | None:
        """Enter moves to the next blank while some blank is still empty."""
        blanks = self._fields()
        if field in blanks:
            position = blanks.index(field)
            if position + 1 < len(blanks) and not all(b.value.strip() for b in blanks):
                return blanks[position + 1]
        return None

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        if self.view is not None:
            self.view.render_prompt()

    def _blank_answer(self, n: int) -> str:
        return blank_answer(self.question.blanks[n - 1])

    def _blank_content(self, n: int) -> Content:
        view = self.view
        inputs = self._fields()
        value = inputs[n - 1].value.strip() if 0 < n <= len(inputs) else ""
        per_blank = (view.grade.details.get("blanks") if view.grade else None) or []
        if view.revealed and n - 1 < len(per_blank):
            style = "bold $text-success" if per_blank[n - 1] else "bold $text-error strike"
            shown = value or "…"
            parts: list[Any] = [(f"⟦{n}: {shown}⟧", style)]
            if not per_blank[n - 1]:
                parts.append((f" {self._blank_answer(n)}", "bold $text-success"))
            return Content.assemble(*parts)
        if self.mode == "reference" or (view.revealed and not value):
            return Content.styled(f"⟦{self._blank_answer(n)}⟧", "bold $text-success")
        if value:
            return Content.styled(f"⟦{n}: {value}⟧", "bold $text-accent")
        return Content.styled(f"⟦{n}: ____⟧", "$text-accent")

    def answer_parts(self, text: Content | None) -> list[Content]:
        lang = self.view.lang
        parts = [text] if text is not None else []
        for part in right_answer(self.question, lang):  # each blank's answer, and what else it accepts
            assert part.blank is not None  # a cloze's parts each name their blank
            blank = self.question.blanks[part.blank - 1]
            others = [a for a in blank.accept if "\\" not in a and a != part.text]
            parts.append(
                Content.assemble(
                    (f"[{part.blank}] ", "bold"),
                    (part.text, "bold $text-success"),
                    ("   " + tr("quiz.accepts", lang, values=", ".join(others)) if others else "", "dim"),
                )
            )
        return parts
