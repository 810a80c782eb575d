"""One answer widget per question type, behind the `AnswerWidget` protocol (`base.py`).

`answer_widget_for(question, mode=..., seed=...)` builds the one a `QuestionView` composes.
Adding a question type: a module here with an `AnswerWidget` subclass, and a line in `WIDGETS`.
"""

from __future__ import annotations

from typing import Any

from .base import AnswerInput, AnswerWidget, fmt_number
from .choices import ChoiceAnswer, ChoiceItem, choice_tag
from .cloze import ClozeAnswer
from .mcq import McqAnswer
from .multi import MultiAnswer
from .numeric import NumericAnswer
from .open import OpenAnswer
from .truefalse import TrueFalseAnswer

__all__ = [
    "WIDGETS",
    "AnswerInput",
    "AnswerWidget",
    "ChoiceAnswer",
    "ChoiceItem",
    "ClozeAnswer",
    "McqAnswer",
    "MultiAnswer",
    "NumericAnswer",
    "OpenAnswer",
    "TrueFalseAnswer",
    "answer_widget_for",
    "choice_tag",
    "fmt_number",
]

WIDGETS: dict[str, type[AnswerWidget]] = {
    "mcq": McqAnswer,
    "multi": MultiAnswer,
    "truefalse": TrueFalseAnswer,
    "numeric": NumericAnswer,
    "cloze": ClozeAnswer,
    "open": OpenAnswer,
}


def answer_widget_for(question: Any, *, mode: str, seed: int | None = None) -> AnswerWidget:
    """The answer widget for `question`'s type (a type without one answers like an open question)."""
    return WIDGETS.get(question.type, OpenAnswer)(question, mode=mode, seed=seed)
